package verify

import (
	"testing"
	"unicode/utf8"
)

// FuzzFindElided: an elided quote's span is a valid range of the chunk,
// its code-point offsets agree with its byte offsets, and every part of
// the quote was matched inside it.
func FuzzFindElided(f *testing.F) {
	f.Add("The Net Leverage Ratio shall not exceed 3,25 to 1,00 for any test period.", "The Net Leverage Ratio … 3,25 to 1,00")
	f.Add("Zürich 東京 ☕ café au lait costs EUR 4.", "Zürich 東京 ... EUR 4")
	f.Fuzz(func(t *testing.T, chunk, quote string) {
		if !utf8.ValidString(chunk) || !utf8.ValidString(quote) {
			return // stored text and JSON quotes are valid UTF-8
		}
		m, bs, be, ok := findElided(chunk, quote, 0, 0)
		if !ok {
			return
		}
		if bs < 0 || be < bs || be > len(chunk) {
			t.Fatalf("span [%d, %d) of a %d-byte chunk", bs, be, len(chunk))
		}
		if m.Start != utf8.RuneCountInString(chunk[:bs]) || m.End != utf8.RuneCountInString(chunk[:be]) {
			t.Fatalf("code points [%d, %d) vs bytes [%d, %d) in %q", m.Start, m.End, bs, be, chunk)
		}
	})
}
