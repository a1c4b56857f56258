package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/verify"
)

// accessLine is one request line of the JSON log.
type accessLine struct {
	Time      time.Time `json:"time"`
	Level     string    `json:"level"`
	Msg       string    `json:"msg"`
	RequestID string    `json:"request_id"`
	Route     string    `json:"route"`
	Status    int       `json:"status"`
	LatencyMS *float64  `json:"latency_ms"`
	Bytes     *int64    `json:"bytes"`
	Principal *string   `json:"principal"`
	Service   bool      `json:"service"`
	Error     string    `json:"error"`
}

// TestServeRequestLog: with --log-format json every request, routed or
// not, authenticated or not, gets one JSON line with its time, request id
// (the caller's X-Request-ID, else a new one, echoed in the response),
// principal, route pattern, status, latency and bytes; no line holds a
// word of a document, though the requests carry them in bodies, paths and
// queries and the responses in their bodies.
func TestServeRequestLog(t *testing.T) {
	var logger *slog.Logger
	e := newTestEnvWith(t, true, func(c *serverConfig) {
		var err error
		if logger, err = NewLogger(c.errlog, LogJSON); err != nil {
			t.Fatal(err)
		}
		c.logger = logger
	})
	const analyst = "analyst@example.com"
	secretQuote := url.QueryEscape("The merger codename is BLUEHERON")
	verifySecret := verify.Request{RequestID: "r-log", Retrieved: []string{e.secret}, Claims: []verify.Claim{{
		ClaimID: "c1", Text: "The merger codename is BLUEHERON.",
		Evidence: []verify.Evidence{{ChunkID: e.secret, Quote: "The merger codename is BLUEHERON"}}}}}
	type sent struct {
		req              request
		requestID        string // sent as X-Request-ID; "" sends none
		route, principal string
		service          bool
		status           int
		errorCode        string // of an error answer; a forbidden resolution is no error
	}
	cases := []sent{
		{req: request{path: "/v1/chunks/" + e.secret + "?quote=" + secretQuote, token: analystToken}, requestID: "req-42.a:b_c",
			route: "GET /v1/chunks/{chunk_id}", principal: analyst, status: 200},
		{req: request{method: "POST", path: "/v1/verify", token: serviceToken, principal: analyst, body: jsonBody(t, verifySecret)},
			route: "POST /v1/verify", principal: analyst, service: true, status: 200},
		{req: request{method: "POST", path: "/v1/documents?filename=minutes.md&id=BLUEHERON-minutes", token: serviceToken, body: []byte(secretDoc)},
			route: "POST /v1/documents", service: true, status: 201},
		{req: request{path: "/v1/chunks/" + e.secret, token: internToken}, requestID: "bad id with spaces and BLUEHERON",
			route: "GET /v1/chunks/{chunk_id}", principal: "intern@example.com", status: 403},
		{req: request{path: "/v1/snapshot", token: analystToken}, route: "GET /v1/snapshot", principal: analyst, status: 403, errorCode: "forbidden"},
		{req: request{path: "/v1/traces/BLUEHERON"}, route: "GET /v1/traces/{trace_id}", status: 401, errorCode: "unauthorized"},
		{req: request{path: "/no/such/BLUEHERON?merger=1", token: analystToken}, route: "unmatched", status: 404, errorCode: "not_found"},
	}
	var ids []string
	var bodies []int
	for _, c := range cases {
		r := e.doWithHeader(c.req, c.requestID)
		if r.status != c.status {
			t.Fatalf("%s %s: got %d, want %d: %.200s", c.req.method, c.req.path, r.status, c.status, r.body)
		}
		ids = append(ids, r.header.Get(requestIDHeader))
		bodies = append(bodies, len(r.body))
	}
	e.ts.Close() // waits for the handlers, so every line is written

	var lines []accessLine
	for _, raw := range bytes.Split(bytes.TrimSpace([]byte(e.log.String())), []byte("\n")) {
		for _, w := range secretWords {
			if bytes.Contains(raw, []byte(w)) {
				t.Errorf("a log line holds %q: %s", w, raw)
			}
		}
		var l accessLine
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("a log line is not JSON: %v: %s", err, raw)
		}
		if l.Msg == "request" {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(cases) {
		t.Fatalf("got %d request lines, want %d:\n%s", len(lines), len(cases), e.log)
	}
	seen := map[string]bool{}
	for i, c := range cases {
		l := lines[i]
		switch {
		case c.requestID != "" && isIDToken(c.requestID):
			if l.RequestID != c.requestID {
				t.Errorf("case %d: got request id %q, want the caller's %q", i, l.RequestID, c.requestID)
			}
		case l.RequestID == "" || l.RequestID == c.requestID:
			t.Errorf("case %d: got request id %q, want a new one", i, l.RequestID)
		}
		if l.RequestID != ids[i] || seen[l.RequestID] {
			t.Errorf("case %d: request id %q: want the response's %q, and unique", i, l.RequestID, ids[i])
		}
		seen[l.RequestID] = true
		if l.Time.IsZero() || time.Since(l.Time) > time.Minute || l.Route != c.route || l.Status != c.status || l.Error != c.errorCode ||
			l.Principal == nil || *l.Principal != c.principal || l.Service != c.service {
			t.Errorf("case %d: got %+v, want route %q, status %d, error %q, principal %q (service %v), a time", i, l, c.route, c.status, c.errorCode, c.principal, c.service)
		}
		if l.Bytes == nil || *l.Bytes != int64(bodies[i]) || l.LatencyMS == nil || *l.LatencyMS < 0 || *l.LatencyMS > 60000 {
			t.Errorf("case %d: got bytes %v latency %v ms, want %d bytes and a latency", i, l.Bytes, l.LatencyMS, bodies[i])
		}
	}
}

// doWithHeader is do, with an X-Request-ID header when id is not empty.
func (e *testEnv) doWithHeader(r request, id string) response {
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
	if id != "" {
		req.Header.Set(requestIDHeader, id)
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

// TestServeLogText: the text format writes key=value lines, one a
// request; any other format is an error naming the allowed ones.
func TestServeLogText(t *testing.T) {
	var buf bytes.Buffer
	logger, err := NewLogger(&buf, LogText)
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvWith(t, false, func(c *serverConfig) { c.logger = logger })
	r := e.do(request{path: "/v1/chunks/" + e.secret, principal: "analyst@example.com"})
	e.ts.Close()
	line := strings.TrimSpace(buf.String())
	for _, want := range []string{"msg=request", `route="GET /v1/chunks/{chunk_id}"`, "status=200", "request_id=" + r.header.Get(requestIDHeader),
		"principal=analyst@example.com", "bytes=" + strconv.Itoa(len(r.body)), "latency_ms="} {
		if !strings.Contains(line, want) || strings.Count(line, "\n") != 0 {
			t.Errorf("text log: want one line with %s, got:\n%s", want, line)
		}
	}
	assertNoSecret(t, buf.Bytes())
	if _, err := NewLogger(&buf, "xml"); err == nil || !strings.Contains(err.Error(), `"xml": want text or json`) {
		t.Errorf("log format xml: got %v, want an error naming text and json", err)
	}
}
