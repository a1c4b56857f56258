package main

import (
	"path/filepath"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
)

// TestImportGateExitCodes: the exit codes of the import gate, in process:
// a rejected import (really, or in a dry run) exits 3, a bad limit or
// offset origin 2, an allowed one 0.
func TestImportGateExitCodes(t *testing.T) {
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(sample, "credit-agreement-summary.txt")
	drift := filepath.Join(sample, "..", "..", "ingest", "testdata", "import", "drift-langchain.jsonl")
	db := filepath.Join(t.TempDir(), "e.db")
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"ingest", src}, exitOK},
		{[]string{"ingest", src, "--chunks", drift}, exitPartial},
		{[]string{"ingest", src, "--chunks", drift, "--dry-run"}, exitPartial},
		{[]string{"ingest", src, "--chunks", drift, "--max-quarantined", "5x"}, exitUsage},
		{[]string{"ingest", src, "--chunks", drift, "--max-quarantined", "-1"}, exitUsage},
		{[]string{"ingest", src, "--chunks", drift, "--offsets", "pages"}, exitUsage},
		{[]string{"ingest", src, "--max-quarantined", "3"}, exitUsage},
		{[]string{"ingest", src, "--chunks", drift, "--max-quarantined", "5", "--dry-run"}, exitOK},
		{[]string{"rebuild", "credit-agreement-summary.txt", "--chunks", drift}, exitPartial},
		{[]string{"rebuild", "credit-agreement-summary.txt", "--chunks", drift, "--max-quarantined", "50%"}, exitOK},
	}
	for _, tt := range tests {
		args := append([]string{"--db", db}, tt.args...)
		if tt.args[0] == "ingest" {
			args = append(args, "--id", "credit-agreement-summary.txt") // an id whatever the rule for ids from paths
		}
		code, _, errs := runCLI(t, args...)
		if code != tt.want {
			t.Errorf("%v: exit %d, want %d (%s)", tt.args, code, tt.want, errs)
		}
	}
}
