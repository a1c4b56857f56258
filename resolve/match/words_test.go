package match

import "testing"

// TestFuzzyWordBoundaries checks that a fuzzy match whose least-distance
// place cuts a word on an edit is moved to word boundaries, with the
// distance of the span returned, and that quotes of word fragments keep
// their place.
func TestFuzzyWordBoundaries(t *testing.T) {
	policy := "Expense reports must be submitted within 14 calendar days of the end of the trip. Receipts are kept for a year."
	credit := "The Borrower shall pay the Lender a commitment fee of 1,250,000 per annum, and a margin of 3.25 per cent."
	tests := []struct {
		name, text, quote string
		want              string // the span
	}{
		// The least-distance place is "… within 14 cale" (three
		// substitutions); the word is not cut, the span ends after "14".
		{"end cuts a word", policy, "Expense reports must be submitted within 14 days", "Expense reports must be submitted within 14"},
		// "sports" is closest to "eports": the span takes the whole word.
		{"start cuts a word", policy, "sports must be submited within 14 calendar days", "reports must be submitted within 14 calendar days"},
		{"both ends", policy, "sports must be submited within 14 calendar days of the", "reports must be submitted within 14 calendar days of the"},
		// A number is never cut, even where the quote's digits match: "1,250"
		// must not come out of "1,250,000", nor "3.2" out of "3.25".
		{"number not cut", credit, "The Borrower shall pay the Lender a commitmemt fee of 1,250", "The Borrower shall pay the Lender a commitment fee of 1,250,000"},
		{"decimal not cut", credit, "per annum, and a margim of 3.2", "per annum, and a margin of 3.25"},
		{"apostrophe inside a word", "The Lender’s consent is required before any transfer.", "Lender’s consemt is required before any tramsfer", "Lender’s consent is required before any transfer"},
		// Quotes of a fragment whose edge letters match keep the fragment.
		{"fragment start kept", policy, "xpense reports must be submited within 14 calendar days", "xpense reports must be submitted within 14 calendar days"},
		{"fragment end kept", policy, "must be submited within 14 calendar da", "must be submitted within 14 calendar da"},
		// One word or an identifier: no separator, no boundary to move to.
		{"no separator", "ref KESTRELHARBORGROUP ok", "KESTRELHARBORGRXUP", "KESTRELHARBORGROUP"},
		{"no separator, cut", "ref ABCDEFGHIJKLMNOP ok", "ABCDEFGHIJKLMNOX", "ABCDEFGHIJKLMNOP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Find(tt.text, tt.quote, noHint)
			if m.Level != LevelFuzzy || m.Count != 1 {
				t.Fatalf("got %+v, want one fuzzy match", m)
			}
			if got := runeSlice(tt.text, m.Start, m.End); got != tt.want {
				t.Errorf("span %q, want %q", got, tt.want)
			}
			checkSpan(t, tt.text, tt.quote, m)
		})
	}
}

// TestFuzzyWordBoundariesOCR checks, over the planted OCR quotes, that no
// fuzzy span cuts a word unless the quote's own edge does.
func TestFuzzyWordBoundariesOCR(t *testing.T) {
	for i, c := range ocrCases(4000, 40) {
		// Cut the quote's last word in two and garble its end, so the
		// least-distance place ends inside a word on an edit.
		rs := []rune(c.quote)
		for len(rs) > 0 && wordRune(rs[len(rs)-1]) {
			rs = rs[:len(rs)-1]
		}
		quote := string(rs) + "qqq"
		m := Find(c.text, quote, noHint)
		if !m.Found() {
			continue
		}
		checkSpan(t, c.text, quote, m)
		if rs := []rune(c.text); m.Level == LevelFuzzy && m.End < len(rs) && wordRune(rs[m.End-1]) && wordRune(rs[m.End]) {
			t.Errorf("case %d: fuzzy span ends inside a word: …%q|%q…", i, string(rs[max(0, m.End-20):m.End]), string(rs[m.End:min(len(rs), m.End+10)]))
		}
	}
}

func TestInWord(t *testing.T) {
	s := "3.25x, don't 1,000 a-b 東京 end."
	var got []int
	for i := range s {
		if inWord(s, i) {
			got = append(got, i)
		}
	}
	// Inside "3.25x" (1–4), "don't" (8–11), "1,000" (14–17) and "end"
	// (31, 32); not around the hyphen, the ideographs or the final period.
	want := []int{1, 2, 3, 4, 8, 9, 10, 11, 14, 15, 16, 17, 31, 32}
	if len(got) != len(want) {
		t.Fatalf("inside a word at %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("inside a word at %v, want %v", got, want)
		}
	}
}
