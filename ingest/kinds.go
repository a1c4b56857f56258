package ingest

import (
	"path/filepath"
	"strings"
)

// kind is a supported source type.
type kind struct {
	mediaType string
	extractor string // name/version, part of the pipeline fingerprint
	extract   func([]byte) (*Extracted, error)
}

// kinds maps lower-case file extensions to their extractor. The extractor
// names must match what the extract functions set in Extracted.Extractor.
var kinds = map[string]kind{
	".txt":      {"text/plain", "text/1", ExtractText},
	".text":     {"text/plain", "text/1", ExtractText},
	".md":       {"text/markdown", "markdown/1", ExtractMarkdown},
	".markdown": {"text/markdown", "markdown/1", ExtractMarkdown},
	".html":     {"text/html", "html/1", ExtractHTML},
	".htm":      {"text/html", "html/1", ExtractHTML},
	".xhtml":    {"text/html", "html/1", ExtractHTML},
}

func kindOf(path string) (kind, bool) {
	k, ok := kinds[strings.ToLower(filepath.Ext(path))]
	return k, ok
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
