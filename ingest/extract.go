package ingest

import "github.com/evidence-rag/evidence/store"

// Extracted is what an extractor makes of one source: the canonical text and
// its structure, every offset in code points into Text.
type Extracted struct {
	// Text is the canonical text, already normalized (see Normalize).
	Text string
	// Layout holds the page starts (PageStarts[0] == 0, one entry per page,
	// empty pages kept), optional printed page labels, and section spans
	// whose Path lists headings from the outermost to the innermost.
	Layout store.Layout
	// MediaType is the source's media type: text/plain, text/markdown, text/html.
	MediaType string
	// Extractor names the extractor and its version, e.g. "markdown/1"; it is
	// part of the pipeline fingerprint, so bump it when output changes.
	Extractor string
}
