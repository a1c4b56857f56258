package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
				sum, err := Run(context.Background(), db, []string{src}, withWorker(Options{Workers: workers}))
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

// importBench builds a generated document and a manifest of its own
// chunks, shifted by shift code points when drift is wanted.
func importBench(b *testing.B, size int) (*Extracted, store.Text, []ImportedChunk) {
	ex, err := ExtractMarkdown(corpus.Markdown(3, size))
	if err != nil {
		b.Fatal(err)
	}
	txt := store.NewText([]byte(ex.Text))
	var chunks []ImportedChunk
	for _, s := range Chunk(ex.Text, &ex.Layout, ChunkOptions{Size: 500, Overlap: 50}) {
		span, _ := txt.Slice(s.Start, s.End)
		chunks = append(chunks, ImportedChunk{Text: string(span), HasText: true, Start: s.Start, End: s.End, HasStart: true, HasEnd: true,
			Page: 1, HasPage: true})
	}
	return ex, txt, chunks
}

// BenchmarkImportValidate: imported chunks that are correct (a slice
// compare, the page and section checks, and a hash each).
func BenchmarkImportValidate(b *testing.B) {
	ex, txt, chunks := importBench(b, 1<<20)
	b.ReportAllocs()
	for b.Loop() {
		ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{})
	}
	b.ReportMetric(float64(len(chunks))*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkImportReanchor: every chunk's offsets stale by 37 code points
// and every tenth with OCR noise, re-anchored with --repair; by document size.
func BenchmarkImportReanchor(b *testing.B) {
	for _, size := range []int{64 << 10, 512 << 10, 4 << 20} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			ex, txt, chunks := importBench(b, size)
			for i := range chunks {
				chunks[i].Start += 37
				chunks[i].End += 37
				if i%10 == 0 {
					chunks[i].Text = strings.Replace(strings.Replace(chunks[i].Text, "e", "c", 2), "a", "o", 1)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				out, _ := ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{Repair: true})
				if out[len(out)/2].Repair == nil {
					b.Fatalf("chunk not repaired: %+v", out[len(out)/2].Quarantine)
				}
			}
			b.ReportMetric(float64(len(chunks))*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
