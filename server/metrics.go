package server

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// serverMetrics are the service's Prometheus metrics, in a registry of its
// own so that several servers (tests) do not share counters.
type serverMetrics struct {
	reg           *prometheus.Registry
	handler       http.Handler
	routes        []string
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	resolutions   *prometheus.CounterVec
	verifications *prometheus.CounterVec
	failures      *prometheus.CounterVec
	ingests       *prometheus.CounterVec
	traces        *prometheus.CounterVec
	judgeCalls    *prometheus.CounterVec
	judgeLatency  *prometheus.HistogramVec
	quarantine    *quarantineCollector
	corrupt       *prometheus.CounterVec
	shed          *prometheus.CounterVec // requests answered 503 by admission control
	connsShed     *prometheus.CounterVec // connections closed at the connection limit
}

func newServerMetrics(db *store.DB) *serverMetrics {
	m := &serverMetrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_http_requests_total", Help: "HTTP requests by route pattern and status code.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "evidence_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern.",
		// Resolves take microseconds, uploads seconds.
		Buckets: []float64{.0001, .00025, .0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route"})
	m.resolutions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_resolutions_total", Help: "Chunk and range resolutions by status.",
	}, []string{"status"})
	m.verifications = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_verifications_total", Help: "Verified answers by disposition.",
	}, []string{"disposition"})
	m.failures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_verification_failures_total", Help: "Verification failures by category (support, coverage, resolution, version, permission).",
	}, []string{"category"})
	m.ingests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_ingests_total", Help: "Uploaded documents by ingest outcome (ingested, unchanged, failed, deleted).",
	}, []string{"status"})
	m.traces = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_traces_total", Help: "Verification traces stored behind the responses (--trace-writes async), by outcome: written, failed (answered, then lost: each id logged), refused (503 before answering).",
	}, []string{"outcome"})
	m.judgeCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_judge_calls_total", Help: "Model judge verdicts asked for, by judge id and result (supported, contradicted, not_addressed, unavailable, malformed, cached).",
	}, []string{"judge", "result"})
	m.judgeLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "evidence_judge_call_seconds", Help: "Time a model judge took to answer (cached verdicts excluded), by judge id.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"judge"})
	m.corrupt = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_store_corrupt_reads_total", Help: "Requests refused because stored bytes failed a check (500), by reason (checksum, hash_mismatch, fault, malformed).",
	}, []string{"reason"})
	m.shed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_http_shed_total", Help: "Requests answered 503 with Retry-After by admission control, by lane and reason (queue_full: refused at once; queue_timeout: waited its time; response_memory: --max-response-memory held for other clients).",
	}, []string{"lane", "reason"})
	m.connsShed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "evidence_http_connections_shed_total", Help: "Connections closed at the connection limit (--max-conns), by action (evicted: an idle or unfinished one closed for a new one; refused: a new one answered 503).",
	}, []string{"action"})
	for _, r := range []string{store.CorruptChecksum, store.CorruptHashMismatch, store.CorruptFault, store.CorruptMalformed} {
		m.corrupt.WithLabelValues(r)
	}
	for _, c := range []string{verify.FailSupport, verify.FailCoverage, verify.FailResolution, verify.FailVersion, verify.FailPermission} {
		m.failures.WithLabelValues(c)
	}
	m.quarantine = &quarantineCollector{db: db, desc: prometheus.NewDesc("evidence_quarantined_chunks",
		"Quarantined chunks of current versions, by reason code.", []string{"reason"}, nil)}
	m.reg.MustRegister(m.requests, m.latency, m.resolutions, m.verifications, m.failures, m.ingests, m.traces, m.judgeCalls, m.judgeLatency, m.quarantine, m.corrupt, m.shed, m.connsShed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

func (m *serverMetrics) addRoute(pattern string) { m.routes = append(m.routes, pattern) }

func (m *serverMetrics) observe(route string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

func (m *serverMetrics) resolved(s resolve.Status) { m.resolutions.WithLabelValues(string(s)).Inc() }

func (m *serverMetrics) verified(rep *verify.Report) {
	m.verifications.WithLabelValues(rep.Disposition).Inc()
	f := rep.Failures
	for c, n := range map[string]int{verify.FailSupport: f.Support, verify.FailCoverage: f.Coverage,
		verify.FailResolution: f.Resolution, verify.FailVersion: f.Version, verify.FailPermission: f.Permission} {
		if n > 0 {
			m.failures.WithLabelValues(c).Add(float64(n))
		}
	}
}

// judged counts a judge verdict; it is the server's verify.JudgeObserver.
func (m *serverMetrics) judged(judge, result string, d time.Duration) {
	m.judgeCalls.WithLabelValues(judge, result).Inc()
	if result != "cached" {
		m.judgeLatency.WithLabelValues(judge).Observe(d.Seconds())
	}
}

func (m *serverMetrics) ingested(sum *ingest.Summary) {
	for _, r := range sum.Results {
		m.ingests.WithLabelValues(r.Status).Inc()
	}
	m.invalidateQuarantine()
}

func (m *serverMetrics) invalidateQuarantine() { m.quarantine.invalidate() }

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, c *caller) error {
	s.metrics.handler.ServeHTTP(w, r)
	return nil
}

// quarantineCollector counts quarantined chunks by reason from the store's
// quarantine index when scraped, and keeps the counts until the server
// writes again: only this process writes while it serves.
type quarantineCollector struct {
	db   *store.DB
	desc *prometheus.Desc

	mu     sync.Mutex
	counts map[string]int // nil: count again
}

func (q *quarantineCollector) invalidate() {
	q.mu.Lock()
	q.counts = nil
	q.mu.Unlock()
}

func (q *quarantineCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *quarantineCollector) Collect(ch chan<- prometheus.Metric) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.counts == nil {
		counts := map[string]int{}
		err := q.db.View(func(tx *store.Tx) error {
			return tx.ForEachQuarantined(func(v *store.Version, c *store.Chunk) error {
				if v.Status == store.StatusCurrent {
					counts[c.Quarantine.Reason]++
				}
				return nil
			})
		})
		if err != nil {
			ch <- prometheus.NewInvalidMetric(q.desc, err)
			return
		}
		q.counts = counts
	}
	for reason, n := range q.counts {
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n), reason)
	}
}
