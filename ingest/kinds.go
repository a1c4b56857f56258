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
	extract   func(path string, src []byte, lim PDFLimits) (*Extracted, error)
}

// inProcess adapts an extractor of text formats, which need no limits
// beyond the source size: they run in the ingest process.
func inProcess(f func([]byte) (*Extracted, error)) func(string, []byte, PDFLimits) (*Extracted, error) {
	return func(_ string, src []byte, _ PDFLimits) (*Extracted, error) { return f(src) }
}

// kinds maps lower-case file extensions to their extractor. The extractor
// names must match what the extract functions set in Extracted.Extractor.
var kinds = map[string]kind{
	".txt":      {"text/plain", "text/1", inProcess(ExtractText)},
	".text":     {"text/plain", "text/1", inProcess(ExtractText)},
	".md":       {"text/markdown", "markdown/1", inProcess(ExtractMarkdown)},
	".markdown": {"text/markdown", "markdown/1", inProcess(ExtractMarkdown)},
	".html":     {"text/html", "html/1", inProcess(ExtractHTML)},
	".htm":      {"text/html", "html/1", inProcess(ExtractHTML)},
	".xhtml":    {"text/html", "html/1", inProcess(ExtractHTML)},
	// PDFs are extracted in a child process with wall-clock and memory limits.
	".pdf": {"application/pdf", "pdf/1", ExtractPDF},
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
