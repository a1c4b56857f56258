package match

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var noHint = Options{Hint: NoHint}

func TestFindLevels(t *testing.T) {
	tests := []struct {
		name        string
		text, quote string
		opts        Options
		want        Match
	}{
		// Offsets are code points: ü, é, 東 and 😀 count one each.
		{"exact multibyte", "Zürich café: 東京 office", "東京 office", noHint,
			Match{Level: LevelExact, Start: 13, End: 22, Count: 1}},
		{"exact astral", "note 😀 here: fine", "here: fine", noHint,
			Match{Level: LevelExact, Start: 7, End: 17, Count: 1}},
		{"exact keeps hyphen", "a well-known rule", "well-known", noHint,
			Match{Level: LevelExact, Start: 2, End: 12, Count: 1}},
		{"whitespace runs and nbsp", "Straße\u00a0\u00a0und  Zürich\ttoday", "Straße und Zürich today", noHint,
			Match{Level: LevelWhitespace, Start: 0, End: 25, Count: 1}},
		{"whitespace page break", "end of page\f\nnext page", "page next", noHint,
			Match{Level: LevelWhitespace, Start: 7, End: 17, Count: 1}},
		{"soft hyphen", "Die Infor\u00admation über", "Information über", noHint,
			Match{Level: LevelWhitespace, Start: 4, End: 21, Count: 1}},
		{"zero width", "x naïve\u200bcoöperate y", "naïvecoöperate", noHint,
			Match{Level: LevelWhitespace, Start: 2, End: 17, Count: 1}},
		{"zero width joiner and bom", "co\u200dop\ufeffer\u2060ate", "cooperate", noHint,
			Match{Level: LevelWhitespace, Start: 0, End: 12, Count: 1}},
		{"quote spaces trimmed", "Expense reports are due.", "  Expense reports ", noHint,
			Match{Level: LevelWhitespace, Start: 0, End: 15, Count: 1}},
		{"span excludes trailing soft hyphen", "word\u00ad next", "word", noHint,
			Match{Level: LevelExact, Start: 0, End: 4, Count: 1}},
		{"ligature", "Le ﬁnancement ﬂotte", "financement", noHint,
			Match{Level: LevelNormalized, Start: 3, End: 13, Count: 1}},
		{"ligature in quote", "Le financement flotte", "ﬁnancement ﬂotte", noHint,
			Match{Level: LevelNormalized, Start: 3, End: 21, Count: 1}},
		{"curly quotes", "Il dit “Borrower’s” ici", `il dit "borrower's" ici`, noHint,
			Match{Level: LevelNormalized, Start: 0, End: 23, Count: 1}},
		{"primes", "a 5′ 3″ mark", `5' 3"`, noHint,
			Match{Level: LevelNormalized, Start: 2, End: 7, Count: 1}},
		{"dashes", "Période 2020–2025 — fin", "2020-2025 - fin", noHint,
			Match{Level: LevelNormalized, Start: 8, End: 23, Count: 1}},
		{"case", "ÉTÉ À ZÜRICH", "été à zürich", noHint,
			Match{Level: LevelNormalized, Start: 0, End: 12, Count: 1}},
		{"full case folding", "STRASSE 7", "Straße 7", noHint,
			Match{Level: LevelNormalized, Start: 0, End: 9, Count: 1}},
		{"fullwidth", "ＲＡＧ－４１ ok", "RAG-41", noHint,
			Match{Level: LevelNormalized, Start: 0, End: 6, Count: 1}},
		{"hyphenated across a line", "the infor-\nmation über", "information über", noHint,
			Match{Level: LevelNormalized, Start: 4, End: 22, Count: 1}},
		{"hyphenated across a page", "Kredit-  \f  vertrag", "Kreditvertrag", noHint,
			Match{Level: LevelNormalized, Start: 0, End: 19, Count: 1}},
		{"soft hyphen at a line end", "infor\u00ad\nmation", "information", noHint,
			Match{Level: LevelNormalized, Start: 0, End: 13, Count: 1}},
		{"hyphenated quote", "information", "infor-\nmation", noHint,
			Match{Level: LevelNormalized, Start: 0, End: 11, Count: 1}},
		{"no join without a line break", "well-known", "wellknown", noHint,
			Match{Level: LevelFuzzy, Start: 0, End: 10, Distance: 1, Count: 1}},
		{"no join of a range", "2010-\n2015", "20102015", Options{Hint: NoHint, MaxDistance: 2},
			Match{Level: LevelFuzzy, Start: 0, End: 10, Distance: 2, Count: 1}},
		{"fuzzy OCR", "Expense reports must be submitted within 14 calendar days.",
			"Expense rep0rts must be submited within 14 ca1endar days", noHint,
			Match{Level: LevelFuzzy, Start: 0, End: 57, Distance: 3, Count: 1}},
		{"fuzzy multibyte", "Zürich café über alles", "Zurich cafe uber alles", Options{Hint: NoHint, MaxDistance: 3},
			Match{Level: LevelFuzzy, Start: 0, End: 22, Distance: 3, Count: 1}},
		{"fuzzy beyond the bound", "Zürich café über alles", "Zurich cafe uber alles", noHint,
			Match{Level: LevelNone}},
		{"repeated", "abc. The rate is fixed. xyz. The rate is fixed.", "The rate is fixed", noHint,
			Match{Level: LevelExact, Start: 5, End: 22, Count: 2}},
		{"overlapping", "aaaa", "aa", noHint,
			Match{Level: LevelExact, Start: 0, End: 2, Count: 3}},
		{"invalid text", "ab\xffcd\xfeé", "cd", noHint,
			Match{Level: LevelExact, Start: 3, End: 5, Count: 1}},
		{"invalid byte in quote", "ab\xffcd\xfeé", "\xffcd", noHint,
			Match{Level: LevelExact, Start: 2, End: 5, Count: 1}},
		{"invalid quote in valid text", "é", "\xa9", noHint, Match{Level: LevelNone}},
		{"not found", "abc def", "xyz", noHint, Match{Level: LevelNone}},
		{"empty quote", "abc", "", noHint, Match{Level: LevelNone}},
		{"blank quote", "a b", "  ", noHint, Match{Level: LevelNone}},
		{"empty text", "", "abc", noHint, Match{Level: LevelNone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.text, tt.quote, tt.opts)
			if got != tt.want {
				t.Errorf("Find(%q, %q) = %+v, want %+v", tt.text, tt.quote, got, tt.want)
			}
			if got.Found() {
				checkSpan(t, tt.text, tt.quote, got)
			}
		})
	}
}

// checkSpan checks what a match promises: a span in range that, folded at
// the match's level, equals the folded quote.
func checkSpan(t *testing.T, text, quote string, m Match) {
	t.Helper()
	n := utf8.RuneCountInString(text)
	if m.Start < 0 || m.Start > m.End || m.End > n {
		t.Fatalf("span [%d, %d) outside [0, %d]", m.Start, m.End, n)
	}
	span := runeSlice(text, m.Start, m.End)
	switch m.Level {
	case LevelExact:
		if span != quote {
			t.Errorf("exact span %q, want %q", span, quote)
		}
	case LevelWhitespace, LevelNormalized:
		if got, want := Fold(span, m.Level), Fold(quote, m.Level); got != want {
			t.Errorf("%s span %q folds to %q, want %q", m.Level, span, got, want)
		}
	case LevelFuzzy:
		d := levenshtein([]rune(Fold(span, LevelNormalized)), []rune(Fold(quote, LevelNormalized)))
		if d != m.Distance {
			t.Errorf("fuzzy span %q is %d edits from the quote, want Distance %d", span, d, m.Distance)
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct {
		in    string
		level Level
		want  string
	}{
		{" a \t\n b\u00a0c ", LevelWhitespace, "a b c"},
		{"in\u00adfor\u200bma\u200ct\u200di\u2060o\ufeffn", LevelWhitespace, "information"},
		{"a \u00ad b", LevelWhitespace, "a b"},
		{"ﬁ ﬂ ﬀ", LevelNormalized, "fi fl ff"},
		{"‘a’ ‚b‛ “c” „d‟", LevelNormalized, `'a' 'b' "c" "d"`},
		{"‐‑‒–—―−", LevelNormalized, "-------"},
		{"infor-\nmation infor-\r\n  mation", LevelNormalized, "information information"},
		{"x -\ny", LevelNormalized, "x - y"},
		{"ÀÉÎ ß Σ", LevelNormalized, "àéî ss σ"},
		{"e\u0301", LevelNormalized, "é"},
		{"\xff", LevelWhitespace, "\ufffd"},
		{"Mixed", LevelExact, "Mixed"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in, tt.level); got != tt.want {
			t.Errorf("Fold(%q, %s) = %q, want %q", tt.in, tt.level, got, tt.want)
		}
	}
}

func TestFindHint(t *testing.T) {
	sentence := "The Borrower shall maintain a Net Leverage Ratio not exceeding 3.25x."
	text := genText(1, 3000) + " " + sentence + " " + genText(2, 20000) + " " + sentence + " " + genText(3, 3000)
	first := strings.Index(text, sentence)
	second := first + len(sentence) + strings.Index(text[first+len(sentence):], sentence)
	first = utf8.RuneCountInString(text[:first])
	second = utf8.RuneCountInString(text[:second])
	n := utf8.RuneCountInString(sentence)
	noisy := strings.NewReplacer("Borrower", "B0rrower", "maintain", "rnaintain", "exceeding", "exceding").Replace(sentence)

	tests := []struct {
		name  string
		quote string
		opts  Options
		want  Match
	}{
		{"exact, no hint", sentence, noHint, Match{Level: LevelExact, Start: first, End: first + n, Count: 2}},
		{"exact, near the second", sentence, Options{Hint: second + 40},
			Match{Level: LevelExact, Start: second, End: second + n, Count: 1}},
		{"exact, near the first", sentence, Options{Hint: first - 100},
			Match{Level: LevelExact, Start: first, End: first + n, Count: 1}},
		{"exact, hint far from both", sentence, Options{Hint: first + 10000, Window: 100},
			Match{Level: LevelExact, Start: first, End: first + n, Count: 2}},
		{"fuzzy, no hint", noisy, noHint, Match{Level: LevelFuzzy, Start: first, End: first + n, Distance: 4, Count: 2}},
		{"fuzzy, near the second", noisy, Options{Hint: second - 500},
			Match{Level: LevelFuzzy, Start: second, End: second + n, Distance: 4, Count: 1}},
	}
	ix := NewIndex(text)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.Find(tt.quote, tt.opts)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestFindContext(t *testing.T) {
	para := "Expense reports must be submitted within 14 calendar days of travel."
	text := "Section 3. Travel. " + para + " Receipts are kept for a year.\n\n" +
		"Section 9. Training. " + para + " Courses need approval first."
	a := utf8.RuneCountInString("Section 3. Travel. ")
	b := utf8.RuneCountInString(text[:strings.LastIndex(text, para)])
	n := utf8.RuneCountInString(para)
	noisy := "Expense rep0rts must be subrnitted within 14 calendar days of travel."

	tests := []struct {
		name  string
		quote string
		opts  Options
		want  Match
	}{
		{"tie", para, noHint, Match{Level: LevelExact, Start: a, End: a + n, Count: 2}},
		{"prefix picks the second", para, Options{Hint: NoHint, Prefix: "…chapter on Section 9. Training."},
			Match{Level: LevelExact, Start: b, End: b + n, Count: 1}},
		{"suffix picks the first", para, Options{Hint: NoHint, Suffix: "Receipts are kept for a year. Later text"},
			Match{Level: LevelExact, Start: a, End: a + n, Count: 1}},
		{"context that fits neither", para, Options{Hint: NoHint, Prefix: "xyz"},
			Match{Level: LevelExact, Start: a, End: a + n, Count: 2}},
		{"normalized with prefix", strings.ToUpper(para), Options{Hint: NoHint, Prefix: "section 9. TRAINING"},
			Match{Level: LevelNormalized, Start: b, End: b + n, Count: 1}},
		{"fuzzy tie", noisy, noHint, Match{Level: LevelFuzzy, Start: a, End: a + n, Distance: 3, Count: 2}},
		{"fuzzy suffix picks the second", noisy, Options{Hint: NoHint, Suffix: "Courses need approval"},
			Match{Level: LevelFuzzy, Start: b, End: b + n, Distance: 3, Count: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(text, tt.quote, tt.opts)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestFindOCR plants 200-code-point quotes with five OCR-style errors and
// requires every one found at its place, alone, within five edits: inside a
// 2,000-code-point chunk and inside a 221,000-code-point document.
func TestFindOCR(t *testing.T) {
	for _, size := range []int{2000, 221000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			cases := ocrCases(size, 20)
			ix := NewIndex(cases[0].text)
			for i, c := range cases {
				if c.text != cases[0].text {
					ix = NewIndex(c.text)
				}
				got := ix.Find(c.quote, noHint)
				// A quote cut inside a number ("$250,0") matches the whole
				// number: a fuzzy span never cuts one.
				end := numberEnd([]rune(c.text), c.end)
				extra := end - c.end
				if got.Level != LevelFuzzy || got.Count != 1 || got.Distance > 5+extra ||
					abs(got.Start-c.start) > 2 || abs(got.End-end) > 2 {
					t.Errorf("case %d: got %+v, want fuzzy [%d, %d) distance ≤ %d, count 1", i, got, c.start, end, 5+extra)
				}
				if got.Found() {
					checkSpan(t, c.text, c.quote, got)
				}
			}
		})
	}
}

// numberEnd returns end, or the end of the number that end cuts: digits,
// and a point or comma between digits.
func numberEnd(rs []rune, end int) int {
	digit := func(i int) bool { return i >= 0 && i < len(rs) && unicode.IsDigit(rs[i]) }
	point := func(i int) bool { return i >= 0 && i < len(rs) && (rs[i] == ',' || rs[i] == '.') }
	for end < len(rs) && (digit(end-1) && digit(end) ||
		digit(end-1) && point(end) && digit(end+1) ||
		point(end-1) && digit(end-2) && digit(end)) {
		end++
	}
	return end
}

// ocrCase is a quote planted at [start, end) of text, with OCR noise.
type ocrCase struct {
	text       string
	quote      string
	start, end int
}

// ocrCases returns count planted quotes of 200 code points with 5 errors in
// texts of size code points (one text for large sizes, one per case for
// chunk-sized ones).
func ocrCases(size, count int) []ocrCase {
	var out []ocrCase
	var text string
	var rs []rune
	for i := range count {
		if i == 0 || size <= 20000 {
			text = genText(uint64(100+i), size)
			rs = []rune(text)
		}
		r := rand.New(rand.NewPCG(uint64(i), 7))
		start := r.IntN(size - 200)
		// Start and end on word boundaries, as quotes do.
		for start > 0 && rs[start-1] != ' ' {
			start--
		}
		for rs[start] == ' ' || rs[start] == '\n' {
			start++
		}
		end := start + 200
		for end < len(rs) && rs[end-1] == ' ' {
			end--
		}
		out = append(out, ocrCase{text: text, quote: ocrNoise(uint64(i), string(rs[start:end]), 5), start: start, end: end})
	}
	return out
}

// TestFuzzyDistance compares the fuzzy level with the O(n·m) dynamic
// program on random small inputs over small alphabets, where near-matches
// abound; patterns run past 64 code points to cross block boundaries.
func TestFuzzyDistance(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 42))
	alphabets := []string{"ab", "abc", "abcd", "aébc"}
	for i := range 3000 {
		alpha := []rune(alphabets[i%len(alphabets)])
		m := 1 + r.IntN(150)
		if i%3 == 0 {
			m = 1 + r.IntN(20)
		}
		n := r.IntN(400)
		p := make([]rune, m)
		for j := range p {
			p[j] = alpha[r.IntN(len(alpha))]
		}
		tx := make([]rune, n)
		for j := range tx {
			tx[j] = alpha[r.IntN(len(alpha))]
		}
		if n > m && r.IntN(2) == 0 {
			// Plant a mutated copy so distances are small.
			at := r.IntN(n - m)
			copy(tx[at:], []rune(ocrNoise(uint64(i), string(p), r.IntN(4))))
			tx = tx[:n]
		}
		k := 1 + r.IntN(m/2+1)
		got := Find(string(tx), string(p), Options{Hint: NoHint, MaxDistance: k})
		want := refDistance(p, tx)
		kk := min(k, m/2)
		switch {
		case want == 0:
			if got.Level != LevelExact || got.Distance != 0 {
				t.Fatalf("p=%q t=%q: got %+v, want an exact match", string(p), string(tx), got)
			}
		case want > kk:
			if got.Found() {
				t.Fatalf("p=%q t=%q k=%d: got %+v, want none (distance %d)", string(p), string(tx), kk, got, want)
			}
		default:
			if got.Level != LevelFuzzy || got.Distance != want {
				t.Fatalf("p=%q t=%q k=%d: got %+v, want fuzzy distance %d", string(p), string(tx), kk, got, want)
			}
		}
		if got.Found() {
			checkSpan(t, string(tx), string(p), got)
		}
	}
}

// TestScanner checks every occurrence, overlapping ones included, against a
// naive count: short needles (strings.Index), long ones (sampling), and
// periodic ones that switch the scanner to KMP.
func TestScanner(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for i := range 4000 {
		alpha := []string{"ab", "abc", "abcdefgh"}[i%3]
		s := randString(r, alpha, r.IntN(300))
		n := 1 + r.IntN(6)
		if i%2 == 0 {
			n = sampleMin + r.IntN(40)
		}
		q := randString(r, alpha, n)
		if len(s) > len(q) && r.IntN(2) == 0 {
			// Plant copies, some overlapping.
			for range 1 + r.IntN(4) {
				at := r.IntN(len(s) - len(q) + 1)
				s = s[:at] + q + s[at+len(q):]
			}
		}
		var want []int
		for i := 0; i+len(q) <= len(s); i++ {
			if s[i:i+len(q)] == q {
				want = append(want, i)
			}
		}
		sc := newScanner(s, q)
		var got []int
		for i := sc.next(); i >= 0; i = sc.next() {
			got = append(got, i)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("occurrences of %q in %q: got %v, want %v", q, s, got, want)
		}
	}
}

func randString(r *rand.Rand, alpha string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

// TestIndexConcurrent runs searches on one Index from many goroutines, as
// the verifier's per-chunk cache will (run with -race).
func TestIndexConcurrent(t *testing.T) {
	cases := ocrCases(2000, 1)
	ix := NewIndex(cases[0].text)
	want := ix.Find(cases[0].quote, noHint)
	done := make(chan Match)
	for range 8 {
		go func() { done <- ix.Find(cases[0].quote, noHint) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
}

func TestHugeQuote(t *testing.T) {
	text := genText(9, 50000)
	quote := strings.Repeat("x", MaxFuzzyLen+1)
	if got := Find(text, quote, noHint); got.Found() {
		t.Errorf("got %+v, want none", got)
	}
	// A periodic text and quote: the exact level stays linear.
	aa := strings.Repeat("a", 1<<20)
	if got := Find(aa, aa[:1<<19], noHint); got.Count != 1<<19+1 {
		t.Errorf("got count %d, want %d", got.Count, 1<<19+1)
	}
}
