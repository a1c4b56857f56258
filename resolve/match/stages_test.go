package match

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestStagesAgree checks that the staged search (pieces, streaming filter,
// exact scan of regions) returns exactly what one plain scan of the whole
// text returns: the same best distance and the same place ends.
func TestStagesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	texts := []string{
		Fold(genText(21, 30000), LevelNormalized),
		Fold(strings.Repeat("the lender shall notify the borrower. ", 800), LevelNormalized),
		randString(r, "abcd", 20000),
		Fold(strings.Repeat("Zürich café 東京 naïve ", 900), LevelNormalized),
	}
	staged, plain := new(searcher), new(searcher)
	for i := range 300 {
		text := texts[i%len(texts)]
		rs := []rune(text)
		m := 8 + r.IntN(250)
		at := r.IntN(len(rs) - m)
		quote := string(rs[at : at+m])
		switch i % 3 {
		case 0:
			quote = ocrNoise(uint64(i), quote, r.IntN(m/10+1))
		case 1:
			quote = ocrNoise(uint64(i), quote, m/8)
		}
		fq := Fold(quote, LevelNormalized)
		runes := []rune(fq)
		if len(runes) == 0 {
			continue
		}
		k := 1 + r.IntN(max(1, len(runes)/4))
		for _, sr := range []*searcher{staged, plain} {
			sr.runes = append(sr.runes[:0], runes...)
			sr.fwd.init(sr.runes, false)
		}
		bs := r.IntN(len(text) / 4)
		for bs > 0 && text[bs]&0xC0 == 0x80 {
			bs--
		}
		staged.search(text, fq, bs, len(text), k)
		plain.best, plain.ends = -1, plain.ends[:0]
		plain.scan(text, bs, len(text), k)
		if staged.best != plain.best || !slices.Equal(staged.ends, plain.ends) {
			t.Fatalf("case %d (m=%d k=%d): staged best %d ends %v, plain best %d ends %v",
				i, len(runes), k, staged.best, staged.ends, plain.best, plain.ends)
		}
	}
}

// TestFuzzyDistanceLong compares with the reference dynamic program on
// texts long enough for the pieces stage and the streaming filter.
func TestFuzzyDistanceLong(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	for i := range 120 {
		alpha := []string{"ab", "abcd", "abcdefghij"}[i%3]
		tx := []rune(randString(r, alpha, 1500+r.IntN(3000)))
		m := 20 + r.IntN(180)
		p := []rune(randString(r, alpha, m))
		if i%2 == 0 {
			at := r.IntN(len(tx) - m - 10)
			copy(tx[at:], []rune(ocrNoise(uint64(i), string(p), r.IntN(m/12+1))))
		}
		k := 1 + r.IntN(min(32, m/2))
		got := Find(string(tx), string(p), Options{Hint: NoHint, MaxDistance: k})
		want := refDistance(p, tx)
		switch {
		case want == 0:
			if got.Level != LevelExact {
				t.Fatalf("case %d: got %+v, want exact", i, got)
			}
		case want > k:
			if got.Found() {
				t.Fatalf("case %d: got %+v, want none (distance %d > %d)", i, got, want, k)
			}
		default:
			if got.Level != LevelFuzzy || got.Distance != want {
				t.Fatalf("case %d: got %+v, want fuzzy distance %d", i, got, want)
			}
			checkSpan(t, string(tx), string(p), got)
		}
	}
}

// TestScannerNearMisses feeds the sampling scanner texts where the window's
// words fit nearly everywhere but q does not, which must switch it to KMP
// and still find every occurrence.
func TestScannerNearMisses(t *testing.T) {
	unit := "abcdefghijklmnopqrstuvwxyz0123456789"
	q := strings.Repeat(unit, 4) + "!"
	s := strings.Repeat(unit, 3000)
	s = s[:50000] + q + s[50000:] + q
	var got []int
	sc := newScanner(s, q)
	for i := sc.next(); i >= 0; i = sc.next() {
		got = append(got, i)
	}
	want := []int{50000, len(s) - len(q)}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if sc.fail == nil {
		t.Errorf("scanner never switched to KMP on a near-miss text")
	}
}
