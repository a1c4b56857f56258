package server

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// secretVerification has the analyst's answer cite the secret document,
// so that its trace holds the document's words, and returns the trace id.
func secretVerification(t *testing.T, e *testEnv, r request) string {
	t.Helper()
	req := verify.Request{RequestID: "r-secret", Retrieved: []string{e.secret}, Claims: []verify.Claim{{
		ClaimID: "c1", Text: "The merger codename is BLUEHERON.",
		Evidence: []verify.Evidence{{ChunkID: e.secret, Quote: "The merger codename is BLUEHERON"}}}}}
	r.method, r.path, r.body = "POST", "/v1/verify", jsonBody(t, req)
	resp := e.do(r)
	var rep verify.Report
	resp.decode(t, &rep)
	if resp.status != 200 || rep.TraceID == "" || rep.Disposition != verify.AnswerAccept {
		t.Fatalf("verify: got %d, %s, trace %q: want 200, accept, a trace", resp.status, rep.Disposition, rep.TraceID)
	}
	return rep.TraceID
}

// TestServeTraceAccess: a trace is readable by its own principal, by a
// service acting for that principal and by an administrator (a service
// acting for no one, or a caller of a server without tokens that names no
// principal); anyone else, a service acting for another principal
// included, gets the 404 of a trace that does not exist, with no word of it.
func TestServeTraceAccess(t *testing.T) {
	const analyst, intern = "analyst@example.com", "intern@example.com"
	type access = traceAccess
	t.Run("tokens", func(t *testing.T) {
		e := newTestEnv(t, true)
		own := secretVerification(t, e, request{token: analystToken})
		byService := secretVerification(t, e, request{token: serviceToken, principal: analyst})
		for _, id := range []string{own, byService} {
			checkTraceAccess(t, e, id, []access{
				{"own principal", request{token: analystToken}, 200},
				{"own principal, header repeated", request{token: analystToken, principal: analyst}, 200},
				{"service acting for the principal", request{token: serviceToken, principal: analyst}, 200},
				{"administrator (service acting for no one)", request{token: serviceToken}, 200},
				{"other principal", request{token: internToken}, 404},
				{"service acting for another principal", request{token: serviceToken, principal: intern}, 404},
				{"other principal's token naming the owner", request{token: internToken, principal: analyst}, 403},
				{"no token", request{}, 401},
			})
		}
	})
	t.Run("no tokens", func(t *testing.T) {
		e := newTestEnv(t, false)
		id := secretVerification(t, e, request{principal: analyst})
		checkTraceAccess(t, e, id, []access{
			{"own principal", request{principal: analyst}, 200},
			{"administrator (no principal named)", request{}, 200},
			{"other principal", request{principal: intern}, 404},
		})
	})
}

// traceAccess is one caller asking for a trace, and the status it gets.
type traceAccess struct {
	name   string
	req    request
	status int
}

// checkTraceAccess asks for trace id as each caller; a 404 must read as
// the 404 of a trace that does not exist, byte for byte but the id.
func checkTraceAccess(t *testing.T, e *testEnv, id string, cases []traceAccess) {
	t.Helper()
	const absent = "0000000000000000000000000000"
	for _, tt := range cases {
		missing := tt.req
		missing.path = "/v1/traces/" + absent
		want404 := bytes.ReplaceAll(e.do(missing).body, []byte(absent), []byte(id))
		tt.req.path = "/v1/traces/" + id
		r := e.do(tt.req)
		if r.status != tt.status {
			t.Errorf("%s: got %d, want %d: %.200s", tt.name, r.status, tt.status, r.body)
			continue
		}
		switch r.status {
		case 200:
			if !bytes.Contains(r.body, []byte(`"trace_id":"`+id+`"`)) || !bytes.Contains(r.body, []byte("BLUEHERON")) {
				t.Errorf("%s: body is not the trace: %.200s", tt.name, r.body)
			}
		default:
			assertNoSecret(t, r.body)
			if r.status == 404 && !bytes.Equal(r.body, want404) {
				t.Errorf("%s: the 404 differs from a missing trace's:\ngot  %s\nwant %s", tt.name, r.body, want404)
			}
		}
	}
}

// slowDisk stands in for the store under the async trace writer: each
// commit takes delay(), and it records when each trace's commit ended, so
// that a test can ask what a kill at any instant would have lost. While
// full is set, every commit fails as a full disk does.
type slowDisk struct {
	delay func() time.Duration
	full  atomic.Bool

	mu     sync.Mutex
	stored map[string]time.Time
}

var errDiskFull = errors.New("write evidence.db: no space left on device")

func (d *slowDisk) PutTraces(rs []store.TraceRecord) error {
	time.Sleep(d.delay())
	if d.full.Load() {
		return errDiskFull
	}
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range rs {
		if _, ok := d.stored[r.ID]; ok {
			return fmt.Errorf("store: trace %s already exists", r.ID)
		}
		d.stored[r.ID] = now
	}
	return nil
}

func (d *slowDisk) storedAt(id string) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.stored[id]
	return at, ok
}

func testTrace(id string) pendingTrace {
	return pendingTrace{id: id, at: time.Now(), request: &verify.Request{RequestID: id}, report: []byte(`{}`)}
}

// ack is one trace the queue acknowledged, and when add returned.
type ack struct {
	id string
	at time.Time
}

// TestTraceQueueLossBound runs verifications against an async trace writer
// over a disk whose commits take from 1 ms to 8 flush intervals, and asks,
// for a kill at every millisecond of the run, which acknowledged traces
// that kill would lose (acknowledged before it, committed after it or
// never). The bound of docs/traces.md: they fall in at most two windows of
// one flush interval each (the commit in flight, and what was acknowledged
// while it ran), and are at most twice --trace-batch. A writer that keeps
// acknowledging while a slow commit runs (the writer before this bound)
// loses everything acknowledged during it, several flush intervals' worth.
func TestTraceQueueLossBound(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flush time.Duration
		batch int
	}{
		{"flush bound", 20 * time.Millisecond, 100000},
		{"batch bound", 20 * time.Millisecond, 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tt.batch)))
			var rmu sync.Mutex
			disk := &slowDisk{stored: map[string]time.Time{}, delay: func() time.Duration {
				rmu.Lock()
				defer rmu.Unlock()
				if rng.IntN(4) == 0 { // a stall: up to 8 flush intervals
					return time.Duration(rng.Int64N(int64(8 * tt.flush)))
				}
				return time.Millisecond + time.Duration(rng.Int64N(int64(tt.flush/2)))
			}}
			m := newServerMetrics(nil)
			var logged bytes.Buffer
			q := newTraceQueueWith(nil, []byte(`{}`), log.New(&logged, "", 0), m, traceWriterConfig{flush: tt.flush, batch: tt.batch, store: disk})
			start := time.Now()
			const run, producers = 1500 * time.Millisecond, 6
			acks := make([][]ack, producers)
			var wg sync.WaitGroup
			for p := range producers {
				wg.Go(func() {
					for i := 0; time.Since(start) < run; i++ {
						id := fmt.Sprintf("t%d-%d", p, i)
						if err := q.put(testTrace(id)); err != nil {
							t.Errorf("put %s: %v", id, err)
							return
						}
						acks[p] = append(acks[p], ack{id, time.Now()})
						time.Sleep(200 * time.Microsecond)
					}
				})
			}
			wg.Wait()
			end := time.Now()
			q.close()
			var all []ack
			for _, a := range acks {
				all = append(all, a...)
			}
			slices.SortFunc(all, func(a, b ack) int { return a.at.Compare(b.at) })
			// add returns a moment after it acknowledged: scheduling on a
			// busy machine, allowed for in the window.
			const slack = 8 * time.Millisecond
			kills, worst, maxLost := 0, time.Duration(0), 0
			for kill := start.Add(tt.flush); kill.Before(end); kill = kill.Add(time.Millisecond) {
				kills++
				var lost []time.Time
				for _, a := range all {
					if !a.at.Before(kill) {
						break
					}
					if at, ok := disk.storedAt(a.id); !ok || !at.Before(kill) {
						lost = append(lost, a.at)
					}
				}
				maxLost = max(maxLost, len(lost))
				if len(lost) > 2*tt.batch {
					t.Fatalf("a kill at %s would lose %d traces: want at most 2 × --trace-batch = %d", kill.Sub(start), len(lost), 2*tt.batch)
				}
				if len(lost) > 0 {
					worst = max(worst, kill.Sub(lost[0]))
				}
				if ok, rest := inTwoWindows(lost, tt.flush+slack); !ok {
					t.Fatalf("a kill at %s would lose %d traces acknowledged from %s before it: %d of them outside two windows of %s (flush %s + %s slack)",
						kill.Sub(start), len(lost), kill.Sub(lost[0]).Round(time.Millisecond), rest, tt.flush+slack, tt.flush, slack)
				}
			}
			if len(all) < 1000 || kills < 1000 {
				t.Fatalf("%d traces and %d kills: too few to say anything", len(all), kills)
			}
			t.Logf("%d traces, %d kill instants: at most %d lost, the oldest %s before its kill", len(all), kills, maxLost, worst.Round(time.Millisecond))
		})
	}
}

// inTwoWindows reports whether times (sorted) fit in two windows of length
// w, and if not how many fall outside the two earliest-starting ones.
func inTwoWindows(times []time.Time, w time.Duration) (bool, int) {
	i := 0
	for range 2 {
		if i == len(times) {
			break
		}
		first := times[i]
		for i < len(times) && times[i].Sub(first) <= w {
			i++
		}
	}
	return i == len(times), len(times) - i
}

// TestTraceQueueFullDisk: a commit that fails loses the traces it held, and
// the log names each of them; from then on the queue refuses traces
// (errTracesUnavailable) rather than acknowledge what it cannot store,
// counted as refused, with the writes-available gauge at 0. Once the disk
// has room again, the first verification after the retry interval has its
// trace committed before it is acknowledged, and the queue accepts again.
func TestTraceQueueFullDisk(t *testing.T) {
	disk := &slowDisk{stored: map[string]time.Time{}, delay: func() time.Duration { return 2 * time.Millisecond }}
	m := newServerMetrics(nil)
	var logged syncBuffer
	q := newTraceQueueWith(nil, []byte(`{}`), log.New(&logged, "", 0), m, traceWriterConfig{flush: 5 * time.Millisecond, retry: 100 * time.Millisecond, store: disk})
	defer q.close()
	if err := q.put(testTrace("before")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first trace stored", func() bool { _, ok := disk.storedAt("before"); return ok })

	disk.full.Store(true)
	lost := []string{"lost-1", "lost-2", "lost-3"}
	for _, id := range lost {
		if err := q.put(testTrace(id)); err != nil {
			t.Fatalf("put %s before the failure was known: %v", id, err)
		}
	}
	waitFor(t, "the failed commit", func() bool { return testutil.ToFloat64(m.traces.WithLabelValues("failed")) == 3 })
	for _, id := range lost {
		if !strings.Contains(logged.String(), "verification trace lost: trace_id="+id+": ") {
			t.Errorf("log does not name lost trace %s:\n%s", id, logged.String())
		}
	}
	waitFor(t, "refusals", func() bool { return errors.Is(q.put(testTrace("refused")), errTracesUnavailable) })
	if got := testutil.ToFloat64(q.healthy); got != 0 {
		t.Errorf("evidence_trace_writes_available %v while refusing, want 0", got)
	}
	time.Sleep(150 * time.Millisecond) // a probe fails: the disk is still full
	if err := q.put(testTrace("probe-1")); !errors.Is(err, errTracesUnavailable) {
		t.Fatalf("probe on a full disk: got %v, want it refused", err)
	}
	if err := q.put(testTrace("refused-2")); !errors.Is(err, errTracesUnavailable) {
		t.Fatalf("right after a failed probe: got %v, want it refused", err)
	}

	disk.full.Store(false)
	time.Sleep(150 * time.Millisecond)
	if err := q.put(testTrace("probe-2")); err != nil {
		t.Fatalf("probe once the disk has room: %v", err)
	}
	if _, ok := disk.storedAt("probe-2"); !ok {
		t.Errorf("the probe was acknowledged before its trace was stored")
	}
	if err := q.put(testTrace("after")); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	waitFor(t, "the trace after recovery stored", func() bool { _, ok := disk.storedAt("after"); return ok })
	for _, id := range []string{"refused", "probe-1", "refused-2"} {
		if _, ok := disk.storedAt(id); ok {
			t.Errorf("refused trace %s was stored", id)
		}
	}
	if got := testutil.ToFloat64(m.traces.WithLabelValues("refused")); got < 3 {
		t.Errorf("refused traces counted %v, want at least 3", got)
	}
	if got := testutil.ToFloat64(q.healthy); got != 1 {
		t.Errorf("evidence_trace_writes_available %v after recovery, want 1", got)
	}
}

// TestServeTraceDiskFull: over HTTP, a verification whose trace cannot be
// stored is refused with 503, code unavailable and Retry-After, not
// answered; trace=false verifications still are.
func TestServeTraceDiskFull(t *testing.T) {
	disk := &slowDisk{stored: map[string]time.Time{}, delay: func() time.Duration { return time.Millisecond }}
	e := newTestEnvWith(t, true, func(c *serverConfig) {
		c.traceWrites = TraceAsync
		c.traceWriter = traceWriterConfig{flush: 5 * time.Millisecond, retry: time.Hour, store: disk}
	})
	body := jsonBody(t, verifyRequest(t, e, 2))
	post := func(path string) response {
		return e.do(request{method: "POST", path: path, token: analystToken, body: body})
	}
	if r := post("/v1/verify"); r.status != 200 {
		t.Fatalf("verify: got %d: %s", r.status, r.body)
	}
	waitFor(t, "the first trace stored", func() bool { return testutil.ToFloat64(e.srv.traces.written) == 1 })
	disk.full.Store(true)
	answered := 0 // acknowledged before the failure was known: lost, and counted
	var r response
	waitFor(t, "a refusal", func() bool {
		if r = post("/v1/verify"); r.status == 200 {
			answered++
		}
		return r.status != 200
	})
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !bytes.Contains(r.body, []byte(`"code":"unavailable"`)) {
		t.Fatalf("verify on a full disk: got %d, Retry-After %q, %s: want 503, Retry-After, unavailable", r.status, r.header.Get("Retry-After"), r.body)
	}
	waitFor(t, "every trace answered on the full disk counted lost", func() bool {
		return testutil.ToFloat64(e.srv.traces.failed) == float64(answered)
	})
	if bytes.Contains(r.body, []byte("trace_id")) {
		t.Errorf("a refused verification names a trace id: %s", r.body)
	}
	if r := post("/v1/verify?trace=false"); r.status != 200 {
		t.Errorf("verify?trace=false on a full trace disk: got %d, want 200", r.status)
	}
	metrics := e.do(request{path: "/metrics", token: serviceToken}).body
	for _, want := range []string{fmt.Sprintf(`evidence_traces_total{outcome="failed"} %d`, answered), `evidence_trace_writes_available 0`} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if answered == 0 || strings.Count(e.log.String(), "verification trace lost: trace_id=") != answered {
		t.Errorf("%d traces answered on the full disk, want each logged by id (and at least one):\n%s", answered, e.log.String())
	}
}

// syncBuffer is a bytes.Buffer a logger and a test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
