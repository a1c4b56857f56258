package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/verify"
)

// TestVerifyWithoutClaims: the CLI's text and JSON output of the cheaper
// contract carry the grounding and the sources, and a retrieval error is
// never accepted (exit 3).
func TestVerifyWithoutClaims(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	doc := filepath.Join(dir, "policy.md")
	if err := os.WriteFile(doc, []byte("# Expense Policy\n\nSubmit reports within 14 days, effective 2025-01-01.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "--db", db, "ingest", "--base", dir, doc); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	code, out, _ := runCLI(t, "--db", db, "chunks", "policy.md")
	var rec struct {
		ChunkID string `json:"chunk_id"`
	}
	if code != exitOK || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rec) != nil {
		t.Fatalf("chunks: exit %d: %s", code, out)
	}
	write := func(name string, req verify.Request) string {
		b, _ := json.Marshal(req)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	grounded := write("grounded.json", verify.Request{RequestID: "r1", Retrieved: []string{rec.ChunkID}})
	code, out, errs := runCLI(t, "--db", db, "verify", grounded)
	for _, want := range []string{"answer r1: ACCEPT", "\ntrace ", "grounding: grounded", `source [1] "Expense Policy": policy.md version `,
		"(current) p.1 effective 2025-01-01 file://", "#expense-policy [chunks " + rec.ChunkID + "]"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify: output lacks %q:\n%s", want, out)
		}
	}
	if code != exitOK {
		t.Errorf("verify: exit %d, want %d: %s", code, exitOK, errs)
	}

	outage := write("outage.json", verify.Request{RequestID: "r2", Retrieved: []string{rec.ChunkID}, RetrievalError: "timeout"})
	code, out, _ = runCLI(t, "--db", db, "--json", "verify", "--no-trace", outage)
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	if code != exitPartial || rep.Disposition != verify.AnswerAbstain || rep.Grounding != verify.RetrievalUnavailable || len(rep.Sources) != 1 {
		t.Errorf("outage: exit %d, %s, %s, %d sources: want exit %d, abstain, retrieval_unavailable, 1 source", code, rep.Disposition, rep.Grounding, len(rep.Sources), exitPartial)
	}
}
