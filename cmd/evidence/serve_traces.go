package main

import (
	"errors"
	"log"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Trace writes (--trace-writes).
const (
	// traceSync commits a verification's trace, fsync included, before its
	// report is returned: nothing answered is ever missing from the store.
	traceSync = "sync"
	// traceAsync returns the report first and commits traces behind the
	// responses, all those queued during one commit in the next: one fsync
	// for many. A crash can lose the traces of the last commit interval
	// (one fsync, a few milliseconds); the reports already returned name
	// trace ids that will not resolve.
	traceAsync = "async"
)

// maxQueuedTraces bounds the queue: when the disk falls behind, requests
// wait for room (backpressure) rather than memory growing or traces being
// dropped.
const maxQueuedTraces = 4096

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

// traceQueue stores the traces of a server with async trace writes: it
// encodes and commits them behind the responses.
type traceQueue struct {
	db      *store.DB
	policy  []byte // the server's policy as JSON
	queue   chan pendingTrace
	done    chan struct{}
	log     *log.Logger
	written prometheus.Counter
	failed  prometheus.Counter

	mu     sync.RWMutex // held to send, and to close the queue
	closed bool
}

func newTraceQueue(db *store.DB, policy []byte, logger *log.Logger, m *serverMetrics) *traceQueue {
	q := &traceQueue{db: db, policy: policy, queue: make(chan pendingTrace, maxQueuedTraces), done: make(chan struct{}), log: logger,
		written: m.traces.WithLabelValues("written"), failed: m.traces.WithLabelValues("failed")}
	go q.run()
	return q
}

// put queues a trace; it blocks only while the queue is full. After close
// (a request that outlived the shutdown grace period) it fails.
func (q *traceQueue) put(t pendingTrace) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return errors.New("the server is stopping")
	}
	q.queue <- t
	return nil
}

// run commits what is queued, as one transaction, until the queue closes.
func (q *traceQueue) run() {
	defer close(q.done)
	pending := make([]pendingTrace, 0, 256)
	batch := make([]store.TraceRecord, 0, 256)
	for t := range q.queue {
		pending = append(pending[:0], t)
	more:
		for len(pending) < cap(pending) {
			select {
			case t, ok := <-q.queue:
				if !ok {
					break more
				}
				pending = append(pending, t)
			default:
				break more
			}
		}
		batch = batch[:0]
		for i := range pending {
			r, err := pending[i].encode(q.policy)
			if err != nil {
				q.failed.Inc()
				q.log.Printf("encoding verification trace %s: %v", pending[i].id, err)
				continue
			}
			batch = append(batch, r)
			pending[i] = pendingTrace{} // let the request and report go
		}
		q.commit(batch)
	}
}

// commit stores a batch in one transaction. If that fails it stores each
// trace on its own, so that one bad trace (an id already stored with other
// content) loses only itself, not the batch.
func (q *traceQueue) commit(batch []store.TraceRecord) {
	if err := q.db.PutTraces(batch); err == nil {
		q.written.Add(float64(len(batch)))
		return
	}
	lost := 0
	var last error
	for i := range batch {
		if err := q.db.PutTraces(batch[i : i+1]); err != nil {
			lost, last = lost+1, err
			continue
		}
		q.written.Inc()
	}
	if lost > 0 {
		q.failed.Add(float64(lost))
		q.log.Printf("storing verification traces: %d of %d lost: %v", lost, len(batch), last)
	}
}

// close stores what is queued and stops; the server calls it after the
// last request has been answered.
func (q *traceQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.queue)
	}
	q.mu.Unlock()
	<-q.done
}
