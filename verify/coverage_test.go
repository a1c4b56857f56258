package verify

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProseSentences: every sentence with the ids its markers name, the
// marker after a sentence's end included, split as UncitedSentences splits
// (a marker's text is left out, the spaces around it stay).
func TestProseSentences(t *testing.T) {
	answer := "Reports are due within 14 days [c-1]. Receipts above EUR 25 are itemized. [c-2, c-3]\n\n" +
		"Please ask finance. Taxis are allowed after 22:00 [c-9] and with equipment."
	got := ProseSentences(answer)
	type short struct {
		Text    string
		Factual bool
		Markers []string
	}
	var gs []short
	for _, s := range got {
		gs = append(gs, short{s.Text, s.Factual, s.Markers})
	}
	want := []short{
		{"Reports are due within 14 days .", true, []string{"c-1"}},
		{"Receipts above EUR 25 are itemized.", true, []string{"c-2", "c-3"}},
		{"Please ask finance.", false, []string{}},
		{"Taxis are allowed after 22:00  and with equipment.", true, []string{"c-9"}},
	}
	if d := cmp.Diff(want, gs); d != "" {
		t.Errorf("ProseSentences (-want +got):\n%s", d)
	}
	// The uncited factual sentences are those UncitedSentences reports.
	var uncited []string
	for _, s := range got {
		if s.Factual && len(s.Markers) == 0 {
			uncited = append(uncited, s.Text)
		}
	}
	var u2 []string
	for _, s := range UncitedSentences(answer) {
		u2 = append(u2, s.Text)
	}
	if d := cmp.Diff(u2, uncited); d != "" {
		t.Errorf("uncited factual sentences differ from UncitedSentences (-UncitedSentences +ProseSentences):\n%s", d)
	}
	for _, s := range got {
		if s.Start < 0 || s.End < s.Start || s.End > len([]rune(answer)) {
			t.Errorf("%q: offsets [%d, %d) out of the answer", s.Text, s.Start, s.End)
		}
	}
}
