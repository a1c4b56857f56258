package ingest

import (
	"path/filepath"
	"slices"
	"strings"
)

// kind is a supported source type.
type kind struct {
	mediaType string
	extractor string // name/version, part of the pipeline fingerprint
	// extract extracts src; own says src is the caller's alone and never
	// written again, so the text may share its bytes.
	extract func(path string, src []byte, lim PDFLimits, own bool) (*Extracted, error)
}

// inProcess adapts an extractor of text formats, which need no limits
// beyond the source size: they run in the ingest process.
func inProcess(f func([]byte, bool) (*Extracted, error)) func(string, []byte, PDFLimits, bool) (*Extracted, error) {
	return func(_ string, src []byte, _ PDFLimits, own bool) (*Extracted, error) { return f(src, own) }
}

// outOfProcess adapts an extractor that runs in a worker process: its
// text never shares src.
func outOfProcess(f func(string, []byte, PDFLimits) (*Extracted, error)) func(string, []byte, PDFLimits, bool) (*Extracted, error) {
	return func(path string, src []byte, lim PDFLimits, _ bool) (*Extracted, error) { return f(path, src, lim) }
}

// kinds maps lower-case file extensions to their extractor. The extractor
// names must match what the extract functions set in Extracted.Extractor.
var kinds = map[string]kind{
	".txt":      {"text/plain", "text/1", inProcess(extractText)},
	".text":     {"text/plain", "text/1", inProcess(extractText)},
	".md":       {"text/markdown", "markdown/1", inProcess(extractMarkdown)},
	".markdown": {"text/markdown", "markdown/1", inProcess(extractMarkdown)},
	".html":     {"text/html", "html/1", inProcess(extractHTML)},
	".htm":      {"text/html", "html/1", inProcess(extractHTML)},
	".xhtml":    {"text/html", "html/1", inProcess(extractHTML)},
	// PDFs are extracted in a child process with wall-clock and memory limits.
	".pdf": {"application/pdf", "pdf/1", outOfProcess(ExtractPDF)},
}

func kindOf(path string) (kind, bool) {
	k, ok := kinds[strings.ToLower(filepath.Ext(path))]
	return k, ok
}

// Extensions returns the file extensions that have an extractor, sorted.
func Extensions() []string {
	out := make([]string, 0, len(kinds))
	for ext := range kinds {
		out = append(out, ext)
	}
	slices.Sort(out)
	return out
}

// Supported reports whether a file's extension has an extractor.
func Supported(path string) bool {
	_, ok := kindOf(path)
	return ok
}

// ExtractorFor names the extractor (and its version) used for a path, or
// "" when unsupported. It is known before extraction, so the version id of
// unchanged bytes can be found without extracting again.
func ExtractorFor(path string) string {
	k, _ := kindOf(path)
	return k.extractor
}

// ChunkerVersion names the chunking rules; part of the pipeline fingerprint.
const ChunkerVersion = "chunk/1"
