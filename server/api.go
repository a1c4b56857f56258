package server

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	segjson "github.com/segmentio/encoding/json"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// maxBatch bounds the citations of one POST /v1/resolve.
const maxBatch = 1000

type serverConfig struct {
	tokens    *Tokens // nil: no authentication (loopback only)
	policy    *verify.Policy
	maxBody   int64
	maxUpload int64
	errlog    io.Writer
	// logger gets one line a request and the server's errors; nil is a
	// text logger on errlog.
	logger *slog.Logger
	// traceWrites is TraceSync (the default when empty) or TraceAsync.
	traceWrites string
	// traceWriter is when async traces are committed (traces.go).
	traceWriter traceWriterConfig
	// links signs viewer links; nil signs with a key of the server's own
	// run, relative links valid for DefaultViewerTTL.
	links *LinkSigner
	// pdf is the worker and limits of uploaded PDFs.
	pdf ingest.PDFLimits
	// limits bound the requests handled and waiting (limits.go);
	// zero values take the defaults.
	limits serveLimits
}

// Server is the HTTP service over one open store (see the package doc). It is the store's only
// writer while it runs; bbolt lets its reads run beside its writes, each
// read transaction seeing one consistent state of the store.
type Server struct {
	serverConfig
	db         *store.DB
	mux        *http.ServeMux
	metrics    *serverMetrics
	log        *log.Logger // errors, through logger
	requestIDs *requestIDs
	traces     *traceQueue // nil: traces are committed before the response
	policyJSON []byte      // the policy, encoded once for traces
	lanes      lanes       // admission control by route (limits.go)
	diskWaits  chan struct{}
	responses  *byteBudget  // large response bodies being written
	large      *lane        // large answers being built (limits.go)
	conns      Limits       // connection limit and timeouts, for Serve
	adaptive   bool         // Options.AdaptiveMemory
	shed       atomic.Int64 // requests shed, for watchOverload
	// shedUnlogged counts the lanes' sheds since the last "requests shed"
	// line: a shed request gets no line of its own (see logSheds).
	shedUnlogged atomic.Int64
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, c *caller) error

func newServer(db *store.DB, cfg serverConfig) *Server {
	if cfg.policy == nil {
		cfg.policy = verify.DefaultPolicy()
	}
	if cfg.errlog == nil {
		cfg.errlog = os.Stderr
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(cfg.errlog, nil))
	}
	s := &Server{serverConfig: cfg, db: db, mux: http.NewServeMux(), log: slog.NewLogLogger(cfg.logger.Handler(), slog.LevelError), requestIDs: newRequestIDs()}
	var err error
	s.metrics = newServerMetrics(db)
	s.limits = s.limits.withDefaults()
	s.lanes = newLanes(s.limits, s.metrics)
	s.diskWaits = make(chan struct{}, diskWaitsPerSlot*s.limits.maxInFlight)
	s.responses = &byteBudget{max: s.limits.maxResponseBytes}
	s.large = newLane(laneLarge, largeInFlight(), 4*largeInFlight(), s.limits.queueTimeout, s.metrics)
	if s.links == nil {
		if s.links, err = EphemeralSigner(DefaultViewerTTL, ""); err != nil {
			panic("serve: no random viewer key: " + err.Error())
		}
	}
	s.policy = s.policy.WithJudgeCache(db, s.metrics.judged)
	if s.policyJSON, err = json.Marshal(cfg.policy); err != nil {
		panic("serve: policy does not encode: " + err.Error()) // it was decoded from JSON
	}
	if cfg.traceWrites == TraceAsync {
		s.traces = newTraceQueueWith(db, s.policyJSON, s.log, s.metrics, cfg.traceWriter)
	}
	s.handle("GET /v1/chunks/{chunk_id}", accessRead, s.getChunk)
	s.handle("POST /v1/resolve", accessRead, s.postResolve)
	s.handle("GET /v1/versions/{version}/text", accessRead, s.getText)
	s.handle("POST /v1/verify", accessRead, s.postVerify)
	s.handle("GET /v1/documents", accessRead, s.getDocuments)
	s.handle("POST /v1/documents", accessService, s.postDocument)
	s.handle("GET /v1/documents/{id}/chunks", accessRead, s.getDocumentChunks)
	s.handle("POST /v1/documents/{id}/rebuild", accessService, s.postRebuild)
	s.handle("DELETE /v1/documents/{id...}", accessAdmin, s.deleteDocument)
	s.handle("GET /v1/quarantine", accessRead, s.getQuarantine)
	s.handle("GET /v1/traces/{trace_id}", accessRead, s.getTrace)
	s.handle("GET /v1/traces", accessRead, s.getTraces)
	s.handle("GET /v1/traces/stats", accessRead, s.getTraceStats)
	s.handle("GET /v1/snapshot", accessService, s.getSnapshot)
	s.handle("GET /healthz", accessPublic, s.healthz)
	s.handle("GET /metrics", accessToken, s.serveMetrics)
	s.handle("GET /openapi.json", accessPublic, s.openAPI)
	s.handle("GET /view/{chunk_id}", accessViewer, s.viewChunk)
	s.handle("GET /view/versions/{version}", accessViewer, s.viewVersion)
	s.handle("GET /view/versions/{version}/text", accessViewer, s.viewText)
	s.handle("GET /debug/pprof/{name...}", accessAdmin, s.pprof)
	return s
}

// routes lists the patterns served, for the OpenAPI consistency test.
func (s *Server) routes() []string { return s.metrics.routes }

// handle registers a route behind authentication, panic recovery, common
// headers and metrics. A handler's error is answered as JSON: an
// *httpError as it says, anything else as a 500 whose detail goes to the
// log only, since a store error may name what it read.
func (s *Server) handle(pattern string, need access, h handlerFunc) {
	s.metrics.addRoute(pattern)
	lane := s.lanes[routeLane(pattern)]
	s.mux.Handle(pattern, route(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if tc, ok := r.Context().Value(connKey{}).(*trackedConn); ok {
			tc.enter() // not to be closed for a new connection while here
			defer tc.leave()
		}
		sw := &statusWriter{ResponseWriter: w, stall: &stallWriter{stall: s.limits.writeStall, budget: s.responses}}
		if s.limits.writeTimeout > 0 {
			sw.stall.until = start.Add(s.limits.writeTimeout)
		}
		var c *caller
		var errCode string
		quiet := false // a shed request: counted in the next "requests shed" line
		defer func() {
			if p := recover(); p != nil {
				s.log.Printf("%s %s: panic: %v", r.Method, pattern, p)
				errCode = "internal"
				if !sw.wrote {
					writeError(sw, errorf(http.StatusInternalServerError, "internal", "internal error"))
				}
			}
			took := time.Since(start)
			s.metrics.observe(pattern, sw.code(), took)
			if !quiet {
				s.logRequest(r, pattern, c, sw, errCode, took)
			}
		}()
		hdr := sw.Header()
		if err := lane.acquire(r.Context()); err != nil {
			if errors.Is(err, errShed) { // else the client went away while its request waited: not counted
				s.shed.Add(1)
				s.shedUnlogged.Add(1)
				quiet = true
			}
			hdr.Set("Retry-After", strconv.Itoa(retryAfter))
			he := lane.shedError()
			errCode = he.code
			writeError(sw, he)
			return
		}
		sw.lane = lane
		// Go's scheduler has no priorities, and a goroutine that a lane
		// wakes runs next: without this yield the admitted handlers took
		// the core back to back while requests that had arrived waited
		// unread in the run queue, before admission could queue or shed
		// them (at 2,500 verifications/s on one core: no 503, p99 240 ms).
		// Yielding once lets them reach the lane first, so its queue and
		// timeout are the server's only wait. Health checks and metrics
		// (their own small lane) do not yield: they are the intake's kind,
		// a few microseconds, and a probe waiting a turn of the run queue
		// behind every handler is what the control lane exists to avoid.
		if lane.name != laneControl {
			runtime.Gosched()
		}
		defer func() {
			if !sw.outOfLane {
				lane.releaseQueued()
			}
		}()
		if r.Context().Err() != nil {
			return // the client went away while its request waited: no work for no one
		}
		c, herr := s.authenticate(r, need)
		if herr != nil {
			if herr.status == http.StatusUnauthorized {
				hdr.Set("WWW-Authenticate", `Bearer realm="evidence"`)
			}
			errCode = herr.code
			writeError(sw, herr)
			return
		}
		if err := h(sw, r, c); err != nil {
			var he *httpError
			if !errors.As(err, &he) {
				if sw.wrote && clientWriteError(err) {
					return // the client stopped reading or went away mid-answer: its request line says what was sent
				}
				s.log.Printf("%s %s: %v", r.Method, pattern, err)
				he = storeError(err)
				if he.reason != "" {
					s.metrics.corrupt.WithLabelValues(he.reason).Inc()
				}
				if he.status == http.StatusServiceUnavailable {
					hdr.Set("Retry-After", strconv.Itoa(retryAfter))
				}
			}
			errCode = he.code
			if he.shed != "" {
				s.shed.Add(1)
				s.metrics.shed.WithLabelValues(lane.name, he.shed).Inc()
				hdr.Set("Retry-After", strconv.Itoa(retryAfter))
			}
			if !sw.wrote {
				writeError(sw, he)
			}
		}
	}))
}

// route is a handler registered by handle: what ServeHTTP tells apart from
// the mux's own answers (not found, method not allowed, redirects).
type route func(w http.ResponseWriter, r *http.Request)

func (rt route) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt(w, r) }

// probeMethods are the methods an Allow header may list.
var probeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// ServeHTTP dispatches, answering unknown paths and methods in JSON too.
// What the mux would answer by itself is never sent: not its plain-text
// 404 and 405, nor its redirects (a path without the trailing slash a
// {name...} route needs, or an unclean path), which would reach a client
// as an empty 307. Such a request gets a 405 with the methods its path is
// served for, as it was sent, or a 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set(requestIDHeader, s.requestIDs.of(r))
	if h, _ := s.mux.Handler(r); isRoute(h) {
		s.mux.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	var allow []string
	for _, m := range probeMethods {
		probe := new(http.Request)
		*probe = *r
		probe.Method = m
		if h, _ := s.mux.Handler(probe); isRoute(h) {
			allow = append(allow, m)
		}
	}
	var he *httpError
	if len(allow) > 0 {
		sw.Header().Set("Allow", strings.Join(allow, ", "))
		he = errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s %s: method not allowed (allowed: %s)", r.Method, r.URL.Path, strings.Join(allow, ", "))
	} else {
		he = errorf(http.StatusNotFound, "not_found", "%s %s: not found", r.Method, r.URL.Path)
	}
	if ep := r.URL.EscapedPath(); cleanPath(ep) != ep {
		he.message += " (paths are matched as sent: did you mean " + cleanPath(ep) + "?)"
	} else if strings.HasPrefix(ep, "/v1/documents/") && strings.Count(strings.TrimPrefix(ep, "/v1/documents/"), "/") > 1 {
		he.message += " (a document id in the path of chunks or rebuild is one segment: escape its slashes as %2F)"
	}
	writeError(sw, he)
	took := time.Since(start)
	s.metrics.observe("unmatched", he.status, took)
	s.logRequest(r, "unmatched", nil, sw, he.code, took)
}

func isRoute(h http.Handler) bool { _, ok := h.(route); return ok }

// cleanPath is the path the mux would redirect p to: dot segments and
// repeated slashes removed, a trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	c := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// statusWriter remembers the status and the body bytes written, for
// metrics and the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	bytes  int64
	// lane is the lane whose slot the request holds, until outOfLane
	// (waitOnDisk gave it back).
	lane      *lane
	outOfLane bool
	// stall, if set, abandons a response its client stopped reading: a
	// large body is written in pieces, each of which must be taken within
	// the write stall, so a stalled reader holds its buffer and its slot
	// that long at most.
	stall *stallWriter
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	if w.stall == nil || w.bytes+int64(len(b)) < stallFrom {
		n, err := w.ResponseWriter.Write(b)
		w.bytes += int64(n)
		return n, err
	}
	written := 0
	for len(b) > 0 {
		piece := b[:min(len(b), stallChunk)]
		w.stall.deadline(w.ResponseWriter)
		n, err := w.ResponseWriter.Write(piece)
		written += n
		w.bytes += int64(n)
		if err != nil {
			return written, err
		}
		b = b[n:]
	}
	return written, nil
}

func (w *statusWriter) code() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// jsonBuffers recycles response buffers: a resolve answers several
// kilobytes, and allocating them anew for every request feeds the GC.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(buf)
	if err := encodeJSON(buf, v); err != nil {
		return err
	}
	return writeJSONBytes(w, status, buf.Bytes())
}

func putJSONBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		buf.Reset()
		jsonBuffers.Put(buf)
	}
}

// encodeJSON writes v as the API's bodies are written: no HTML escaping.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeJSONBytes(w http.ResponseWriter, status int, b []byte) error {
	if sw, ok := w.(*statusWriter); ok && sw.stall != nil && !sw.stall.reserved && len(b) >= stallFrom {
		// A large body is held until its client has taken it: within the
		// budget, or answered 503 and dropped at once.
		if !sw.stall.budget.take(int64(len(b))) {
			return sw.stall.budgetError()
		}
		defer sw.stall.budget.give(int64(len(b)))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

func writeError(w http.ResponseWriter, e *httpError) {
	type body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Reason  string `json:"reason,omitempty"`
	}
	_ = writeJSON(w, e.status, map[string]body{"error": {e.code, e.message, e.reason}})
}

// readBody reads a JSON request body within the size limit.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, s.maxBody)
	var b []byte
	var err error
	if n := r.ContentLength; n > 0 && n <= s.maxBody {
		// Sized once: io.ReadAll would grow the buffer by doubling.
		b = make([]byte, n)
		if _, err = io.ReadFull(body, b); err == nil {
			var one [1]byte
			if k, _ := body.Read(one[:]); k > 0 {
				err = fmt.Errorf("body longer than its Content-Length")
			}
		}
	} else {
		b, err = io.ReadAll(body)
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, errorf(http.StatusRequestEntityTooLarge, "payload_too_large", "request body larger than %d bytes", s.maxBody)
	case err != nil:
		return nil, errorf(http.StatusBadRequest, "bad_request", "reading the request body: %v", err)
	}
	return b, nil
}

// decodeStrict decodes one JSON object, refusing unknown fields and
// trailing data.
func decodeStrict(b []byte, v any) error {
	if string(bytes.Trim(b, " \t\r\n")) == "null" { // decodes to nothing, without an error
		return errorf(http.StatusBadRequest, "bad_request", "malformed JSON: the body is null, want an object")
	}
	rest, err := segjson.Parse(b, v, segjson.DisallowUnknownFields)
	if err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "malformed JSON: %v", err)
	}
	if len(bytes.Trim(rest, " \t\r\n")) > 0 {
		return errorf(http.StatusBadRequest, "bad_request", "malformed JSON: trailing data after the object")
	}
	return nil
}

// storeError is the answer to an error no handler turned into one: 503
// when the store's database is unavailable (down, or its pool busy past
// its wait: the request may succeed later, and nothing about it was
// wrong), 500 with the reason when stored bytes failed a check, else 500.
func storeError(err error) *httpError {
	if errors.Is(err, store.ErrUnavailable) {
		return errorf(http.StatusServiceUnavailable, "unavailable", "the store's database is unavailable; retry later")
	}
	he := errorf(http.StatusInternalServerError, "internal", "internal error")
	if reason := store.CorruptReason(err); reason != "" {
		he.message, he.reason = "the store failed a consistency check ("+reason+"); nothing was served", reason
	}
	return he
}

// resolutionStatus maps a resolution's status to the HTTP status of a
// single-resource answer; its JSON body says the same in its status field.
func resolutionStatus(s resolve.Status) int {
	switch s {
	case resolve.StatusOK, resolve.StatusSuperseded:
		return http.StatusOK
	case resolve.StatusNotFound:
		return http.StatusNotFound
	case resolve.StatusDeleted:
		return http.StatusGone
	case resolve.StatusForbidden:
		return http.StatusForbidden
	case resolve.StatusQuarantined:
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// served is a resolution as the service answers it: the resolution, its
// deep link, and where the evidence viewer shows it.
type served struct {
	*resolve.Cited
	ViewerURL string `json:"viewer_url,omitempty"`
	// Citation is the part of the chunk that offsets or a quote of a batch
	// request named, when the chunk is served.
	Citation *resolve.Located `json:"citation,omitempty"`
}

// viewerURL is where the evidence viewer shows a served resolution: a link
// signed for the principal it was resolved for (links.go), absolute
// when the server knows its public URL.
func (s *Server) viewerURL(c *resolve.Cited, principal string) string {
	if c.Link == nil {
		return ""
	}
	if c.ChunkID != "" {
		return s.links.ChunkLink(c.ChunkID, principal)
	}
	q := url.Values{"start": {strconv.Itoa(c.Start)}, "end": {strconv.Itoa(c.End)}}
	return s.links.link("/view/versions/"+url.PathEscape(c.DocumentVersion), q, rangeResource(c.DocumentVersion, c.Start, c.End), principal)
}

func (s *Server) getChunk(w http.ResponseWriter, r *http.Request, c *caller) error {
	var out *resolve.Cited
	err := s.db.View(func(tx *store.Tx) error {
		res, err := resolve.ChunkTx(tx, r.PathValue("chunk_id"), c.principal)
		if err != nil {
			return err
		}
		out, err = resolve.Cite(tx, res)
		return err
	})
	if err != nil {
		return err
	}
	s.metrics.resolved(out.Status)
	return writeJSON(w, resolutionStatus(out.Status), served{Cited: out, ViewerURL: s.viewerURL(out, c.principal)})
}

// resolveRequest is the body of POST /v1/resolve.
type resolveRequest struct {
	Principal string                    `json:"principal,omitempty"`
	Citations []resolve.CitationRequest `json:"citations"`
	Metadata  json.RawMessage           `json:"metadata,omitempty"` // the caller's own object, echoed
}

func (s *Server) postResolve(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var req resolveRequest
	if err := decodeStrict(b, &req); err != nil {
		return err
	}
	if len(req.Citations) > maxBatch {
		return errorf(http.StatusBadRequest, "bad_request", "%d citations, at most %d", len(req.Citations), maxBatch)
	}
	if err := verify.CheckMetadata(req.Metadata); err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	for i := range req.Citations {
		if err := req.Citations[i].Check(verify.MaxQuoteBytes); err != nil {
			return errorf(http.StatusBadRequest, "bad_request", "citations[%d]: %s", i, strings.TrimPrefix(err.Error(), resolve.ErrCitation.Error()+": "))
		}
	}
	principal, err := c.bodyPrincipal(req.Principal)
	if err != nil {
		return errorf(http.StatusForbidden, "forbidden", "%v", err)
	}
	results := make([]served, len(req.Citations))
	// One read transaction: the whole batch sees one state of the store.
	err = s.db.View(func(tx *store.Tx) error {
		for i, ct := range req.Citations {
			res, err := resolve.ChunkTx(tx, ct.ChunkID, principal)
			if err != nil {
				return err
			}
			cited, err := resolve.Cite(tx, res)
			if err != nil {
				return err
			}
			results[i] = served{Cited: cited, ViewerURL: s.viewerURL(cited, principal)}
			if res.Served() && ct.Names() {
				if results[i].Citation, err = resolve.Locate(tx, res, ct); err != nil {
					return err
				}
			}
			s.metrics.resolved(res.Status)
		}
		return nil
	})
	if err != nil {
		return err
	}
	out := map[string]any{"results": results}
	if len(req.Metadata) > 0 {
		out["metadata"] = req.Metadata
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) getText(w http.ResponseWriter, r *http.Request, c *caller) error {
	version := r.PathValue("version")
	q := r.URL.Query()
	start, err := intParam(q, "start", 0)
	if err != nil {
		return err
	}
	end, err := intParam(q, "end", -1)
	if err != nil {
		return err
	}
	if end >= 0 && end < start {
		return errorf(http.StatusBadRequest, "bad_request", "range [%d, %d) is reversed: end before start", start, end)
	}
	if end < 0 && store.ValidVersionID(version) {
		err := s.db.View(func(tx *store.Tx) error {
			if v, err := tx.Version(version); err == nil {
				end = v.TextLen
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// A whole text is the largest answer there is: its memory is reserved
	// before the text is read and encoded, so that clients who never read
	// their answers cannot make the server build them by the thousand.
	if sw, ok := w.(*statusWriter); ok && sw.stall != nil {
		if est := textAnswerBytes(end - start); est >= stallFrom {
			if !sw.stall.budget.take(est) {
				return sw.stall.budgetError()
			}
			defer sw.stall.budget.give(est)
			sw.stall.reserved = true
			if est >= largeAnswerFrom {
				if err := s.large.acquire(r.Context()); err != nil {
					return s.largeShed(w, err)
				}
				defer s.large.release()
			}
		}
	}
	out, err := resolve.RangeCited(s.db, version, start, max(end, start), c.principal)
	if errors.Is(err, resolve.ErrInvalidRange) {
		return errorf(http.StatusBadRequest, "bad_request", "range [%d, %d) is outside the text", start, end)
	}
	if err != nil {
		return err
	}
	s.metrics.resolved(out.Status)
	return writeJSON(w, resolutionStatus(out.Status), served{Cited: out, ViewerURL: s.viewerURL(out, c.principal)})
}

func intParam(q url.Values, name string, def int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, "bad_request", "%s=%q: want a code-point offset, 0 or more", name, v)
	}
	return n, nil
}

func (s *Server) postVerify(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var req *verify.Request
	if from := r.URL.Query().Get("from"); from != "" {
		req, err = s.providerRequest(from, b, c) // a provider's cited answer (providers.go)
	} else if req, err = verify.DecodeRequest(b); err != nil {
		err = errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	if err != nil {
		return err
	}
	if req.Principal, err = c.bodyPrincipal(req.Principal); err != nil {
		return errorf(http.StatusForbidden, "forbidden", "%v", err)
	}
	trace := true
	switch r.URL.Query().Get("trace") {
	case "", "true", "1":
	case "false", "0":
		trace = false
	default:
		return errorf(http.StatusBadRequest, "bad_request", "trace=%q: want true or false", r.URL.Query().Get("trace"))
	}
	rep, err := verify.Check(r.Context(), s.db, req, s.policy)
	if err != nil {
		return err
	}
	s.metrics.verified(rep)
	s.signEvidence(rep, req.Principal)
	if !trace {
		return writeJSON(w, http.StatusOK, rep)
	}
	// The trace holds the report as sent: encode it once, for both.
	t := pendingTrace{at: time.Now().UTC(), storeSequence: rep.StoreSequence(), request: req}
	if t.id, err = verify.NewTraceID(t.at); err != nil {
		return err
	}
	rep.TraceID = t.id
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(buf)
	if err := encodeJSON(buf, rep); err != nil {
		return err
	}
	if s.traces != nil {
		t.report, t.rep = bytes.Clone(buf.Bytes()), rep
		if err := s.traces.add(r.Context(), t); err != nil {
			return s.traces.refusal(w, err)
		}
	} else {
		t.report, t.rep = buf.Bytes(), rep
		rec, err := t.encode(s.policyJSON)
		if err != nil {
			return err
		}
		if err := s.waitOnDisk(w, func() error { return s.db.PutTraceRecord(rec) }); err != nil {
			return fmt.Errorf("storing trace %s: %w", t.id, err)
		}
	}
	return writeJSONBytes(w, http.StatusOK, buf.Bytes())
}

func (s *Server) getDocuments(w http.ResponseWriter, r *http.Request, c *caller) error {
	rows := []resolve.DocumentSummary{}
	failures := []*store.Failure{}
	err := s.db.View(func(tx *store.Tx) error {
		err := tx.ForEachDocument(func(d *store.Document) error {
			if !c.admin && !d.Allows(c.principal) {
				return nil
			}
			sum, err := resolve.Summarize(tx, d)
			if !c.admin {
				sum.ACL = nil // other principals' names are not the caller's business
			}
			rows = append(rows, sum)
			return err
		})
		if err != nil || !c.admin {
			return err
		}
		return tx.ForEachFailure(func(f *store.Failure) error { failures = append(failures, f); return nil })
	})
	if err != nil {
		return err
	}
	out := map[string]any{"documents": rows}
	if c.admin {
		out["failures"] = failures
	}
	return writeJSON(w, http.StatusOK, out)
}

// postDocument ingests one uploaded document through the ingest pipeline:
// either multipart/form-data with a "file" part (and optional fields id,
// filename, url, acl, ...; a "manifest" part imports another pipeline's
// chunks), or the raw bytes as the body with the same fields as query
// parameters. The filename's extension picks the extractor.
func (s *Server) postDocument(w http.ResponseWriter, r *http.Request, c *caller) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.maxUpload)
	fields := r.URL.Query()
	var err error
	up := &upload{}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		if err := up.readMultipart(r, fields, s.maxUpload); err != nil {
			return err
		}
	} else {
		// In memory, at most --max-upload bytes: MaxBytesReader stops the read.
		if up.source, err = io.ReadAll(r.Body); err != nil {
			return uploadError(err, s.maxUpload)
		}
	}
	if len(up.source) == 0 {
		return errorf(http.StatusBadRequest, "bad_request", "empty upload")
	}
	name := fields.Get("filename")
	if name == "" {
		name = filepath.Base(fields.Get("id"))
	}
	if name == "" || name == "." || name == "/" || strings.ContainsAny(name, "/\\\x00") || name == ".." {
		return errorf(http.StatusBadRequest, "bad_request", "a filename (with its extension, e.g. policy.md) is required and may not hold a path")
	}
	if !ingest.Supported(name) && !up.hasText {
		return errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "%q: unsupported file type", name)
	}
	opts := ingest.Options{ID: fields.Get("id"), URL: fields.Get("url"), Workers: 1, PDF: s.pdf}
	if opts.Undelete, err = boolField(fields, "undelete"); err != nil {
		return err
	}
	if err := up.importOptions(fields, &opts); err != nil {
		return err
	}
	meta, err := metadataField(fields)
	if err != nil {
		return err
	}
	if opts.ID == "" {
		opts.ID = name
	}
	// Without url, RunSource gives a new version the URN of an upload
	// (ingest.UploadURLPrefix): it has no location a reader can open. It is
	// no URL the caller named: a version stored already keeps its own.
	if fields.Has("acl") {
		opts.ACL = []string{} // acl= (empty) is everyone, as ingest --acl ""
	}
	for _, a := range fields["acl"] {
		for _, p := range strings.Split(a, ",") {
			if p = strings.TrimSpace(p); p != "" {
				opts.ACL = append(opts.ACL, p)
			}
		}
	}
	if opts.Chunk, err = chunkFields(fields); err != nil {
		return err
	}
	sum, err := ingest.RunSource(r.Context(), s.db, ingest.Source{Name: name, Bytes: up.source, Manifest: up.manifest, Text: up.text}, opts)
	if errors.Is(err, ingest.ErrOptions) {
		return errorf(http.StatusBadRequest, "bad_request", "%s", fieldNames.Replace(err.Error()))
	}
	if err != nil {
		return err
	}
	if !opts.DryRun {
		s.metrics.ingested(sum)
	}
	if len(sum.Results) != 1 {
		return fmt.Errorf("ingest of one upload gave %d results", len(sum.Results))
	}
	res := *sum.Results[0]
	// The store's path is ours, not the caller's (a store that failed to
	// write, on a full disk, names its file).
	ours := strings.NewReplacer(s.db.Path(), "the store")
	// And the messages name the upload's fields, not the CLI's flags.
	res.Error = fieldNames.Replace(ours.Replace(res.Error))
	res.Hint = fieldNames.Replace(ours.Replace(res.Hint))
	status := http.StatusCreated
	switch res.Status {
	case ingest.Unchanged:
		status = http.StatusOK
	case ingest.Failed, ingest.Rejected:
		status = http.StatusUnprocessableEntity
	case ingest.Deleted:
		status = http.StatusConflict // deleted before: stored again only with undelete=true
	}
	if opts.DryRun && status == http.StatusCreated {
		status = http.StatusOK // nothing was created
	}
	return writeJSON(w, status, uploadResult{Result: res, DryRun: opts.DryRun, Metadata: meta})
}

// chunkFields reads chunk_size and overlap as ingest's flags are read:
// without either the document is cut as its current version was (a plain
// re-ingest never undoes a rebuild); a given overlap the chunker would
// reduce is refused, the default one fits itself to a small chunk size.
func chunkFields(fields url.Values) (ingest.ChunkOptions, error) {
	chunkSize := 0
	if fields.Has("overlap") {
		chunkSize = ingest.DefaultChunkOptions.Size
	}
	var co ingest.ChunkOptions
	var err error
	if co.Size, err = intParam(fields, "chunk_size", chunkSize); err != nil {
		return co, err
	}
	if co.Overlap, err = intParam(fields, "overlap", ingest.DefaultChunkOptions.Overlap); err != nil {
		return co, err
	}
	cutSize := cmp.Or(co.Size, ingest.DefaultChunkOptions.Size)
	if max := ingest.MaxOverlap(cutSize); co.Overlap > max {
		if fields.Get("overlap") != "" {
			return co, errorf(http.StatusBadRequest, "bad_request", "overlap=%d: want 0 to %d code points with chunk_size %d (less than half a chunk)", co.Overlap, max, cutSize)
		}
		if co.Overlap >= cutSize {
			co.Overlap = max
		}
	}
	return co, nil
}

// uploadError answers a failure to read an upload: 413 past the limit
// (which multipart may report only in words), else 400.
func uploadError(err error, limit int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || strings.Contains(err.Error(), "request body too large") {
		return errorf(http.StatusRequestEntityTooLarge, "payload_too_large", "upload larger than %d bytes", limit)
	}
	return errorf(http.StatusBadRequest, "bad_request", "reading the upload: %v", err)
}

func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request, c *caller) error {
	id := r.PathValue("id")
	if id == "" {
		return errorf(http.StatusBadRequest, "bad_request", "a document id is required: DELETE /v1/documents/{id}")
	}
	deleted, err := s.db.Delete(id, r.URL.Query().Get("version"))
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, "not_found", "no document %q (or no such version of it)", id)
	}
	if err != nil {
		return err
	}
	s.metrics.invalidateQuarantine()
	return writeJSON(w, http.StatusOK, map[string]any{"document_id": id, "deleted_versions": deletedOrNone(deleted)})
}

func (s *Server) getQuarantine(w http.ResponseWriter, r *http.Request, c *caller) error {
	q := r.URL.Query()
	f := ingest.QuarantineFilter{Reason: q.Get("reason"), Document: q.Get("document"), Version: q.Get("version")}
	for name, to := range map[string]*bool{"all": &f.All, "repaired": &f.Repaired} {
		switch q.Get(name) {
		case "", "false", "0":
		case "true", "1":
			*to = true
		default:
			return errorf(http.StatusBadRequest, "bad_request", "%s=%q: want true or false", name, q.Get(name))
		}
	}
	if err := f.Check(); err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	rows := []ingest.QuarantinedChunk{}
	byReason := map[string]int{}
	// What a chunk claimed is text of the document: access lists apply.
	may := func(v *store.Version) bool { return c.admin || v.Allows(c.principal) }
	err := s.db.View(func(tx *store.Tx) error {
		return f.Walk(tx, may, func(q ingest.QuarantinedChunk) error {
			rows = append(rows, q)
			byReason[q.Reason]++
			return nil
		})
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"chunks": rows, "by_reason": byReason, "total": len(rows)})
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, c *caller) error {
	if err := s.db.View(func(*store.Tx) error { return nil }); err != nil {
		s.log.Printf("health: %v", err)
		return errorf(http.StatusServiceUnavailable, "unavailable", "the store cannot be read")
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// close finishes the server's background work: traces still queued are
// stored. Call it after the HTTP server has shut down.
func (s *Server) close() {
	if s.traces != nil {
		s.traces.close()
	}
}

// getTrace returns a stored verification trace. It holds the request and
// the report, stored text included, so only its own principal, a service
// acting for that principal, or an administrator (a service acting for no
// one) may read it; anyone else, a service acting for another principal
// included, learns nothing, not even that it exists.
func (s *Server) getTrace(w http.ResponseWriter, r *http.Request, c *caller) error {
	var raw []byte
	err := s.db.View(func(tx *store.Tx) (err error) {
		raw, err = tx.Trace(r.PathValue("trace_id"))
		return err
	})
	notFound := errorf(http.StatusNotFound, "not_found", "no trace %q", r.PathValue("trace_id"))
	if errors.Is(err, store.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	if !c.admin {
		var t struct {
			Request struct {
				Principal string `json:"principal"`
			} `json:"request"`
		}
		if json.Unmarshal(raw, &t) != nil || t.Request.Principal != c.principal {
			return notFound
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(raw)
	return err
}

// getSnapshot streams a consistent copy of the whole store (a hot backup;
// what the CLI's inspection commands read with --server). It holds every
// document, so only an administrator may take it: a service token acting
// for no end user, or a caller of a server without tokens that names no
// principal.
func (s *Server) getSnapshot(w http.ResponseWriter, r *http.Request, c *caller) error {
	if !c.admin {
		return errorf(http.StatusForbidden, "forbidden", "a snapshot holds every document: only a service token acting for no user may take one")
	}
	started := false
	err := s.db.Snapshot(w, func(size int64) {
		w.Header().Set("Content-Type", "application/vnd.evidence.store")
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.Header().Set("Content-Disposition", `attachment; filename="evidence.db"`)
		w.WriteHeader(http.StatusOK)
		started = true
	})
	if errors.Is(err, store.ErrNoSnapshot) {
		return errorf(http.StatusNotImplemented, "not_on_this_backend", "this server's store is a PostgreSQL database, not a bbolt file: no snapshot; back it up with pg_dump (docs/postgres.md)")
	}
	if err != nil && started {
		// Too late for an error body: the short Content-Length tells the
		// client the copy is incomplete.
		s.log.Printf("snapshot: %v", err)
		return nil
	}
	return err
}

// deletedOrNone is the deleted versions as a JSON list, never null.
func deletedOrNone(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}
