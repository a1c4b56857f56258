package ingest

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// Offset origins of an imported manifest (ingest --offsets).
const (
	OffsetsAuto     = "auto"     // detect per manifest
	OffsetsDocument = "document" // offsets count from the start of the canonical text
	OffsetsPage     = "page"     // offsets count from the start of the chunk's page
)

// Convention is how the offsets and page numbers of one manifest are read.
// One convention holds for every chunk of a manifest: a manifest is one
// pipeline's output, and reading each chunk the way that suits it would
// accept chunks by coincidence.
type Convention struct {
	Offsets string // OffsetsDocument or OffsetsPage
	// PageBase is the number the manifest gives the first page: 0
	// (LangChain's PDF loaders) or 1. Meaningful only when Paged.
	PageBase int
	// Paged says the manifest claims page numbers at all.
	Paged bool
	// Stripped says page-relative offsets count from the page's first
	// non-space character: PyPDFLoader strips each page's text before
	// splitting it.
	Stripped bool
}

// String is the convention as the ingest report prints it.
func (cv Convention) String() string {
	s := "offsets: " + cv.Offsets
	if cv.Stripped {
		s += " (from the first non-space character)"
	}
	if cv.Paged {
		s += ", pages from " + strconv.Itoa(cv.PageBase)
	}
	return s
}

// formatRules are the conventions each manifest shape allows, the one its
// documentation gives first (preferred on a tie). The generic shape is
// ours (docs/contract.md#units) and Haystack's split_idx_start counts from the
// document; LangChain and LlamaIndex PDF loaders make one document per
// page, but pipelines also split whole texts and set the page themselves.
var formatRules = map[string]struct {
	offsets []string
	bases   []int
}{
	FormatGeneric:    {[]string{OffsetsDocument}, []int{1}},
	FormatHaystack:   {[]string{OffsetsDocument}, []int{1}},
	FormatLangChain:  {[]string{OffsetsPage, OffsetsDocument}, []int{0, 1}},
	FormatLlamaIndex: {[]string{OffsetsPage, OffsetsDocument}, []int{1, 0}},
}

// ValidOffsets reports whether s is an --offsets value.
func ValidOffsets(s string) bool {
	return s == "" || s == OffsetsAuto || s == OffsetsDocument || s == OffsetsPage
}

// candidates lists the conventions to try for a manifest, the format's
// preferred first. forced (OffsetsDocument or OffsetsPage) leaves only
// that origin; page bases and stripping are still detected.
func candidates(format, forced string, chunks []ImportedChunk, lead []int) []Convention {
	rules, ok := formatRules[format]
	if !ok {
		rules = formatRules[FormatGeneric]
	}
	var paged, anchored bool // some chunk claims a page number; some has a page to count from
	for i := range chunks {
		paged = paged || chunks[i].HasPage
		anchored = anchored || chunks[i].HasPage || chunks[i].PageLabel != ""
	}
	offsets := rules.offsets
	switch {
	case forced == OffsetsDocument || forced == OffsetsPage:
		offsets = []string{forced}
	case !anchored:
		offsets = []string{OffsetsDocument}
	}
	bases := rules.bases
	if !paged {
		bases = bases[:1]
	}
	strip := []bool{false}
	for _, n := range lead {
		if n > 0 {
			strip = append(strip, true) // only where some page starts with white space does it matter
			break
		}
	}
	var out []Convention
	for _, o := range offsets {
		for _, b := range bases {
			for _, s := range strip {
				if s && o != OffsetsPage {
					continue
				}
				out = append(out, Convention{Offsets: o, PageBase: b, Paged: paged, Stripped: s})
			}
		}
	}
	return out
}

// detect picks the convention under which most chunks validate (then:
// under which most chunks' text is at their offsets), the format's
// preferred one on a tie. It stops at the first under which every chunk
// with offsets validates.
func detect(cands []Convention, chunks []ImportedChunk, txt store.Text, layout *store.Layout, lead []int) Convention {
	if len(cands) == 1 {
		return cands[0]
	}
	eligible := 0
	for i := range chunks {
		if chunks[i].Err == "" && chunks[i].HasStart {
			eligible++
		}
	}
	best, bestValid, bestText := cands[0], -1, -1
	for _, cv := range cands {
		valid, text := 0, 0
		for i := range chunks {
			ic := &chunks[i]
			if ic.Err != "" || !ic.HasStart {
				continue
			}
			c, q := cv.claim(ic, txt, layout, lead)
			if q != nil {
				continue
			}
			q = resolve.Validate(txt, layout, c)
			if q == nil {
				valid++
			}
			if q == nil || q.Reason != resolve.ReasonTextMismatch && q.Reason != resolve.ReasonOutOfRange {
				text++
			}
		}
		if valid > bestValid || valid == bestValid && text > bestText {
			best, bestValid, bestText = cv, valid, text
		}
		if valid == eligible {
			break
		}
	}
	return best
}

// claim turns an imported chunk into a claim in the project's units
// (docs/contract.md#units: absolute code points, pages from 1) under the
// convention. The error is set when the claimed offsets mean nothing:
// none given, or relative to a page that does not exist.
func (cv Convention) claim(ic *ImportedChunk, txt store.Text, layout *store.Layout, lead []int) (resolve.Claim, *resolve.QuarantineError) {
	c := resolve.Claim{Start: ic.Start, End: ic.End, Text: ic.Text, HasText: true, HasPage: ic.HasPage, PageLabel: ic.PageLabel,
		Section: ic.Section, HasSection: ic.HasSection}
	if ic.HasPage {
		c.Page = ic.Page - cv.PageBase + 1
	}
	// A source without printed labels shows page numbers as labels (PDF
	// viewers, pypdf's page_labels): a numeric label then claims that page.
	if c.PageLabel != "" && len(layout.PageLabels) == 0 {
		if n, err := strconv.Atoi(c.PageLabel); err == nil && n > 0 && strconv.Itoa(n) == c.PageLabel {
			switch {
			case !c.HasPage:
				c.Page, c.HasPage, c.PageLabel = n, true, ""
			case c.Page == n:
				c.PageLabel = ""
			}
		}
	}
	if !ic.HasStart {
		want := "no start offset"
		if ic.StartNotFound {
			want = "start -1: the pipeline did not find the chunk in its own text"
		}
		c.Start, c.End = 0, 0
		return c, &resolve.QuarantineError{Reason: resolve.ReasonOutOfRange, Want: want, Got: noOffsetsGot}
	}
	if cv.Offsets == OffsetsPage {
		page := c.Page
		if !c.HasPage && ic.PageLabel != "" {
			page = pageOfLabel(layout, ic.PageLabel)
		}
		if page < 1 || page > len(layout.PageStarts) {
			return c, &resolve.QuarantineError{Reason: resolve.ReasonPageMismatch,
				Want: fmt.Sprintf("offsets relative to page %d (label %q)", page, ic.PageLabel), Got: strconv.Itoa(len(layout.PageStarts)) + " pages"}
		}
		base := layout.PageStarts[page-1]
		if cv.Stripped {
			base += lead[page-1]
		}
		c.Start, c.End = ic.Start+base, ic.End+base
	}
	return c, nil
}

// noOffsetsGot is the finding of a chunk without offsets.
const noOffsetsGot = "no offsets to check (--repair locates the chunk by its text)"

// leadingSpace counts, for each page, the white space (as Python's
// str.strip sees it) before its first other character: what a loader that
// strips page text removes before counting offsets.
func leadingSpace(txt store.Text, layout *store.Layout) []int {
	starts := layout.PageStarts
	if len(starts) == 0 {
		starts = []int{0}
	}
	lead := make([]int, len(starts))
	for i, s := range starts {
		end := txt.Len()
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		b, err := txt.Slice(s, end)
		if err != nil {
			continue
		}
		for len(b) > 0 {
			r, n := utf8.DecodeRune(b)
			if r == '\f' || !pySpace(r) { // a form feed ends the page
				break
			}
			lead[i]++
			b = b[n:]
		}
	}
	return lead
}

// pySpace is Python's str.isspace for one code point.
func pySpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}
