package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

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
