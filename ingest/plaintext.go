package ingest

import (
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// ExtractText extracts a plain-text source. Its canonical text is
// Normalize(src). A form feed \f is a page break: a page starts right after
// each \f, empty pages are kept, so "a\f\fb" has three pages starting at
// code points 0, 2 and 3. Plain text has no sections.
func ExtractText(src []byte) (*Extracted, error) { return extractText(src, false) }

// extractText is ExtractText; own says the text may share src (normalize).
func extractText(src []byte, own bool) (*Extracted, error) {
	text, err := normalize(src, own)
	if err != nil {
		return nil, err
	}
	return &Extracted{
		Text:      text,
		Layout:    store.Layout{PageStarts: pageStarts(text)},
		MediaType: "text/plain",
		Extractor: "text/1",
	}, nil
}

// pageStarts returns the code-point offsets at which the pages of text
// start, one past each form feed, with 0 first.
func pageStarts(text string) []int {
	starts := []int{0}
	cp, prev := 0, 0 // code points before byte offset prev
	for {
		i := strings.IndexByte(text[prev:], '\f')
		if i < 0 {
			return starts
		}
		cp += countRunes(text[prev:prev+i]) + 1 // text is canonical: valid UTF-8
		prev += i + 1
		starts = append(starts, cp)
	}
}
