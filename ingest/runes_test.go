package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/corpus"
)

func FuzzCountRunes(f *testing.F) {
	for _, s := range []string{"", "a", "é", "東京 café", strings.Repeat("ab€", 9), "\xf0\x9f\x98\x80x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		check := func(s string) {
			if got, want := countRunes(s), utf8.RuneCountInString(s); got != want {
				t.Fatalf("countRunes(%q) = %d, want %d", s, got, want)
			}
		}
		check(s)
		for i := range s { // every suffix, so that every alignment is met
			check(s[i:])
		}
	})
}

func BenchmarkCountRunes(b *testing.B) {
	s := string(corpus.Markdown(1, 1<<20))
	b.Run("countRunes", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			countRunes(s)
		}
	})
	b.Run("utf8.RuneCountInString", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			utf8.RuneCountInString(s)
		}
	})
}
