package main

import (
	"errors"
	"log"
	"sync"

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

// traceQueue is the verify.TraceStore of a server with async trace writes.
type traceQueue struct {
	db      *store.DB
	queue   chan store.TraceRecord
	done    chan struct{}
	log     *log.Logger
	written prometheus.Counter
	failed  prometheus.Counter

	mu     sync.RWMutex // held to send, and to close the queue
	closed bool
}

func newTraceQueue(db *store.DB, logger *log.Logger, m *serverMetrics) *traceQueue {
	q := &traceQueue{db: db, queue: make(chan store.TraceRecord, maxQueuedTraces), done: make(chan struct{}), log: logger,
		written: m.traces.WithLabelValues("written"), failed: m.traces.WithLabelValues("failed")}
	go q.run()
	return q
}

func (q *traceQueue) View(fn func(*store.Tx) error) error { return q.db.View(fn) }

// PutTrace queues a trace; it blocks only while the queue is full. After
// close (a request that outlived the shutdown grace period) it fails.
func (q *traceQueue) PutTrace(id string, trace []byte) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return errors.New("the server is stopping")
	}
	q.queue <- store.TraceRecord{ID: id, Trace: trace}
	return nil
}

// run commits what is queued, as one transaction, until the queue closes.
func (q *traceQueue) run() {
	defer close(q.done)
	batch := make([]store.TraceRecord, 0, 256)
	for t := range q.queue {
		batch = append(batch[:0], t)
	more:
		for len(batch) < cap(batch) {
			select {
			case t, ok := <-q.queue:
				if !ok {
					break more
				}
				batch = append(batch, t)
			default:
				break more
			}
		}
		if err := q.db.PutTraces(batch); err != nil {
			q.failed.Add(float64(len(batch)))
			q.log.Printf("storing %d verification traces: %v", len(batch), err)
			continue
		}
		q.written.Add(float64(len(batch)))
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

var _ verify.TraceStore = (*traceQueue)(nil)
