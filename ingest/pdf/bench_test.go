package pdf

import (
	"os"
	"testing"
)

// BenchmarkExtractCorpus extracts every PDF of the shared corpus once per
// iteration on one goroutine and reports pages/s and MB/s of text.
func BenchmarkExtractCorpus(b *testing.B) {
	dir := corpusDir(b, "pdf")
	var srcs [][]byte
	for _, p := range pdfFiles(b, dir) {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	b.ReportAllocs()
	pages, textBytes := 0, 0
	for b.Loop() {
		for _, src := range srcs {
			_, _ = Extract(src, Limits{}, func(p Page) error {
				pages++
				textBytes += len(p.Text)
				return nil
			})
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(pages)/s, "pages/s")
	b.ReportMetric(float64(textBytes)/s/1e6, "MB/s")
	b.ReportMetric(0, "ns/op")
}
