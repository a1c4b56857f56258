package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestSnapshot: a snapshot taken while the store is open for writing is a
// store of its own that opens read-only and holds the same records.
func TestSnapshot(t *testing.T) {
	db := storetest.Open(t)
	nv := storetest.NewVersion("doc", "One page.\fTwo pages of text to chunk.", 8)
	if _, err := db.PutVersions([]*store.NewVersion{nv}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var size int64
	if err := db.Snapshot(&buf, func(n int64) { size = n }); err != nil {
		t.Fatal(err)
	}
	if size != int64(buf.Len()) || size == 0 {
		t.Fatalf("announced %d bytes, wrote %d", size, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if findings, err := cp.Check(); err != nil || len(findings) != 0 {
		t.Fatalf("snapshot check: %v %v", findings, err)
	}
	err = cp.View(func(tx *store.Tx) error {
		v, err := tx.Version(nv.Version.ID)
		if err != nil {
			return err
		}
		c, err := tx.Chunk(v, 1)
		if err != nil {
			return err
		}
		span, err := tx.Span(v, c)
		if want := string([]rune("One page.\fTwo pages of text to chunk.")[c.Start:c.End]); err == nil && string(span) != want {
			t.Errorf("chunk 1: got %q, want %q", span, want)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLayoutCacheAfterRestore: a tombstoned version stored again reuses its
// sequence number; the layout read afterwards is the one stored last, not
// the one cached before the deletion, though of the same length.
func TestLayoutCacheAfterRestore(t *testing.T) {
	db := storetest.Open(t)
	nv := storetest.NewVersion("doc", "Page one.\fPage two.", 0)
	nv.Layout.Sections = []store.Section{{Start: 0, End: nv.Version.TextLen, Path: []string{"Original"}}}
	layoutOf := func() *store.Layout {
		var l *store.Layout
		err := db.View(func(tx *store.Tx) error {
			v, err := tx.Version(nv.Version.ID)
			if err != nil {
				return err
			}
			l, err = tx.Layout(v)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if _, err := db.PutVersions([]*store.NewVersion{nv}); err != nil {
		t.Fatal(err)
	}
	if got := layoutOf().Sections; len(got) != 1 || got[0].Path[0] != "Original" {
		t.Fatalf("sections before: %v", got)
	}
	if _, err := db.Delete("doc", ""); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond) // a later creation time
	again := storetest.NewVersion("doc", "Page one.\fPage two.", 0)
	again.Layout.Sections = []store.Section{{Start: 0, End: again.Version.TextLen, Path: []string{"Restored"}}}
	if _, err := db.PutVersions([]*store.NewVersion{again}); err != nil {
		t.Fatal(err)
	}
	if got := layoutOf().Sections; len(got) != 1 || got[0].Path[0] != "Restored" {
		t.Errorf("sections after the version was stored again: got %v, want the new layout's", got)
	}
}
