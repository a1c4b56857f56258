package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestQuarantineShow checks how a quarantined chunk is shown: what it
// claimed and what was found, not the empty span, page 0 and zero hash of
// a chunk that resolves to nothing; quarantine show succeeds (showing it
// is what was asked), chunk exits 3 (nothing servable), in text and JSON.
func TestQuarantineShow(t *testing.T) {
	db := filepath.Join(t.TempDir(), "e.db")
	id := putQuarantined(t, db)
	code, out, errs := runCLI(t, "--db", db, "quarantine", "show", id)
	if code != exitOK {
		t.Fatalf("quarantine show: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"\nQUARANTINED text_mismatch\n",
		"\nclaimed   [2, 20) code points\n",
		"\n          text \"Expense reports are due weekly.\"\n",
		"\ncompared  claimed \"Expense reports are due weekly.\"\n          found   \"bmit all expense r\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("quarantine show lacks %q:\n%s", want, out)
		}
	}
	if bad := regexp.MustCompile(`span|page 0|blake3|0{16}`).FindString(out); bad != "" {
		t.Errorf("quarantine show prints %q of a chunk that has no span:\n%s", bad, out)
	}
	for _, args := range [][]string{{"chunk", id}, {"--json", "chunk", id}} {
		if code, _, errs := runCLI(t, append([]string{"--db", db}, args...)...); code != exitPartial || !strings.Contains(errs, "is quarantined: text_mismatch") {
			t.Errorf("%v: exit %d (%s), want %d", args, code, errs, exitPartial)
		}
	}
}
