package match

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCodePoints(t *testing.T) {
	for _, s := range []string{"", "a", "café", "東京 ☕ 😀", strings.Repeat("Zürich 東京 😀 abc", 40),
		"abcdefgh" + "é", "éééééééééé", "\u00a0\u202f\u0301x"} {
		for i := 0; i <= len(s); i++ {
			if !utf8.ValidString(s[i:]) {
				continue
			}
			if got, want := CodePoints(s[i:]), utf8.RuneCountInString(s[i:]); got != want {
				t.Errorf("CodePoints(%q) = %d, want %d", s[i:], got, want)
			}
		}
	}
}

func FuzzCodePoints(f *testing.F) {
	f.Add("Zürich 東京 😀 abc")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			if CodePoints(s) > len(s) {
				t.Fatal("more code points than bytes")
			}
			return
		}
		if got, want := CodePoints(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("CodePoints(%q) = %d, want %d", s, got, want)
		}
	})
}

func TestByteRange(t *testing.T) {
	s := "Zürich 東京 ☕ 😀 ok"
	r := []rune(s)
	for start := 0; start <= len(r)+1; start++ {
		for end := start; end <= len(r)+2; end++ {
			bs, be := ByteRange(s, start, end)
			want := string(r[min(start, len(r)):min(end, len(r))])
			if s[bs:be] != want {
				t.Fatalf("ByteRange(%d, %d) = [%d, %d) %q, want %q", start, end, bs, be, s[bs:be], want)
			}
		}
	}
}
