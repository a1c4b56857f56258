package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// waitFor polls cond every 5 ms until it holds, failing the test after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// holdRequest sends the headers of a POST /v1/verify with a body it does
// not send yet, so its handler holds a slot while it waits for the body.
// It returns the connection; closing it ends the request.
func holdRequest(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := fmt.Fprintf(c, "POST /v1/verify?trace=false HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	return c
}

// servedWithLimits serves e's server through the listener and http.Server
// that `evidence serve` uses (connection limit, timeouts), on 127.0.0.1.
func servedWithLimits(t *testing.T, e *testEnv, maxConns int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := e.srv.httpServer(2*time.Second, 10*time.Second, 10*time.Second, slog.New(slog.NewTextHandler(e.log, nil)))
	done := make(chan struct{})
	go func() { defer close(done); _ = hs.Serve(e.srv.limitListener(ln, maxConns)) }()
	t.Cleanup(func() { hs.Close(); <-done })
	return ln.Addr().String()
}

// TestServeShedsLoad: beyond the requests in flight and waiting, a request
// is answered at once with a 503 unavailable and Retry-After, counted,
// while health checks and metrics still answer from their own lane; a
// request that waits its time in the queue gets the same 503, and one that
// gets a slot in time is served.
func TestServeShedsLoad(t *testing.T) {
	e := newTestEnvWith(t, false, func(c *serverConfig) {
		c.limits = serveLimits{maxInFlight: 1, maxQueue: 1, queueTimeout: 150 * time.Millisecond}
	})
	addr := strings.TrimPrefix(e.ts.URL, "http://")
	id := e.chunkIDs("expense-policy.md")[0]
	api := e.srv.lanes[laneAPI]
	held := holdRequest(t, addr)
	waitFor(t, "the held request to take the api slot", func() bool { return len(api.slots) == 1 })

	// One may wait: it gets the slot when the held request ends.
	type result struct {
		r    response
		took time.Duration
	}
	queued := make(chan result, 1)
	go func() {
		start := time.Now()
		resp, err := http.Get(e.ts.URL + "/v1/chunks/" + id)
		if err != nil {
			queued <- result{}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		queued <- result{response{resp.StatusCode, resp.Header, b}, time.Since(start)}
	}()
	waitFor(t, "a request to wait in the queue", func() bool { return api.queued.Load() == 1 })

	// The queue is full: refused at once.
	start := time.Now()
	r := e.do(request{path: "/v1/chunks/" + id})
	took := time.Since(start)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" || r.errorCode(t) != "unavailable" {
		t.Fatalf("over the limit: got %d Retry-After %q %s, want 503 with Retry-After 1 and code unavailable", r.status, r.header.Get("Retry-After"), r.body)
	}
	if took > time.Second {
		t.Errorf("over the limit: answered after %s, want at once", took)
	}
	// Health and metrics have their own lane.
	if r := e.do(request{path: "/healthz"}); r.status != http.StatusOK {
		t.Errorf("healthz under overload: got %d %s", r.status, r.body)
	}
	m := e.do(request{path: "/metrics"})
	if m.status != http.StatusOK || !strings.Contains(string(m.body), `evidence_http_shed_total{lane="api",reason="queue_full"} 1`) ||
		!strings.Contains(string(m.body), `evidence_http_in_flight{lane="api"} 1`) {
		t.Errorf("metrics under overload: got %d, want the shed request and the slot in flight counted", m.status)
	}

	// The waiting request was not answered meanwhile: its slot is still
	// held, and after its queue timeout it is shed too.
	res := <-queued
	if res.r.status != http.StatusServiceUnavailable || res.r.header.Get("Retry-After") != "1" || res.took < 100*time.Millisecond {
		t.Errorf("queued past its timeout: got %d after %s, want 503 after the 150 ms queue timeout", res.r.status, res.took)
	}
	if got := testutil.ToFloat64(e.srv.metrics.shed.WithLabelValues(laneAPI, "queue_timeout")); got != 1 {
		t.Errorf("evidence_http_shed_total{reason=queue_timeout} = %v, want 1", got)
	}

	// A request that waits while the slot frees is served.
	go func() {
		time.Sleep(50 * time.Millisecond)
		held.Close()
	}()
	if r := e.do(request{path: "/v1/chunks/" + id}); r.status != http.StatusOK {
		t.Errorf("after the slot frees: got %d %s, want 200", r.status, r.body)
	}
	if got := testutil.ToFloat64(e.srv.metrics.requests.WithLabelValues("GET /v1/chunks/{chunk_id}", "503")); got != 2 {
		t.Errorf("evidence_http_requests_total{code=503} = %v, want 2", got)
	}
	// A shed request has no request line of its own: the sheds are one
	// "requests shed" line a second.
	waitFor(t, "the api slot to be given back", func() bool { return len(api.slots) == 0 })
	if log := e.log.String(); strings.Contains(log, "status=503") || !strings.Contains(log, "status=200") {
		t.Errorf("request lines: want the 200s and no 503, got\n%s", log)
	}
	e.srv.logSheds()
	e.srv.logSheds() // nothing shed since: no second line
	if log := e.log.String(); strings.Count(log, `msg="requests shed"`) != 1 || !strings.Contains(log, `msg="requests shed" shed=2 total=2`) {
		t.Errorf("want one line counting the 2 sheds, got\n%s", log)
	}
}

// TestLaneShedsWhatItCannotServeInTime: a request that finds the slots
// taken waits only when the queue, at the rate slots have been given back
// while requests waited, moves fast enough to reach it within the queue
// timeout; otherwise it is refused at once, not after waiting that long.
// Slots given back while nothing waits do not change that rate.
func TestLaneShedsWhatItCannotServeInTime(t *testing.T) {
	e := newTestEnv(t, false)
	l := newLane("test", 1, 8, 250*time.Millisecond, e.srv.metrics)
	ctx := context.Background()
	for range 3 { // slots taken and given back with nothing waiting
		if err := l.acquire(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		l.releaseQueued()
	}
	if d := l.drain.Load(); d != 0 {
		t.Fatalf("drain after releases nobody waited for: %s, want none yet", time.Duration(d))
	}
	// The queue has moved a slot every 100 ms: the second in the queue is
	// reached in 200 ms, within the queue timeout of 250 ms; the third
	// would wait 300 ms, and is refused at once.
	l.drain.Store(int64(100 * time.Millisecond))
	if err := l.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 2)
	for n := 1; n <= 2; n++ {
		go func() { waited <- l.acquire(ctx) }()
		waitFor(t, fmt.Sprintf("%d waiting", n), func() bool { return l.queued.Load() == int64(n) })
	}
	start := time.Now()
	if err := l.acquire(ctx); !errors.Is(err, errShed) || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("third in the queue: got %v after %s, want refused at once", err, time.Since(start))
	}
	if got := testutil.ToFloat64(e.srv.metrics.shed.WithLabelValues("test", "queue_full")); got != 1 {
		t.Errorf("shed queue_full = %v, want 1", got)
	}
	// The two that wait are served as slots are given back, and those
	// releases, with requests waiting, are what the rate learns from.
	for range 2 {
		time.Sleep(10 * time.Millisecond)
		l.releaseQueued()
		if err := <-waited; err != nil {
			t.Fatalf("a waiting request: %v, want a slot", err)
		}
	}
	if d := time.Duration(l.drain.Load()); d >= 100*time.Millisecond || d <= 0 {
		t.Errorf("drain after two releases 10 ms apart with requests waiting: %s, want it moved below 100 ms", d)
	}
	l.releaseQueued()
}

// TestServeConnectionLimit: at the connection limit a new connection closes
// the one longest without a request in a handler, so a health check gets
// through stalled clients; when every connection is in a handler, the new
// one is answered 503 with Retry-After and closed; never more than the
// limit are open.
func TestServeConnectionLimit(t *testing.T) {
	e := newTestEnv(t, false)
	addr := servedWithLimits(t, e, 2)
	open := func() float64 {
		n, err := testutil.GatherAndCount(e.srv.metrics.reg, "evidence_http_connections")
		if err != nil || n != 1 {
			t.Fatalf("evidence_http_connections: %d series, %v", n, err)
		}
		mfs, _ := e.srv.metrics.reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == "evidence_http_connections" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return -1
	}
	health := func() (int, string) {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("healthz: %v", err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}

	// Two connections that never finish their headers fill the limit.
	var stalled []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
		stalled = append(stalled, c)
		time.Sleep(10 * time.Millisecond) // in order: the first is the oldest
	}
	waitFor(t, "two open connections", func() bool { return open() == 2 })
	if code, _ := health(); code != http.StatusOK {
		t.Fatalf("healthz at the limit, others stalled: got %d, want 200 (the oldest stalled connection closed)", code)
	}
	_ = stalled[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := stalled[0].Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("the oldest stalled connection: read %v, want it closed by the server", err)
	}
	if got := testutil.ToFloat64(e.srv.metrics.connsShed.WithLabelValues("evicted")); got != 1 {
		t.Errorf("connections evicted: %v, want 1", got)
	}
	for _, c := range stalled {
		c.Close()
	}
	waitFor(t, "the connections to close", func() bool { return open() == 0 })

	// Two connections in a handler are not closed for a new one.
	holdRequest(t, addr)
	holdRequest(t, addr)
	waitFor(t, "two requests in handlers", func() bool { return len(e.srv.lanes[laneAPI].slots) == 2 })
	if code, retry := health(); code != http.StatusServiceUnavailable || retry != "1" {
		t.Errorf("healthz with every connection in a handler: got %d Retry-After %q, want 503 with Retry-After 1", code, retry)
	}
	if n := open(); n > 2 {
		t.Errorf("%v connections open, limit 2", n)
	}
	if got := testutil.ToFloat64(e.srv.metrics.connsShed.WithLabelValues("refused")); got != 1 {
		t.Errorf("connections refused: %v, want 1", got)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestServePprof: the Go profiles are served to an administrator only.
func TestServePprof(t *testing.T) {
	e := newTestEnv(t, true)
	for _, tc := range []struct {
		token, principal string
		want             int
	}{
		{"", "", http.StatusUnauthorized},
		{analystToken, "", http.StatusForbidden},
		{serviceToken, "analyst@example.com", http.StatusForbidden},
		{serviceToken, "", http.StatusOK},
	} {
		r := e.do(request{path: "/debug/pprof/", token: tc.token, principal: tc.principal})
		if r.status != tc.want {
			t.Errorf("token %q principal %q: got %d, want %d", tc.token, tc.principal, r.status, tc.want)
		}
	}
	r := e.do(request{path: "/debug/pprof/heap?debug=1", token: serviceToken})
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "heap profile") {
		t.Errorf("heap profile: got %d %.100s", r.status, r.body)
	}
	r = e.do(request{path: "/debug/pprof/goroutine?debug=1", token: serviceToken})
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "goroutine profile") {
		t.Errorf("goroutine profile: got %d %.100s", r.status, r.body)
	}
}

// TestServeAdminListener: with every connection of the API's listener in a
// handler, a health check there is refused (its connection limit), while
// the admin listener still answers health and metrics; it serves nothing
// else.
func TestServeAdminListener(t *testing.T) {
	e := newTestEnv(t, false)
	addr, admin := servedWithAdmin(t, e, 2)
	get := func(host, path string) int {
		t.Helper()
		c, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("GET %s on %s: %v", path, host, err)
		}
		defer resp.Body.Close()
		return resp.StatusCode
	}
	holdRequest(t, addr)
	holdRequest(t, addr)
	waitFor(t, "two requests in handlers", func() bool { return len(e.srv.lanes[laneAPI].slots) == 2 })
	if code := get(addr, "/healthz"); code != http.StatusServiceUnavailable {
		t.Fatalf("healthz on the API's listener, every connection in a handler: got %d, want 503 (the scenario the admin listener is for)", code)
	}
	for path, want := range map[string]int{"/healthz": 200, "/metrics": 200, "/v1/documents": 404, "/openapi.json": 404} {
		if code := get(admin, path); code != want {
			t.Errorf("GET %s on the admin listener beside a full API listener: got %d, want %d", path, code, want)
		}
	}
}

// TestServeLargeAnswerLane: a whole large text is built only with a slot
// of the large-answer lane; with every slot taken and its queue's time
// spent it gets a 503 with Retry-After, counted, while a small range of
// the same text is served.
func TestServeLargeAnswerLane(t *testing.T) {
	e := newTestEnvWith(t, false, func(c *serverConfig) {
		c.limits = serveLimits{queueTimeout: 30 * time.Millisecond}
	})
	version := ingestBig(t, e)
	for range cap(e.srv.large.slots) {
		e.srv.large.slots <- struct{}{}
	}
	r := e.do(request{method: "GET", path: "/v1/versions/" + version + "/text"})
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "1" {
		t.Errorf("whole large text with the large-answer lane full: got %d Retry-After %q, want 503 with Retry-After 1", r.status, r.header.Get("Retry-After"))
	}
	if got := testutil.ToFloat64(e.srv.metrics.shed.WithLabelValues(laneLarge, "queue_timeout")); got != 1 {
		t.Errorf("large answers shed after waiting: %v, want 1", got)
	}
	if r := e.do(request{method: "GET", path: "/v1/versions/" + version + "/text?start=0&end=1000"}); r.status != http.StatusOK {
		t.Errorf("a small range beside a full large-answer lane: got %d, want 200", r.status)
	}
	for range cap(e.srv.large.slots) {
		<-e.srv.large.slots
	}
	if r := e.do(request{method: "GET", path: "/v1/versions/" + version + "/text"}); r.status != http.StatusOK {
		t.Errorf("whole large text with the lane free: got %d, want 200", r.status)
	}
}

// ingestBig ingests a 1 MiB Markdown document and returns its version.
func ingestBig(t *testing.T, e *testEnv) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.md")
	if err := os.WriteFile(path, corpus.Markdown(7, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), e.db, []string{path}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var version string
	if err := e.db.View(func(tx *store.Tx) error {
		d, err := tx.Document("big.md")
		if err == nil {
			version = d.Current
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return version
}

// servedWithAdmin serves e's server as servedWithLimits does, with an
// admin listener beside it; it returns both addresses.
func servedWithAdmin(t *testing.T, e *testEnv, maxConns int) (addr, admin string) {
	t.Helper()
	addr = servedWithLimits(t, e, maxConns)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := e.srv.adminServer(2*time.Second, 10*time.Second, 10*time.Second, slog.New(slog.NewTextHandler(e.log, nil)))
	done := make(chan struct{})
	go func() { defer close(done); _ = hs.Serve(e.srv.limitAdminListener(ln)) }()
	t.Cleanup(func() { hs.Close(); <-done })
	return addr, ln.Addr().String()
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "1GiB": 1 << 30, "1000": 1000, "64KiB": 64 << 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, _, err := SetMemoryLimit("lots"); err == nil {
		t.Error(`SetMemoryLimit("lots"): no error`)
	}
}

// TestNewOptions: New fills in the defaults it reports in Limits, and the
// options reach what the server does: the body limit, the queue, the
// tokens.
func TestNewOptions(t *testing.T) {
	db := storetest.Open(t)
	srv := New(db, Options{ErrorLog: io.Discard})
	defer srv.Close()
	l := srv.Limits()
	if l.MaxInFlight != DefaultMaxInFlight || l.MaxQueue != 0 || l.QueueTimeout != DefaultQueueTimeout || l.MaxBulk != DefaultMaxBulk ||
		l.WriteStall != DefaultWriteStall || l.MaxResponseBytes != DefaultMaxResponses || l.MaxConns < 1 || l.MaxConns > DefaultMaxConns ||
		l.ReadHeaderTimeout != DefaultReadHeaderTimeout || l.ReadTimeout != DefaultReadTimeout || l.WriteTimeout != DefaultWriteTimeout || l.IdleTimeout != DefaultIdleTimeout {
		t.Errorf("limits of zero options: %+v", l)
	}
	if srv.maxBody != DefaultMaxBody || srv.maxUpload != DefaultMaxUpload {
		t.Errorf("body limits of zero options: %d, %d", srv.maxBody, srv.maxUpload)
	}

	small := New(db, Options{ErrorLog: io.Discard, MaxBody: 10, Limits: Limits{MaxQueue: 3, ReadHeaderTimeout: time.Minute, ReadTimeout: time.Second}})
	defer small.Close()
	if got := small.Limits(); got.MaxQueue != 3 || got.ReadHeaderTimeout != time.Second {
		t.Errorf("limits: queue %d, header timeout %s; want 3 and the read timeout (1s)", got.MaxQueue, got.ReadHeaderTimeout)
	}
	w := httptest.NewRecorder()
	small.ServeHTTP(w, httptest.NewRequest("POST", "/v1/verify", strings.NewReader(`{"request_id": "r-too-long"}`)))
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over MaxBody: got %d, want 413", w.Code)
	}
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte("tok-0123456789abcdef service\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := LoadTokens(path)
	if err != nil {
		t.Fatal(err)
	}
	authed := New(db, Options{ErrorLog: io.Discard, Tokens: tokens})
	defer authed.Close()
	for token, want := range map[string]int{"": http.StatusUnauthorized, "tok-0123456789abcdef": http.StatusOK} {
		r := httptest.NewRequest("GET", "/v1/documents", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		authed.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("GET /v1/documents with token %q: got %d, want %d", token, w.Code, want)
		}
	}
}
