package resolve_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// warmStore is a store of at least 100,000 chunks, built once per process
// through the real ingest pipeline from generated Markdown.
var warmStore struct {
	once sync.Once
	db   *store.DB
	ids  []string
	err  error
}

func openWarmStore(b *testing.B) (*store.DB, []string) {
	warmStore.once.Do(func() {
		dir, err := os.MkdirTemp("", "evidence-bench-")
		if err != nil {
			warmStore.err = err
			return
		}
		src := filepath.Join(dir, "src")
		// 100 documents of 1 MB at the default 1,000-code-point chunks: ~110k chunks.
		if _, err := corpus.WriteMarkdown(src, 100, 1<<20, 1); err != nil {
			warmStore.err = err
			return
		}
		db, err := store.Open(filepath.Join(dir, "warm.db"), nil)
		if err != nil {
			warmStore.err = err
			return
		}
		if _, err := ingest.Run(context.Background(), db, []string{src}, ingest.Options{}); err != nil {
			warmStore.err = err
			return
		}
		os.RemoveAll(src)
		warmStore.db = db
		warmStore.err = db.View(func(tx *store.Tx) error {
			return tx.ForEachVersion(func(v *store.Version) error {
				return tx.ForEachChunk(v, func(c *store.Chunk) error {
					warmStore.ids = append(warmStore.ids, c.ID())
					return nil
				})
			})
		})
	})
	if warmStore.err != nil {
		b.Fatal(warmStore.err)
	}
	if len(warmStore.ids) < 100_000 {
		b.Fatalf("warm store has %d chunks, want at least 100,000", len(warmStore.ids))
	}
	return warmStore.db, warmStore.ids
}

// BenchmarkResolveChunk resolves random chunk ids in a warm store of over
// 100,000 chunks: parse id, version and document reads, ACL check, chunk
// read, span slice, BLAKE3 check, copy out. Reports median and p99.
func BenchmarkResolveChunk(b *testing.B) {
	db, ids := openWarmStore(b)
	rng := rand.New(rand.NewPCG(1, 2))
	lat := make([]time.Duration, 0, 1<<20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		id := ids[rng.IntN(len(ids))]
		t0 := time.Now()
		r, err := resolve.Chunk(db, id, "")
		lat = append(lat, time.Since(t0))
		if err != nil || r.Status != resolve.StatusOK {
			b.Fatalf("%s: %v %v", id, r, err)
		}
	}
	reportLatency(b, lat)
	b.ReportMetric(float64(len(ids)), "chunks_in_store")
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}
