package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/server"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// The CLI against a running server: `serve`'s flags and start, and the
// commands that go through a server (--server). The service itself is
// tested in package server.

// Tokens of newTestEnv(t, true): two principals and a service.
const (
	analystToken = "analyst-token-0123456789"
	internToken  = "intern-token-0123456789"
	serviceToken = "service-token-0123456789"
	testTokens   = "# test tokens\n" + analystToken + " analyst@example.com\n" + internToken + " intern@example.com\n\n" + serviceToken + " service\n"
)

// secretDoc is readable by analyst@example.com only.
const secretDoc = "# Board minutes\n\nThe merger codename is BLUEHERON and the offer is EUR 41 per share, approved on 2025-05-02.\n"

// testEnv is a server over a store holding the sample corpus (no access
// list) and secret.md (analyst only), for the CLI's --server.
type testEnv struct {
	t      testing.TB
	db     *store.DB
	ts     *httptest.Server
	secret string // the secret document's only chunk
}

func newTestEnv(t testing.TB, tokens bool) *testEnv {
	t.Helper()
	db := storetest.Open(t)
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), db, []string{sample}, ingest.Options{URL: "https://intranet.example/policies/"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.md")
	if err := os.WriteFile(secret, []byte(secretDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), db, []string{secret}, ingest.Options{ACL: []string{"analyst@example.com"}}); err != nil {
		t.Fatal(err)
	}
	// Small bodies, and no shedding in tests of other things.
	opts := server.Options{PDF: ingest.PDFLimits{Worker: testWorker}, MaxBody: 64 << 10, MaxUpload: 256 << 10, ErrorLog: io.Discard, Limits: server.Limits{MaxQueue: server.DefaultMaxQueue, QueueTimeout: time.Second}}
	if tokens {
		path := filepath.Join(dir, "tokens")
		if err := os.WriteFile(path, []byte(testTokens), 0o600); err != nil {
			t.Fatal(err)
		}
		if opts.Tokens, err = server.LoadTokens(path); err != nil {
			t.Fatal(err)
		}
	}
	srv := server.New(db, opts)
	e := &testEnv{t: t, db: db, ts: httptest.NewServer(srv)}
	t.Cleanup(srv.Close) // after ts.Close: queued traces are stored
	t.Cleanup(e.ts.Close)
	e.secret = e.chunkIDs("secret.md")[0]
	return e
}

// chunkIDs returns the servable chunk ids of a document's current version.
func (e *testEnv) chunkIDs(doc string) []string {
	e.t.Helper()
	var ids []string
	err := e.db.View(func(tx *store.Tx) error {
		d, err := tx.Document(doc)
		if err != nil {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		return tx.ForEachChunk(v, func(c *store.Chunk) error {
			if c.Quarantine == nil {
				ids = append(ids, c.ID())
			}
			return nil
		})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return ids
}

// request is one HTTP call; token and principal empty mean no header.
type request struct {
	method, path, token, principal string
	body                           []byte
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (e *testEnv) do(r request) response {
	e.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	req, err := http.NewRequest(r.method, e.ts.URL+r.path, bytes.NewReader(r.body))
	if err != nil {
		e.t.Fatal(err)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.principal != "" {
		req.Header.Set(server.PrincipalHeader, r.principal)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

func jsonBody(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// verifyRequest cites the first n chunks of the expense policy (cycling)
// with claims quoting their first 60 code points.
func verifyRequest(t testing.TB, e *testEnv, n int) verify.Request {
	t.Helper()
	ids := e.chunkIDs("expense-policy.md")
	req := verify.Request{RequestID: "r-load", Retrieved: ids}
	for i := range n {
		id := ids[i%len(ids)]
		r, err := resolve.Chunk(e.db, id, "")
		if err != nil {
			t.Fatal(err)
		}
		q := string([]rune(r.Text)[:min(60, len([]rune(r.Text)))])
		req.Claims = append(req.Claims, verify.Claim{ClaimID: fmt.Sprintf("c%d", i), Text: q,
			Evidence: []verify.Evidence{{ChunkID: id, Quote: q}}})
	}
	return req
}

// jsonString is s as a JSON string, HTML unescaped.
func jsonString(t *testing.T, s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func mustSample(t *testing.T) string {
	t.Helper()
	dir, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func slicesEqual(a, b []string) bool { return slices.Equal(a, b) }

// localRecords exports the chunk records of a document's version (its
// current one when version is ""), as `chunks` does.
func localRecords(t *testing.T, db *store.DB, doc, version string) []*resolve.ChunkRecord {
	t.Helper()
	var out []*resolve.ChunkRecord
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(doc)
		if err != nil {
			return err
		}
		if version == "" {
			version = d.Current
		}
		v, err := tx.Version(version)
		if err != nil {
			return err
		}
		return resolve.Export(tx, v, d, func(r *resolve.ChunkRecord) error { out = append(out, r); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// verification verifies one claim citing the secret chunk as the caller
// and returns the trace id; want is the disposition it must get.
func verification(t *testing.T, e *testEnv, token, id, quote string, want string) string {
	t.Helper()
	req := verify.Request{RequestID: id, Retrieved: []string{e.secret}, Claims: []verify.Claim{{
		ClaimID: "c1", Text: "The merger codename is BLUEHERON.", Evidence: []verify.Evidence{{ChunkID: e.secret, Quote: quote}}}}}
	resp := e.do(request{method: "POST", path: "/v1/verify", token: token, body: jsonBody(t, req)})
	var rep verify.Report
	if err := json.Unmarshal(resp.body, &rep); err != nil || resp.status != 200 || rep.Disposition != want {
		t.Fatalf("verify: got %d, %s (%v): want 200, %s", resp.status, rep.Disposition, err, want)
	}
	return rep.TraceID
}

// TestServeListen: no tokens, no listening beyond loopback; a real
// listener on 127.0.0.1 serves and stops on cancel.
func TestServeListen(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	o := &options{db: filepath.Join(dir, "e.db"), stdout: io.Discard, stderr: &stderr}
	so := serveOptions{addr: "0.0.0.0:0", limits: server.Limits{ReadTimeout: time.Second, WriteTimeout: time.Second, IdleTimeout: time.Second}, maxBody: 1 << 20, maxUpload: 1 << 20}
	err := runServe(context.Background(), o, so, nil)
	if code := exitCode(err); code != exitUsage || !strings.Contains(fmt.Sprint(err), "without --tokens") {
		t.Errorf("0.0.0.0 without tokens: got %v (exit %d), want a usage error", err, code)
	}
	so.addr = "[::]:0"
	if err := runServe(context.Background(), o, so, nil); exitCode(err) != exitUsage {
		t.Errorf(":: without tokens: got %v, want a usage error", err)
	}
	so.addr, so.adminAddr = "127.0.0.1:0", "0.0.0.0:0"
	if err := runServe(context.Background(), o, so, nil); exitCode(err) != exitUsage || !strings.Contains(fmt.Sprint(err), "--admin-addr") {
		t.Errorf("--admin-addr 0.0.0.0 without tokens: got %v, want a usage error naming --admin-addr", err)
	}
	so.adminAddr = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, o, so, func(a, admin string) { addrs <- [2]string{a, admin} }) }()
	var a [2]string
	select {
	case a = <-addrs:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	for _, host := range a {
		resp, err := http.Get("http://" + host + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("healthz on %s: got %d", host, resp.StatusCode)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	for _, want := range []string{"serving http://127.0.0.1:", "admin=http://127.0.0.1:", "server stopped"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestResolveThroughServer: while a server holds the store, `resolve
// --server` answers as `resolve` does, with the token from EVIDENCE_TOKEN.
func TestResolveThroughServer(t *testing.T) {
	e := newTestEnv(t, true)
	id := e.chunkIDs("expense-policy.md")[2]
	want, err := resolve.ChunkCited(e.db, id, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	code, out, errs := runCLI(t, "--json", "resolve", "--server", e.ts.URL, id)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got resolve.Cited
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text || got.Link == nil || got.Link.URL != want.Link.URL {
		t.Errorf("got %q %+v, want %q %s", got.Text, got.Link, want.Text, want.Link.URL)
	}
	code, out, _ = runCLI(t, "resolve", "--server", e.ts.URL, e.secret, "--principal", "analyst@example.com")
	if code != exitOK || !strings.Contains(out, "BLUEHERON") || !strings.Contains(out, "link ") {
		t.Errorf("text output: exit %d:\n%s", code, out)
	}
	t.Setenv("EVIDENCE_TOKEN", internToken)
	if code, out, _ := runCLI(t, "resolve", "--server", e.ts.URL, e.secret); code != exitPartial || !strings.Contains(out, "forbidden") {
		t.Errorf("forbidden: exit %d:\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "resolve", "--server", e.ts.URL, e.secret, "--principal", "analyst@example.com"); code != exitError || !strings.Contains(errs, "403 forbidden") {
		t.Errorf("a principal's token naming another: exit %d: %s", code, errs)
	}
	if code, _, _ := runCLI(t, "resolve", "--server", "ftp://x", id); code != exitUsage {
		t.Errorf("bad --server: exit %d, want %d", code, exitUsage)
	}
	// text --server gives the same code-point range as the local command.
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	r, err := resolve.Range(e.db, want.DocumentVersion, want.Start, want.End, "")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "text", want.DocumentVersion, "--start", strconv.Itoa(want.Start), "--end", strconv.Itoa(want.End), "--server", e.ts.URL)
	if code != exitOK || out != r.Text || out != want.Text {
		t.Errorf("text --server: exit %d (%s), got %q, want %q", code, errs, out, r.Text)
	}
}

// TestReadCommandsThroughServer: docs, quarantine list and stats, verify
// and trace show with --server answer from a running server, under the
// caller's token: what the token may not read is not listed.
func TestReadCommandsThroughServer(t *testing.T) {
	e := newTestEnv(t, true)
	// A quarantined chunk of the secret document, readable by the analyst only.
	nv := storetest.NewVersion("secret-import", "Board minutes: the merger codename is BLUEHERON.", 20)
	nv.ACL = []string{"analyst@example.com"}
	nv.Chunks[1].Quarantine = &store.Quarantine{Reason: "text_mismatch", Want: "BLUEHERON", Got: "x"}
	if _, err := e.db.PutVersions([]*store.NewVersion{nv}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	code, out, errs := runCLI(t, "docs", "--server", e.ts.URL)
	if code != exitOK || !strings.Contains(out, "expense-policy.md") || !strings.Contains(out, "secret.md") {
		t.Errorf("docs --server as the analyst: exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "--json", "quarantine", "list", "--server", e.ts.URL)
	if code != exitOK || !strings.Contains(out, `"reason": "text_mismatch"`) || !strings.Contains(out, "secret-import") {
		t.Errorf("quarantine list --server as the analyst: exit %d (%s):\n%s", code, errs, out)
	}
	code, out, _ = runCLI(t, "quarantine", "stats", "--server", e.ts.URL, "--reason", "text_mismatch")
	if code != exitOK || !strings.HasPrefix(out, "1 quarantined chunk\n") {
		t.Errorf("quarantine stats --server: exit %d:\n%s", code, out)
	}
	req := verifyRequest(t, e, 2)
	reqFile := filepath.Join(t.TempDir(), "answer.json")
	if err := os.WriteFile(reqFile, jsonBody(t, req), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "--json", "verify", "--server", e.ts.URL, reqFile)
	var rep verify.Report
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || rep.Disposition != verify.AnswerAccept || rep.TraceID == "" {
		t.Fatalf("verify --server: exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "trace", "show", "--server", e.ts.URL, rep.TraceID)
	if code != exitOK || !strings.Contains(out, rep.TraceID) || !strings.Contains(out, `"request"`) {
		t.Errorf("trace show --server: exit %d (%s):\n%.300s", code, errs, out)
	}
	if code, _, _ := runCLI(t, "verify", "--server", e.ts.URL, "--policy", "p.json", reqFile); code != exitUsage {
		t.Errorf("verify --server --policy: exit %d, want %d", code, exitUsage)
	}

	// The intern sees neither the secret document nor its quarantine, nor
	// the analyst's trace.
	t.Setenv("EVIDENCE_TOKEN", internToken)
	code, out, _ = runCLI(t, "docs", "--server", e.ts.URL)
	if code != exitOK || strings.Contains(out, "secret") || !strings.Contains(out, "expense-policy.md") {
		t.Errorf("docs --server as the intern: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "--json", "quarantine", "list", "--server", e.ts.URL)
	if code != exitOK || strings.Contains(out, "BLUEHERON") || strings.Contains(out, "secret") {
		t.Errorf("quarantine list --server as the intern: exit %d:\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "trace", "show", "--server", e.ts.URL, rep.TraceID); code != exitNotFound {
		t.Errorf("another principal's trace: exit %d, want %d", code, exitNotFound)
	}
}

// TestInspectionThroughSnapshot: chunk, show, chunks, audit and quarantine
// show with --server read a snapshot of the running server's store, taken
// while it holds the write lock; only an administrator's token may take one.
func TestInspectionThroughSnapshot(t *testing.T) {
	e := newTestEnv(t, true)
	id := e.chunkIDs("expense-policy.md")[1]
	r, err := resolve.Chunk(e.db, id, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("EVIDENCE_TOKEN", serviceToken)
	code, out, errs := runCLI(t, "--json", "chunk", "--server", e.ts.URL, id)
	if code != exitOK || !strings.Contains(out, `"chunk_id": "`+id+`"`) || !strings.Contains(out, jsonString(t, r.Text)) {
		t.Errorf("chunk --server: exit %d (%s):\n%.400s", code, errs, out)
	}
	code, out, errs = runCLI(t, "show", "--server", e.ts.URL, "secret.md")
	if code != exitOK || !strings.Contains(out, "analyst@example.com") {
		t.Errorf("show --server: exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "chunks", "--server", e.ts.URL)
	if n := strings.Count(out, "\n"); code != exitOK || n < 10 || !strings.Contains(out, id) {
		t.Errorf("chunks --server: exit %d (%s), %d lines", code, errs, n)
	}
	code, out, errs = runCLI(t, "audit", "--server", e.ts.URL)
	if code != exitOK || !strings.Contains(out, "0 findings") {
		t.Errorf("audit --server: exit %d (%s):\n%s", code, errs, out)
	}
	nv := storetest.NewVersion("imported", "Some imported text to quarantine a chunk of.", 10)
	nv.Chunks[2].Quarantine = &store.Quarantine{Reason: "text_mismatch", Want: "claimed words", Got: "found words"}
	if _, err := e.db.PutVersions([]*store.NewVersion{nv}); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "quarantine", "show", "--server", e.ts.URL, nv.Chunks[2].ID())
	if code != exitOK || !strings.Contains(out, "QUARANTINED text_mismatch") || !strings.Contains(out, "claimed words") {
		t.Errorf("quarantine show --server: exit %d (%s):\n%s", code, errs, out)
	}
	// A principal's token, or a service acting for a user, may not copy
	// the store.
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	if code, _, errs := runCLI(t, "chunk", "--server", e.ts.URL, id); code != exitError || !strings.Contains(errs, "403 forbidden") {
		t.Errorf("chunk --server with a principal's token: exit %d: %s", code, errs)
	}
	if r := e.do(request{path: "/v1/snapshot", token: serviceToken, principal: "analyst@example.com"}); r.status != 403 {
		t.Errorf("snapshot for a user: got %d, want 403", r.status)
	}
	if r := e.do(request{path: "/v1/snapshot", token: serviceToken}); r.status != 200 || r.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
		t.Errorf("snapshot: got %d, %d bytes, Content-Length %s", r.status, len(r.body), r.header.Get("Content-Length"))
	}
}

// TestServeLimitFlags: limit flags that cannot work are usage errors.
func TestServeLimitFlags(t *testing.T) {
	for _, so := range []serveOptions{
		{limits: server.Limits{MaxInFlight: -1}},
		{limits: server.Limits{MaxQueue: -1}},
		{limits: server.Limits{MaxConns: -5}},
		{limits: server.Limits{WriteStall: -time.Second}},
		{memoryLimit: "lots"},
	} {
		so.addr, so.maxBody, so.maxUpload = "127.0.0.1:0", 1<<20, 1<<20
		o := &options{db: t.TempDir() + "/e.db", stdout: io.Discard, stderr: io.Discard}
		if err := runServe(context.Background(), o, so, nil); exitCode(err) != exitUsage {
			t.Errorf("%+v: got %v, want a usage error", so, err)
		}
	}
}

// TestViewerSignerFlags: --public-url must be a base URL, --viewer-ttl
// above 0, --viewer-key a file holding a key; the flags make the signer
// the viewer links of a server come from.
func TestViewerSignerFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "viewer.key")
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, so := range []serveOptions{
		{publicURL: "evidence.example.com", viewerTTL: time.Minute},
		{publicURL: "https://evidence.example.com/?x=1", viewerTTL: time.Minute},
		{viewerTTL: -time.Minute},
		{viewerKey: bad, viewerTTL: time.Minute},
	} {
		if _, err := viewerSigner(so, logger); exitCode(err) != exitUsage {
			t.Errorf("%+v: got %v, want a usage error", so, err)
		}
	}
	s, err := viewerSigner(serveOptions{publicURL: "https://evidence.example.com/", viewerKey: path}, logger)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := server.LoadViewerKey(path)
	if err != nil {
		t.Fatal(err)
	}
	want := server.NewLinkSigner(key, server.DefaultViewerTTL, "https://evidence.example.com/")
	if got := s.ChunkLink("x", "p"); got != want.ChunkLink("x", "p") || !strings.HasPrefix(got, "https://evidence.example.com/view/x?") {
		t.Errorf("from flags: link %s, want %s (the key file's key, the default TTL, under --public-url)", got, want.ChunkLink("x", "p"))
	}
}

// TestServeLogFormat: a --log-format other than text or json is a usage
// error naming the allowed ones, before anything is opened.
func TestServeLogFormat(t *testing.T) {
	o := &options{db: filepath.Join(t.TempDir(), "e.db"), stdout: io.Discard, stderr: io.Discard}
	so := serveOptions{addr: "127.0.0.1:0", maxBody: 1, maxUpload: 1, logFormat: "xml"}
	err := runServe(context.Background(), o, so, nil)
	if code := exitCode(err); code != exitUsage || !strings.Contains(fmt.Sprint(err), `--log-format "xml": want text or json`) {
		t.Errorf("--log-format xml: got %v (exit %d), want a usage error naming text and json", err, code)
	}
}

// TestTraceCommandsServer: trace list and stats with --server ask the
// server, which lists what the token may read; trace replay reads a
// snapshot of its store.
func TestTraceCommandsServer(t *testing.T) {
	e := newTestEnv(t, true)
	a := verification(t, e, analystToken, "r-secret", "The merger codename is BLUEHERON", verify.AnswerAccept)
	i := verification(t, e, internToken, "r-i", "", verify.AnswerAbstain)
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	code, out, errs := runCLI(t, "trace", "list", "--server", e.ts.URL)
	if code != exitOK || !strings.Contains(out, a) || strings.Contains(out, i) || strings.Contains(out, "r-i") {
		t.Errorf("trace list --server as the analyst: exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "trace", "stats", "--server", e.ts.URL, "--by", "reason", "--since", "1h")
	if code != exitOK || !strings.Contains(out, ": 1, 0 not accepted") || strings.Contains(out, "forbidden") {
		t.Errorf("trace stats --server as the analyst: exit %d (%s):\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, "trace", "list", "--server", e.ts.URL, "--principal", "intern@example.com"); code != exitError || !strings.Contains(errs, "403 forbidden") {
		t.Errorf("trace list --server naming another principal: exit %d (%s), want 1 and the 403", code, errs)
	}
	t.Setenv("EVIDENCE_TOKEN", serviceToken)
	code, out, errs = runCLI(t, "--json", "trace", "list", "--server", e.ts.URL, "--category", "permission")
	if code != exitOK || !strings.Contains(out, i) || strings.Contains(out, a) {
		t.Errorf("trace list --server as the administrator: exit %d (%s):\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "trace", "replay", "--server", e.ts.URL, a)
	if code != exitOK || !strings.Contains(out, "nothing changed: answer accept") {
		t.Errorf("trace replay --server: exit %d (%s):\n%s", code, errs, out)
	}
}

// TestVerifyFromThroughServer: verify --server --from sends a provider's
// cited answer with its map to a running server, which converts and
// verifies it; a key the map lacks is a usage error naming it.
func TestVerifyFromThroughServer(t *testing.T) {
	e := newTestEnv(t, true)
	var text string
	if err := e.db.View(func(tx *store.Tx) error {
		d, err := tx.Document("expense-policy.md")
		if err != nil {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		txt, err := tx.Text(v)
		text = string(txt.Bytes())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const deadline = "Submit all expense reports within 14 calendar days of the end of the trip"
	i := strings.Index(text, deadline)
	if i < 0 {
		t.Fatal("the deadline is not in the expense policy")
	}
	start := utf8.RuneCountInString(text[:i])
	answer := jsonBody(t, map[string]any{"id": "msg_01Serve", "type": "message", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "The policy says: "},
		map[string]any{"type": "text", "text": "Expense reports must be submitted within 14 calendar days of the end of the trip",
			"citations": []any{map[string]any{"type": "char_location", "cited_text": deadline, "document_index": 0,
				"start_char_index": start, "end_char_index": start + utf8.RuneCountInString(deadline)}}},
	}})
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ans := file("answer.json", answer)
	m := file("map.json", []byte(`{"0": {"document_id": "expense-policy.md"}}`))
	wrong := file("wrong.json", []byte(`{"7": {"document_id": "expense-policy.md"}}`))
	t.Setenv("EVIDENCE_TOKEN", analystToken)
	code, out, errs := runCLI(t, "verify", "--server", e.ts.URL, "--from", "anthropic", ans, "--map", m)
	if code != exitOK || !strings.Contains(out, "answer msg_01Serve: ACCEPT") || !strings.Contains(out, "claim content[1]: supported → accept") {
		t.Errorf("verify --server --from: exit %d (%s):\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, "verify", "--server", e.ts.URL, "--from", "anthropic", ans, "--map", wrong); code != exitUsage || !strings.Contains(errs, `key "0" is not in the map`) {
		t.Errorf("verify --server --from, key not mapped: exit %d (%s), want %d naming the key", code, errs, exitUsage)
	}
	if code, _, _ := runCLI(t, "verify", "--server", e.ts.URL, "--from", "anthropic", ans, "--map", m, "--print-request"); code != exitUsage {
		t.Errorf("--print-request --server: exit %d, want %d", code, exitUsage)
	}
}

// TestResolveCorruptRecord: a chunk record that fails its seal makes
// resolve exit 7 naming the checksum (the server answers the same bytes
// with a 500, see package server).
func TestResolveCorruptRecord(t *testing.T) {
	e := newTestEnv(t, false)
	id := e.chunkIDs("expense-policy.md")[0]
	var hash store.ID
	if err := e.db.View(func(tx *store.Tx) error {
		version, ord, _ := store.ParseChunkID(id)
		v, err := tx.Version(version)
		if err != nil {
			return err
		}
		c, err := tx.Chunk(v, ord)
		hash = c.SpanHash
		return err
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(e.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	// Flip a bit after each copy of the span hash: the record's next byte
	// (freed pages may hold old copies of it).
	n := 0
	for i := 0; ; n++ {
		j := bytes.Index(raw[i:], hash[:])
		if j < 0 {
			break
		}
		raw[i+j+len(hash)] ^= 0x04
		i += j + len(hash)
	}
	if n == 0 {
		t.Fatal("the span hash is not in the store file")
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "--db", cp, "resolve", id)
	if code != exitDamaged || !strings.Contains(errs, "checksum") {
		t.Errorf("resolve: exit %d %q, want 7 naming the checksum", code, errs)
	}
}
