package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDetail checks that a batch report line says what went wrong once: no
// path, reason code, OS operation or sentinel text repeated from the
// result's fields.
func TestDetail(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.md")
	_, statErr := os.Stat(missing)
	_, readErr := readSource(missing, 100)
	tests := []struct {
		name         string
		err          error
		path, reason string
		want         string
	}{
		{"binary", &ExtractError{Path: "bad/binary.md", Reason: ReasonBinary, Err: fmt.Errorf("%w: NUL byte at byte offset 1", ErrBinary)},
			"bad/binary.md", ReasonBinary, "NUL byte at byte offset 1"},
		{"empty says it all", &ExtractError{Path: "e.txt", Reason: ReasonEmpty, Err: ErrEmpty}, "e.txt", ReasonEmpty, ""},
		{"unsupported says it all", &ExtractError{Path: "a.docx", Reason: ReasonUnsupported, Err: ErrUnsupported}, "a.docx", ReasonUnsupported, ""},
		{"stat of a missing path", statErr, missing, ReasonUnreadable, "no such file or directory"},
		{"open of a missing path", readErr, missing, ReasonUnreadable, "no such file or directory"},
		{"another file's path is kept", &ExtractError{Path: "m.jsonl", Reason: ReasonUnreadable, Err: errors.New("open m.jsonl: permission denied")},
			"a.pdf", ReasonUnreadable, "m.jsonl: permission denied"},
		{"another file's error of another reason", &ExtractError{Path: "m.jsonl", Reason: ReasonMalformed, Err: fmt.Errorf("%w: unknown shape", ErrManifest)},
			"a.pdf", ReasonMalformed, "m.jsonl: bad chunk manifest: unknown shape"},
		{"a prefix of the path is not the path", errors.New("ingest: docs/a.md: document id \"a.md\" is also given to x/a.md in this batch"), "docs", ReasonDuplicateID,
			"docs/a.md: document id \"a.md\" is also given to x/a.md in this batch"},
		{"duplicate id", errors.New("ingest: docs/a.md: document id \"a.md\" is also given to x/a.md in this batch"), "docs/a.md", ReasonDuplicateID,
			"document id \"a.md\" is also given to x/a.md in this batch"},
		{"one line", errors.New("bad\nthing"), "x", ReasonStore, "bad thing"},
	}
	for _, tt := range tests {
		if got := Detail(tt.err.Error(), tt.path, tt.reason); got != tt.want {
			t.Errorf("%s: Detail(%q) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}
