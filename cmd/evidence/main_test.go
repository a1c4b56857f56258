package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store/storetest"
)

func TestMain(m *testing.M) {
	// PDFs are extracted by `evidence extract-worker` child processes; in
	// tests the child is this test binary acting as evidence.
	if os.Getenv("EVIDENCE_TEST_AS_EVIDENCE") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	testscript.Main(storetest.WithPostgres(m), map[string]func(){
		"evidence": func() { os.Exit(runWith(os.Args[1:], os.Stdout, os.Stderr, testWorker)) },
	})
}

// testWorker is the PDF worker of the tests: this test binary acting as
// evidence extract-worker.
func testWorker() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "extract-worker")
	cmd.Env = append(os.Environ(), "EVIDENCE_TEST_AS_EVIDENCE=1")
	return cmd, nil
}

// TestScripts runs the testscript files in testdata/script: whole CLI
// sessions with their expected output and exit codes.
func TestScripts(t *testing.T) {
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:  filepath.Join("testdata", "script"),
		Cmds: reviewScriptCmds,
		Setup: func(env *testscript.Env) error {
			env.Setenv("SAMPLE", sample)
			env.Setenv("IMPORT", filepath.Join(filepath.Dir(sample), "..", "ingest", "testdata", "import"))
			return nil
		},
	})
}

// runCLI runs one command line in process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runWith(args, &out, &errb, testWorker)
	return code, out.String(), errb.String()
}

// TestInProcess drives the CLI in process: ingest --json's per-file report,
// resolve, chunks export, and the exit codes scripts rely on.
func TestInProcess(t *testing.T) {
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "e.db")
	code, out, errs := runCLI(t, "--db", db, "--json", "ingest", "--base", sample, sample, "--acl", "analyst@example.com")
	if code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	var sum struct {
		Files []map[string]any `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, out)
	}
	if len(sum.Files) < 4 {
		t.Fatalf("got %d files, want at least 4", len(sum.Files))
	}
	for _, f := range sum.Files {
		for _, k := range []string{"document_id", "document_version", "status", "chunks", "quarantined", "pages"} {
			if _, ok := f[k]; !ok {
				t.Errorf("ingest --json file record lacks %q: %v", k, f)
			}
		}
		if f["status"] != "ingested" {
			t.Errorf("%v: got status %v, want ingested", f["document_id"], f["status"])
		}
	}

	code, out, _ = runCLI(t, "--db", db, "chunks", "credit-agreement-summary.txt")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) < 2 {
		t.Fatalf("chunks: exit %d, %d lines", code, len(lines))
	}
	var rec struct {
		ChunkID string   `json:"chunk_id"`
		Text    string   `json:"text"`
		Start   int      `json:"source_start"`
		End     int      `json:"source_end"`
		Page    int      `json:"page_number"`
		ACL     []string `json:"acl"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Page != 3 || len(rec.ACL) != 1 {
		t.Errorf("last chunk of the 3-page text: got page %d acl %v, want page 3 and the acl", rec.Page, rec.ACL)
	}

	// resolve for the allowed principal gives the exported text; others get nothing.
	code, out, _ = runCLI(t, "--db", db, "--json", "resolve", rec.ChunkID, "--principal", "analyst@example.com")
	var r struct {
		Status string `json:"status"`
		Text   string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK || r.Status != "ok" || r.Text != rec.Text {
		t.Errorf("resolve: exit %d status %s err %v, text equal %v", code, r.Status, err, r.Text == rec.Text)
	}
	code, out, _ = runCLI(t, "--db", db, "--json", "resolve", rec.ChunkID, "--principal", "intern@example.com")
	if code != exitPartial || strings.Contains(out, rec.Text[:20]) || !strings.Contains(out, `"forbidden"`) {
		t.Errorf("resolve forbidden: exit %d, output %s", code, out)
	}
	// text of the chunk's range is the same span.
	version := rec.ChunkID[:strings.LastIndexByte(rec.ChunkID, '-')]
	code, out, _ = runCLI(t, "--db", db, "text", version, "--start", itoa(rec.Start), "--end", itoa(rec.End), "--principal", "analyst@example.com")
	if code != exitOK || out != rec.Text {
		t.Errorf("text range: exit %d, got %q, want %q", code, out, rec.Text)
	}

	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"resolve"}, exitUsage},
		{[]string{"ingest", "--chunk-size", "x", sample}, exitUsage},
		{[]string{"show", "no-such-doc"}, exitNotFound},
		{[]string{"chunk", strings.Repeat("a", 32) + "-0"}, exitNotFound},
		{[]string{"text", version, "--start", "5", "--end", "1", "--principal", "analyst@example.com"}, exitUsage},
		{[]string{"audit"}, exitOK},
	} {
		if code, _, errs := runCLI(t, append([]string{"--db", db}, tt.args...)...); code != tt.code {
			t.Errorf("%v: got exit %d (%s), want %d", tt.args, code, errs, tt.code)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLongLived: only serve re-executes itself (reexec_unix.go), whatever
// flags come before it.
func TestLongLived(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"serve"}, true},
		{[]string{"--db", "x.db", "serve", "--addr", "127.0.0.1:0"}, true},
		{[]string{"resolve", "abc"}, false},
		{[]string{"audit"}, false},
		{nil, false},
		{[]string{"no-such-command"}, false},
	} {
		if got := longLived(tt.args); got != tt.want {
			t.Errorf("longLived(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
