package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	segjson "github.com/segmentio/encoding/json"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// maxBatch bounds the citations of one POST /v1/resolve.
const maxBatch = 1000

type serverConfig struct {
	tokens    *tokenSet // nil: no authentication (loopback only)
	policy    *verify.Policy
	maxBody   int64
	maxUpload int64
	errlog    io.Writer
	// logger gets one line a request and the server's errors; nil is a
	// text logger on errlog.
	logger *slog.Logger
	// traceWrites is traceSync (the default when empty) or traceAsync.
	traceWrites string
}

// server is the HTTP service over one open store. It is the store's only
// writer while it runs; bbolt lets its reads run beside its writes, each
// read transaction seeing one consistent state of the store.
type server struct {
	serverConfig
	db         *store.DB
	mux        *http.ServeMux
	metrics    *serverMetrics
	log        *log.Logger // errors, through logger
	requestIDs *requestIDs
	traces     *traceQueue // nil: traces are committed before the response
	policyJSON []byte      // the policy, encoded once for traces
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, c *caller) error

func newServer(db *store.DB, cfg serverConfig) *server {
	if cfg.policy == nil {
		cfg.policy = verify.DefaultPolicy()
	}
	if cfg.errlog == nil {
		cfg.errlog = os.Stderr
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(cfg.errlog, nil))
	}
	s := &server{serverConfig: cfg, db: db, mux: http.NewServeMux(), log: slog.NewLogLogger(cfg.logger.Handler(), slog.LevelError), requestIDs: newRequestIDs()}
	s.metrics = newServerMetrics(db)
	s.policy = cachedJudge(s.policy, db, s.metrics.judged)
	var err error
	if s.policyJSON, err = json.Marshal(cfg.policy); err != nil {
		panic("serve: policy does not encode: " + err.Error()) // it was decoded from JSON
	}
	if cfg.traceWrites == traceAsync {
		s.traces = newTraceQueue(db, s.policyJSON, s.log, s.metrics)
	}
	s.handle("GET /v1/chunks/{chunk_id}", accessRead, s.getChunk)
	s.handle("POST /v1/resolve", accessRead, s.postResolve)
	s.handle("GET /v1/versions/{version}/text", accessRead, s.getText)
	s.handle("POST /v1/verify", accessRead, s.postVerify)
	s.handle("GET /v1/documents", accessRead, s.getDocuments)
	s.handle("POST /v1/documents", accessService, s.postDocument)
	s.handle("DELETE /v1/documents/{id...}", accessService, s.deleteDocument)
	s.handle("GET /v1/quarantine", accessRead, s.getQuarantine)
	s.handle("GET /v1/traces/{trace_id}", accessRead, s.getTrace)
	s.handle("GET /v1/snapshot", accessService, s.getSnapshot)
	s.handle("GET /healthz", accessPublic, s.healthz)
	s.handle("GET /metrics", accessToken, s.serveMetrics)
	s.handle("GET /openapi.json", accessPublic, s.openAPI)
	s.handle("GET /view/{chunk_id}", accessRead, s.viewChunk)
	s.handle("GET /view/versions/{version}", accessRead, s.viewVersion)
	return s
}

// routes lists the patterns served, for the OpenAPI consistency test.
func (s *server) routes() []string { return s.metrics.routes }

// handle registers a route behind authentication, panic recovery, common
// headers and metrics. A handler's error is answered as JSON: an
// *httpError as it says, anything else as a 500 whose detail goes to the
// log only, since a store error may name what it read.
func (s *server) handle(pattern string, need access, h handlerFunc) {
	s.metrics.addRoute(pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		var c *caller
		var errCode string
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
			s.logRequest(r, pattern, c, sw, errCode, took)
		}()
		hdr := sw.Header()
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
				s.log.Printf("%s %s: %v", r.Method, pattern, err)
				he = errorf(http.StatusInternalServerError, "internal", "internal error")
				if reason := store.CorruptReason(err); reason != "" {
					he.message, he.reason = "the store failed a consistency check ("+reason+"); nothing was served", reason
					s.metrics.corrupt.WithLabelValues(reason).Inc()
				}
			}
			errCode = he.code
			if !sw.wrote {
				writeError(sw, he)
			}
		}
	})
}

// ServeHTTP dispatches, answering unknown paths and methods in JSON too.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set(requestIDHeader, s.requestIDs.of(r))
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	w = sw
	rec := &headerRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	var code string
	switch rec.status {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		if allow := rec.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		code = "not_found"
		if rec.status == http.StatusMethodNotAllowed {
			code = "method_not_allowed"
		}
		writeError(w, errorf(rec.status, code, "%s %s: %s", r.Method, r.URL.Path, strings.ToLower(http.StatusText(rec.status))))
	default: // a redirect to the clean path
		s.mux.ServeHTTP(w, r)
	}
	took := time.Since(start)
	s.metrics.observe("unmatched", rec.status, took)
	s.logRequest(r, "unmatched", nil, sw, code, took)
}

// headerRecorder learns what the mux would answer an unmatched request.
type headerRecorder struct {
	header http.Header
	status int
}

func (h *headerRecorder) Header() http.Header         { return h.header }
func (h *headerRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerRecorder) WriteHeader(code int)        { h.status = code }

// statusWriter remembers the status and the body bytes written, for
// metrics and the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	bytes  int64
}

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
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
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
func (s *server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
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
	Citation *citationResult `json:"citation,omitempty"`
}

func viewerURL(c *resolve.Cited) string {
	if c.Link == nil {
		return ""
	}
	if c.ChunkID != "" {
		return "/view/" + url.PathEscape(c.ChunkID)
	}
	return fmt.Sprintf("/view/versions/%s?start=%d&end=%d", c.DocumentVersion, c.Start, c.End)
}

func (s *server) getChunk(w http.ResponseWriter, r *http.Request, c *caller) error {
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
	return writeJSON(w, resolutionStatus(out.Status), served{Cited: out, ViewerURL: viewerURL(out)})
}

// resolveRequest is the body of POST /v1/resolve.
type resolveRequest struct {
	Principal string            `json:"principal,omitempty"`
	Citations []citationRequest `json:"citations"`
}

// citationRequest is a chunk id, optionally with the code-point offsets of
// the cited part of the chunk and the words quoted from it.
type citationRequest struct {
	ChunkID     string `json:"chunk_id"`
	Quote       string `json:"quote,omitempty"`
	SourceStart *int   `json:"source_start,omitempty"` // half-open, code points into the canonical text
	SourceEnd   *int   `json:"source_end,omitempty"`
}

// citationResult locates the cited part inside a served chunk.
type citationResult struct {
	// Match is how the part was found: a quote's level (exact, whitespace,
	// normalized, fuzzy), "offsets" when only offsets were given, or
	// "none" when the quote or the offsets are not in the chunk.
	Match    string `json:"match"`
	Distance int    `json:"distance,omitempty"` // edit distance of a fuzzy match
	Elided   bool   `json:"elided,omitempty"`   // the quote left words out ("…") and matched part by part
	Reason   string `json:"reason,omitempty"`   // quote_not_found, quote_ambiguous, offsets_outside_chunk
	// The part, when found: offsets in code points of the canonical text,
	// its page and section, its text and its own deep link.
	SourceStart int               `json:"source_start"`
	SourceEnd   int               `json:"source_end"`
	PageNumber  int               `json:"page_number,omitempty"`
	PageEnd     int               `json:"page_end,omitempty"`
	PageLabel   string            `json:"page_label,omitempty"`
	SectionPath []string          `json:"section_path,omitempty"`
	Text        string            `json:"text,omitempty"`
	Link        *resolve.DeepLink `json:"link,omitempty"`
}

func (s *server) postResolve(w http.ResponseWriter, r *http.Request, c *caller) error {
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
	for i, ct := range req.Citations {
		switch {
		case strings.TrimSpace(ct.ChunkID) == "":
			return errorf(http.StatusBadRequest, "bad_request", "citations[%d]: missing chunk_id", i)
		case (ct.SourceStart == nil) != (ct.SourceEnd == nil):
			return errorf(http.StatusBadRequest, "bad_request", "citations[%d]: source_start and source_end go together", i)
		case ct.SourceStart != nil && (*ct.SourceStart < 0 || *ct.SourceEnd < *ct.SourceStart):
			return errorf(http.StatusBadRequest, "bad_request", "citations[%d]: offsets are negative or inverted", i)
		case len(ct.Quote) > verify.MaxQuoteBytes:
			return errorf(http.StatusBadRequest, "bad_request", "citations[%d]: quote longer than %d bytes", i, verify.MaxQuoteBytes)
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
			results[i] = served{Cited: cited, ViewerURL: viewerURL(cited)}
			if res.Served() && (ct.Quote != "" || ct.SourceStart != nil) {
				if results[i].Citation, err = locate(tx, res, ct); err != nil {
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
	return writeJSON(w, http.StatusOK, map[string]any{"results": results})
}

// locate finds the part of a served chunk that a citation names: its quote
// (the offsets, if given, say where to look first), else its offsets.
func locate(tx *store.Tx, r *resolve.Resolution, ct citationRequest) (*citationResult, error) {
	start, end := 0, 0
	out := &citationResult{Match: "offsets"}
	switch {
	case ct.Quote != "":
		hint := 0
		if ct.SourceStart != nil {
			hint = max(0, *ct.SourceStart-r.Start)
		}
		m, _, _ := match.Locate(r.Text, ct.Quote, match.Options{Hint: hint})
		out.Match, out.Distance, out.Elided = string(m.Level), m.Distance, m.Elided
		switch {
		case !m.Found():
			out.Match, out.Reason = string(match.LevelNone), "quote_not_found"
			return out, nil
		case m.Count > 1:
			out.Reason = "quote_ambiguous"
			return out, nil
		}
		start, end = r.Start+m.Start, r.Start+m.End
	default:
		start, end = *ct.SourceStart, *ct.SourceEnd
		if start < r.Start || end > r.End {
			out.Match, out.Reason = string(match.LevelNone), "offsets_outside_chunk"
			return out, nil
		}
	}
	sub, err := resolve.Sub(tx, r, start, end)
	if err != nil {
		return nil, err
	}
	link, err := resolve.Links(tx, sub)
	if err != nil {
		return nil, err
	}
	out.SourceStart, out.SourceEnd, out.Text, out.Link = sub.Start, sub.End, sub.Text, link
	out.PageNumber, out.PageEnd, out.PageLabel, out.SectionPath = sub.Page, sub.PageEnd, sub.PageLabel, sub.SectionPath
	return out, nil
}

func (s *server) getText(w http.ResponseWriter, r *http.Request, c *caller) error {
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
	out, err := resolve.RangeCited(s.db, version, start, max(end, start), c.principal)
	if errors.Is(err, resolve.ErrInvalidRange) {
		return errorf(http.StatusBadRequest, "bad_request", "range [%d, %d) is outside the text", start, end)
	}
	if err != nil {
		return err
	}
	s.metrics.resolved(out.Status)
	return writeJSON(w, resolutionStatus(out.Status), served{Cited: out, ViewerURL: viewerURL(out)})
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

func (s *server) postVerify(w http.ResponseWriter, r *http.Request, c *caller) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	req, err := verify.DecodeRequest(b)
	if err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
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
		t.report = bytes.Clone(buf.Bytes())
		if err := s.traces.put(t); err != nil {
			return errorf(http.StatusServiceUnavailable, "unavailable", "%v", err)
		}
	} else {
		t.report = buf.Bytes()
		b, err := t.encode(s.policyJSON)
		if err != nil {
			return err
		}
		if err := s.db.PutTrace(t.id, b); err != nil {
			return fmt.Errorf("storing trace %s: %w", t.id, err)
		}
	}
	return writeJSONBytes(w, http.StatusOK, buf.Bytes())
}

func (s *server) getDocuments(w http.ResponseWriter, r *http.Request, c *caller) error {
	rows := []docSummary{}
	failures := []*store.Failure{}
	err := s.db.View(func(tx *store.Tx) error {
		err := tx.ForEachDocument(func(d *store.Document) error {
			if !c.admin && !d.Allows(c.principal) {
				return nil
			}
			sum, err := summarize(tx, d)
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
// filename, url, acl), or the raw bytes as the body with the same names as
// query parameters. The filename's extension picks the extractor.
func (s *server) postDocument(w http.ResponseWriter, r *http.Request, c *caller) error {
	r.Body = http.MaxBytesReader(w, r.Body, s.maxUpload)
	fields := r.URL.Query()
	dir, err := os.MkdirTemp("", "evidence-upload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "upload")
	var size int64
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		if size, err = readMultipart(r, fields, tmp, s.maxUpload); err != nil {
			return err
		}
	} else if size, err = saveBody(r.Body, tmp); err != nil {
		return uploadError(err, s.maxUpload)
	}
	if size == 0 {
		return errorf(http.StatusBadRequest, "bad_request", "empty upload")
	}
	name := fields.Get("filename")
	if name == "" {
		name = filepath.Base(fields.Get("id"))
	}
	if name == "" || name == "." || name == "/" || strings.ContainsAny(name, "/\\\x00") || name == ".." {
		return errorf(http.StatusBadRequest, "bad_request", "a filename (with its extension, e.g. policy.md) is required and may not hold a path")
	}
	if !ingest.Supported(name) {
		return errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "%q: unsupported file type", name)
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	opts := ingest.Options{ID: fields.Get("id"), URL: fields.Get("url"), Workers: 1, Undelete: fields.Get("undelete") == "true"}
	if opts.ID == "" {
		opts.ID = name
	}
	if opts.URL == "" {
		// Ingest would record the temporary file's path; an upload has no
		// location a reader can open, and a URN says so. It is no URL the
		// caller named: a version stored already keeps its own.
		opts.DefaultURL = "urn:evidence:upload:" + url.PathEscape(opts.ID)
	}
	for _, a := range fields["acl"] {
		for _, p := range strings.Split(a, ",") {
			if p = strings.TrimSpace(p); p != "" {
				opts.ACL = append(opts.ACL, p)
			}
		}
	}
	// Without chunk_size and overlap the document is cut as its current
	// version was (a plain re-ingest never undoes a rebuild).
	chunkSize := 0
	if fields.Has("overlap") {
		chunkSize = ingest.DefaultChunkOptions.Size
	}
	if opts.Chunk.Size, err = intParam(fields, "chunk_size", chunkSize); err != nil {
		return err
	}
	if opts.Chunk.Overlap, err = intParam(fields, "overlap", ingest.DefaultChunkOptions.Overlap); err != nil {
		return err
	}
	// As the CLI's flags: a given overlap the chunker would reduce is
	// refused, the default one fits itself to a small chunk size.
	cutSize := cmp.Or(opts.Chunk.Size, ingest.DefaultChunkOptions.Size)
	if max := ingest.MaxOverlap(cutSize); opts.Chunk.Overlap > max {
		if fields.Get("overlap") != "" {
			return errorf(http.StatusBadRequest, "bad_request", "overlap=%d: want 0 to %d code points with chunk_size %d (less than half a chunk)", opts.Chunk.Overlap, max, cutSize)
		}
		if opts.Chunk.Overlap >= cutSize {
			opts.Chunk.Overlap = max
		}
	}
	sum, err := ingest.Run(r.Context(), s.db, []string{path}, opts)
	if errors.Is(err, ingest.ErrOptions) {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	if err != nil {
		return err
	}
	s.metrics.ingested(sum)
	if len(sum.Results) != 1 {
		return fmt.Errorf("ingest of one upload gave %d results", len(sum.Results))
	}
	res := *sum.Results[0]
	// The temporary path and the store's are ours, not the caller's (a
	// store that failed to write, on a full disk, names its file).
	res.Path = name
	res.Error = strings.NewReplacer(path, name, s.db.Path(), "the store", dir, "the server's temporary directory").Replace(res.Error)
	status := http.StatusCreated
	switch res.Status {
	case ingest.Unchanged:
		status = http.StatusOK
	case ingest.Failed:
		status = http.StatusUnprocessableEntity
	case ingest.Deleted:
		status = http.StatusConflict // deleted before: stored again only with undelete=true
	}
	return writeJSON(w, status, res)
}

// readMultipart saves the "file" part to tmp and adds the other fields
// (id, filename, url, acl, chunk_size, overlap) to fields.
func readMultipart(r *http.Request, fields url.Values, tmp string, limit int64) (int64, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return 0, errorf(http.StatusBadRequest, "bad_request", "multipart body: %v", err)
	}
	var size int64 = -1
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, uploadError(err, limit)
		}
		name := part.FormName()
		switch {
		case name == "file" && size < 0:
			if fields.Get("filename") == "" && part.FileName() != "" {
				fields.Set("filename", filepath.Base(part.FileName()))
			}
			if size, err = saveBody(part, tmp); err != nil {
				return 0, uploadError(err, limit)
			}
		case name == "id" || name == "filename" || name == "url" || name == "acl" || name == "chunk_size" || name == "overlap" || name == "undelete":
			v, err := io.ReadAll(io.LimitReader(part, 4<<10))
			if err != nil {
				return 0, uploadError(err, limit)
			}
			fields.Add(name, string(v))
		default:
			return 0, errorf(http.StatusBadRequest, "bad_request", "multipart field %q: want file, id, filename, url, acl, chunk_size or overlap", name)
		}
	}
	if size < 0 {
		return 0, errorf(http.StatusBadRequest, "bad_request", `multipart body without a "file" part`)
	}
	return size, nil
}

func saveBody(r io.Reader, path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, &saveError{err}
	}
	w := &saveWriter{f: f}
	n, err := io.Copy(w, r)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &saveError{cerr}
	}
	if w.err != nil {
		err = &saveError{w.err}
	}
	return n, err
}

// saveWriter writes an upload to its temporary file, keeping its own
// errors apart from the body's.
type saveWriter struct {
	f   *os.File
	err error
}

func (w *saveWriter) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	if err != nil {
		w.err = err
	}
	return n, err
}

// saveError is a failure of the server to keep an upload (a full disk),
// not of the caller to send it.
type saveError struct{ err error }

func (e *saveError) Error() string { return e.err.Error() }
func (e *saveError) Unwrap() error { return e.err }

// uploadError answers a failure to read an upload: 413 past the limit
// (which multipart may report only in words), 503 when the server could
// not keep it (the cause without the server's paths), else 400.
func uploadError(err error, limit int64) error {
	var mbe *http.MaxBytesError
	var se *saveError
	var pe *fs.PathError
	switch {
	case errors.As(err, &mbe) || strings.Contains(err.Error(), "request body too large"):
		return errorf(http.StatusRequestEntityTooLarge, "payload_too_large", "upload larger than %d bytes", limit)
	case errors.As(err, &se) && errors.As(err, &pe):
		return errorf(http.StatusServiceUnavailable, "unavailable", "the server could not keep the upload: %v", pe.Err)
	case errors.As(err, &se):
		return errorf(http.StatusServiceUnavailable, "unavailable", "the server could not keep the upload")
	}
	return errorf(http.StatusBadRequest, "bad_request", "reading the upload: %v", err)
}

func (s *server) deleteDocument(w http.ResponseWriter, r *http.Request, c *caller) error {
	id := r.PathValue("id")
	deleted, err := s.db.Delete(id, r.URL.Query().Get("version"))
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusNotFound, "not_found", "no document %q (or no such version of it)", id)
	}
	if err != nil {
		return err
	}
	s.metrics.invalidateQuarantine()
	return writeJSON(w, http.StatusOK, map[string]any{"document_id": id, "deleted_versions": nonNil(deleted)})
}

func (s *server) getQuarantine(w http.ResponseWriter, r *http.Request, c *caller) error {
	q := r.URL.Query()
	f := quarantineFilter{reason: q.Get("reason"), document: q.Get("document"), version: q.Get("version")}
	for name, to := range map[string]*bool{"all": &f.all, "repaired": &f.repaired} {
		switch q.Get(name) {
		case "", "false", "0":
		case "true", "1":
			*to = true
		default:
			return errorf(http.StatusBadRequest, "bad_request", "%s=%q: want true or false", name, q.Get(name))
		}
	}
	if err := f.check(); err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	rows := []quarantined{}
	byReason := map[string]int{}
	// What a chunk claimed is text of the document: access lists apply.
	may := func(v *store.Version) bool { return c.admin || v.Allows(c.principal) }
	err := s.db.View(func(tx *store.Tx) error {
		return f.walk(tx, may, func(q quarantined) error {
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

func (s *server) healthz(w http.ResponseWriter, r *http.Request, c *caller) error {
	if err := s.db.View(func(*store.Tx) error { return nil }); err != nil {
		s.log.Printf("health: %v", err)
		return errorf(http.StatusServiceUnavailable, "unavailable", "the store cannot be read")
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// close finishes the server's background work: traces still queued are
// stored. Call it after the HTTP server has shut down.
func (s *server) close() {
	if s.traces != nil {
		s.traces.close()
	}
}

// getTrace returns a stored verification trace. It holds the request and
// the report, stored text included, so only its own principal, a service
// acting for that principal, or an administrator (a service acting for no
// one) may read it; anyone else, a service acting for another principal
// included, learns nothing, not even that it exists.
func (s *server) getTrace(w http.ResponseWriter, r *http.Request, c *caller) error {
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
func (s *server) getSnapshot(w http.ResponseWriter, r *http.Request, c *caller) error {
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
	if err != nil && started {
		// Too late for an error body: the short Content-Length tells the
		// client the copy is incomplete.
		s.log.Printf("snapshot: %v", err)
		return nil
	}
	return err
}
