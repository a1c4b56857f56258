package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidence-rag/evidence/verify"
)

const judgeClaim = "Expense reports must be submitted within 30 days."

// judgeServer is a deterministic plain-format judge that says label to
// every claim and counts its calls; with want set, it answers 400 to
// another claim.
func judgeServer(t *testing.T, label, want string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var in verify.JudgeInput
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || want != "" && in.Claim != want || len(in.Evidence) != 1 {
			http.Error(w, "unexpected input", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"label":"` + label + `","score":0.9,"fragment":"30 days"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// judgeCLIStore ingests one document and writes a request with one claim
// quoting it; it returns the store and the request file.
func judgeCLIStore(t *testing.T) (db, reqFile string) {
	t.Helper()
	dir := t.TempDir()
	doc := filepath.Join(dir, "policy.md")
	if err := os.WriteFile(doc, []byte("# Policy\n\n"+judgeClaim+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "e.db")
	if code, _, errs := runCLI(t, "--db", db, "ingest", "--base", dir, doc); code != exitOK {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	code, out, _ := runCLI(t, "--db", db, "chunks", "policy.md")
	var rec struct {
		ChunkID string `json:"chunk_id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &rec); code != exitOK || err != nil {
		t.Fatalf("chunks: exit %d, %v: %s", code, err, out)
	}
	req := verify.Request{RequestID: "r1", Principal: "p", Retrieved: []string{rec.ChunkID},
		Claims: []verify.Claim{{ClaimID: "c1", Text: judgeClaim, Evidence: []verify.Evidence{{ChunkID: rec.ChunkID, Quote: judgeClaim}}}}}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	reqFile = filepath.Join(dir, "req.json")
	if err := os.WriteFile(reqFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return db, reqFile
}

// TestVerifyJudge: verify --judge asks the judge, prints and reports its
// verdict, caches it in the store (not with --no-trace, which opens the
// store read-only), takes a judge from a policy file alone, and refuses
// judge flags that cannot work.
func TestVerifyJudge(t *testing.T) {
	db, reqFile := judgeCLIStore(t)
	yes, yesCalls := judgeServer(t, verify.JudgeSupported, judgeClaim)
	no, noCalls := judgeServer(t, verify.JudgeContradicted, judgeClaim)

	code, out, errs := runCLI(t, "--db", db, "verify", reqFile, "--judge", yes.URL, "--judge-timeout", "2s")
	id := "plain:" + strings.TrimPrefix(yes.URL, "http://")
	if code != exitOK || !strings.Contains(out, "judge "+id+": supported (score 0.90") || yesCalls.Load() != 1 {
		t.Fatalf("verify --judge: exit %d, %d calls: %s%s", code, yesCalls.Load(), out, errs)
	}
	code, out, _ = runCLI(t, "--db", db, "--json", "verify", reqFile, "--judge", yes.URL)
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("verify --json: exit %d, %v: %s", code, err, out)
	}
	cr := rep.Claims[0]
	if yesCalls.Load() != 1 || cr.Judge == nil || !cr.Judge.Cached || cr.Entailment != "judge:"+id || !slices.Contains(cr.Checks, "judge") {
		t.Errorf("repeat: %d calls, claim %+v: want the stored verdict, no call", yesCalls.Load(), cr)
	}
	// The trace holds the verdict and the judge the flags chose.
	code, out, _ = runCLI(t, "--db", db, "trace", "show", rep.TraceID)
	if code != exitOK || !strings.Contains(out, `"label": "supported"`) || !strings.Contains(out, `"url": "`+yes.URL+`"`) {
		t.Errorf("trace show: exit %d: %s", code, out)
	}

	// Another judge is another cache entry; its contradiction blocks.
	code, out, _ = runCLI(t, "--db", db, "verify", reqFile, "--judge", no.URL)
	if code != exitPartial || !strings.Contains(out, "judge_contradicted") || noCalls.Load() != 1 {
		t.Errorf("contradicting judge: exit %d, %d calls: %s", code, noCalls.Load(), out)
	}
	// --no-trace reads verdicts but cannot store them.
	other := no.URL + "/v2"
	for range 2 {
		runCLI(t, "--db", db, "verify", reqFile, "--no-trace", "--judge", other)
	}
	if noCalls.Load() != 3 {
		t.Errorf("--no-trace: %d calls, want 3 (read-only store, nothing cached)", noCalls.Load())
	}

	// A policy file alone configures the judge; a refused judge sends the
	// claim to review, never to accept.
	pol := filepath.Join(t.TempDir(), "judge.yaml")
	if err := os.WriteFile(pol, []byte("name: judged\nrequire_judge: all\njudge:\n  url: http://127.0.0.1:1/judge\n  timeout_ms: 2000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "--db", db, "verify", reqFile, "--policy", pol)
	if code != exitPartial || !strings.Contains(out, "review [judge_unavailable]") || !strings.Contains(out, "judge plain:127.0.0.1:1/judge: verify: judge unavailable") {
		t.Errorf("refused judge from the policy: exit %d: %s", code, out)
	}
	// The flags override the policy's judge.
	if code, out, _ = runCLI(t, "--db", db, "verify", reqFile, "--policy", pol, "--judge", yes.URL); code != exitOK {
		t.Errorf("--judge over the policy's judge: exit %d: %s", code, out)
	}

	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--judge", "ftp://h/"}, "want an http:// or https:// URL"},
		{[]string{"--judge", yes.URL, "--judge-format", "grpc"}, `format "grpc"`},
		{[]string{"--judge", yes.URL, "--judge-format", "openai"}, "needs a model"},
		{[]string{"--judge-model", "m"}, "need --judge URL"},
		{[]string{"--judge", yes.URL, "--judge-timeout", "1ns"}, "--judge-timeout 1ns"},
		{[]string{"--judge", yes.URL, "--judge-concurrency", "-1"}, "concurrency -1"},
		{[]string{"--judge", yes.URL, "--server", "http://127.0.0.1:1"}, "--judge and --server"},
	} {
		if code, _, errs := runCLI(t, append([]string{"--db", db, "verify", reqFile}, tt.args...)...); code != exitUsage || !strings.Contains(errs, tt.err) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, errs, exitUsage, tt.err)
		}
	}
	// serve takes the same flags, checked before it opens the store.
	for _, args := range [][]string{{"--judge", "ftp://h/"}, {"--judge-format", "openai"}, {"--judge", yes.URL, "--judge-format", "openai"}} {
		if code, _, errs := runCLI(t, append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0"}, args...)...); code != exitUsage {
			t.Errorf("serve %v: exit %d (%s), want %d", args, code, errs, exitUsage)
		}
	}
}
