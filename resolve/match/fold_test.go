package match

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// refFold is the folding of ASCII text written from the rules, one rule at a
// time and without fast paths: hyphen joins (normalized level), case
// (normalized level), white space runs to one space, spaces at the ends
// trimmed.
func refFold(s string, norm bool) string {
	if norm {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '-' && i > 0 && unicode.IsLetter(rune(lastKept(b.String()))) {
				j, brk := i+1, false
				for j < len(s) && unicode.IsSpace(rune(s[j])) {
					brk = brk || lineBreak(rune(s[j]))
					j++
				}
				if brk && j < len(s) && unicode.IsLetter(rune(s[j])) {
					i = j - 1
					continue
				}
			}
			b.WriteByte(s[i])
		}
		s = strings.ToLower(b.String())
	}
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// lastKept returns the last byte of s, a space if s ends with white space,
// 0 if s is empty: what the folder's "last rune emitted" is.
func lastKept(s string) byte {
	if s == "" {
		return 0
	}
	c := s[len(s)-1]
	if unicode.IsSpace(rune(c)) {
		return ' '
	}
	return c
}

// TestFoldReference compares Fold, fast paths included, with refFold on
// random ASCII text rich in the bytes the rules treat specially, and checks
// the maps of the folded text: every byte of a folded text comes from a
// non-empty, increasing range of the original, and a kept character from
// itself.
func TestFoldReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	alpha := "abcdefghijABCDEFGH  --\n\t\r\f.,0123"
	for i := range 20000 {
		s := randString(r, alpha, r.IntN(60))
		if i%7 == 0 {
			s = strings.Repeat("word ", r.IntN(8)) + s + " Plain text Here"
		}
		for _, norm := range []bool{false, true} {
			level := map[bool]Level{false: LevelWhitespace, true: LevelNormalized}[norm]
			if got, want := Fold(s, level), refFold(s, norm); got != want {
				t.Fatalf("Fold(%q, %s) = %q, want %q", s, level, got, want)
			}
			f := foldText(s, norm)
			for j := range len(f.s) {
				if f.fromAt(j) >= f.toAt(j) || (j > 0 && (f.fromAt(j) <= f.fromAt(j-1) || f.toAt(j) < f.toAt(j-1))) {
					t.Fatalf("%q (%s): byte %d maps to [%d, %d) after [%d, %d)", s, level, j, f.fromAt(j), f.toAt(j), f.fromAt(max(j-1, 0)), f.toAt(max(j-1, 0)))
				}
				if c := f.s[j]; c != ' ' {
					src := s[f.fromAt(j)]
					if norm {
						src = byte(unicode.ToLower(rune(src)))
					}
					if src != c || f.toAt(j) != f.fromAt(j)+1 {
						t.Fatalf("%q (%s): byte %d %q maps to [%d, %d)", s, level, j, c, f.fromAt(j), f.toAt(j))
					}
				}
			}
		}
	}
}
