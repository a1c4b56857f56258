package match

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Benchmarks of a 200-code-point quote, the size of a cited sentence or two,
// with five OCR-style errors for the fuzzy ones. "warm" searches an Index
// built and folded beforehand, as the verifier (one Index per cached chunk)
// and re-anchoring (one per document version) do; "cold" includes NewIndex
// and the folding of the whole text that the quote needs. The npm peer runs
// on the same inputs through corpus/approx-peer.mjs (see peer_test.go).
//
// EVIDENCE_BENCH_LARGE=1 adds adversarial periodic texts of 1 MiB, which
// show the cost staying O(n·⌈m/64⌉) where filters cannot help.

func benchFind(b *testing.B, text, quote string, opts Options, warm bool, want Level) {
	b.Helper()
	ix := NewIndex(text)
	if got := ix.Find(quote, opts); got.Level != want || (want != LevelNone && got.Count != 1) {
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "quotes/s")
}

func mode(warm bool) string {
	if warm {
		return "warm"
	}
	return "cold"
}

func BenchmarkFind(b *testing.B) {
	c := ocrCases(2000, 1)[0]
	exact := runeSlice(c.text, c.start, c.end)
	upper := strings.ToUpper(exact)
	for _, warm := range []bool{true, false} {
		b.Run("exact/2k/"+mode(warm), func(b *testing.B) { benchFind(b, c.text, exact, noHint, warm, LevelExact) })
		b.Run("normalized/2k/"+mode(warm), func(b *testing.B) { benchFind(b, c.text, upper, noHint, warm, LevelNormalized) })
		b.Run("fuzzy5/2k/"+mode(warm), func(b *testing.B) { benchFind(b, c.text, c.quote, noHint, warm, LevelFuzzy) })
	}
	big := ocrCases(221000, 1)[0]
	for _, warm := range []bool{true, false} {
		b.Run("fuzzy5/221k/"+mode(warm), func(b *testing.B) { benchFind(b, big.text, big.quote, noHint, warm, LevelFuzzy) })
	}
	// With the claimed position, as re-anchoring has it: the window around
	// the hint is searched first.
	b.Run("fuzzy5/221k/hint/warm", func(b *testing.B) {
		benchFind(b, big.text, big.quote, Options{Hint: big.start + 150}, true, LevelFuzzy)
	})
	// A quote that is nowhere: every level and filter runs to the end.
	b.Run("none/221k/warm", func(b *testing.B) {
		benchFind(b, big.text, ocrNoise(9, genText(77, 200), 5), noHint, true, LevelNone)
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

// BenchmarkIndex is the one-time cost of preparing a text: NewIndex and both
// folded levels with their maps.
func BenchmarkIndex(b *testing.B) {
	for _, size := range []int{2000, 221000} {
		text := genText(100, size)
		b.Run(fmt.Sprintf("%dk", size/1000), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				ix := NewIndex(text)
				ix.wsLevel()
				ix.normLevel()
			}
		})
	}
}

func BenchmarkAdversarial(b *testing.B) {
	if os.Getenv("EVIDENCE_BENCH_LARGE") == "" {
		b.Skip("set EVIDENCE_BENCH_LARGE=1 for the 1 MiB periodic texts")
	}
	cases := []struct{ name, text, quote string }{
		{"a-run/1000", strings.Repeat("a", 1<<20), strings.Repeat("a", 1000) + "b"},
		{"ab-run/1000", strings.Repeat("ab", 1<<19), strings.Repeat("ab", 500) + "c"},
		{"a-run/200", strings.Repeat("a", 1<<20), strings.Repeat("a", 200) + "b"},
		{"ligatures/301", strings.Repeat("ﬃ", 1<<18), strings.Repeat("ffi", 100) + "x"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ix := NewIndex(c.text)
			b.ReportAllocs()
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				ix.Find(c.quote, noHint)
			}
		})
	}
}

// BenchmarkOccurs compares the sampling scanner (occurs: the first
// occurrence of a 200-byte quote and whether another follows) with the
// same answer from strings.Index, by text size: the scanner reads one word
// in up to 64 bytes but costs a setup that strings.Index does not; occurs
// uses strings.Index below indexCutover.
func BenchmarkOccurs(b *testing.B) {
	for _, size := range []int{500, 1000, 1500, 2000, 3000, 4000, 8000, 64000, 221000} {
		text := genText(31, size)
		start := len(text) / 2
		for start > 0 && text[start-1] != ' ' {
			start--
		}
		quote := text[start : start+200]
		for _, impl := range []struct {
			name string
			f    func(s, q string) (int, bool)
		}{{"scanner", scanOccurs}, {"strings.Index", indexOccurs}, {"occurs", occurs}} {
			b.Run(fmt.Sprintf("%d/%s", size, impl.name), func(b *testing.B) {
				if i, again := impl.f(text, quote); i != start || again {
					b.Fatalf("%d %v, want %d", i, again, start)
				}
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					impl.f(text, quote)
				}
			})
		}
	}
}
