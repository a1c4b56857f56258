package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Trace writes (--trace-writes).
const (
	// TraceSync commits a verification's trace, fsync included, before its
	// report is returned: nothing answered is ever missing from the store.
	TraceSync = "sync"
	// TraceAsync returns the report first and commits traces behind the
	// responses, many to a commit, within a stated bound (traceQueue).
	TraceAsync = "async"
)

// Defaults of --trace-flush and --trace-batch, and how long a server whose
// trace writes failed refuses verifications before it tries the disk again.
const (
	DefaultTraceFlush = 10 * time.Millisecond
	DefaultTraceBatch = 1000
	defaultTraceRetry = time.Second
)

// traceWriterConfig is when async traces are committed: at the latest
// flush after the first of them was acknowledged, or as soon as batch are
// waiting, whichever comes first.
type traceWriterConfig struct {
	flush time.Duration // --trace-flush; 0 is DefaultTraceFlush
	batch int           // --trace-batch; 0 is DefaultTraceBatch
	retry time.Duration // after a failed write, refuse this long before trying again; 0 is defaultTraceRetry
	store tracePutter   // where traces go; nil is the server's store (tests give failing ones)
}

// pendingTrace is a verification whose trace is still to be stored. Its
// JSON is built from parts the response already produced: the report as
// sent and the policy encoded once, so the request is the only part encoded
// again.
type pendingTrace struct {
	id            string
	at            time.Time
	storeSequence uint64
	request       *verify.Request // not changed once verified
	report        []byte          // the report's JSON as sent
	rep           *verify.Report  // the report, not changed once sent: for the summary
}

// encode returns the trace and its summary to store.
func (t *pendingTrace) encode(policy []byte) (store.TraceRecord, error) {
	b, err := verify.EncodeTrace(t.id, t.at, t.storeSequence, policy, t.request, t.report)
	if err != nil {
		return store.TraceRecord{}, err
	}
	r := store.TraceRecord{ID: t.id, Trace: b}
	if t.rep != nil { // without one, listings read the trace itself
		r.Summary, err = verify.EncodeTraceSummary(t.id, t.at, t.request, t.rep)
	}
	return r, err
}

// tracePutter is the part of *store.DB the trace writer needs.
type tracePutter interface {
	PutTraces([]store.TraceRecord) error
}

// errTracesStopping and errTracesUnavailable refuse a verification before
// its report is sent, so that no trace is acknowledged that will not be
// stored.
var (
	errTracesStopping    = errors.New("the server is stopping")
	errTracesUnavailable = errors.New("verification traces cannot be stored")
)

// traceQueue stores the traces of a server with async trace writes, behind
// the responses, under this bound: a crash (kill -9, power loss) loses at
// most the traces of the commit in flight and those acknowledged while it
// runs. The writer takes every waiting trace in one commit once the first
// of them has waited cfg.flush, or once cfg.batch are waiting; a
// verification whose trace would make the waiting traces more than
// cfg.batch, or older than cfg.flush (the disk is slower than the flush
// interval), waits for the writer to take them. So each of the two groups
// a crash can lose was acknowledged within one flush interval, the second
// one within one commit too, and each holds at most cfg.batch traces.
//
// A failed write loses the traces it held (each id logged, counted as
// failed); until a later write succeeds the queue refuses new traces
// (errTracesUnavailable: 503 and Retry-After), and once every
// cfg.retry it lets one verification through whose trace it commits
// before the report is sent, to find out whether the disk has room again.
type traceQueue struct {
	db      tracePutter
	policy  []byte // the server's policy as JSON
	cfg     traceWriterConfig
	log     *log.Logger
	written prometheus.Counter
	failed  prometheus.Counter // acknowledged, then not stored: lost
	refused prometheus.Counter // refused before acknowledging (503)
	commits prometheus.Observer
	healthy prometheus.Gauge
	wake    chan struct{} // tells the writer that traces wait (capacity 1)
	done    chan struct{} // closed when the writer has stored everything and stopped

	mu      sync.Mutex
	pending []pendingTrace
	oldest  time.Time     // when pending[0] was acknowledged
	changed chan struct{} // closed (and replaced) when pending was taken or the queue closed
	failure error         // the last write error; nil when writes succeed
	probeAt time.Time     // when a refused queue may try the disk again
	probing bool
	closed  bool
}

// newTraceQueue starts the writer of a server's async traces with the
// default --trace-flush and --trace-batch.
func newTraceQueue(db *store.DB, policy []byte, logger *log.Logger, m *serverMetrics) *traceQueue {
	return newTraceQueueWith(db, policy, logger, m, traceWriterConfig{})
}

func newTraceQueueWith(db tracePutter, policy []byte, logger *log.Logger, m *serverMetrics, cfg traceWriterConfig) *traceQueue {
	if cfg.store != nil {
		db = cfg.store
	}
	if cfg.retry <= 0 {
		cfg.retry = defaultTraceRetry
	}
	if cfg.flush <= 0 {
		cfg.flush = DefaultTraceFlush
	}
	if cfg.batch <= 0 {
		cfg.batch = DefaultTraceBatch
	}
	commits := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "evidence_trace_commit_seconds",
		Help:    "Time to encode and commit one batch of async verification traces, fsync included.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})
	healthy := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "evidence_trace_writes_available",
		Help: "1 while async verification traces are stored, 0 while verifications that need a trace are refused (503) after a failed write.",
	})
	healthy.Set(1)
	m.reg.MustRegister(commits, healthy)
	q := &traceQueue{db: db, policy: policy, cfg: cfg, log: logger,
		written: m.traces.WithLabelValues("written"), failed: m.traces.WithLabelValues("failed"),
		refused: m.traces.WithLabelValues("refused"), commits: commits, healthy: healthy,
		wake: make(chan struct{}, 1), done: make(chan struct{}), changed: make(chan struct{}),
		pending: make([]pendingTrace, 0, 256)}
	go q.run()
	return q
}

// put queues a trace without a deadline (tests).
func (q *traceQueue) put(t pendingTrace) error { return q.add(context.Background(), t) }

// add queues a trace; once it returns nil the trace counts as acknowledged.
// It waits while the writer is behind (see traceQueue), until ctx is done.
func (q *traceQueue) add(ctx context.Context, t pendingTrace) error {
	q.mu.Lock()
	for {
		switch {
		case q.closed:
			q.mu.Unlock()
			return errTracesStopping
		case q.failure != nil:
			return q.probe(t) // unlocks
		case len(q.pending) >= q.cfg.batch || (len(q.pending) > 0 && time.Since(q.oldest) >= q.cfg.flush):
			changed := q.changed
			q.mu.Unlock()
			q.signal()
			select {
			case <-changed:
			case <-ctx.Done():
				return ctx.Err()
			}
			q.mu.Lock()
			continue
		}
		if len(q.pending) == 0 {
			q.oldest = time.Now()
		}
		q.pending = append(q.pending, t)
		n := len(q.pending)
		q.mu.Unlock()
		if n == 1 || n >= q.cfg.batch {
			q.signal() // a deadline to set, or a full batch
		}
		return nil
	}
}

// probe is add while writes fail (called with q.mu held, which it
// releases): one verification every cfg.retry has its trace
// committed before its report is sent; a success makes the queue accept
// traces again. Every other trace is refused.
func (q *traceQueue) probe(t pendingTrace) error {
	if q.probing || time.Now().Before(q.probeAt) {
		q.mu.Unlock()
		q.refused.Inc()
		return errTracesUnavailable
	}
	q.probing = true
	q.mu.Unlock()
	rec, err := t.encode(q.policy)
	if err == nil {
		start := time.Now()
		err = q.db.PutTraces([]store.TraceRecord{rec})
		q.commits.Observe(time.Since(start).Seconds())
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.probing = false
	if err != nil {
		q.probeAt = time.Now().Add(q.cfg.retry)
		q.refused.Inc()
		q.log.Printf("verification traces: still refused: %v", err)
		return errTracesUnavailable
	}
	q.written.Inc()
	q.failure = nil
	q.healthy.Set(1)
	q.log.Printf("verification traces: stored again; verifications are accepted")
	return nil
}

func (q *traceQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run commits what is queued, as one transaction, until the queue closes
// and nothing waits.
func (q *traceQueue) run() {
	defer close(q.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var spare []pendingTrace
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			if q.closed {
				q.mu.Unlock()
				return
			}
			q.mu.Unlock()
			<-q.wake
			continue
		}
		if wait := q.cfg.flush - time.Since(q.oldest); !q.closed && len(q.pending) < q.cfg.batch && wait > 0 {
			q.mu.Unlock()
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-q.wake:
				timer.Stop()
			}
			continue
		}
		batch := q.pending
		q.pending = spare[:0]
		close(q.changed) // waiting verifications may queue for the next commit
		q.changed = make(chan struct{})
		q.mu.Unlock()

		q.commit(batch)
		clear(batch) // let the requests and reports go
		spare = batch
	}
}

// commit encodes and stores a batch in one transaction. If that fails it
// stores each trace on its own, so that one bad trace (an id already
// stored with other content) loses only itself, not the batch. Each trace
// not stored is logged by id and counted as failed; a write error makes
// the queue refuse new traces (probe).
func (q *traceQueue) commit(pending []pendingTrace) {
	start := time.Now()
	batch := make([]store.TraceRecord, 0, len(pending))
	for i := range pending {
		r, err := pending[i].encode(q.policy)
		if err != nil {
			q.lose(pending[i].id, fmt.Errorf("encoding: %w", err))
			continue
		}
		batch = append(batch, r)
	}
	err := q.db.PutTraces(batch)
	q.commits.Observe(time.Since(start).Seconds())
	if err == nil {
		q.written.Add(float64(len(batch)))
		return
	}
	lost := 0
	var last error
	for i := range batch {
		if err := q.db.PutTraces(batch[i : i+1]); err != nil {
			lost, last = lost+1, err
			q.lose(batch[i].ID, err)
			continue
		}
		q.written.Inc()
	}
	if lost == 0 {
		return
	}
	q.log.Printf("storing verification traces: %d of %d lost: %v; verifications that need a trace are refused (503) until a write succeeds", lost, len(batch), last)
	q.mu.Lock()
	if q.failure == nil {
		q.healthy.Set(0)
	}
	q.failure, q.probeAt = last, time.Now().Add(q.cfg.retry)
	q.mu.Unlock()
}

// lose reports one acknowledged trace that will not be stored.
func (q *traceQueue) lose(id string, err error) {
	q.failed.Inc()
	q.log.Printf("verification trace lost: trace_id=%s: %v", id, err)
}

// refusal is the answer to a verification whose trace the queue did not
// take: 503 with Retry-After, as nothing was acknowledged.
func (q *traceQueue) refusal(w http.ResponseWriter, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errorf(http.StatusServiceUnavailable, "unavailable", "the verification's trace could not be queued in time")
	}
	w.Header().Set("Retry-After", strconv.Itoa(int((q.cfg.retry+time.Second-1)/time.Second)))
	return errorf(http.StatusServiceUnavailable, "unavailable", "%v; try again later", err)
}

// close stores what is queued and stops; the server calls it after the
// last request has been answered.
func (q *traceQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.changed)
		q.changed = make(chan struct{})
	}
	q.mu.Unlock()
	q.signal()
	<-q.done
}
