package resolve

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// Claim is what a chunk says about itself before it is trusted: its
// code-point range and optionally its text, page, page label and section.
type Claim struct {
	Start, End int    // half-open, code points into the canonical text
	Text       string // the chunk's text; checked when HasText
	HasText    bool
	Page       int // physical page, starting at 1; checked when HasPage
	HasPage    bool
	PageLabel  string // printed label; "" means not claimed
	Section    []string
	HasSection bool
}

// Validate checks a claim against the canonical text and layout of a
// version, in the order of docs/contract.md#validation-and-quarantine: range, text, page, page label,
// section. It returns nil when the claim resolves exactly.
func Validate(txt store.Text, layout *store.Layout, c Claim) *QuarantineError {
	if c.Start < 0 || c.End < c.Start || c.End > txt.Len() {
		return &QuarantineError{Reason: ReasonOutOfRange,
			Want: fmt.Sprintf("[%d, %d)", c.Start, c.End), Got: fmt.Sprintf("text of %d code points", txt.Len())}
	}
	if c.HasText {
		span, _ := txt.Slice(c.Start, c.End)
		if string(span) != c.Text {
			return &QuarantineError{Reason: ReasonTextMismatch, Want: excerpt(c.Text), Got: excerpt(string(span))}
		}
	}
	if c.HasPage {
		if got := layout.PageAt(c.Start); got != c.Page {
			return &QuarantineError{Reason: ReasonPageMismatch, Want: "page " + strconv.Itoa(c.Page), Got: "page " + strconv.Itoa(got)}
		}
	}
	if c.PageLabel != "" {
		if got := layout.PageLabel(layout.PageAt(c.Start)); got != c.PageLabel {
			return &QuarantineError{Reason: ReasonPageLabelMismatch, Want: strconv.Quote(c.PageLabel), Got: strconv.Quote(got)}
		}
	}
	if c.HasSection {
		if got := layout.SectionAt(c.Start); !slices.Equal(got, c.Section) {
			return &QuarantineError{Reason: ReasonSectionMismatch, Want: pathString(c.Section), Got: pathString(got)}
		}
	}
	return nil
}

// Record builds the chunk record for a claim that validated: coordinates
// from the layout (never from the claim), and the span's hash.
func Record(txt store.Text, layout *store.Layout, version string, ordinal uint32, start, end int) (store.Chunk, error) {
	span, err := txt.Slice(start, end)
	if err != nil {
		return store.Chunk{}, err
	}
	bs := txt.ByteOffset(start)
	p := layout.Place(start, end)
	return store.Chunk{
		Version:     version,
		Ordinal:     ordinal,
		Start:       start,
		End:         end,
		Page:        p.Page,
		PageEnd:     p.PageEnd,
		PageLabel:   p.PageLabel,
		SectionPath: p.SectionPath,
		SpanHash:    store.Hash(span),
		ByteStart:   bs,
		ByteEnd:     bs + len(span),
	}, nil
}

// excerpt shortens a text for a finding: findings are read by people.
func excerpt(s string) string {
	const max = 80
	r := []rune(s)
	if len(r) > max {
		return strconv.Quote(string(r[:max/2])+"…"+string(r[len(r)-max/2:])) + fmt.Sprintf(" (%d code points)", len(r))
	}
	return strconv.Quote(s)
}

func pathString(p []string) string {
	if len(p) == 0 {
		return "(no section)"
	}
	return strconv.Quote(strings.Join(p, " > "))
}
