package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// documentOf returns a stored document, or nil.
func documentOf(t *testing.T, db *store.DB, id string) *store.Document {
	t.Helper()
	var d *store.Document
	_ = db.View(func(tx *store.Tx) error {
		d, _ = tx.Document(id)
		return nil
	})
	return d
}

// TestIngestThroughServer: ingest --server plans the files by the local
// rules (walks, hidden and unsupported files, ids relative to --base) and
// uploads each to the running server, imports with their manifest, with
// the local report and exit codes; the server's own settings are refused.
func TestIngestThroughServer(t *testing.T) {
	e := newTestEnv(t, true)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/one.md":       "# One\n\nThe first document says one thing.\n",
		"docs/sub/two.txt":  "The second document says another.\n",
		"docs/.hidden.md":   "# Hidden\n",
		"docs/program.exe":  "MZ",
		"docs/notes/big.md": "# Big\n\n" + strings.Repeat("word ", 60<<10),
	})
	t.Setenv("EVIDENCE_TOKEN", serviceToken)
	docs := filepath.Join(dir, "docs")
	code, out, errs := runCLI(t, "ingest", "--server", e.ts.URL, "--base", dir, docs, "--acl", "analyst@example.com")
	// big.md is over the test server's --max-upload: it fails, the rest is stored.
	if code != exitPartial {
		t.Fatalf("ingest --server: exit %d, want %d:\n%s\n%s", code, exitPartial, out, errs)
	}
	for _, want := range []string{"ingested   docs/one.md ", "ingested   docs/sub/two.txt ", "skipped    " + filepath.Join(docs, "program.exe") + ": unsupported",
		"3 files: 2 ingested, 0 unchanged, 1 failed, 1 skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "failed     "+filepath.Join(docs, "notes", "big.md")+": too_large") {
		t.Errorf("stderr lacks the failed upload:\n%s", errs)
	}
	if strings.Contains(out+errs, "hidden") {
		t.Errorf("a hidden file was sent:\n%s", out)
	}
	one := documentOf(t, e.db, "docs/one.md")
	if one == nil || !slicesEqual(one.ACL, []string{"analyst@example.com"}) || documentOf(t, e.db, "docs/sub/two.txt") == nil {
		t.Fatalf("stored through the server: %+v", one)
	}
	// Again: unchanged, and --acl "" opens them to everyone, as locally.
	code, out, _ = runCLI(t, "--json", "ingest", "--server", e.ts.URL, "--base", dir, filepath.Join(docs, "one.md"), "--acl", "")
	var sum ingest.Summary
	if code != exitOK || json.Unmarshal([]byte(out), &sum) != nil || sum.Unchanged != 1 || sum.Results[0].Path != filepath.Join(docs, "one.md") {
		t.Errorf("re-ingest: exit %d:\n%s", code, out)
	}
	if d := documentOf(t, e.db, "docs/one.md"); len(d.ACL) != 0 {
		t.Errorf("--acl \"\" through the server: acl %v, want everyone", d.ACL)
	}

	// An import: rejected by the gate (exit 3), let past it, repaired; a dry run stores nothing.
	src := filepath.Join(mustSample(t), "credit-agreement-summary.txt")
	imp := filepath.Join(mustSample(t), "..", "..", "ingest", "testdata", "import")
	code, out, errs = runCLI(t, "ingest", "--server", e.ts.URL, "--id", "credit.txt", src, "--chunks", filepath.Join(imp, "drift-langchain.jsonl"))
	if code != exitPartial || !strings.Contains(out, "rejected") || !strings.Contains(errs, "hint: ") || documentOf(t, e.db, "credit.txt") != nil {
		t.Errorf("rejected import: exit %d:\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "ingest", "--server", e.ts.URL, "--id", "credit.txt", src, "--chunks", filepath.Join(imp, "drift-langchain.jsonl"), "--repair", "--max-quarantined", "1", "--dry-run")
	if code != exitOK || !strings.Contains(out, "would be ingested") || !strings.Contains(out, "10 chunks, 1 quarantined") || !strings.Contains(out, "4 repaired") ||
		!strings.Contains(out, "dry run: nothing written to the store of "+e.ts.URL) || documentOf(t, e.db, "credit.txt") != nil {
		t.Errorf("dry-run import: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "ingest", "--server", e.ts.URL, "--id", "credit.txt", src, "--chunks", filepath.Join(imp, "credit-agreement-summary.txt.langchain.jsonl"), "--text", src)
	if code != exitOK || !strings.Contains(out, "11 chunks, 0 quarantined") || !strings.Contains(out, "offsets: page, pages from 0") {
		t.Errorf("import with --text: exit %d:\n%s", code, out)
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"server setting", []string{"--workers", "2", docs}, exitUsage, "--workers is the server's own setting"},
		{"pdf limit", []string{"--pdf-timeout", "5s", docs}, exitUsage, "--pdf-timeout"},
		{"import flag without a manifest", []string{"--repair", docs}, exitUsage, "--repair reads an imported manifest"},
		{"manifest of many files", []string{docs, "--chunks", filepath.Join(imp, "drift-langchain.jsonl")}, exitUsage, "belong to one source file"},
		{"bad gate", []string{src, "--chunks", filepath.Join(imp, "drift-langchain.jsonl"), "--max-quarantined", "lots"}, exitUsage, "--max-quarantined"},
		{"missing file", []string{filepath.Join(dir, "nope.md")}, exitError, "unreadable"},
	} {
		code, out, errs := runCLI(t, append([]string{"ingest", "--server", e.ts.URL, "--base", dir}, tt.args...)...)
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("%s: exit %d (want %d), want %q:\n%s\n%s", tt.name, code, tt.code, tt.want, out, errs)
		}
	}
	// A principal's token may not write.
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	if code, _, errs := runCLI(t, "ingest", "--server", e.ts.URL, "--base", dir, filepath.Join(docs, "one.md")); code != exitError || !strings.Contains(errs, "403 forbidden") {
		t.Errorf("a principal's token: exit %d: %s", code, errs)
	}
}

// TestRebuildDeleteChunksThroughServer: rebuild, delete and chunks with
// --server do what they do locally, through the running server.
func TestRebuildDeleteChunksThroughServer(t *testing.T) {
	e := newTestEnv(t, true)
	t.Setenv("EVIDENCE_TOKEN", serviceToken)
	old := e.chunkIDs("expense-policy.md")
	code, out, errs := runCLI(t, "rebuild", "--server", e.ts.URL, "expense-policy.md", "--chunk-size", "300", "--overlap", "30")
	if code != exitOK || !strings.Contains(out, "ingested   expense-policy.md ") || len(e.chunkIDs("expense-policy.md")) <= len(old) {
		t.Fatalf("rebuild --server: exit %d:\n%s\n%s", code, out, errs)
	}
	if code, out, _ := runCLI(t, "rebuild", "--server", e.ts.URL, "expense-policy.md", "--chunk-size", "300", "--overlap", "30"); code != exitOK || !strings.Contains(out, "unchanged") {
		t.Errorf("rebuild --server again: exit %d:\n%s", code, out)
	}
	// No document named: every one the token may read.
	code, out, _ = runCLI(t, "--json", "rebuild", "--server", e.ts.URL, "--dry-run")
	var sum ingest.Summary
	if code != exitOK || json.Unmarshal([]byte(out), &sum) != nil || !sum.DryRun || len(sum.Results) < 5 {
		t.Errorf("rebuild --server --dry-run of all: exit %d:\n%.500s", code, out)
	}
	if code, _, errs := runCLI(t, "rebuild", "--server", e.ts.URL, "no-such.md"); code != exitNotFound {
		t.Errorf("rebuild --server of no document: exit %d, want %d: %s", code, exitNotFound, errs)
	}
	if code, _, errs := runCLI(t, "rebuild", "--server", e.ts.URL, "expense-policy.md", "--chunks", "m.jsonl"); code != exitUsage || !strings.Contains(errs, "ingest --server SOURCE --chunks") {
		t.Errorf("rebuild --server --chunks: exit %d: %s", code, errs)
	}

	// chunks --server: what the local export writes, page by page.
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	for _, doc := range []string{"expense-policy.md", "secret.md"} {
		for _, r := range localRecords(t, e.db, doc, "") {
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, out, errs = runCLI(t, "chunks", "--server", e.ts.URL, "expense-policy.md", "secret.md")
	if code != exitOK || out != want.String() {
		t.Errorf("chunks --server as an administrator: exit %d (%s), got\n%.300s\nwant\n%.300s", code, errs, out, want.String())
	}
	t.Setenv("EVIDENCE_TOKEN", internToken)
	code, out, _ = runCLI(t, "chunks", "--server", e.ts.URL)
	if code != exitOK || strings.Contains(out, "secret") || strings.Contains(out, `"acl"`) || !strings.Contains(out, `"document_id":"expense-policy.md"`) {
		t.Errorf("chunks --server as the intern: exit %d:\n%.300s", code, out)
	}
	if code, _, _ := runCLI(t, "chunks", "--server", e.ts.URL, "secret.md"); code != exitNotFound {
		t.Errorf("chunks --server of a document the intern may not read: exit %d, want %d", code, exitNotFound)
	}
	oldVersion := strings.Split(old[0], "-")[0]
	code, out, _ = runCLI(t, "chunks", "--server", e.ts.URL, "--version", oldVersion, "expense-policy.md")
	var rec resolve.ChunkRecord
	if code != exitOK || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rec) != nil || rec.ChunkID != old[0] {
		t.Errorf("chunks --server --version: exit %d:\n%.300s", code, out)
	}

	// delete: an administrator's token only; ids with slashes; not found is 5.
	if code, _, errs := runCLI(t, "delete", "--server", e.ts.URL, "secret.md"); code != exitError || !strings.Contains(errs, "403 forbidden") {
		t.Errorf("delete --server with a principal's token: exit %d: %s", code, errs)
	}
	t.Setenv("EVIDENCE_TOKEN", serviceToken)
	if r := e.do(request{method: "POST", path: "/v1/documents?filename=travel.md&id=policies/travel.md", token: serviceToken, body: []byte("# Travel\n\nMeals: EUR 75.\n")}); r.status != 201 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	code, out, errs = runCLI(t, "delete", "--server", e.ts.URL, "policies/travel.md")
	if code != exitOK || !strings.HasPrefix(out, "deleted policies/travel.md ") {
		t.Errorf("delete --server: exit %d:\n%s%s", code, out, errs)
	}
	if d := documentOf(t, e.db, "policies/travel.md"); d == nil || d.Current != "" {
		t.Errorf("after delete --server: %+v, want a tombstone", d)
	}
	if code, out, _ := runCLI(t, "delete", "--server", e.ts.URL, "policies/travel.md"); code != exitOK || !strings.Contains(out, "already a tombstone") {
		t.Errorf("delete --server again: exit %d:\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "delete", "--server", e.ts.URL, "no-such.md"); code != exitNotFound {
		t.Errorf("delete --server of no document: exit %d, want %d", code, exitNotFound)
	}
}

// TestLockedHint: a command that cannot open a held store says how to go
// through the server when it can (--server), else that it must stop.
func TestLockedHint(t *testing.T) {
	db := filepath.Join(t.TempDir(), "e.db")
	held, err := store.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, args := range [][]string{{"ingest", "x.md"}, {"rebuild"}, {"delete", "x.md"}, {"resolve", "x-0"}} {
		code, _, errs := runCLI(t, append([]string{"--db", db}, args...)...)
		if code != exitLocked || !strings.Contains(errs, "evidence "+args[0]+" --server URL") {
			t.Errorf("%v: exit %d, want %d and a hint naming %q: %s", args, code, exitLocked, "evidence "+args[0]+" --server URL", errs)
		}
	}
	root := newRootCommand(&bytes.Buffer{}, &bytes.Buffer{})
	cmd, _, err := root.Find([]string{"eval", "list"})
	if err != nil {
		t.Fatal(err)
	}
	if h := lockedHint(cmd); !strings.Contains(h, "stop it first") || strings.Contains(h, "--server") {
		t.Errorf("hint of a command without --server: %q", h)
	}
}
