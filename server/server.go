package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Defaults of Options.
const (
	DefaultMaxBody           = 4 << 20  // bytes of a JSON request body
	DefaultMaxUpload         = 64 << 20 // bytes of an uploaded document
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 2 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
	// ShutdownTimeout is how long Serve waits, once its context is done,
	// for the requests in flight.
	ShutdownTimeout = 10 * time.Second
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// Tokens authenticate callers. Nil serves without authentication and
	// trusts the X-Evidence-Principal header, as the CLI trusts
	// --principal: bind such a server to a loopback address only.
	Tokens *Tokens
	// Policy is the verification policy; nil is verify.DefaultPolicy().
	// Its judge's verdicts are cached in the store.
	Policy *verify.Policy
	// MaxBody and MaxUpload bound a JSON request body and an uploaded
	// document, in bytes (413 beyond).
	MaxBody, MaxUpload int64
	// Logger gets one line a request and the server's errors; nil is a
	// text logger on ErrorLog, and nil ErrorLog is os.Stderr.
	Logger   *slog.Logger
	ErrorLog io.Writer
	// TraceWrites is TraceSync (the default) or TraceAsync; TraceFlush
	// and TraceBatch bound how long an async trace waits for its commit.
	TraceWrites string
	TraceFlush  time.Duration
	TraceBatch  int
	// Links signs viewer links; nil signs with a key of this server's run
	// only, relative links valid for DefaultViewerTTL.
	Links *LinkSigner
	// Limits bound the requests and connections (see Limits).
	Limits Limits
	// PDF is the worker and limits of uploaded PDFs: without a Worker
	// (ingest.SelfWorker in a program with an extract-worker command) an
	// uploaded PDF fails with reason unreadable.
	PDF ingest.PDFLimits
	// AdaptiveMemory makes Serve set the Go heap's soft limit each second
	// from the live heap: what SetMemoryLimit reports as adaptive.
	AdaptiveMemory bool
}

// Limits are the server's admission control, connection limit and
// timeouts (docs/service.md#limits). Zero values take the defaults, but
// for MaxQueue.
type Limits struct {
	MaxInFlight  int           // API requests handled at once (DefaultMaxInFlight)
	MaxQueue     int           // API requests waiting for a slot; 0 (or less) is none: the CLI's default is DefaultMaxQueue
	QueueTimeout time.Duration // how long one may wait (DefaultQueueTimeout)
	MaxBulk      int           // uploads, rebuilds, deletes, snapshots at once (DefaultMaxBulk)
	WriteStall   time.Duration // a response its reader takes nothing of for this long is abandoned
	// MaxResponseBytes bounds the large bodies being written at once.
	MaxResponseBytes int64
	// MaxConns bounds the open connections of the API's listener, within
	// the open-file limit (DefaultMaxConns).
	MaxConns int
	// Timeouts of a connection: headers, the whole request, the handling
	// and answer of a request (an upload's ingest included), and the wait
	// for the next request on a keep-alive connection. ReadHeaderTimeout
	// is at most ReadTimeout.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	l.MaxConns = maxConnsFor(l.MaxConns)
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	l.ReadHeaderTimeout = min(l.ReadHeaderTimeout, l.ReadTimeout)
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultWriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	s := serveLimits{maxInFlight: l.MaxInFlight, maxQueue: l.MaxQueue, queueTimeout: l.QueueTimeout, maxBulk: l.MaxBulk,
		writeStall: l.WriteStall, maxResponseBytes: l.MaxResponseBytes}.withDefaults()
	l.MaxInFlight, l.MaxQueue, l.QueueTimeout, l.MaxBulk, l.WriteStall, l.MaxResponseBytes =
		s.maxInFlight, s.maxQueue, s.queueTimeout, s.maxBulk, s.writeStall, s.maxResponseBytes
	return l
}

// New returns the service over db, an http.Handler: every route of
// docs/openapi.json. db stays the caller's to close, after Close.
func New(db *store.DB, o Options) *Server {
	o.Limits = o.Limits.withDefaults()
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxUpload <= 0 {
		o.MaxUpload = DefaultMaxUpload
	}
	l := o.Limits
	s := newServer(db, serverConfig{tokens: o.Tokens, policy: o.Policy, maxBody: o.MaxBody, maxUpload: o.MaxUpload,
		errlog: o.ErrorLog, logger: o.Logger, traceWrites: o.TraceWrites, pdf: o.PDF,
		traceWriter: traceWriterConfig{flush: o.TraceFlush, batch: o.TraceBatch}, links: o.Links,
		limits: serveLimits{maxInFlight: l.MaxInFlight, maxQueue: l.MaxQueue, queueTimeout: l.QueueTimeout, maxBulk: l.MaxBulk,
			writeStall: l.WriteStall, maxResponseBytes: l.MaxResponseBytes, writeTimeout: l.WriteTimeout}})
	s.conns, s.adaptive = l, o.AdaptiveMemory
	return s
}

// Limits returns the limits in force: the options' with the defaults
// filled in and the connection limit within the open-file limit.
func (s *Server) Limits() Limits { return s.conns }

// AdminHandler is the handler of the admin listener: health, metrics and
// pprof only (see Serve).
func (s *Server) AdminHandler() http.Handler { return s.adminHandler() }

// Serve accepts connections on ln, and on admin unless it is nil, until
// ctx is done; then it shuts down gracefully, waiting up to
// ShutdownTimeout for the requests in flight, and returns. ln keeps at
// most Limits.MaxConns connections open (at the limit a new one closes the
// longest idle); admin serves /healthz, /metrics and /debug/pprof/ only,
// with an accept queue of its own, for probes and scrapes that clients of
// the API cannot crowd out. Serve closes the listeners. Call Close after
// it, once.
func (s *Server) Serve(ctx context.Context, ln, admin net.Listener) error {
	l := s.conns
	hs := s.httpServer(l.ReadHeaderTimeout, l.ReadTimeout, l.IdleTimeout, s.logger)
	errc := make(chan error, 2)
	go func() { errc <- hs.Serve(s.limitListener(ln, l.MaxConns)) }()
	var as *http.Server
	if admin != nil {
		as = s.adminServer(l.ReadHeaderTimeout, l.ReadTimeout, l.IdleTimeout, s.logger)
		go func() { errc <- as.Serve(s.limitAdminListener(admin)) }()
	}
	watch, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	go s.watchOverload(watch, s.adaptive)
	var err error
	running := 1 // servers still to return
	if as != nil {
		running = 2
	}
	select {
	case err = <-errc: // a listener failed: stop the other too
		running--
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if e := hs.Shutdown(shutdown); err == nil {
		err = e
	}
	if as != nil {
		if e := as.Shutdown(shutdown); err == nil {
			err = e
		}
	}
	for range running {
		if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = e
		}
	}
	return err
}

// Close finishes the server's background work: async traces still
// queued are stored. Call it after Serve has returned (or after the last
// request, for a Server used as a handler only).
func (s *Server) Close() { s.close() }
