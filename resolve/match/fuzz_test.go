package match

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFind checks what Find promises on any input: no panic, a span in
// range, a span that equals the quote at the level reported, a fuzzy
// distance within the bound, and the same answer from a reused Index.
func FuzzFind(f *testing.F) {
	seeds := []struct {
		text, quote string
		hint, maxd  int
		prefix      string
	}{
		{"Zürich café: 東京 office", "東京 office", -1, 0, ""},
		{"Die Infor\u00admation über", "Information über", 3, 0, "Die"},
		{"the infor-\nmation über", "information über", -1, 0, ""},
		{"Le ﬁnancement ﬂotte", "financement", -1, 0, ""},
		{"Il dit “Borrower’s” ici", `il dit "borrower's" ici`, 0, 0, ""},
		{"Expense reports must be submitted within 14 calendar days.", "Expense rep0rts must be submited within 14 ca1endar days", -1, 0, ""},
		{"aaaa", "aa", -1, 0, ""},
		{"the  Net\n\tLeverage\u00a0Ratio shall", "Net Leverage Ratio", -1, 0, ""},
		{"a b a  b\r\nc", "a b c", -1, 0, ""},
		{"ab\xffcd\xfeé", "\xffcd", -1, 0, ""},
		{"é", "\xa9", -1, 0, ""},
		{"İstanbul ǅemal ß", "istanbul", -1, 3, ""},
		{genText(1, 600), genText(1, 600)[200:330], 180, 0, genText(1, 600)[100:200]},
		{genText(2, 3000), ocrNoise(2, genText(2, 3000)[1000:1200], 5), -1, 0, ""},
	}
	for _, s := range seeds {
		f.Add(s.text, s.quote, s.hint, s.maxd, s.prefix)
	}
	f.Fuzz(func(t *testing.T, text, quote string, hint, maxd int, prefix string) {
		if len(text) > 1<<16 || len(quote) > 1<<12 {
			return
		}
		opts := Options{Hint: hint, MaxDistance: maxd % 64, Prefix: prefix, Suffix: prefix}
		ix := NewIndex(text)
		got := ix.Find(quote, opts)
		if again := Find(text, quote, opts); again != got {
			t.Fatalf("Index.Find %+v, Find %+v", got, again)
		}
		// The whitespace level is skipped only where it cannot match.
		if wq := Fold(quote, LevelWhitespace); wq != "" && strings.Contains(ix.wsLevel().s, wq) && !ix.wsMayMatch(wq) {
			t.Fatalf("wsMayMatch(%q) false, but the folded text holds it", wq)
		}
		// Folded into reused buffers (Locate's), after they held another
		// text, the answer is the same.
		var sc scratch
		sc.reset(prefix + quote)
		sc.ix.Find(quote, opts)
		sc.reset(text)
		if pooled := sc.ix.Find(quote, opts); pooled != got {
			t.Fatalf("Index.Find %+v, in reused buffers %+v", got, pooled)
		}
		n := utf8.RuneCountInString(text)
		if got.Start < 0 || got.Start > got.End || got.End > n {
			t.Fatalf("span [%d, %d) outside [0, %d]", got.Start, got.End, n)
		}
		if !got.Found() {
			if got != (Match{Level: LevelNone}) {
				t.Fatalf("got %+v, want the zero match of level none", got)
			}
			return
		}
		if got.Count < 1 {
			t.Fatalf("count %d, want at least 1", got.Count)
		}
		span := runeSlice(text, got.Start, got.End)
		switch got.Level {
		case LevelExact:
			if span != quote {
				t.Fatalf("exact span %q, want %q", span, quote)
			}
		case LevelWhitespace, LevelNormalized:
			if a, b := Fold(span, got.Level), Fold(quote, got.Level); a != b {
				t.Fatalf("%s span %q folds to %q, quote %q to %q", got.Level, span, a, quote, b)
			}
		case LevelFuzzy:
			m := utf8.RuneCountInString(Fold(quote, LevelNormalized))
			if got.Distance < 1 || got.Distance > m/2 {
				t.Fatalf("distance %d outside [1, %d]", got.Distance, m/2)
			}
			if ascii(text) && ascii(quote) {
				d := levenshtein([]rune(Fold(span, LevelNormalized)), []rune(Fold(quote, LevelNormalized)))
				if d > got.Distance {
					t.Fatalf("fuzzy span %q is %d edits from %q, reported %d", span, d, quote, got.Distance)
				}
			}
		default:
			t.Fatalf("unknown level %q", got.Level)
		}
	})
}

func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FuzzOccurs: the sampling scanner and strings.Index give occurs the same
// answer, on either side of the size cut-over.
func FuzzOccurs(f *testing.F) {
	f.Add(genText(3, 3000), 1200, 200, 0)
	f.Add("abababababab", 2, 4, 1)
	f.Add(strings.Repeat("a", 5000), 10, 40, 7)
	f.Fuzz(func(t *testing.T, text string, at, n, rep int) {
		if len(text) > 1<<16 {
			return
		}
		// Text of either size class: the input, or repeated past the cut-over.
		if rep%2 == 1 && len(text) > 0 {
			text = strings.Repeat(text, indexCutover/len(text)+1)
		}
		at, n = clampInt(at, len(text)), clampInt(n, 300)
		q := text[at:min(len(text), at+n)]
		if q == "" {
			q = "x"
		}
		i1, a1 := scanOccurs(text, q)
		i2, a2 := indexOccurs(text, q)
		if i1 != i2 || a1 != a2 {
			t.Fatalf("scanner %d %v, strings.Index %d %v (text %d bytes, quote %q)", i1, a1, i2, a2, len(text), q)
		}
	})
}

func clampInt(i, n int) int {
	if i < 0 {
		i = -i
	}
	if i < 0 || n <= 0 {
		return 0
	}
	return i % (n + 1)
}
