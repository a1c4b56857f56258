package store_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestCopy copies a store of versions, a tombstone, a failure and a trace
// from bbolt to memory and back to a new file: every copy answers as the
// original, audits clean, and a non-empty target is refused.
func TestCopy(t *testing.T) {
	src := storetest.Open(t)
	a := storetest.NewVersion("a.txt", "The first document, cut in chunks.", 8)
	b := storetest.NewVersion("b.txt", "The second document, to be deleted.", 8)
	for _, nv := range []*store.NewVersion{a, b} {
		if _, err := src.PutVersion(nv); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Delete("b.txt", ""); err != nil {
		t.Fatal(err)
	}
	if err := src.PutTrace("0190f3a2b4c5-copy", []byte(`{"trace_id":"0190f3a2b4c5-copy"}`)); err != nil {
		t.Fatal(err)
	}
	mem, err := store.NewMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	rep, err := store.Copy(src, mem)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Keys == 0 || rep.Buckets == 0 {
		t.Fatalf("Copy: %+v", rep)
	}
	back := storetest.OpenPath(t, filepath.Join(t.TempDir(), "back.db"), nil)
	if _, err := store.Copy(mem, back); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*store.DB{mem, back} {
		fs, err := db.Check()
		if err != nil || len(fs) > 0 {
			t.Errorf("%s: Check: %v %v", db.Path(), fs, err)
		}
		err = db.View(func(tx *store.Tx) error {
			v, err := tx.Version(a.Version.ID)
			if err != nil {
				return err
			}
			c, err := tx.Chunk(v, 1)
			if err != nil {
				return err
			}
			span, err := tx.Span(v, c)
			if err != nil {
				return err
			}
			if want, _ := a.Text.Slice(c.Start, c.End); string(span) != string(want) {
				t.Errorf("%s: chunk 1 reads %q, want %q", db.Path(), span, want)
			}
			if _, err := tx.Version(b.Version.ID); err != nil {
				return err
			}
			if _, err := tx.Trace("0190f3a2b4c5-copy"); err != nil {
				return err
			}
			d, err := tx.Document("b.txt")
			if err != nil || !d.Deleted {
				t.Errorf("%s: b.txt: %+v %v, want its tombstone", db.Path(), d, err)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s: %v", db.Path(), err)
		}
	}
	if _, err := store.Copy(src, back); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Copy into a store that holds one: %v, want a refusal", err)
	}
}

// TestUnfinishedCopyRefused: a store still marked as being copied (the
// copy stopped before its end) is refused on open.
func TestUnfinishedCopyRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "half.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Bolt().Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("copying"), []byte{1}) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := store.Open(path, &store.Options{ReadOnly: true}); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "unfinished copy") {
		t.Errorf("Open of an unfinished copy: %v, want ErrCorrupt naming it", err)
	}
}
