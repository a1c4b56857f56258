package store_test

import (
	"path/filepath"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestConformanceBolt runs the backend suite against the bbolt file.
func TestConformanceBolt(t *testing.T) {
	storetest.Conformance(t, func(t *testing.T) *store.DB {
		db, err := store.Open(filepath.Join(t.TempDir(), "e.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

// TestConformanceMemory runs it against the memory backend, which keeps
// the store's rules honest about what is bbolt's.
func TestConformanceMemory(t *testing.T) {
	storetest.Conformance(t, func(t *testing.T) *store.DB {
		db, err := store.NewMemory()
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}
