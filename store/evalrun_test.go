package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
)

func evalRuns(t *testing.T, db *store.DB) (ids []string) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEachEvalRun(func(id, _ []byte) error { ids = append(ids, string(id)); return nil })
	})
	return ids
}

// TestPutEvalRun: records are kept by id in id (time) order, written once,
// and must be JSON.
func TestPutEvalRun(t *testing.T) {
	db := openStore(t)
	for _, id := range []string{"0198b", "0198a"} {
		if err := db.PutEvalRun(id, []byte(`{"run_id":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if got := evalRuns(t, db); len(got) != 2 || got[0] != "0198a" || got[1] != "0198b" {
		t.Errorf("ForEachEvalRun: got %v, want [0198a 0198b]", got)
	}
	if err := db.PutEvalRun("0198a", []byte(`{"run_id":"0198a"}`)); err != nil {
		t.Errorf("the same record again: %v", err)
	}
	if err := db.PutEvalRun("0198a", []byte(`{"run_id":"other"}`)); err == nil {
		t.Error("another record under a stored id was accepted")
	}
	if err := db.PutEvalRun("0198c", []byte(`{not json`)); err == nil {
		t.Error("a record that is not JSON was accepted")
	}
	if err := db.PutEvalRun("", []byte(`{}`)); err == nil {
		t.Error("an empty id was accepted")
	}
	view(t, db, func(tx *store.Tx) error {
		b, err := tx.EvalRun("0198b")
		if err != nil || string(b) != `{"run_id":"0198b"}` {
			t.Errorf("EvalRun: got %s, %v", b, err)
		}
		if _, err := tx.EvalRun("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("EvalRun of an unknown id: got %v, want ErrNotFound", err)
		}
		return nil
	})
}

// TestEvalRunsBucketAdded: the committed format-1 store, written before
// the evalruns bucket existed, opens read-only with no runs and without
// being written to, and gets the bucket when it is migrated.
func TestEvalRunsBucketAdded(t *testing.T) {
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	hasBucket := func() (has bool) {
		b, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		_ = b.View(func(tx *bolt.Tx) error { has = tx.Bucket([]byte("evalruns")) != nil; return nil })
		return has
	}
	if hasBucket() {
		t.Fatal("the fixture already has an evalruns bucket")
	}
	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := evalRuns(t, ro); len(got) != 0 {
		t.Errorf("read-only: got runs %v, want none", got)
	}
	view(t, ro, func(tx *store.Tx) error {
		if _, err := tx.EvalRun("x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("EvalRun without the bucket: got %v, want ErrNotFound", err)
		}
		return nil
	})
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if hasBucket() {
		t.Fatal("a read-only open wrote the bucket")
	}
	db := openMigrated(t, path)
	if err := db.PutEvalRun("r1", []byte(`{}`)); err != nil {
		t.Fatalf("PutEvalRun after the upgrade: %v", err)
	}
	if got := evalRuns(t, db); len(got) != 1 {
		t.Errorf("got runs %v, want [r1]", got)
	}
}

// TestCheckFindsBadEvalRun: a record that is not JSON, written behind the
// store's back, is a finding of Check.
func TestCheckFindsBadEvalRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	writeBolt(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("evalruns")).Put([]byte("r1"), []byte("{half")) })
	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	findings, err := db.Check()
	if err != nil || len(findings) != 1 || findings[0].Kind != "record" {
		t.Errorf("Check: got %v, %v; want one record finding", findings, err)
	}
}
