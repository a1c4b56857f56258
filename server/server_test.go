package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// Tokens of the test servers; the file format of --tokens.
const (
	analystToken = "analyst-token-0123456789"
	internToken  = "intern-token-0123456789"
	serviceToken = "service-token-0123456789"
	testTokens   = "# test tokens\n" + analystToken + " analyst@example.com\n" + internToken + " intern@example.com\n\n" + serviceToken + " service\n"
)

// secretDoc is readable by analyst@example.com only; its words must never
// reach anyone else.
const secretDoc = "# Board minutes\n\nThe merger codename is BLUEHERON and the offer is EUR 41 per share, approved on 2025-05-02.\n"

var secretWords = []string{"BLUEHERON", "merger", "41 per share", "Board minutes"}

// testEnv is a server over a store holding the sample corpus (no access
// list) and secret.md (analyst only).
type testEnv struct {
	t      testing.TB
	db     *store.DB
	srv    *Server
	ts     *httptest.Server
	log    *syncBuffer // the server's log lines: its goroutines write while a test reads
	secret string      // the secret document's only chunk
}

func newTestEnv(t testing.TB, tokens bool) *testEnv {
	t.Helper()
	return newTestEnvWith(t, tokens, nil)
}

// newTestEnvWith is newTestEnv with a hook to change the server's settings.
func newTestEnvWith(t testing.TB, tokens bool, configure func(*serverConfig)) *testEnv {
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
	cfg := serverConfig{maxBody: 64 << 10, maxUpload: 256 << 10, limits: serveLimits{maxQueue: DefaultMaxQueue, queueTimeout: time.Second}} // no shedding in tests of other things
	if tokens {
		path := filepath.Join(dir, "tokens")
		if err := os.WriteFile(path, []byte(testTokens), 0o600); err != nil {
			t.Fatal(err)
		}
		if cfg.tokens, err = LoadTokens(path); err != nil {
			t.Fatal(err)
		}
	}
	e := &testEnv{t: t, db: db, log: &syncBuffer{}}
	cfg.errlog = e.log
	if configure != nil {
		configure(&cfg)
	}
	e.srv = newServer(db, cfg)
	e.ts = httptest.NewServer(e.srv)
	t.Cleanup(e.srv.close) // runs after ts.Close: queued traces are stored
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
	method, path, token, principal, contentType string
	body                                        []byte
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
		req.Header.Set(PrincipalHeader, r.principal)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
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

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

func (r response) errorCode(t *testing.T) string {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	r.decode(t, &e)
	if e.Error.Message == "" {
		t.Errorf("error without a message: %s", r.body)
	}
	return e.Error.Code
}

func jsonBody(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// servedBody is what the chunk, text and batch routes answer.
type servedBody struct {
	resolve.Cited
	ViewerURL string           `json:"viewer_url"`
	Citation  *resolve.Located `json:"citation"`
}

func TestServeChunk(t *testing.T) {
	e := newTestEnv(t, false)
	id := e.chunkIDs("expense-policy.md")[1]
	want, err := resolve.Chunk(e.db, id, "")
	if err != nil {
		t.Fatal(err)
	}
	r := e.do(request{path: "/v1/chunks/" + id})
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json; charset=utf-8" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("got %d %v, want 200 JSON, not cached: %s", r.status, r.header, r.body)
	}
	var got servedBody
	r.decode(t, &got)
	if got.Text != want.Text || got.Start != want.Start || got.DocumentVersion != want.DocumentVersion || got.Status != resolve.StatusOK {
		t.Errorf("got %s %q [%d, %d), want ok %q [%d, %d)", got.Status, got.Text, got.Start, got.End, want.Text, want.Start, want.End)
	}
	if got.Link == nil || got.Link.Kind != resolve.LinkHeading || !strings.HasPrefix(got.Link.URL, "https://intranet.example/policies/expense-policy.md#") {
		t.Errorf("link %+v: want the heading anchor of the Markdown section", got.Link)
	}
	if u, q := parseViewerURL(t, got.ViewerURL); u.Path != "/view/"+id || !q.Has(linkSig) || q.Get(linkPrincipal) != "" {
		t.Errorf("viewer_url %q, want /view/%s signed for nobody", got.ViewerURL, id)
	}
	for _, tt := range []struct {
		path   string
		status int
		want   resolve.Status
	}{
		{"/v1/chunks/" + strings.Repeat("0", 32) + "-0", http.StatusNotFound, resolve.StatusNotFound},
		{"/v1/chunks/page-47", http.StatusNotFound, resolve.StatusNotFound},
		{"/v1/chunks/" + e.secret, http.StatusForbidden, resolve.StatusForbidden},
	} {
		r := e.do(request{path: tt.path})
		var got servedBody
		r.decode(t, &got)
		if r.status != tt.status || got.Status != tt.want || got.Link != nil {
			t.Errorf("%s: got %d %s link %v, want %d %s and no link", tt.path, r.status, got.Status, got.Link, tt.status, tt.want)
		}
	}
}

// TestServeAuth: bearer tokens, principal-bound and service tokens.
func TestServeAuth(t *testing.T) {
	e := newTestEnv(t, true)
	public := e.chunkIDs("expense-policy.md")[0]
	tests := []struct {
		name             string
		req              request
		status           int
		code             string         // error code, or "" for a resolution
		resolution       resolve.Status // when code is ""
		mustNotSeeSecret bool
	}{
		{"no token", request{path: "/v1/chunks/" + public}, 401, "unauthorized", "", true},
		{"bad token", request{path: "/v1/chunks/" + public, token: "not-a-token-at-all-0000"}, 401, "unauthorized", "", true},
		{"token prefix", request{path: "/v1/chunks/" + public, token: analystToken[:20]}, 401, "unauthorized", "", true},
		{"principal token", request{path: "/v1/chunks/" + e.secret, token: analystToken}, 200, "", resolve.StatusOK, false},
		{"principal token naming itself", request{path: "/v1/chunks/" + e.secret, token: analystToken, principal: "analyst@example.com"}, 200, "", resolve.StatusOK, false},
		{"principal token naming another", request{path: "/v1/chunks/" + e.secret, token: internToken, principal: "analyst@example.com"}, 403, "forbidden", "", true},
		{"principal outside the access list", request{path: "/v1/chunks/" + e.secret, token: internToken}, 403, "", resolve.StatusForbidden, true},
		{"service acting for a reader", request{path: "/v1/chunks/" + e.secret, token: serviceToken, principal: "analyst@example.com"}, 200, "", resolve.StatusOK, false},
		{"service acting for an outsider", request{path: "/v1/chunks/" + e.secret, token: serviceToken, principal: "intern@example.com"}, 403, "", resolve.StatusForbidden, true},
		{"service acting for nobody", request{path: "/v1/chunks/" + e.secret, token: serviceToken}, 403, "", resolve.StatusForbidden, true},
		{"public document", request{path: "/v1/chunks/" + public, token: internToken}, 200, "", resolve.StatusOK, true},
		{"health is public", request{path: "/healthz"}, 200, "", "", true},
		{"openapi is public", request{path: "/openapi.json"}, 200, "", "", true},
		{"metrics need a token", request{path: "/metrics"}, 401, "unauthorized", "", true},
		{"metrics with a token", request{path: "/metrics", token: internToken}, 200, "", "", true},
		{"upload needs a service", request{method: "POST", path: "/v1/documents?filename=x.md", token: analystToken, body: []byte("# x")}, 403, "forbidden", "", true},
		{"delete needs a service", request{method: "DELETE", path: "/v1/documents/secret.md", token: analystToken}, 403, "forbidden", "", true},
		{"viewer needs a token", request{path: "/view/" + e.secret}, 401, "unauthorized", "", true},
		{"viewer for an outsider", request{path: "/view/" + e.secret, token: internToken}, 403, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.req)
			if r.status != tt.status {
				t.Fatalf("got %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code != "" {
				if got := r.errorCode(t); got != tt.code {
					t.Errorf("error code %q, want %q", got, tt.code)
				}
				if tt.status == 401 && r.header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
			}
			if tt.resolution != "" {
				var got servedBody
				r.decode(t, &got)
				if got.Status != tt.resolution {
					t.Errorf("status %s, want %s", got.Status, tt.resolution)
				}
			}
			if tt.mustNotSeeSecret {
				assertNoSecret(t, r.body)
			}
		})
	}
}

func assertNoSecret(t *testing.T, body []byte) {
	t.Helper()
	for _, w := range secretWords {
		if bytes.Contains(body, []byte(w)) {
			t.Errorf("the body reveals %q: %s", w, body)
		}
	}
}

// TestServeForbiddenRevealsNothing asks every route that reads documents,
// as a principal outside the secret document's access list, and checks that
// no word of it, not its quote nor its page, comes back.
func TestServeForbiddenRevealsNothing(t *testing.T) {
	e := newTestEnv(t, true)
	version, _, _ := store.ParseChunkID(e.secret)
	start, end := 0, 20
	verifyReq := verify.Request{RequestID: "r1", Retrieved: []string{e.secret}, Claims: []verify.Claim{{ClaimID: "c1",
		Text: "The merger codename is BLUEHERON.", Evidence: []verify.Evidence{{ChunkID: e.secret, Quote: "BLUEHERON"}}}}}
	for _, tt := range []struct {
		name string
		req  request
	}{
		{"chunk", request{path: "/v1/chunks/" + e.secret}},
		{"batch with quote", request{method: "POST", path: "/v1/resolve", body: jsonBody(t, resolveRequest{
			Citations: []resolve.CitationRequest{{ChunkID: e.secret, Quote: "offer is EUR", SourceStart: &start, SourceEnd: &end}}})}},
		{"text", request{path: "/v1/versions/" + version + "/text?start=0&end=40"}},
		{"whole text", request{path: "/v1/versions/" + version + "/text"}},
		{"verify", request{method: "POST", path: "/v1/verify", body: jsonBody(t, verifyReq)}},
		{"grounding without claims", request{method: "POST", path: "/v1/verify", body: jsonBody(t, verify.Request{RequestID: "r2", Retrieved: []string{e.secret}})}},
		{"documents", request{path: "/v1/documents"}},
		{"quarantine", request{path: "/v1/quarantine?all=true"}},
		{"view chunk", request{path: "/view/" + e.secret}},
		{"view version", request{path: "/view/versions/" + version + "?start=0&end=30"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.token = internToken
			r := e.do(tt.req)
			if r.status >= 500 {
				t.Fatalf("got %d: %s", r.status, r.body)
			}
			assertNoSecret(t, r.body)
			if bytes.Contains(r.body, []byte("offer is EUR")) || bytes.Contains(r.body, []byte("secret.md")) {
				t.Errorf("the body echoes the quote or names the document: %s", r.body)
			}
			if strings.HasPrefix(tt.name, "grounding") && (bytes.Contains(r.body, []byte(version)) || !bytes.Contains(r.body, []byte(`"sources":[]`))) {
				t.Errorf("grounding: the body names the forbidden version or lists a source: %s", r.body)
			}
			if strings.HasPrefix(tt.name, "verify") {
				var rep verify.Report
				r.decode(t, &rep)
				if rep.Failures.Permission != 1 || rep.Claims[0].Disposition != verify.BlockClaim {
					t.Errorf("verify: failures %+v, claim %+v: want one permission failure and block_claim", rep.Failures, rep.Claims[0])
				}
			}
		})
	}
}

func TestServeResolveBatch(t *testing.T) {
	e := newTestEnv(t, false)
	id := e.chunkIDs("expense-policy.md")[1]
	r0, err := resolve.Chunk(e.db, id, "")
	if err != nil {
		t.Fatal(err)
	}
	runes := []rune(r0.Text)
	qs, qe := 40, 90
	for runes[qs] == ' ' || runes[qs] == '\n' {
		qs++
	}
	for runes[qe-1] == ' ' || runes[qe-1] == '\n' {
		qe--
	}
	quote := string(runes[qs:qe])
	// The same passage quoted with its middle left out: its first and last
	// three space-separated words, exactly as stored.
	words := strings.Split(quote, " ")
	elided := strings.Join(words[:3], " ") + " … " + strings.Join(words[len(words)-3:], " ")
	s, en := r0.Start+10, r0.Start+30
	out, past := r0.End-5, r0.End+5
	body := resolveRequest{Citations: []resolve.CitationRequest{
		{ChunkID: id},
		{ChunkID: id, Quote: quote},
		{ChunkID: id, Quote: strings.ToUpper(quote)},
		{ChunkID: id, Quote: elided},
		{ChunkID: id, SourceStart: &s, SourceEnd: &en},
		{ChunkID: id, Quote: "words that are nowhere in this chunk at all, none of them"},
		{ChunkID: id, SourceStart: &out, SourceEnd: &past},
		{ChunkID: e.secret, Quote: "BLUEHERON"},
		{ChunkID: "no-such-chunk"},
	}}
	r := e.do(request{method: "POST", path: "/v1/resolve", body: jsonBody(t, body)})
	if r.status != http.StatusOK {
		t.Fatalf("got %d: %s", r.status, r.body)
	}
	var got struct{ Results []servedBody }
	r.decode(t, &got)
	if len(got.Results) != len(body.Citations) {
		t.Fatalf("got %d results, want %d", len(got.Results), len(body.Citations))
	}
	type summary struct {
		Status      resolve.Status
		Match       string
		Reason      string
		Start, End  int
		Text        string
		HasLink     bool
		HasCitation bool
		Elided      bool
	}
	sum := func(x servedBody) summary {
		s := summary{Status: x.Status, HasLink: x.Link != nil}
		if c := x.Citation; c != nil {
			s.HasCitation, s.Match, s.Reason, s.Start, s.End, s.Text, s.Elided = true, c.Match, c.Reason, c.SourceStart, c.SourceEnd, c.Text, c.Elided
			if c.Link == nil && c.Reason == "" {
				s.HasLink = false
			}
		}
		return s
	}
	want := []summary{
		{Status: resolve.StatusOK, HasLink: true},
		{Status: resolve.StatusOK, HasLink: true, HasCitation: true, Match: "exact", Start: r0.Start + qs, End: r0.Start + qe, Text: quote},
		{Status: resolve.StatusOK, HasLink: true, HasCitation: true, Match: "normalized", Start: r0.Start + qs, End: r0.Start + qe, Text: quote},
		{Status: resolve.StatusOK, HasLink: true, HasCitation: true, Match: "exact", Start: r0.Start + qs, End: r0.Start + qe, Text: quote, Elided: true},
		{Status: resolve.StatusOK, HasLink: true, HasCitation: true, Match: "offsets", Start: s, End: en, Text: string(runes[10:30])},
		{Status: resolve.StatusOK, HasLink: true, HasCitation: true, Match: "none", Reason: "quote_not_found"},
		{Status: resolve.StatusOK, HasLink: true, HasCitation: true, Match: "none", Reason: "offsets_outside_chunk"},
		{Status: resolve.StatusForbidden},
		{Status: resolve.StatusNotFound},
	}
	for i := range want {
		if diff := cmp.Diff(want[i], sum(got.Results[i])); diff != "" {
			t.Errorf("citation %d (-want +got):\n%s", i, diff)
		}
	}
	if c := got.Results[4].Citation; c.Link == nil || c.Link.Excerpt.Text != c.Text {
		t.Errorf("a narrowed citation carries its own link and excerpt: got %+v", c.Link)
	}
	assertNoSecret(t, r.body)
}

func TestServeText(t *testing.T) {
	e := newTestEnv(t, false)
	id := e.chunkIDs("credit-agreement-summary.txt")[0]
	version, _, _ := store.ParseChunkID(id)
	full, err := resolve.Range(e.db, version, 0, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	r := e.do(request{path: "/v1/versions/" + version + "/text?start=10&end=60"})
	var got servedBody
	r.decode(t, &got)
	u, q := parseViewerURL(t, got.ViewerURL)
	if r.status != 200 || got.Text != string([]rune(full.Text)[10:60]) || got.Link == nil || u.Path != "/view/versions/"+version || q.Get("start") != "10" || q.Get("end") != "60" || !q.Has(linkSig) {
		t.Errorf("got %d %q link %v viewer %q", r.status, got.Text, got.Link, got.ViewerURL)
	}
	r = e.do(request{path: "/v1/versions/" + version + "/text"})
	r.decode(t, &got)
	if r.status != 200 || got.Start != 0 || got.End == 0 || !strings.HasPrefix(got.Text, full.Text) {
		t.Errorf("whole text: got %d [%d, %d)", r.status, got.Start, got.End)
	}
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/v1/versions/" + version + "/text?start=10&end=999999", 400},
		{"/v1/versions/" + version + "/text?start=x", 400},
		{"/v1/versions/" + version + "/text?start=-1", 400},
		{"/v1/versions/" + strings.Repeat("a", 32) + "/text", 404},
		{"/v1/versions/nonsense/text", 404},
	} {
		if r := e.do(request{path: tt.path}); r.status != tt.status {
			t.Errorf("%s: got %d, want %d: %s", tt.path, r.status, tt.status, r.body)
		}
	}
}

// verifyRequest builds a verification of n claims, each citing one chunk
// of the expense policy with a quote from it.
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

func TestServeVerify(t *testing.T) {
	e := newTestEnv(t, true)
	req := verifyRequest(t, e, 10)
	r := e.do(request{method: "POST", path: "/v1/verify", token: serviceToken, principal: "analyst@example.com", body: jsonBody(t, req)})
	if r.status != 200 {
		t.Fatalf("got %d: %s", r.status, r.body)
	}
	var rep verify.Report
	r.decode(t, &rep)
	if rep.Disposition != verify.AnswerAccept || len(rep.Claims) != 10 || rep.TraceID == "" || rep.Metrics.CitationSupportRate != 1 {
		t.Errorf("got %s, %d claims, trace %q, support %.2f: want accept, 10 claims, a trace, support 1", rep.Disposition, len(rep.Claims), rep.TraceID, rep.Metrics.CitationSupportRate)
	}
	var trace []byte
	if err := e.db.View(func(tx *store.Tx) (err error) { trace, err = tx.Trace(rep.TraceID); return err }); err != nil || !bytes.Contains(trace, []byte(`"principal":"analyst@example.com"`)) {
		t.Errorf("trace %s: %v, want it stored with the acting principal", rep.TraceID, err)
	}
	r = e.do(request{method: "POST", path: "/v1/verify?trace=false", token: analystToken, body: jsonBody(t, req)})
	rep = verify.Report{}
	r.decode(t, &rep)
	if r.status != 200 || rep.TraceID != "" || rep.Disposition != verify.AnswerAccept {
		t.Errorf("trace=false: got %d, trace %q, %s", r.status, rep.TraceID, rep.Disposition)
	}
	// A principal's token cannot verify for someone else.
	req.Principal = "analyst@example.com"
	if r := e.do(request{method: "POST", path: "/v1/verify", token: internToken, body: jsonBody(t, req)}); r.status != 403 || r.errorCode(t) != "forbidden" {
		t.Errorf("body naming another principal: got %d %s, want 403", r.status, r.body)
	}
	// A service acting for nobody may name the user in the body.
	r = e.do(request{method: "POST", path: "/v1/verify?trace=false", token: serviceToken, body: jsonBody(t, req)})
	rep = verify.Report{}
	r.decode(t, &rep)
	if r.status != 200 || rep.Disposition != verify.AnswerAccept {
		t.Errorf("service naming the user in the body: got %d %s", r.status, rep.Disposition)
	}
	for _, tt := range []struct {
		name, body string
		status     int
	}{
		{"malformed", `{"request_id": "x", "claims": [`, 400},
		{"unknown field", `{"request_id": "x", "claims": [], "colour": 1}`, 400},
		{"missing claim id", `{"request_id": "x", "claims": [{"text": "t", "evidence": []}]}`, 400},
		{"trailing data", `{"request_id": "x", "claims": []} {}`, 400},
		{"trailing brace", `{"request_id": "x", "claims": []} }`, 400},
		{"oversized", `{"request_id": "` + strings.Repeat("x", 70<<10) + `", "claims": []}`, 413},
	} {
		r := e.do(request{method: "POST", path: "/v1/verify", token: analystToken, body: []byte(tt.body)})
		if r.status != tt.status {
			t.Errorf("%s: got %d, want %d: %s", tt.name, r.status, tt.status, r.body)
		}
	}
	if r := e.do(request{method: "POST", path: "/v1/verify?trace=maybe", token: analystToken, body: jsonBody(t, req)}); r.status != 400 {
		t.Errorf("trace=maybe: got %d, want 400", r.status)
	}
}

// TestServeVerifyWithoutClaims: POST /v1/verify takes the cheaper
// contract, a request with no claims, and returns its grounding and
// sources; a retrieval error is never accepted.
func TestServeVerifyWithoutClaims(t *testing.T) {
	e := newTestEnv(t, true)
	ids := e.chunkIDs("expense-policy.md")
	for _, tt := range []struct {
		name, body  string
		disposition string
		grounding   string
		sources     int
	}{
		{"grounded", `{"request_id":"g1","retrieved":["` + ids[0] + `","` + ids[1] + `","` + e.secret + `"]}`, verify.AnswerAccept, verify.Grounded, 1},
		{"claims empty", `{"request_id":"g2","retrieved":["` + ids[0] + `"],"claims":[]}`, verify.AnswerAccept, verify.Grounded, 1},
		{"nothing retrieved", `{"request_id":"g3","retrieved":[]}`, verify.AnswerAbstain, verify.InsufficientEvidence, 0},
		{"only forbidden", `{"request_id":"g4","retrieved":["` + e.secret + `"]}`, verify.AnswerAbstain, verify.InsufficientEvidence, 0},
		{"outage", `{"request_id":"g5","retrieved":[],"retrieval_error":"timeout"}`, verify.AnswerAbstain, verify.RetrievalUnavailable, 0},
		{"partial outage", `{"request_id":"g6","retrieved":["` + ids[0] + `"],"retrieval_error":"timeout"}`, verify.AnswerAbstain, verify.RetrievalUnavailable, 1},
	} {
		r := e.do(request{method: "POST", path: "/v1/verify", token: internToken, body: []byte(tt.body)})
		if r.status != 200 {
			t.Errorf("%s: got %d: %s", tt.name, r.status, r.body)
			continue
		}
		var rep verify.Report
		r.decode(t, &rep)
		if rep.Disposition != tt.disposition || rep.Grounding != tt.grounding || len(rep.Sources) != tt.sources || rep.TraceID == "" {
			t.Errorf("%s: got %s, %s, %d sources, trace %q: want %s, %s, %d sources, a trace", tt.name, rep.Disposition, rep.Grounding,
				len(rep.Sources), rep.TraceID, tt.disposition, tt.grounding, tt.sources)
		}
		for _, s := range rep.Sources {
			if s.DocumentID != "expense-policy.md" || s.Label != "[1]" || !strings.HasPrefix(s.URL, "https://intranet.example/policies/") || s.Title == "" {
				t.Errorf("%s: source %+v: want [1], expense-policy.md, titled, linked under its source URL", tt.name, s)
			}
		}
		assertNoSecret(t, r.body)
		if bytes.Contains(r.body, []byte("secret.md")) || bytes.Contains(r.body, []byte(`"text"`)) {
			t.Errorf("%s: the body names the forbidden document or carries chunk text: %s", tt.name, r.body)
		}
	}
	for _, tt := range []struct{ name, body string }{
		{"retrieval_error not a string", `{"request_id":"x","retrieved":[],"retrieval_error":504}`},
		{"unknown field without claims", `{"request_id":"x","retrieved":[],"scores":[0.4]}`},
	} {
		if r := e.do(request{method: "POST", path: "/v1/verify", token: internToken, body: []byte(tt.body)}); r.status != 400 || r.errorCode(t) != "bad_request" {
			t.Errorf("%s: got %d %s, want 400 bad_request", tt.name, r.status, r.body)
		}
	}
}

// TestServeTraces: with --trace-writes async the report comes back at once
// and its trace is stored behind it, many to a commit; every report's
// trace is stored by shutdown, and GET /v1/traces/{id} serves it to its
// own principal and to an administrator (TestServeTraceAccess: who else).
func TestServeTraces(t *testing.T) {
	for _, mode := range []string{TraceSync, TraceAsync} {
		t.Run(mode, func(t *testing.T) {
			e := newTestEnvWith(t, true, func(c *serverConfig) { c.traceWrites = mode })
			req := verifyRequest(t, e, 3)
			var wg sync.WaitGroup
			ids := make([]string, 40)
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.do(request{method: "POST", path: "/v1/verify", token: analystToken, body: jsonBody(t, req)})
					var rep verify.Report
					r.decode(t, &rep)
					if r.status != 200 || rep.TraceID == "" {
						t.Errorf("verify: got %d, trace %q", r.status, rep.TraceID)
					}
					ids[i] = rep.TraceID
				}()
			}
			wg.Wait()
			e.srv.close() // stores what is queued; idempotent
			for _, id := range ids {
				var raw []byte
				var seq uint64
				err := e.db.View(func(tx *store.Tx) (err error) {
					seq = tx.Sequence()
					raw, err = tx.Trace(id)
					return err
				})
				if err != nil {
					t.Fatalf("trace %s of an answered verification: %v", id, err)
				}
				var tr verify.Trace
				if err := json.Unmarshal(raw, &tr); err != nil || tr.TraceID != id || tr.StoreSequence != seq ||
					tr.Request == nil || tr.Request.Principal != "analyst@example.com" || tr.Report == nil || tr.Report.TraceID != id {
					t.Fatalf("trace %s: %v, got id %s, store sequence %d (store at %d), request %+v", id, err, tr.TraceID, tr.StoreSequence, seq, tr.Request)
				}
			}
			if mode == TraceAsync && !bytes.Contains(e.do(request{path: "/metrics", token: serviceToken}).body, []byte(`evidence_traces_total{outcome="written"} 40`)) {
				t.Errorf("metrics: want 40 traces written")
			}
			for _, tt := range []struct {
				name   string
				req    request
				status int
			}{
				{"own principal", request{path: "/v1/traces/" + ids[0], token: analystToken}, 200},
				{"service", request{path: "/v1/traces/" + ids[0], token: serviceToken}, 200},
				{"other principal", request{path: "/v1/traces/" + ids[0], token: internToken}, 404},
				{"no such trace", request{path: "/v1/traces/nothing", token: serviceToken}, 404},
				{"no token", request{path: "/v1/traces/" + ids[0]}, 401},
			} {
				r := e.do(tt.req)
				if r.status != tt.status {
					t.Errorf("%s: got %d, want %d", tt.name, r.status, tt.status)
				}
				if r.status == 200 && !bytes.Contains(r.body, []byte(`"trace_id":"`+ids[0]+`"`)) {
					t.Errorf("%s: body is not the trace: %.200s", tt.name, r.body)
				}
				if r.status == 404 && bytes.Contains(r.body, []byte("analyst")) {
					t.Errorf("%s: the 404 reveals the trace", tt.name)
				}
			}
		})
	}
}

func TestServeDocuments(t *testing.T) {
	e := newTestEnv(t, true)
	type listing struct {
		Documents []resolve.DocumentSummary `json:"documents"`
		Failures  []store.Failure           `json:"failures"`
	}
	ids := func(l listing) (out []string) {
		for _, d := range l.Documents {
			out = append(out, d.DocumentID)
		}
		return out
	}
	var admin, analyst, intern listing
	e.do(request{path: "/v1/documents", token: serviceToken}).decode(t, &admin)
	e.do(request{path: "/v1/documents", token: analystToken}).decode(t, &analyst)
	r := e.do(request{path: "/v1/documents", token: internToken})
	r.decode(t, &intern)
	all := []string{"credit-agreement-summary.txt", "data-retention.md", "expense-policy.md", "secret.md", "security-faq.html"}
	if diff := cmp.Diff(all, ids(admin)); diff != "" {
		t.Errorf("service (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(all, ids(analyst)); diff != "" {
		t.Errorf("analyst (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"credit-agreement-summary.txt", "data-retention.md", "expense-policy.md", "security-faq.html"}, ids(intern)); diff != "" {
		t.Errorf("intern (-want +got):\n%s", diff)
	}
	if admin.Documents[3].ACL == nil || analyst.Documents[3].ACL != nil || bytes.Contains(r.body, []byte("failures")) {
		t.Errorf("only a service acting for nobody sees access lists and failures")
	}
}

// TestServeUploadDelete: uploads through the API (raw and multipart), a
// re-upload that changes nothing, a new version that supersedes, deletion
// leaving a tombstone, and bad uploads.
func TestServeUploadDelete(t *testing.T) {
	e := newTestEnv(t, true)
	v1 := "# Travel\n\n## Meals\n\nThe meal allowance is EUR 75 per day.\n"
	r := e.do(request{method: "POST", path: "/v1/documents?filename=travel.md&id=policies/travel.md&url=https://intranet.example/travel.md&acl=analyst@example.com", token: serviceToken, body: []byte(v1)})
	var res ingest.Result
	r.decode(t, &res)
	if r.status != http.StatusCreated || res.Status != ingest.Ingested || res.DocumentID != "policies/travel.md" || res.Path != "travel.md" {
		t.Fatalf("upload: got %d %+v", r.status, res)
	}
	oldChunk := store.ChunkID(res.DocumentVersion, 0)
	if r := e.do(request{path: "/v1/chunks/" + oldChunk, token: internToken}); r.status != 403 {
		t.Errorf("the upload's access list: intern got %d, want 403", r.status)
	}
	r = e.do(request{method: "POST", path: "/v1/documents?filename=travel.md&id=policies/travel.md&url=https://intranet.example/travel.md", token: serviceToken, body: []byte(v1)})
	r.decode(t, &res)
	if r.status != http.StatusOK || res.Status != ingest.Unchanged {
		t.Errorf("same bytes again: got %d %s, want 200 unchanged", r.status, res.Status)
	}
	// A changed document, as multipart form data.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("id", "policies/travel.md")
	_ = mw.WriteField("acl", "analyst@example.com")
	fw, _ := mw.CreateFormFile("file", "travel.md")
	_, _ = fw.Write([]byte(strings.Replace(v1, "75", "80", 1)))
	mw.Close()
	r = e.do(request{method: "POST", path: "/v1/documents", token: serviceToken, contentType: mw.FormDataContentType(), body: buf.Bytes()})
	r.decode(t, &res)
	if r.status != http.StatusCreated || res.Superseded == "" {
		t.Fatalf("new version: got %d %+v, want 201 superseding the first", r.status, res)
	}
	var old servedBody
	r = e.do(request{path: "/v1/chunks/" + oldChunk, token: analystToken})
	r.decode(t, &old)
	if r.status != 200 || old.Status != resolve.StatusSuperseded || old.CurrentVersion != res.DocumentVersion || !strings.Contains(old.Text, "EUR 75") {
		t.Errorf("old chunk: got %d %s current %q %q, want superseded, naming %s, the old text", r.status, old.Status, old.CurrentVersion, old.Text, res.DocumentVersion)
	}
	// Delete: a tombstone answers deleted (410), never not found.
	r = e.do(request{method: "DELETE", path: "/v1/documents/policies/travel.md", token: serviceToken})
	var del struct {
		DocumentID      string   `json:"document_id"`
		DeletedVersions []string `json:"deleted_versions"`
	}
	r.decode(t, &del)
	if r.status != 200 || del.DocumentID != "policies/travel.md" || len(del.DeletedVersions) != 2 {
		t.Errorf("delete: got %d %+v", r.status, del)
	}
	r = e.do(request{path: "/v1/chunks/" + oldChunk, token: analystToken})
	old = servedBody{}
	r.decode(t, &old)
	if r.status != http.StatusGone || old.Status != resolve.StatusDeleted || old.Text != "" || old.Link != nil {
		t.Errorf("deleted chunk: got %d %s %q", r.status, old.Status, old.Text)
	}
	if r := e.do(request{method: "DELETE", path: "/v1/documents/nope.md", token: serviceToken}); r.status != 404 || r.errorCode(t) != "not_found" {
		t.Errorf("delete unknown: got %d %s", r.status, r.body)
	}
	for _, tt := range []struct {
		name, path, body string
		status           int
	}{
		{"unsupported type", "/v1/documents?filename=a.exe", "MZ", 415},
		{"no filename", "/v1/documents", "# x", 400},
		{"path in filename", "/v1/documents?filename=../../etc/passwd.md", "# x", 400},
		{"empty", "/v1/documents?filename=a.md", "", 400},
		{"too large", "/v1/documents?filename=big.md", strings.Repeat("word ", 60<<10), 413},
		{"failed extraction", "/v1/documents?filename=blank.md", "   \n\n  ", 422},
		{"bad chunk size", "/v1/documents?filename=c.md&chunk_size=10&overlap=20", "# c\n\nsome text", 400},
		{"overlap the chunker would reduce", "/v1/documents?filename=c.md&chunk_size=10&overlap=5", "# c\n\nsome text", 400},
		{"small chunk size, default overlap", "/v1/documents?filename=d.md&chunk_size=10", "# d\n\nsome text", 201},
	} {
		r := e.do(request{method: "POST", path: tt.path, token: serviceToken, body: []byte(tt.body)})
		if r.status != tt.status {
			t.Errorf("%s: got %d, want %d: %s", tt.name, r.status, tt.status, r.body)
		}
		if bytes.Contains(r.body, []byte(os.TempDir())) {
			t.Errorf("%s: the answer names a temporary path: %s", tt.name, r.body)
		}
	}
}

func TestServeQuarantineAndMetrics(t *testing.T) {
	e := newTestEnv(t, false)
	nv := storetest.NewVersion("imported.txt", "Alpha beta gamma delta epsilon zeta eta theta.", 10)
	nv.Chunks[1].Quarantine = &store.Quarantine{Reason: resolve.ReasonTextMismatch, Want: `"beta gamm"`, Got: `"ta gamma "`}
	nv.Chunks[1].SpanHash = store.ID{}
	nv.Chunks[2].Quarantine = &store.Quarantine{Reason: resolve.ReasonOutOfRange}
	nv.Chunks[2].SpanHash = store.ID{}
	nv.Version.Quarantined = 2
	if _, err := e.db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	var q struct {
		Chunks   []ingest.QuarantinedChunk `json:"chunks"`
		ByReason map[string]int            `json:"by_reason"`
		Total    int                       `json:"total"`
	}
	e.do(request{path: "/v1/quarantine"}).decode(t, &q)
	if q.Total != 2 || q.ByReason[resolve.ReasonTextMismatch] != 1 || q.Chunks[0].ChunkID != store.ChunkID(nv.Version.ID, 1) {
		t.Errorf("got %+v", q)
	}
	e.do(request{path: "/v1/quarantine?reason=out_of_range"}).decode(t, &q)
	if q.Total != 1 {
		t.Errorf("reason filter: got %d, want 1", q.Total)
	}
	if r := e.do(request{path: "/v1/chunks/" + store.ChunkID(nv.Version.ID, 1)}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("quarantined chunk: got %d, want 422", r.status)
	}
	if r := e.do(request{path: "/v1/quarantine?all=perhaps"}); r.status != 400 {
		t.Errorf("all=perhaps: got %d, want 400", r.status)
	}
	// An unknown reason selects nothing by mistake: refused, with the codes.
	if r := e.do(request{path: "/v1/quarantine?reason=text-mismatch"}); r.status != 400 || !bytes.Contains(r.body, []byte("want one of out_of_range, text_mismatch")) {
		t.Errorf("reason=text-mismatch: got %d %s, want 400 naming the reason codes", r.status, r.body)
	}
	// Requests, verification failures and quarantine counts show in /metrics.
	req := verifyRequest(t, e, 2)
	req.Claims[1].Evidence[0].ChunkID = e.secret // not retrieved, and forbidden
	e.do(request{method: "POST", path: "/v1/verify?trace=false", principal: "intern@example.com", body: jsonBody(t, req)})
	r := e.do(request{path: "/metrics"})
	for _, want := range []string{
		`evidence_http_requests_total{code="200",route="GET /v1/quarantine"} 2`,
		`evidence_http_requests_total{code="422",route="GET /v1/chunks/{chunk_id}"} 1`,
		`evidence_http_request_duration_seconds_count{route="POST /v1/verify"} 1`,
		`evidence_verification_failures_total{category="resolution"} 1`,
		`evidence_verification_failures_total{category="permission"} 0`,
		`evidence_quarantined_chunks{reason="text_mismatch"} 1`,
		`evidence_quarantined_chunks{reason="out_of_range"} 1`,
		`evidence_resolutions_total{status="quarantined"} 1`,
	} {
		if !bytes.Contains(r.body, []byte(want+"\n")) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", regexp.MustCompile(`(?m)^(#|go_|process_|promhttp_).*\n`).ReplaceAll(r.body, nil))
	}
}

// TestServeMalformed: errors are JSON with a code, never a stack or stored
// text; unknown routes and methods too.
func TestServeMalformed(t *testing.T) {
	e := newTestEnv(t, false)
	id := e.chunkIDs("expense-policy.md")[0]
	many := resolveRequest{}
	for range maxBatch + 1 {
		many.Citations = append(many.Citations, resolve.CitationRequest{ChunkID: id})
	}
	for _, tt := range []struct {
		name   string
		req    request
		status int
		code   string
	}{
		{"malformed JSON", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": [{"chunk_id": `)}, 400, "bad_request"},
		{"unknown field", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": [], "x": 1}`)}, 400, "bad_request"},
		{"not an object", request{method: "POST", path: "/v1/resolve", body: []byte(`[1, 2]`)}, 400, "bad_request"},
		{"trailing brace", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": []} }`)}, 400, "bad_request"},
		{"missing chunk id", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": [{"quote": "x"}]}`)}, 400, "bad_request"},
		{"half an offset pair", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": [{"chunk_id": "x", "source_start": 3}]}`)}, 400, "bad_request"},
		{"inverted offsets", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": [{"chunk_id": "x", "source_start": 9, "source_end": 3}]}`)}, 400, "bad_request"},
		{"too many citations", request{method: "POST", path: "/v1/resolve", body: jsonBody(t, many)}, 400, "bad_request"},
		{"oversized", request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations": [{"chunk_id": "` + strings.Repeat("x", 65<<10) + `"}]}`)}, 413, "payload_too_large"},
		{"unknown route", request{path: "/v1/nothing"}, 404, "not_found"},
		{"wrong method", request{method: "PUT", path: "/v1/chunks/" + id}, 405, "method_not_allowed"},
		{"viewer range", request{path: "/view/versions/" + strings.Split(id, "-")[0] + "?start=0&end=99999999"}, 400, "bad_request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.req)
			if r.status != tt.status {
				t.Fatalf("got %d, want %d: %s", r.status, tt.status, r.body)
			}
			if got := r.errorCode(t); got != tt.code {
				t.Errorf("code %q, want %q", got, tt.code)
			}
			if tt.status == 405 && r.header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
}

// TestServeConcurrentIngest uploads documents and new versions through the
// API while readers resolve chunks and batches: no request fails, no
// reader waits for the writer, and every answer is one consistent state of
// the immutable versions (a chunk's text never changes; its status moves
// from ok to superseded only).
func TestServeConcurrentIngest(t *testing.T) {
	e := newTestEnv(t, false)
	type expect struct{ text string }
	want := map[string]expect{}
	var ids []string
	for _, doc := range []string{"expense-policy.md", "data-retention.md", "security-faq.html", "credit-agreement-summary.txt"} {
		for _, id := range e.chunkIDs(doc) {
			r, err := resolve.Chunk(e.db, id, "")
			if err != nil {
				t.Fatal(err)
			}
			want[id] = expect{r.Text}
			ids = append(ids, id)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var resolves, duringIngest atomic.Int64
	var ingesting atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ctx.Err() == nil; i++ {
				id := ids[i%len(ids)]
				var r response
				if i%3 == 0 {
					r = e.do(request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations":[{"chunk_id":"` + id + `"},{"chunk_id":"` + ids[(i+1)%len(ids)] + `"}]}`)})
				} else {
					r = e.do(request{path: "/v1/chunks/" + id})
				}
				if r.status != 200 {
					errs <- fmt.Errorf("%s: status %d: %s", id, r.status, r.body)
					return
				}
				var results []servedBody
				if i%3 == 0 {
					var b struct{ Results []servedBody }
					r.decode(t, &b)
					results = b.Results
				} else {
					var b servedBody
					r.decode(t, &b)
					results = []servedBody{b}
				}
				for _, got := range results {
					if w, ok := want[got.ChunkID]; !ok || got.Text != w.text || got.Link == nil ||
						(got.Status != resolve.StatusOK && got.Status != resolve.StatusSuperseded) ||
						(got.Status == resolve.StatusSuperseded) != (got.CurrentVersion != "") {
						errs <- fmt.Errorf("%s: inconsistent answer: %s current %q, text equal %v", got.ChunkID, got.Status, got.CurrentVersion, ok && got.Text == w.text)
						return
					}
				}
				resolves.Add(1)
				if ingesting.Load() {
					duringIngest.Add(1)
				}
			}
		}()
	}
	// Writers: new documents, and new versions of a served one.
	for i := range 12 {
		body := fmt.Sprintf("# Upload %d\n\n%s\n", i, strings.Repeat(fmt.Sprintf("Sentence %d of a document uploaded while readers resolve. ", i), 200))
		path := fmt.Sprintf("/v1/documents?filename=upload-%d.md", i)
		if i%3 == 2 {
			b, err := os.ReadFile(filepath.Join(mustSample(t), "expense-policy.md"))
			if err != nil {
				t.Fatal(err)
			}
			body = string(b) + fmt.Sprintf("\nRevision %d.\n", i)
			path = "/v1/documents?filename=expense-policy.md"
		}
		ingesting.Store(true)
		r := e.do(request{method: "POST", path: path, body: []byte(body)})
		ingesting.Store(false)
		if r.status != http.StatusCreated {
			t.Errorf("upload %d: got %d: %s", i, r.status, r.body)
		}
	}
	time.Sleep(20 * time.Millisecond)
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if resolves.Load() == 0 || duringIngest.Load() == 0 {
		t.Errorf("%d resolves, %d while an ingest ran: want readers to run beside the writer", resolves.Load(), duringIngest.Load())
	}
	t.Logf("%d resolves, %d of them while an ingest ran", resolves.Load(), duringIngest.Load())
}

func mustSample(t *testing.T) string {
	t.Helper()
	dir, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServeViewerHTML checks the viewer's page without a browser: the
// passage marked with the exact span, escaping, the notices.
func TestServeViewerHTML(t *testing.T) {
	e := newTestEnv(t, false)
	dir := t.TempDir()
	hostile := "# Notes\n\nA <script>alert(1)</script> & \"quotes\" stay text.\fPage two of the notes.\n"
	path := filepath.Join(dir, "hostile.txt")
	if err := os.WriteFile(path, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), e.db, []string{path}, ingest.Options{Chunk: ingest.ChunkOptions{Size: 70, Overlap: 0}}); err != nil {
		t.Fatal(err)
	}
	id := e.chunkIDs("hostile.txt")[0]
	c, _ := resolve.Chunk(e.db, id, "")
	r := e.do(request{path: "/view/" + id})
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("got %d %v", r.status, r.header)
	}
	page := string(r.body)
	if strings.Contains(page, "<script>alert") || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("stored text is not escaped:\n%s", page)
	}
	if !strings.Contains(page, `<mark id="cited">`+htmlEscape(c.Text)+`</mark>`) {
		t.Errorf("the page does not mark the span %q:\n%s", c.Text, page)
	}
	if !strings.Contains(page, `data-page="2"`) || strings.Contains(page, "file://") || regexp.MustCompile(`(?i)<(link|img|iframe)|src=`).MatchString(page) {
		t.Errorf("want a page marker, no local path and no external asset:\n%s", page)
	}
	// Superseded: says so, links the current version, still shows the old text.
	if err := os.WriteFile(path, []byte(strings.Replace(hostile, "Page two", "Page 2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.Run(context.Background(), e.db, []string{path}, ingest.Options{Chunk: ingest.ChunkOptions{Size: 70, Overlap: 0}})
	if err != nil {
		t.Fatal(err)
	}
	cur := sum.Results[0].DocumentVersion
	r = e.do(request{path: "/view/" + id})
	if page := string(r.body); r.status != 200 || !strings.Contains(page, "superseded") || !strings.Contains(page, `href="/view/versions/`+cur+`"`) || !strings.Contains(page, `<mark id="cited">`) {
		t.Errorf("superseded: got %d:\n%s", r.status, page)
	}
	r = e.do(request{path: "/view/versions/" + cur})
	if page := string(r.body); r.status != 200 || strings.Contains(page, "<mark") || !strings.Contains(page, "Page 2 of the notes") {
		t.Errorf("whole version: got %d:\n%s", r.status, page)
	}
	if _, err := e.db.Delete("hostile.txt", ""); err != nil {
		t.Fatal(err)
	}
	r = e.do(request{path: "/view/" + id})
	if page := string(r.body); r.status != http.StatusGone || !strings.Contains(page, "deleted") || strings.Contains(page, "Notes") || strings.Contains(page, "<mark") {
		t.Errorf("deleted: got %d:\n%s", r.status, page)
	}
	r = e.do(request{path: "/view/" + e.secret, principal: "intern@example.com"})
	if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "may not read") {
		t.Errorf("forbidden: got %d", r.status)
	}
	assertNoSecret(t, r.body)
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestOpenAPI: the served description is docs/openapi.json, byte for byte,
// and it documents exactly the routes the server has.
func TestOpenAPI(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docs, openAPIJSON) {
		t.Fatal("server/openapi.json differs from docs/openapi.json: copy docs/openapi.json over it")
	}
	var spec struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(docs, &spec); err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	if !strings.HasPrefix(spec.OpenAPI, "3.") {
		t.Errorf("openapi %q, want 3.x", spec.OpenAPI)
	}
	var documented []string
	for path, ops := range spec.Paths {
		for method := range ops {
			if method != "parameters" {
				documented = append(documented, strings.ToUpper(method)+" "+path)
			}
		}
	}
	e := newTestEnv(t, false)
	var routes []string
	for _, r := range e.srv.routes() {
		routes = append(routes, strings.ReplaceAll(r, "...}", "}"))
	}
	sort.Strings(documented)
	sort.Strings(routes)
	if diff := cmp.Diff(routes, documented); diff != "" {
		t.Errorf("routes (-served +documented):\n%s", diff)
	}
	r := e.do(request{path: "/openapi.json"})
	if r.status != 200 || !bytes.Equal(r.body, docs) {
		t.Errorf("GET /openapi.json: got %d, %d bytes", r.status, len(r.body))
	}
}

func TestLoadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, fmt.Sprintf("t%d", len(s)))
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, bad := range []string{"", "# only a comment\n", "short analyst@example.com\n", "a-long-enough-token-1 one two\n",
		"a-long-enough-token-1 alice\na-long-enough-token-1 bob\n"} {
		if _, err := LoadTokens(write(bad)); err == nil {
			t.Errorf("token file %q: got no error", bad)
		}
	}
	ts, err := LoadTokens(write(testTokens))
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]tokenEntry{
		analystToken: {principal: "analyst@example.com"},
		internToken:  {principal: "intern@example.com"},
		serviceToken: {service: true},
	} {
		got, ok := ts.lookup(tok)
		if !ok || got.principal != want.principal || got.service != want.service {
			t.Errorf("lookup(%q): got %+v %v", tok, got, ok)
		}
	}
	for _, tok := range []string{"", analystToken + "x", analystToken[1:], strings.ToUpper(serviceToken)} {
		if _, ok := ts.lookup(tok); ok {
			t.Errorf("lookup(%q): got a match", tok)
		}
	}
}

// BenchmarkServeChunk measures the server's handling of GET
// /v1/chunks/{chunk_id} in process (no network), warm: resolve, link, JSON.
func BenchmarkServeChunk(b *testing.B) {
	e := newTestEnv(b, false)
	var ids []string
	for _, doc := range []string{"expense-policy.md", "security-faq.html", "credit-agreement-summary.txt", "data-retention.md"} {
		ids = append(ids, e.chunkIDs(doc)...)
	}
	reqs := make([]*http.Request, len(ids))
	for i, id := range ids {
		reqs[i] = httptest.NewRequest(http.MethodGet, "/v1/chunks/"+id, nil)
		e.srv.ServeHTTP(httptest.NewRecorder(), reqs[i]) // warm the link caches
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, reqs[i%len(reqs)])
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
		i++
	}
}

// BenchmarkServeVerify measures POST /v1/verify?trace=false of a 10-claim
// answer in process (no network): parse, verify, JSON.
func BenchmarkServeVerify(b *testing.B) {
	e := newTestEnv(b, false)
	body := jsonBody(b, verifyRequest(b, e, 10))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/verify?trace=false", bytes.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// TestTraceQueueLosesOnlyTheBadTrace: a batch that fails to commit is
// stored trace by trace, so one bad trace loses only itself.
func TestTraceQueueLosesOnlyTheBadTrace(t *testing.T) {
	db := storetest.Open(t)
	if err := db.PutTrace("dup", []byte(`{"other":"content"}`)); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	m := newServerMetrics(db)
	q := newTraceQueue(db, []byte(`{}`), log.New(&logged, "", 0), m)
	for _, id := range []string{"a", "dup", "b"} {
		if err := q.put(pendingTrace{id: id, at: time.Now(), request: &verify.Request{RequestID: id}, report: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	q.close()
	for _, id := range []string{"a", "b"} {
		if err := db.View(func(tx *store.Tx) error { _, err := tx.Trace(id); return err }); err != nil {
			t.Errorf("trace %s: %v, want it stored", id, err)
		}
	}
	if got := testutil.ToFloat64(m.traces.WithLabelValues("failed")); got != 1 || !strings.Contains(logged.String(), "1 of") {
		t.Errorf("failed traces %v, log %q: want the one bad trace counted and logged", got, logged.String())
	}
}
