package ingest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store"
)

// BenchmarkPDFCorpus ingests ../shared/corpus/pdf end to end (worker
// processes, normalization, chunking, validation, bbolt commits) with one
// worker and with one per core, and runs poppler's pdftotext over the same
// files in the same run for comparison (skipped when it is not installed:
// corpus/pdf-bench.sh installs it). Reports pages/s and MB/s of text.
func BenchmarkPDFCorpus(b *testing.B) {
	dir, ok := corpus.Shared("pdf")
	if !ok {
		b.Skip("../shared/corpus/pdf not present")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	for _, workers := range []int{1, 2} {
		b.Run("evidence/workers="+strconv.Itoa(workers), func(b *testing.B) {
			var pages, textBytes int
			for b.Loop() {
				b.StopTimer()
				db, err := store.Open(filepath.Join(b.TempDir(), "pdf.db"), nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				sum, err := Run(context.Background(), db, files, withWorker(Options{Workers: workers}))
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				pages, textBytes = 0, 0
				_ = db.View(func(tx *store.Tx) error {
					return tx.ForEachVersion(func(v *store.Version) error {
						pages += v.Pages
						textBytes += v.TextBytes
						return nil
					})
				})
				if sum.Ingested < len(files)-8 {
					b.Fatalf("only %d of %d PDFs ingested", sum.Ingested, len(files))
				}
				db.Close()
				b.StartTimer()
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(pages)/sec, "pages/s")
			b.ReportMetric(float64(textBytes)/1e6/sec, "text-MB/s")
		})
	}
	b.Run("pdftotext/1", func(b *testing.B) {
		bin, err := exec.LookPath("pdftotext")
		if err != nil {
			b.Skip("pdftotext not installed (apt-get install poppler-utils)")
		}
		var pages, textBytes int
		out := filepath.Join(b.TempDir(), "out.txt")
		for b.Loop() {
			pages, textBytes = 0, 0
			for _, f := range files {
				if exec.Command(bin, "-enc", "UTF-8", f, out).Run() != nil {
					continue
				}
				t, _ := os.ReadFile(out)
				textBytes += len(t)
				for _, c := range t {
					if c == '\f' {
						pages++
					}
				}
			}
		}
		sec := b.Elapsed().Seconds() / float64(b.N)
		b.ReportMetric(float64(pages)/sec, "pages/s")
		b.ReportMetric(float64(textBytes)/1e6/sec, "text-MB/s")
	})
}
