package match

import (
	"fmt"
	"strings"
	"testing"
)

// Benchmarks of a 200-code-point quote, the size of a cited sentence or two.
// "warm" searches an Index built beforehand, as the verifier (one Index per
// cached chunk) and re-anchoring (one per document version) do; "cold"
// includes NewIndex and the folding of the text that the quote needs.

func benchFind(b *testing.B, text, quote string, opts Options, warm bool, want Level) {
	b.Helper()
	ix := NewIndex(text)
	if got := ix.Find(quote, opts); got.Level != want || got.Count != 1 {
		b.Fatalf("got %+v, want level %s, count 1", got, want)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if !warm {
			ix = NewIndex(text)
		}
		ix.Find(quote, opts)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
}

func BenchmarkFind(b *testing.B) {
	c := ocrCases(2000, 1)[0]
	exact := runeSlice(c.text, c.start, c.end)
	upper := strings.ToUpper(exact)
	for _, warm := range []bool{true, false} {
		mode := map[bool]string{true: "warm", false: "cold"}[warm]
		b.Run("exact/2k/"+mode, func(b *testing.B) { benchFind(b, c.text, exact, noHint, warm, LevelExact) })
		b.Run("normalized/2k/"+mode, func(b *testing.B) { benchFind(b, c.text, upper, noHint, warm, LevelNormalized) })
		b.Run("fuzzy5/2k/"+mode, func(b *testing.B) { benchFind(b, c.text, c.quote, noHint, warm, LevelFuzzy) })
	}
	big := ocrCases(221000, 1)[0]
	for _, warm := range []bool{true, false} {
		mode := map[bool]string{true: "warm", false: "cold"}[warm]
		b.Run("fuzzy5/221k/"+mode, func(b *testing.B) { benchFind(b, big.text, big.quote, noHint, warm, LevelFuzzy) })
	}
	// With the claimed position, as re-anchoring has it: the window around
	// the hint is searched first.
	b.Run("fuzzy5/221k/hint/warm", func(b *testing.B) {
		benchFind(b, big.text, big.quote, Options{Hint: big.start + 150}, true, LevelFuzzy)
	})
}

// BenchmarkFuzzyGrowth shows the fuzzy level's cost growing linearly with
// the text: the same kind of quote, planted in the middle, no hint.
func BenchmarkFuzzyGrowth(b *testing.B) {
	for _, size := range []int{2000, 20000, 200000, 2000000} {
		c := ocrCases(size, 1)[0]
		b.Run(fmt.Sprintf("%dk", size/1000), func(b *testing.B) {
			benchFind(b, c.text, c.quote, noHint, true, LevelFuzzy)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/cp")
		})
	}
}
