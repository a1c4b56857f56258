package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store"
)

// BenchmarkIngestMarkdown is the end-to-end batch ingest of generated
// Markdown into a bbolt file on disk: read, hash, normalize, find sections,
// chunk, validate, write (commits and fsync included). Each iteration
// ingests the whole corpus into a fresh store. EVIDENCE_BENCH_DOCS and
// EVIDENCE_BENCH_DOC_BYTES size the corpus (default 64 documents of 512 KiB).
func BenchmarkIngestMarkdown(b *testing.B) {
	docs, size := envInt("EVIDENCE_BENCH_DOCS", 64), envInt("EVIDENCE_BENCH_DOC_BYTES", 512<<10)
	src := filepath.Join(b.TempDir(), "src")
	files, err := corpus.WriteMarkdown(src, docs, size, 7)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		total += fi.Size()
	}
	for _, workers := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "bench"+strconv.Itoa(i)+".db")
				i++
				db, err := store.Open(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				sum, err := Run(context.Background(), db, []string{src}, Options{Workers: workers})
				if err != nil || sum.Ingested != docs {
					b.Fatalf("got %+v %v, want %d ingested", sum, err, docs)
				}
				b.StopTimer()
				db.Close()
				os.Remove(path)
				b.StartTimer()
			}
		})
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
