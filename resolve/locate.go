package resolve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
)

// CitationRequest names a chunk and, optionally, the part of it a
// citation points at: the code-point offsets of the part in the canonical
// text, the words quoted from it, or both (the offsets then say where to
// look for the quote first).
type CitationRequest struct {
	ChunkID     string `json:"chunk_id"`
	Quote       string `json:"quote,omitempty"`
	SourceStart *int   `json:"source_start,omitempty"` // half-open, code points into the canonical text
	SourceEnd   *int   `json:"source_end,omitempty"`
}

// ErrCitation marks a citation request that cannot be located: no chunk
// id, one offset without the other, offsets negative or inverted, a quote
// too long.
var ErrCitation = errors.New("resolve: bad citation")

// Check reports what makes the request unusable, a quote longer than
// maxQuote bytes included.
func (c *CitationRequest) Check(maxQuote int) error {
	switch {
	case strings.TrimSpace(c.ChunkID) == "":
		return fmt.Errorf("%w: missing chunk_id", ErrCitation)
	case (c.SourceStart == nil) != (c.SourceEnd == nil):
		return fmt.Errorf("%w: source_start and source_end go together", ErrCitation)
	case c.SourceStart != nil && (*c.SourceStart < 0 || *c.SourceEnd < *c.SourceStart):
		return fmt.Errorf("%w: offsets are negative or inverted", ErrCitation)
	case len(c.Quote) > maxQuote:
		return fmt.Errorf("%w: quote longer than %d bytes", ErrCitation, maxQuote)
	}
	return nil
}

// Names reports whether the request names a part of its chunk.
func (c *CitationRequest) Names() bool { return c.Quote != "" || c.SourceStart != nil }

// Located is the cited part of a served chunk, as Locate found it.
type Located struct {
	// Match is how the part was found: a quote's level (exact, whitespace,
	// normalized, fuzzy), "offsets" when only offsets were given, or
	// "none" when the quote or the offsets are not in the chunk.
	Match    string `json:"match"`
	Distance int    `json:"distance,omitempty"` // edit distance of a fuzzy match
	Elided   bool   `json:"elided,omitempty"`   // the quote left words out ("…") and matched part by part
	Reason   string `json:"reason,omitempty"`   // quote_not_found, quote_ambiguous, offsets_outside_chunk
	// The part, when found: offsets in code points of the canonical text,
	// its page and section, its text and its own deep link.
	SourceStart int       `json:"source_start"`
	SourceEnd   int       `json:"source_end"`
	PageNumber  int       `json:"page_number,omitempty"`
	PageEnd     int       `json:"page_end,omitempty"`
	PageLabel   string    `json:"page_label,omitempty"`
	SectionPath []string  `json:"section_path,omitempty"`
	Text        string    `json:"text,omitempty"`
	Link        *DeepLink `json:"link,omitempty"`
}

// Locate finds the part of the served chunk r that c names: its quote
// (the offsets, if given, say where to look first), else its offsets. A
// quote not found or found more than once, or offsets outside the chunk,
// are a Located with Reason set, not an error.
func Locate(tx *store.Tx, r *Resolution, c CitationRequest) (*Located, error) {
	start, end := 0, 0
	out := &Located{Match: "offsets"}
	switch {
	case c.Quote != "":
		hint := 0
		if c.SourceStart != nil {
			hint = max(0, *c.SourceStart-r.Start)
		}
		m, _, _ := match.Locate(r.Text, c.Quote, match.Options{Hint: hint})
		out.Match, out.Distance, out.Elided = string(m.Level), m.Distance, m.Elided
		switch {
		case !m.Found():
			out.Match, out.Reason = string(match.LevelNone), "quote_not_found"
			return out, nil
		case m.Count > 1:
			out.Reason = "quote_ambiguous"
			return out, nil
		}
		start, end = r.Start+m.Start, r.Start+m.End
	case c.SourceStart != nil:
		start, end = *c.SourceStart, *c.SourceEnd
		if start < r.Start || end > r.End {
			out.Match, out.Reason = string(match.LevelNone), "offsets_outside_chunk"
			return out, nil
		}
	default:
		start, end = r.Start, r.End
	}
	sub, err := Sub(tx, r, start, end)
	if err != nil {
		return nil, err
	}
	link, err := Links(tx, sub)
	if err != nil {
		return nil, err
	}
	out.SourceStart, out.SourceEnd, out.Text, out.Link = sub.Start, sub.End, sub.Text, link
	out.PageNumber, out.PageEnd, out.PageLabel, out.SectionPath = sub.Page, sub.PageEnd, sub.PageLabel, sub.SectionPath
	return out, nil
}
