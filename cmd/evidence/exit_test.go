package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// TestExitCodes runs every command into the exit codes the root help and
// the README document, one table row per outcome, and fails when a command
// has no row: unknown ids are 5 everywhere, a batch that stored nothing is
// 1 and one that stored something and failed something 3, nothing servable
// 3, bad flags 2.
func TestExitCodes(t *testing.T) {
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cli := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"--db", db}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	// Ids are paths relative to the directory walked, or to the working
	// directory: in the sample directory, both are its file names.
	t.Chdir(sample)
	cli("ingest", ".", "--acl", "analyst@example.com")
	quarantined := putQuarantined(t, db)
	gone := write("gone.md", "# Gone\n\nThis policy was withdrawn on 2025-01-31.\n")
	cli("ingest", gone, "--id", "gone.md")
	firstChunk := func(doc string) string {
		var rec struct {
			ChunkID string `json:"chunk_id"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(cli("chunks", doc), "\n", 2)[0]), &rec); err != nil {
			t.Fatal(err)
		}
		return rec.ChunkID
	}
	chunk, goneChunk := firstChunk("expense-policy.md"), firstChunk("gone.md")
	version := chunk[:strings.LastIndexByte(chunk, '-')]
	cli("delete", "gone.md")
	request := func(name string, req verify.Request) string {
		b, _ := json.Marshal(req)
		return write(name, string(b))
	}
	accepted := request("accepted.json", verify.Request{RequestID: "r1", Principal: "analyst@example.com", Retrieved: []string{chunk}})
	abstains := request("abstains.json", verify.Request{RequestID: "r2", Principal: "analyst@example.com", Retrieved: []string{chunk}, RetrievalError: "timeout"})
	trace := regexp.MustCompile(`trace (\S+)`).FindStringSubmatch(cli("verify", accepted))
	if trace == nil {
		t.Fatal("verify printed no trace id")
	}
	bad := write("bad.md", "caf\xe9\n")
	foreign := write("foreign.db", "not a store\n")
	badReviews := write("reviews.jsonl", `{"x": 1}`+"\n")
	unknown := strings.Repeat("0", 32)

	tests := []struct {
		cmd  string // the command, as its path under evidence
		args []string
		code int
	}{
		{"ingest", []string{"."}, exitOK},
		{"ingest", []string{".", bad}, exitPartial},
		{"ingest", []string{bad}, exitError},
		{"ingest", []string{filepath.Join(dir, "missing.md")}, exitError},
		{"ingest", []string{".", "--chunk-size", "0"}, exitUsage},
		{"ingest", []string{".", "--chunk-size", "-5"}, exitUsage},
		{"ingest", []string{".", "--chunk-size", "100", "--overlap", "100"}, exitUsage},
		{"ingest", []string{"credit-agreement-summary.txt", "--chunks", "x.jsonl", "--chunks-format", "pinecone"}, exitUsage},
		{"rebuild", []string{"expense-policy.md"}, exitOK},
		{"rebuild", []string{"no-such-doc"}, exitNotFound},
		{"rebuild", []string{"no-such-doc", "other-doc"}, exitNotFound},
		{"rebuild", []string{"no-such-doc", "expense-policy.md"}, exitPartial},
		{"rebuild", []string{"--chunk-size", "-5"}, exitUsage},
		{"docs", nil, exitOK},
		{"docs", []string{"--server", "ftp://x"}, exitUsage},
		{"show", []string{"expense-policy.md"}, exitOK},
		{"show", []string{"no-such-doc"}, exitNotFound},
		{"chunk", []string{chunk}, exitOK},
		{"chunk", []string{quarantined}, exitPartial},
		{"chunk", []string{unknown + "-0"}, exitNotFound},
		{"chunk", []string{"not-a-chunk-id"}, exitNotFound},
		{"chunks", []string{"expense-policy.md"}, exitOK},
		{"chunks", []string{"no-such-doc"}, exitNotFound},
		{"chunks", []string{"--version", unknown}, exitNotFound},
		{"text", []string{version, "--principal", "analyst@example.com"}, exitOK},
		{"text", []string{version, "--principal", "intern@example.com"}, exitPartial},
		{"text", []string{unknown}, exitNotFound},
		{"text", []string{version, "--start", "5", "--end", "1", "--principal", "analyst@example.com"}, exitUsage},
		{"resolve", []string{chunk, "--principal", "analyst@example.com"}, exitOK},
		{"resolve", []string{chunk, "--principal", "intern@example.com"}, exitPartial},
		{"resolve", []string{quarantined}, exitPartial},
		{"resolve", []string{goneChunk}, exitPartial},
		{"resolve", []string{unknown + "-0"}, exitNotFound},
		{"resolve", []string{version + "-999", "--principal", "analyst@example.com"}, exitNotFound},
		{"resolve", []string{"not-a-chunk-id"}, exitNotFound},
		{"resolve", nil, exitUsage},
		{"quarantine list", nil, exitOK},
		{"quarantine list", []string{"--reason", "bogus"}, exitUsage},
		{"quarantine stats", []string{"--reason", "text_mismatch"}, exitOK},
		{"quarantine stats", []string{"--reason", "bogus"}, exitUsage},
		{"quarantine show", []string{quarantined}, exitOK},
		{"quarantine show", []string{unknown + "-0"}, exitNotFound},
		{"quarantine show", []string{version + "-999"}, exitNotFound},
		{"quarantine show", []string{"not-a-chunk-id"}, exitNotFound},
		{"delete", []string{"no-such-doc"}, exitNotFound},
		{"delete", []string{"data-retention.md"}, exitOK},
		{"audit", nil, exitOK},
		{"migrate", nil, exitOK},
		{"migrate", []string{"extra"}, exitUsage},
		{"copy", []string{"--from", db, "--to", filepath.Join(dir, "copy.db")}, exitOK},
		{"copy", []string{"--from", db}, exitUsage},
		{"copy", []string{"--from", filepath.Join(dir, "missing.db"), "--to", filepath.Join(dir, "copy2.db")}, exitNotFound},
		{"verify", []string{accepted}, exitOK},
		{"verify", []string{abstains}, exitPartial},
		{"verify", []string{filepath.Join(dir, "missing.json")}, exitUsage},
		{"verify", []string{"--from", "anthropic", accepted, "--map", write("map.json", `{"0": {"document_id": "expense-policy.md"}}`)}, exitUsage}, // no answer
		{"trace show", []string{trace[1]}, exitOK},
		{"trace show", []string{"no-such-trace"}, exitNotFound},
		{"review sample", []string{"--n", "5"}, exitOK},
		{"review sample", nil, exitUsage},
		{"review record", []string{badReviews}, exitError},
		{"review stats", nil, exitOK},
		{"serve", []string{"--trace-writes", "later"}, exitUsage},
		{"policy show", nil, exitOK},
		{"policy show", []string{"--policy", filepath.Join(dir, "missing.json")}, exitUsage},
		{"eval run", []string{filepath.Join(dir, "missing.jsonl"), "--answers", filepath.Join(dir, "missing.jsonl")}, exitUsage},
		{"eval run", []string{filepath.Join(dir, "missing.jsonl"), "--generator", "cat"}, exitUsage},
		{"eval gate", []string{"latest"}, exitUsage},
		{"eval list", nil, exitOK},
		{"trace list", nil, exitOK},
		{"trace list", []string{"--disposition", "accepted"}, exitUsage},
		{"trace stats", []string{"--by", "reason"}, exitOK},
		{"trace stats", []string{"--by", "colour"}, exitUsage},
		{"trace replay", []string{trace[1]}, exitOK},
		{"trace replay", []string{"no-such-trace"}, exitNotFound},
		{"eval show", []string{"no-such-run"}, exitNotFound},
		{"eval report", []string{"no-such-run"}, exitNotFound},
	}
	registered := commands(newRootCommand(nil, nil))
	seen := map[string]bool{}
	for _, tt := range tests {
		if !slices.Contains(registered, tt.cmd) {
			t.Logf("%s: not a command of this build, row skipped", tt.cmd)
			continue
		}
		seen[tt.cmd] = true
		args := append(append([]string{"--db", db}, strings.Fields(tt.cmd)...), tt.args...)
		if code, out, errs := runCLI(t, args...); code != tt.code {
			t.Errorf("%s %v: exit %d, want %d\n%s%s", tt.cmd, tt.args, code, tt.code, out, errs)
		}
	}
	for _, c := range registered {
		if !seen[c] {
			t.Errorf("command %q has no row in the exit code table", c)
		}
	}

	// Store-level codes, whatever the command: damaged or foreign, locked.
	if code, _, errs := runCLI(t, "--db", foreign, "docs"); code != exitDamaged {
		t.Errorf("foreign store: exit %d, want %d: %s", code, exitDamaged, errs)
	}
	held, err := store.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if code, _, errs := runCLI(t, "--db", db, "delete", "expense-policy.md"); code != exitLocked {
		t.Errorf("locked store: exit %d, want %d: %s", code, exitLocked, errs)
	}
}

// putQuarantined stores a version of document imported.md whose second
// chunk is quarantined as an import's would be (a claimed range whose text
// is elsewhere: no span, page or hash of its own), and returns its id. It
// writes through the store, so it needs no import and passes no gate.
func putQuarantined(t *testing.T, path string) string {
	t.Helper()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nv := storetest.NewVersion("imported.md", "Submit all expense reports within 14 calendar days.", 20)
	c := &nv.Chunks[1]
	*c = store.Chunk{Version: c.Version, Ordinal: c.Ordinal, Quarantine: &store.Quarantine{Reason: resolve.ReasonTextMismatch,
		Want: `"Expense reports are due weekly."`, Got: `"bmit all expense r"`, ClaimedStart: 2, ClaimedEnd: 20,
		ClaimedText: "Expense reports are due weekly."}}
	nv.Version.Quarantined = 1
	if _, err := db.PutVersions([]*store.NewVersion{nv}); err != nil {
		t.Fatal(err)
	}
	return c.ID()
}

// commands lists the runnable commands under root by their path below it,
// leaving out hidden ones and cobra's own (help, completion).
func commands(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Runnable() {
				out = append(out, strings.TrimPrefix(sub.CommandPath(), root.Name()+" "))
			}
			walk(sub)
		}
	}
	walk(root)
	slices.Sort(out)
	return out
}
