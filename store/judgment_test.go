package store_test

import (
	"errors"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

func TestJudgmentRoundTrip(t *testing.T) {
	db := openStore(t)
	if _, ok, err := db.Judgment([]byte("k1")); ok || err != nil {
		t.Fatalf("empty store: got ok %v, err %v, want no verdict", ok, err)
	}
	if err := db.PutJudgment([]byte("k1"), []byte("verdict one")); err != nil {
		t.Fatal(err)
	}
	if err := db.PutJudgment([]byte("k1"), []byte("verdict two")); err != nil {
		t.Fatal(err)
	}
	v, ok, err := db.Judgment([]byte("k1"))
	if err != nil || !ok || string(v) != "verdict two" {
		t.Errorf("got %q, %v, %v, want the last verdict stored", v, ok, err)
	}
	if _, ok, _ := db.Judgment([]byte("k2")); ok {
		t.Errorf("k2: got a verdict, want none")
	}
}

// TestStoreWithoutJudgments: a store written before the judgments bucket
// existed still opens: read-only it reads as holding no verdict, and the
// first writable open adds the bucket.
func TestStoreWithoutJudgments(t *testing.T) {
	path := newStoreFile(t, t.TempDir())
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("judgments")) }); err != nil {
		t.Fatalf("deleting the judgments bucket: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a store without judgments: %v", err)
	}
	if _, ok, err := ro.Judgment([]byte("k")); ok || err != nil {
		t.Errorf("read-only: got ok %v, err %v, want no verdict and no error", ok, err)
	}
	if err := ro.PutJudgment([]byte("k"), []byte("v")); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("read-only put: got %v, want ErrReadOnly", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	db := storetest.OpenPath(t, path, nil)
	if err := db.PutJudgment([]byte("k"), []byte("v")); err != nil {
		t.Fatalf("writable open did not add the judgments bucket: %v", err)
	}
	if v, ok, err := db.Judgment([]byte("k")); !ok || err != nil || string(v) != "v" {
		t.Errorf("got %q, %v, %v", v, ok, err)
	}
}

// TestFormat1FixtureReadOnly: the committed format-1 fixture, made before
// the judgments bucket, opens read-only.
func TestFormat1FixtureReadOnly(t *testing.T) {
	db, err := store.Open(filepath.Join("testdata", "format1.db"), &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, ok, err := db.Judgment([]byte("k")); ok || err != nil {
		t.Errorf("got ok %v, err %v, want no verdict", ok, err)
	}
}
