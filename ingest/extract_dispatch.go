package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Extract extracts the canonical text and layout of a source, choosing the
// extractor by the extension of path (case-insensitive, see Supported):
// .txt and .text are plain text, .md and .markdown Markdown, .html, .htm and
// .xhtml HTML; a .pdf fails with ErrNoWorker (reason unreadable): PDFs are
// read in a worker process, which ExtractWith's PDFLimits names. Every
// error it returns is an *ExtractError naming path, with the reason code
// unsupported (any other extension), empty (a source, or the text
// extracted from it, of white space only), binary, invalid_utf8, or for
// PDFs encrypted, malformed, no_text, timeout, memory_limit, too_large.
func Extract(path string, src []byte) (*Extracted, error) {
	return ExtractWith(path, src, PDFLimits{})
}

// ExtractWith is Extract with the worker and limits of PDF extraction.
func ExtractWith(path string, src []byte, lim PDFLimits) (*Extracted, error) {
	return extractWith(path, src, lim, false)
}

// extractWith is ExtractWith; own says src is the caller's alone and never
// written again, so the text may share its bytes (prepare's file reads).
func extractWith(path string, src []byte, lim PDFLimits, own bool) (*Extracted, error) {
	k, ok := kindOf(path)
	if !ok {
		err := fmt.Errorf("%w %q", ErrUnsupported, filepath.Ext(path))
		if filepath.Ext(path) == "" {
			err = fmt.Errorf("%w: no file extension", ErrUnsupported)
		}
		return nil, &ExtractError{Path: path, Reason: ReasonUnsupported, Err: err}
	}
	if isBlank(src) {
		return nil, &ExtractError{Path: path, Reason: ReasonEmpty, Err: ErrEmpty}
	}
	x, err := k.extract(path, src, lim, own)
	if err != nil {
		var ee *ExtractError
		if errors.As(err, &ee) {
			ee.Path = path
			return nil, ee
		}
		return nil, &ExtractError{Path: path, Reason: reasonOf(err), Err: err}
	}
	if strings.TrimFunc(x.Text, isBlankRune) == "" {
		// e.g. an HTML page whose only content is a script
		return nil, &ExtractError{Path: path, Reason: ReasonEmpty, Err: fmt.Errorf("%w: no text extracted", ErrEmpty)}
	}
	return x, nil
}

// isBlank reports whether b holds only white space and byte order marks.
// Invalid UTF-8 is not blank: it is left to the extractor to report.
func isBlank(b []byte) bool {
	return len(bytes.TrimFunc(b, isBlankRune)) == 0
}

func isBlankRune(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }
