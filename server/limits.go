package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The server's admission control. Every route belongs to a lane, and a lane
// handles a bounded number of requests at once and lets a bounded number
// wait, each for a bounded time; anything beyond is answered at once with a
// 503 and Retry-After, so an overload sheds what the server cannot do in
// time instead of queueing it without end (which made every answer late and
// held the memory of every waiting request). Health checks and metrics have
// a small lane of their own, so they answer while the others shed.

// Lanes.
const (
	laneAPI     = "api"     // resolve, verify, reads, the viewer
	laneBulk    = "bulk"    // uploads, rebuilds, deletes, snapshots: long, and the store has one writer
	laneControl = "control" // health, metrics, the OpenAPI description
	laneDebug   = "debug"   // pprof
	// laneLarge bounds, inside the api lane, the answers that take
	// milliseconds of CPU each to build (a whole text: read, hashed and
	// JSON-encoded three times over). See largeInFlight.
	laneLarge = "large"
)

// Defaults of the limit flags, and the fixed sizes of the small lanes.
const (
	DefaultMaxQueue     = 128
	DefaultQueueTimeout = 20 * time.Millisecond
	DefaultMaxBulk      = 4
	DefaultMaxConns     = 4096
	DefaultWriteStall   = 5 * time.Second
	DefaultMaxResponses = 64 << 20
	bulkQueueTimeout    = 10 * time.Second
	controlInFlight     = 4
	controlQueue        = 16
	controlQueueTimeout = time.Second
	debugInFlight       = 2
	// retryAfter is the Retry-After of a shed request, in seconds.
	retryAfter = 1
	// stallChunk is the most a response writes under one write deadline:
	// a larger body is written in pieces, each of which must be taken by
	// the client within the write stall.
	stallChunk = 64 << 10
	// stallFrom is the body size from which write deadlines are set: a
	// smaller one fits the socket's buffer, so its write never waits on
	// the reader.
	stallFrom = 16 << 10
)

// DefaultMaxInFlight is 8 API requests in flight a core: enough to keep the
// cores busy while some wait on the disk (a trace's fsync), few enough that
// the Go scheduler, which has no priorities, still gets to a health check
// or a new connection within a few of its 10 ms time slices.
var DefaultMaxInFlight = 8 * runtime.GOMAXPROCS(0)

// serveLimits are the limit flags of `evidence serve`. Zero values take the
// defaults above.
type serveLimits struct {
	maxInFlight  int           // --max-in-flight: api requests handled at once
	maxQueue     int           // --max-queue: api requests waiting for a slot
	queueTimeout time.Duration // --queue-timeout: how long one may wait
	maxBulk      int           // --max-bulk: bulk requests handled at once (4× as many may wait)
	writeStall   time.Duration // --write-stall: a response making no progress this long is abandoned
	// maxResponseBytes bounds the large bodies (stallFrom and more) being
	// written at once (--max-response-memory).
	maxResponseBytes int64
	// writeTimeout caps a request's write deadlines (--write-timeout);
	// zero: no cap.
	writeTimeout time.Duration
}

func (l serveLimits) withDefaults() serveLimits {
	if l.maxInFlight <= 0 {
		l.maxInFlight = DefaultMaxInFlight
	}
	if l.maxQueue < 0 {
		l.maxQueue = 0
	}
	if l.queueTimeout <= 0 {
		l.queueTimeout = DefaultQueueTimeout
	}
	if l.maxBulk <= 0 {
		l.maxBulk = DefaultMaxBulk
	}
	if l.writeStall <= 0 {
		l.writeStall = DefaultWriteStall
	}
	if l.maxResponseBytes <= 0 {
		l.maxResponseBytes = DefaultMaxResponses
	}
	return l
}

// routeLane is the lane of a route pattern.
func routeLane(pattern string) string {
	switch {
	case pattern == "GET /healthz", pattern == "GET /metrics", pattern == "GET /openapi.json":
		return laneControl
	case strings.HasPrefix(pattern, "GET /debug/pprof/"):
		return laneDebug
	case pattern == "GET /v1/snapshot", strings.HasPrefix(pattern, "POST /v1/documents"), strings.HasPrefix(pattern, "DELETE "):
		return laneBulk
	}
	return laneAPI
}

// lane bounds the requests of its routes: slots in flight, and a queue.
type lane struct {
	name     string
	slots    chan struct{} // a request holds one while handled
	maxQueue int64
	wait     time.Duration
	queued   atomic.Int64
	// drain is the time between two slots given back while requests
	// waited, in ns: a moving average (1/16 weight to each new one) of how
	// fast the queue moves, which tells how soon a request joining it
	// would have a slot. lastRelease is when the last slot was given back.
	drain, lastRelease atomic.Int64
	shedFull           prometheus.Counter // 503: the queue was full
	shedWait           prometheus.Counter // 503: waited its time in the queue
}

func newLane(name string, inFlight, queue int, wait time.Duration, m *serverMetrics) *lane {
	l := &lane{name: name, slots: make(chan struct{}, inFlight), maxQueue: int64(queue), wait: wait,
		shedFull: m.shed.WithLabelValues(name, "queue_full"), shedWait: m.shed.WithLabelValues(name, "queue_timeout")}
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "evidence_http_in_flight", Help: "Requests being handled, by lane (api, bulk, control, debug).",
			ConstLabels: prometheus.Labels{"lane": name}}, func() float64 { return float64(len(l.slots)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "evidence_http_queued", Help: "Requests waiting for a slot, by lane.",
			ConstLabels: prometheus.Labels{"lane": name}}, func() float64 { return float64(l.queued.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "evidence_http_queue_drain_seconds", Help: "Time between two slots given back while requests waited (a moving average), by lane: how fast the queue moves.",
			ConstLabels: prometheus.Labels{"lane": name}}, func() float64 { return time.Duration(l.drain.Load()).Seconds() }),
	)
	return l
}

// errShed is what acquire returns when a request is refused.
var errShed = errors.New("shed")

// acquire takes a slot: at once when one is free, else after waiting in
// the queue (first come, first served: a channel's blocked senders are
// woken in order) at most l.wait. A full queue refuses at once, and so
// does one longer than the slots can serve within l.wait at the rate they
// have recently been given back: a request that would wait its time out
// and then be refused anyway is refused now, without holding its
// connection and a timer for l.wait (at twice the capacity, a queue of
// 128 verifications took 50 ms to drain on one core, so most waited 20 ms
// for a 503, and those served had waited as long).
func (l *lane) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	q := l.queued.Add(1)
	if q > l.maxQueue || time.Duration(q*l.drain.Load()) > l.wait {
		l.queued.Add(-1)
		l.shedFull.Inc()
		return errShed
	}
	defer l.queued.Add(-1)
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-t.C:
		l.shedWait.Inc()
		return errShed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *lane) release() { <-l.slots }

// releaseQueued gives a slot back, and when requests wait for one counts
// the time since the last slot given back in the lane's drain rate (only
// then: between slots given back to no one waiting, the time says how
// often requests came, not how fast the queue moves).
func (l *lane) releaseQueued() {
	now := time.Now().UnixNano()
	last := l.lastRelease.Swap(now)
	if l.queued.Load() > 0 && last > 0 {
		d := l.drain.Load()
		l.drain.Store(d + (now-last-d)/16) // racy updates lose a sample at worst
	}
	<-l.slots
}

// busy reports whether the lane is shedding or at its bound.
func (l *lane) busy() bool { return len(l.slots) == cap(l.slots) }

// shedError is the answer to a request the lane refused.
func (l *lane) shedError() *httpError {
	return errorf(http.StatusServiceUnavailable, "unavailable",
		"the server is at its limit (%d requests in flight, %d waiting): retry after %d s", cap(l.slots), l.maxQueue, retryAfter)
}

// lanes are a server's lanes by name.
type lanes map[string]*lane

func newLanes(lim serveLimits, m *serverMetrics) lanes {
	return lanes{
		laneAPI:     newLane(laneAPI, lim.maxInFlight, lim.maxQueue, lim.queueTimeout, m),
		laneBulk:    newLane(laneBulk, lim.maxBulk, 4*lim.maxBulk, bulkQueueTimeout, m),
		laneControl: newLane(laneControl, controlInFlight, controlQueue, controlQueueTimeout, m),
		laneDebug:   newLane(laneDebug, debugInFlight, 0, time.Millisecond, m),
	}
}

// connKey finds a request's tracked connection in its context.
type connKey struct{}

// httpServer is the http.Server of a server: its timeouts, and its
// connections tracked for the connection limit.
func (s *Server) httpServer(readHeader, read, idle time.Duration, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: readHeader,
		ReadTimeout:       read,
		WriteTimeout:      s.limits.writeTimeout,
		IdleTimeout:       idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn), // one format on stderr
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*trackedConn); ok {
				return context.WithValue(ctx, connKey{}, tc)
			}
			return ctx
		},
	}
}

// connLimiter is a listener that keeps at most max connections open. At
// the limit, a new connection closes the one longest without a request in
// its handler (idle between keep-alive requests, or still sending its
// headers): the cheapest to lose, and what slow or stalled clients hold.
// When every connection is in a handler, the new one is answered with a
// 503 and closed. Accept never blocks on the limit, so a health check is
// never left waiting in the kernel's queue behind stalled clients.
type connLimiter struct {
	net.Listener
	max      int
	evicted  prometheus.Counter
	refused  prometheus.Counter
	refusing atomic.Int32 // refusals being answered

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

// trackedConn is a connection counted by a connLimiter.
type trackedConn struct {
	net.Conn
	l      *connLimiter
	active atomic.Int32 // requests in a handler
	since  atomic.Int64 // when it last left a handler or was accepted (Unix ns)
	once   sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

func (c *trackedConn) enter() { c.active.Add(1) }

func (c *trackedConn) leave() {
	c.since.Store(time.Now().UnixNano())
	c.active.Add(-1)
}

// limitListener wraps ln to keep at most max connections open (see
// connLimiter) and counts them in the server's metrics.
func (s *Server) limitListener(ln net.Listener, max int) net.Listener {
	l := &connLimiter{Listener: ln, max: max, conns: map[*trackedConn]struct{}{},
		evicted: s.metrics.connsShed.WithLabelValues("evicted"), refused: s.metrics.connsShed.WithLabelValues("refused")}
	s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "evidence_http_connections", Help: "Open client connections (at most --max-conns).",
	}, func() float64 {
		l.mu.Lock()
		defer l.mu.Unlock()
		return float64(len(l.conns))
	}))
	return l
}

// refusal is the answer to a connection over the limit, sent before its
// request is read: there is no handler to answer it.
var refusal = func() []byte {
	body := `{"error":{"code":"unavailable","message":"the server is at its limit of open connections: retry after ` + strconv.Itoa(retryAfter) + ` s"}}` + "\n"
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: " + strconv.Itoa(retryAfter) +
		"\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, l: l}
		tc.since.Store(time.Now().UnixNano())
		l.mu.Lock()
		var victim *trackedConn
		if len(l.conns) >= l.max {
			for o := range l.conns {
				if o.active.Load() == 0 && (victim == nil || o.since.Load() < victim.since.Load()) {
					victim = o
				}
			}
			if victim == nil {
				l.mu.Unlock()
				l.refused.Inc()
				l.refuse(c)
				continue
			}
			delete(l.conns, victim)
		}
		l.conns[tc] = struct{}{}
		l.mu.Unlock()
		if victim != nil {
			l.evicted.Inc()
			victim.Close()
		}
		return tc, nil
	}
}

// maxRefusing bounds the refused connections being answered at once; more
// are closed without an answer.
const maxRefusing = 64

// refuse answers a connection over the limit with a 503 and closes it. The
// answer goes before the request is read, so the request is read and
// dropped after it (for at most a second, beside the accept loop): closing
// with unread bytes would reset the connection, and the client could lose
// the answer.
func (l *connLimiter) refuse(c net.Conn) {
	if l.refusing.Add(1) > maxRefusing {
		l.refusing.Add(-1)
		c.Close()
		return
	}
	go func() {
		defer l.refusing.Add(-1)
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(time.Second))
		if _, err := c.Write(refusal); err != nil {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}()
}

// diskWaitsPerSlot bounds the requests waiting on the disk out of their
// lane (waitOnDisk): this many for each API slot.
const diskWaitsPerSlot = 4

// waitOnDisk runs f, a wait on the disk (a trace's commit and fsync: 3 to
// 90 ms here), with the request's lane slot given back, so that requests
// waiting on the disk do not keep others from the cores: with the default
// sync traces, a slot held through the fsync made the lane shed bursts
// the cores could serve. At most diskWaitsPerSlot × --max-in-flight wait so
// at once; beyond, a request waits for room holding its slot, so a stalled
// disk still ends in 503s rather than in requests piling up.
func (s *Server) waitOnDisk(w http.ResponseWriter, f func() error) error {
	sw, ok := w.(*statusWriter)
	if !ok || sw.lane == nil || sw.outOfLane {
		return f()
	}
	s.diskWaits <- struct{}{}
	defer func() { <-s.diskWaits }()
	sw.outOfLane = true
	sw.lane.releaseQueued()
	return f()
}

// clientWriteError reports whether err is a failed write to the client (a
// write stall's deadline, a closed or reset connection): the client's
// doing, not the server's.
func clientWriteError(err error) bool {
	var op *net.OpError
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		(errors.As(err, &op) && op.Op == "write")
}

// stallWriter is what statusWriter needs to abandon a response a client
// stopped reading.
type stallWriter struct {
	rc     *http.ResponseController // made at the first deadline
	stall  time.Duration
	until  time.Time   // the request's last write deadline (--write-timeout); zero: none
	budget *byteBudget // of large bodies being written
	// reserved is set when the handler took its body's memory from the
	// budget before building it (a whole text): not taken again.
	reserved bool
}

// budgetError is the 503 of a large body the budget has no room for.
func (sw *stallWriter) budgetError() error {
	return &httpError{status: http.StatusServiceUnavailable, code: "unavailable", shed: "response_memory",
		message: fmt.Sprintf("the server holds its limit of large responses for their clients (%d bytes): retry after %d s", sw.budget.max, retryAfter)}
}

// textAnswerBytes estimates the memory of a text range's answer of n code
// points: the text is in the answer three times (text, excerpt and quote
// selector), JSON-escaped, besides the copy read from the store; about 4
// bytes a code point of ASCII, which the reservation takes as the rule.
func textAnswerBytes(n int) int64 { return 4 * int64(max(n, 0)) }

// byteBudget bounds the bytes of large response bodies held while their
// clients take them: stalled readers cannot hold more than max between
// them. One body is always let through, however large.
type byteBudget struct {
	max  int64
	used atomic.Int64
}

func (b *byteBudget) take(n int64) bool {
	for {
		used := b.used.Load()
		if used > 0 && used+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

func (b *byteBudget) give(n int64) { b.used.Add(-n) }

// deadline gives the next piece of a response the write stall to go.
func (sw *stallWriter) deadline(w http.ResponseWriter) {
	if sw.rc == nil {
		sw.rc = http.NewResponseController(w)
	}
	d := time.Now().Add(sw.stall)
	if !sw.until.IsZero() && sw.until.Before(d) {
		d = sw.until
	}
	_ = sw.rc.SetWriteDeadline(d)
}

// Memory: the Go heap's soft limit (GOMEMLIMIT), and memory returned to
// the system when an overload ends.

// adaptiveFloor is the least soft limit of --memory-limit auto without
// GOMEMLIMIT or a cgroup limit.
const adaptiveFloor = 192 << 20

// SetMemoryLimit sets the heap's soft limit from --memory-limit: "auto" (the
// default) keeps GOMEMLIMIT when set, else takes 80% of the cgroup's memory
// limit when there is one, else adapts (adaptive is set: the larger of
// adaptiveFloor and twice the live heap, set again each second by
// watchOverload); "off" sets none; otherwise a size (512MiB, 1GiB, bytes).
// It returns what was set, for the log.
func SetMemoryLimit(flag string) (desc string, adaptive bool, err error) {
	switch flag {
	case "", "auto":
		if os.Getenv("GOMEMLIMIT") != "" {
			return "GOMEMLIMIT=" + os.Getenv("GOMEMLIMIT"), false, nil
		}
		if n := cgroupMemoryLimit(); n > 0 {
			debug.SetMemoryLimit(n / 10 * 8)
			return sizeString(n/10*8) + " (80% of the cgroup's limit)", false, nil
		}
		debug.SetMemoryLimit(adaptiveFloor)
		return "adaptive (" + sizeString(adaptiveFloor) + " or twice the live heap)", true, nil
	case "off":
		debug.SetMemoryLimit(math.MaxInt64)
		return "none", false, nil
	}
	n, err := parseSize(flag)
	if err != nil || n <= 0 {
		return "", false, fmt.Errorf("memory limit %q: want auto, off or a size such as 512MiB", flag)
	}
	debug.SetMemoryLimit(n)
	return sizeString(n), false, nil
}

// adaptLimit sets the adaptive soft limit from the live heap: GOGC=400
// alone would let a burst of large answers grow the heap fivefold before
// collecting; the limit collects sooner, and following the live heap it
// never makes the collector run without end on a heap that needs more.
func adaptLimit(live uint64, current int64) int64 {
	want := max(int64(adaptiveFloor), 2*int64(live))
	if d := want - current; d > current/8 || -d > current/8 {
		debug.SetMemoryLimit(want)
		return want
	}
	return current
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup (v2,
// then v1); 0 when there is none.
func cgroupMemoryLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && n < 1<<60 { // "max", or v1's page-rounded MaxInt64: none
			return n
		}
	}
	return 0
}

func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

func sizeString(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }

// freeHeapToReturn is how much free heap, not yet returned to the system,
// a calm server keeps before it returns it at once.
const freeHeapToReturn = 32 << 20

// watchOverload returns memory to the system once an overload or a burst
// is over: the heap grew to hold its requests (and the goroutines of its
// connections), and the runtime would otherwise keep the free pages until
// a later collection (up to two minutes on an idle server) and give them
// back slowly. It checks each second; an overload is over when no lane was
// at its bound and nothing was shed for 3 s, and memory is returned then,
// or later when more than freeHeapToReturn of free heap is held while calm.
func (s *Server) watchOverload(ctx context.Context, adaptive bool) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var shed int64
	var overloaded bool
	var calm int
	free := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	limit := int64(adaptiveFloor)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.logSheds()
		if adaptive {
			if metrics.Read(live); live[0].Value.Kind() == metrics.KindUint64 {
				limit = adaptLimit(live[0].Value.Uint64(), limit)
			}
		}
		busy := false
		for _, l := range s.lanes {
			busy = busy || l.busy()
		}
		n := s.shed.Load()
		if n != shed || busy {
			shed, overloaded, calm = n, true, 0
			continue
		}
		if calm++; calm < 3 {
			continue
		}
		metrics.Read(free)
		if held := free[0].Value; overloaded || (held.Kind() == metrics.KindUint64 && held.Uint64() > freeHeapToReturn) {
			overloaded = false
			start := time.Now()
			debug.FreeOSMemory()
			s.logger.Info("evidence: calm again, free memory returned to the system", "took_ms", time.Since(start).Milliseconds())
		}
	}
}

// The admin listener (--admin-addr): /healthz, /metrics and /debug/pprof/
// on a listener of their own. On the API's listener a probe is one more
// connection in the kernel's accept queue, behind every connection that
// arrived before it: when thousands of clients connect at once (the
// stalled-reader test opens 2,000) the accept loop, one goroutine among
// thousands of runnable ones, takes seconds to reach it, however cheap the
// probe's own lane. Its own listener has its own accept queue and loop,
// which API clients cannot fill.

// adminConns bounds the connections of the admin listener: probes and
// scrapes, a few at once. At the limit the longest idle one is closed, as
// on the API's listener.
const adminConns = 64

// adminPath reports whether the admin listener serves a path.
func adminPath(p string) bool {
	return p == "/healthz" || p == "/metrics" || strings.HasPrefix(p, "/debug/pprof/")
}

// limitAdminListener bounds the admin listener's connections to
// adminConns. Its evictions and refusals are counted with the API's,
// under action admin_evicted and admin_refused.
func (s *Server) limitAdminListener(ln net.Listener) net.Listener {
	return &connLimiter{Listener: ln, max: adminConns, conns: map[*trackedConn]struct{}{},
		evicted: s.metrics.connsShed.WithLabelValues("admin_evicted"), refused: s.metrics.connsShed.WithLabelValues("admin_refused")}
}

// adminServer is the http.Server of the admin listener: the server's own
// routes for health, metrics and pprof (same authentication, lanes and
// logs), and a 404 for every other path.
func (s *Server) adminServer(readHeader, read, idle time.Duration, logger *slog.Logger) *http.Server {
	hs := s.httpServer(readHeader, read, idle, logger)
	hs.Handler = s.adminHandler()
	return hs
}

// adminHandler answers the admin listener's paths as the server does, and
// every other with a 404.
func (s *Server) adminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !adminPath(r.URL.Path) {
			w.Header().Set("Cache-Control", "no-store")
			writeError(w, errorf(http.StatusNotFound, "not_found", "%s %s: not served on the admin listener (only /healthz, /metrics and /debug/pprof/)", r.Method, r.URL.Path))
			return
		}
		s.ServeHTTP(w, r)
	})
}

// largeInFlight is how many large answers are built at once: one core's
// worth less than the machine has, at least one. The Go scheduler has no
// priorities: with as many CPU-bound handlers as --max-in-flight allows (16
// on 2 cores), every other goroutine (the accept loop, a health probe's
// connection) waits in the run queue behind their time slices; 2,000
// stalled readers asking for a 700 kB text kept both cores busy for 1.5 s
// and health checks waited as long. A core left to the rest keeps them
// within milliseconds.
func largeInFlight() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// largeAnswerFrom is the estimated answer size (textAnswerBytes) from
// which a text range is a large answer: some 64 K code points, half a
// millisecond of CPU and more.
const largeAnswerFrom = 256 << 10

// largeShed is the answer to a large answer refused by its lane (counted
// in evidence_http_shed_total{lane="large"}).
func (s *Server) largeShed(w http.ResponseWriter, err error) error {
	if !errors.Is(err, errShed) { // the client went away while it waited: not counted, and no one reads this
		return errorf(http.StatusServiceUnavailable, "unavailable", "the request was cancelled while it waited")
	}
	s.shed.Add(1)
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	return &httpError{status: http.StatusServiceUnavailable, code: "unavailable",
		message: fmt.Sprintf("the server is building its limit of large answers (%d at once, %d waiting): retry after %d s", cap(s.large.slots), s.large.maxQueue, retryAfter)}
}
