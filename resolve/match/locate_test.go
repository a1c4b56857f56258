package match

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func TestLocateElided(t *testing.T) {
	text := "The Net Leverage Ratio shall not exceed 3,25 to 1,00 for any test period ending on or after 2025-03-31."
	tests := []struct {
		quote string
		ok    bool
		level Level
	}{
		{"The Net Leverage Ratio … 3,25 to 1,00", true, LevelExact},
		{"The Net Leverage Ratio [...] on or after 2025-03-31", true, LevelExact},
		{"the net leverage ratio ... ON OR AFTER", true, LevelNormalized},
		{"on or after 2025-03-31 … The Net Leverage Ratio", false, ""}, // out of order
		{"The … of", false, ""},                              // parts that say nothing
		{"The Net Leverage Ratio … 4,00 to 1,00", false, ""}, // a part that is not there
	}
	for _, tt := range tests {
		m, bs, be, ok := LocateElided(text, tt.quote, Options{Hint: NoHint})
		if ok != tt.ok || ok && (m.Level != tt.level || !m.Elided || text[bs:be] == "") {
			t.Errorf("LocateElided(%q) = %+v [%d, %d) %v, want ok %v at %s", tt.quote, m, bs, be, ok, tt.ok, tt.level)
		}
	}
	// Locate falls back to it, and not for a quote without marks.
	if m, _, _ := Locate(text, "The Net Leverage Ratio … 3,25 to 1,00", Options{}); !m.Elided || m.Start != 0 {
		t.Errorf("Locate of an elided quote: %+v", m)
	}
	if m, _, _ := Locate(text, "shall never exceed 3.5", Options{}); m.Found() {
		t.Errorf("Locate of an absent quote: %+v", m)
	}
}

// TestElidedGaps: the gaps are the words between the parts, in order, and
// there are none for a quote that does not match part by part.
func TestElidedGaps(t *testing.T) {
	text := "The Net Leverage Ratio shall not exceed 3,25 to 1,00 for any test period ending on or after 2025-03-31."
	gaps := ElidedGaps(text, "The Net Leverage Ratio … 3,25 to 1,00 [...] on or after 2025-03-31", Options{Hint: NoHint})
	var left []string
	for _, g := range gaps {
		left = append(left, text[g[0]:g[1]])
	}
	if want := []string{" shall not exceed ", " for any test period ending "}; !slices.Equal(left, want) {
		t.Errorf("gaps %q, want %q", left, want)
	}
	if g := ElidedGaps(text, "The Net Leverage Ratio … 4,00 to 1,00", Options{Hint: NoHint}); g != nil {
		t.Errorf("gaps of a quote that is not there: %v", g)
	}
}

// FuzzLocateElided: an elided quote's span is a valid range of the text,
// and its code-point offsets agree with its byte offsets.
func FuzzLocateElided(f *testing.F) {
	f.Add("The Net Leverage Ratio shall not exceed 3,25 to 1,00 for any test period.", "The Net Leverage Ratio … 3,25 to 1,00")
	f.Add("Zürich 東京 ☕ café au lait costs EUR 4.", "Zürich 東京 ... EUR 4")
	f.Fuzz(func(t *testing.T, text, quote string) {
		if !utf8.ValidString(text) || !utf8.ValidString(quote) {
			return // stored text and JSON quotes are valid UTF-8
		}
		m, bs, be := Locate(text, quote, Options{Hint: NoHint})
		if !m.Found() {
			return
		}
		if bs < 0 || be < bs || be > len(text) {
			t.Fatalf("span [%d, %d) of a %d-byte text", bs, be, len(text))
		}
		if m.Start != utf8.RuneCountInString(text[:bs]) || m.End != utf8.RuneCountInString(text[:be]) {
			t.Fatalf("code points [%d, %d) vs bytes [%d, %d) in %q", m.Start, m.End, bs, be, text)
		}
		// The verifier asks for the gaps of the span it was given.
		if m.Elided {
			at := 0
			for _, g := range ElidedGaps(text[bs:be], quote, Options{Hint: NoHint}) {
				if g[0] < at || g[1] < g[0] || g[1] > be-bs {
					t.Fatalf("gap %v after %d in a %d-byte span", g, at, be-bs)
				}
				at = g[1]
			}
		}
	})
}
