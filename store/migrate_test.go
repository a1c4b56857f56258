package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
)

// copyFixture copies the kept store of format 1 to a temporary file.
func copyFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "format1.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOlderFormatWritableRefused: a writable open of a format-1 store is
// refused with ErrFormat naming `evidence migrate`, and writes nothing; a
// read-only open reads it.
func TestOlderFormatWritableRefused(t *testing.T) {
	path := copyFixture(t)
	before, _ := os.ReadFile(path)
	_, err := store.Open(path, nil)
	if !errors.Is(err, store.ErrFormat) || !strings.Contains(err.Error(), "evidence migrate --db "+path) {
		t.Fatalf("writable open of format 1: got %v, want ErrFormat naming evidence migrate", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the refused open changed the file")
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of format 1: %v", err)
	}
	db.Close()
}

// TestEarlyFormat1Refused: a store of a development build of format 1,
// from before the traces (or repaired) bucket, is refused as a format this
// build does not read, not as damage; with a bucket this build does not
// know beside the missing one it is damage (a damaged bucket name).
func TestEarlyFormat1Refused(t *testing.T) {
	for _, missing := range []string{"traces", "repaired"} {
		path := copyFixture(t)
		writeBolt(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(missing)) })
		for _, opts := range []*store.Options{nil, {ReadOnly: true}} {
			_, err := store.Open(path, opts)
			if !errors.Is(err, store.ErrFormat) || errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "development build") {
				t.Errorf("no %s bucket, %+v: got %v, want ErrFormat (a development build)", missing, opts, err)
			}
		}
		if _, err := store.Migrate(path, nil); !errors.Is(err, store.ErrFormat) {
			t.Errorf("Migrate without a %s bucket: got %v, want ErrFormat", missing, err)
		}
		writeBolt(t, path, func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("tracez")); return err })
		if _, err := store.Open(path, &store.Options{ReadOnly: true}); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("no %s bucket and an unknown one: got %v, want ErrCorrupt", missing, err)
		}
	}
}

// TestMigrateRefusesDamage: a format-1 store with a finding is not
// migrated (sealing damaged records would pass them off as sound), and is
// left as it was.
func TestMigrateRefusesDamage(t *testing.T) {
	path := copyFixture(t)
	writeBolt(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("failures")).Put([]byte("gamma.pdf"), []byte(`{"path":"in/gamma.pdf"`))
	})
	before, _ := os.ReadFile(path)
	if _, err := store.Migrate(path, nil); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Migrate of a damaged store: got %v, want ErrCorrupt", err)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Error("the refused migration changed the file")
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var format []byte
	_ = db.Bolt().View(func(tx *bolt.Tx) error {
		format = append(format, tx.Bucket([]byte("meta")).Get([]byte("format"))...)
		return nil
	})
	if string(format) != "\x00\x00\x00\x01" {
		t.Errorf("format after the refused migration: %x, want 1", format)
	}
}

// TestMigrateTwice: a second migration finds nothing to do.
func TestMigrateTwice(t *testing.T) {
	path := copyFixture(t)
	if _, err := store.Migrate(path, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := store.Migrate(path, nil)
	if err != nil || rep.From != store.FormatVersion || rep.To != store.FormatVersion || rep.Texts != 0 || len(rep.Sealed) != 0 {
		t.Errorf("second Migrate: %+v, %v; want nothing done", rep, err)
	}
}
