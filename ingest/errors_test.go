package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDetail checks that a batch result's error says what went wrong once:
// no path, reason code or sentinel text repeated from the result's fields.
func TestDetail(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.md")
	_, statErr := os.Stat(missing)
	_, readErr := readSource(missing, 100)
	bin := &ExtractError{Path: "bad/binary.md", Reason: ReasonBinary, Err: fmt.Errorf("%w: NUL byte at byte offset 1", ErrBinary)}
	tests := []struct {
		name string
		err  error
		path string
		want string
	}{
		{"binary", bin, "bad/binary.md", "NUL byte at byte offset 1"},
		{"empty says it all", &ExtractError{Path: "e.txt", Reason: ReasonEmpty, Err: ErrEmpty}, "e.txt", ""},
		{"stat of a missing path", statErr, missing, "no such file or directory"},
		{"open of a missing path", readErr, missing, "no such file or directory"},
		{"another file's path is kept", &ExtractError{Path: "m.jsonl", Reason: ReasonUnreadable, Err: errors.New("open m.jsonl: permission denied")}, "a.pdf", "m.jsonl: open m.jsonl: permission denied"},
		{"a path prefix is not the path", errors.New("ingest: docs/a.md: document id \"a.md\" is also given to docs2/a.md in this batch"), "docs",
			"docs/a.md: document id \"a.md\" is also given to docs2/a.md in this batch"},
		{"duplicate id", errors.New("ingest: docs/a.md: document id \"a.md\" is also given to x/a.md in this batch"), "docs/a.md",
			"document id \"a.md\" is also given to x/a.md in this batch"},
		{"one line", errors.New("bad\nthing"), "x", "bad thing"},
	}
	for _, tt := range tests {
		if got := Detail(tt.err, tt.path); got != tt.want {
			t.Errorf("%s: Detail(%q) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}
