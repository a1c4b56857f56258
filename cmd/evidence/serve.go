package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/server"
	"github.com/evidence-rag/evidence/verify"
)

// serveOptions are the flags of `evidence serve`.
type serveOptions struct {
	addr        string
	adminAddr   string // --admin-addr: a listener of its own for health, metrics and pprof; "" none
	tokens      string // token file; "" serves without authentication, on loopback only
	policy      string // verification policy file; "" is the built-in policy
	maxBody     int64  // JSON request bodies
	maxUpload   int64  // uploaded documents
	traceWrites string
	logFormat   string // --log-format: text or json
	judge       judgeFlags
	publicURL   string        // --public-url: the base of absolute viewer links
	viewerKey   string        // --viewer-key: file of the key viewer links are signed with
	viewerTTL   time.Duration // --viewer-ttl: how long a viewer link stays valid
	limits      server.Limits // --max-in-flight ... --max-conns, the timeouts
	memoryLimit string        // --memory-limit
	traceFlush  time.Duration // --trace-flush
	traceBatch  int           // --trace-batch
}

func newServeCommand(o *options) *cobra.Command {
	so := serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve resolution, verification, ingest and the evidence viewer over HTTP/JSON",
		Long: `serve runs the answer-time service on --addr (default 127.0.0.1:8080): resolve chunk ids and
citations to the exact stored span with a deep link, read a version's text, verify an answer's claims,
list documents, their chunks and quarantine, ingest uploads and chunk imports, rebuild and delete
documents, and the evidence viewer (/view/...).
The OpenAPI description is at /openapi.json, Prometheus metrics at /metrics.

The server holds the store open for writing: it is the store's single writer while it runs, and
other evidence commands cannot open the store until it stops. Go through it instead: the read commands,
ingest, rebuild and delete take --server URL (e.g. evidence resolve --server http://127.0.0.1:8080
CHUNK_ID, evidence ingest --server http://127.0.0.1:8080 docs/).

Access: --tokens FILE holds one "<token> <principal>" or "<token> service" a line. A principal's token
acts for that principal only; a service token may act for the end user named in the
X-Evidence-Principal header. Without --tokens the server listens on loopback addresses only and
trusts X-Evidence-Principal, as the CLI trusts --principal.

Viewer links: every resolution and verified citation carries a viewer_url, signed for the principal
it was made for and valid for --viewer-ttl (15m), that opens in a browser without a token. The key is
that of --viewer-key FILE (made, mode 0600, with a random 32-byte key when the file does not exist),
else one of this run only. --public-url makes the links absolute.

Limits (docs/service.md#limits): each route belongs to a lane that handles a bounded number of
requests at once (--max-in-flight for the API, --max-bulk for uploads, rebuilds, deletes and
snapshots; health checks and metrics have a small lane of their own) and lets a bounded number wait
(--max-queue, each at most --queue-timeout); anything beyond is answered at once with a 503
"unavailable" and Retry-After: 1, counted in evidence_http_shed_total. At most --max-conns connections
are open: at the limit a new one closes the connection longest without a request in a handler (idle,
or still sending its headers), else it gets a 503. A response its reader stops taking for
--write-stall is abandoned and its connection closed. --memory-limit sets the Go heap's soft limit
(auto: GOMEMLIMIT, else 80% of the cgroup's limit, else 192 MiB or twice the live heap); free memory
is returned to the system when an overload is over. Large answers being written hold at most
--max-response-memory between them; whole texts of 64 K code points and more are built at most
one core less than the machine has at once. /debug/pprof/ serves net/http/pprof to an administrator.

Probes: --admin-addr HOST:PORT serves /healthz, /metrics and /debug/pprof/ on a listener of its own
(64 connections), which API clients cannot crowd out: point health checks and scrapes there. On the
API's listener a probe waits in the accept queue behind every client that connected before it.

Logs: one line a request on stderr (--log-format text or json): time, request_id (the caller's
X-Request-ID, else one made up; every response carries it), route pattern, status, latency_ms, bytes,
principal; never a body, a raw path or query, or an error message, so never document text.`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkTraceFlags(so); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, o, so, nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&so.addr, "addr", "127.0.0.1:8080", "listen on this `HOST:PORT`; a non-loopback address needs --tokens")
	f.StringVar(&so.adminAddr, "admin-addr", "", "also serve /healthz, /metrics and /debug/pprof/ on this `HOST:PORT`, a listener of its own that API clients cannot crowd out (for probes and scrapes); a non-loopback address needs --tokens")
	f.StringVar(&so.tokens, "tokens", "", "accept the bearer tokens of this `FILE`: \"<token> <principal>\" or \"<token> service\" a line")
	f.StringVar(&so.policy, "policy", "", "verify with the policy of this `FILE` (JSON, or YAML when named .yaml or .yml); default: the built-in policy")
	f.DurationVar(&so.limits.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "time to read a whole request, body included")
	f.DurationVar(&so.limits.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "time to handle a request and write its response (an upload's ingest included)")
	f.DurationVar(&so.limits.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "how long a keep-alive connection may wait for its next request")
	f.DurationVar(&so.limits.ReadHeaderTimeout, "read-header-timeout", server.DefaultReadHeaderTimeout, "time to read a request's headers (at most --read-timeout); a connection slower than this is closed")
	f.IntVar(&so.limits.MaxInFlight, "max-in-flight", server.DefaultMaxInFlight, "API requests (resolve, verify, reads, viewer) handled at once; more wait in the queue")
	f.IntVar(&so.limits.MaxQueue, "max-queue", server.DefaultMaxQueue, "API requests that may wait for a slot; beyond, 503 with Retry-After at once")
	f.DurationVar(&so.limits.QueueTimeout, "queue-timeout", server.DefaultQueueTimeout, "how long an API request may wait for a slot before its 503")
	f.IntVar(&so.limits.MaxBulk, "max-bulk", server.DefaultMaxBulk, "uploads, rebuilds, deletes and snapshots handled at once (4 times as many wait, up to 10 s each)")
	f.IntVar(&so.limits.MaxConns, "max-conns", server.DefaultMaxConns, "open connections (within the open-file limit); at the limit a new one closes the longest idle or unfinished one, else gets a 503")
	f.DurationVar(&so.limits.WriteStall, "write-stall", server.DefaultWriteStall, "abandon a response (closing its connection) when its reader takes none of it for this long")
	f.Int64Var(&so.limits.MaxResponseBytes, "max-response-memory", server.DefaultMaxResponses, "bytes of large response bodies (16 KiB and more) held for their clients at once; beyond, 503 (one is always sent)")
	f.StringVar(&so.memoryLimit, "memory-limit", "auto", "soft limit of the Go heap (GOMEMLIMIT): auto (GOMEMLIMIT, else 80% of the cgroup's limit, else the larger of 192 MiB and twice the live heap), off, or a size such as 512MiB")
	f.Int64Var(&so.maxBody, "max-body", server.DefaultMaxBody, "largest JSON request body in bytes (413 beyond)")
	f.Int64Var(&so.maxUpload, "max-upload", server.DefaultMaxUpload, "largest uploaded document in bytes (413 beyond)")
	so.judge.register(f)
	f.StringVar(&so.logFormat, "log-format", server.LogText, "stderr log: text (key=value) or json; one line a request (time, request id, principal, route, status, latency, bytes; never document text)")
	f.StringVar(&so.publicURL, "public-url", "", "make viewer links absolute under this `URL`, where readers reach the server (e.g. https://evidence.example.com)")
	f.StringVar(&so.viewerKey, "viewer-key", "", "sign viewer links with the key of this `FILE` (64 hex digits; made with a random key when absent); default: a key of this run only")
	f.DurationVar(&so.viewerTTL, "viewer-ttl", server.DefaultViewerTTL, "how long a signed viewer link stays valid")
	f.StringVar(&so.traceWrites, "trace-writes", server.TraceSync, "verification traces: sync (committed before the report is returned) or async (committed behind the responses, many per fsync; a crash can lose what was answered in the last --trace-flush interval and the commit in flight, see docs/traces.md)")
	f.DurationVar(&so.traceFlush, "trace-flush", server.DefaultTraceFlush, "async traces: commit at the latest this long after the first one waiting was answered; verifications wait while the disk is slower")
	f.IntVar(&so.traceBatch, "trace-batch", server.DefaultTraceBatch, "async traces: commit as soon as `N` are waiting; verifications wait beyond")
	return cmd
}

// runServe serves until ctx is done, then shuts down gracefully. ready, if
// set, is called with the addresses listened on (the admin one "" without
// --admin-addr) once they are bound.
func runServe(ctx context.Context, o *options, so serveOptions, ready func(addr, adminAddr string)) error {
	if so.maxBody <= 0 || so.maxUpload <= 0 {
		return usagef("--max-body and --max-upload must be positive")
	}
	if err := so.checkLimits(); err != nil {
		return err
	}
	if so.traceWrites == "" {
		so.traceWrites = server.TraceSync
	}
	if so.traceWrites != server.TraceSync && so.traceWrites != server.TraceAsync {
		return usagef("--trace-writes %q: want %s or %s", so.traceWrites, server.TraceSync, server.TraceAsync)
	}
	logger, err := server.NewLogger(o.stderr, so.logFormat)
	if err != nil {
		return usagef("--log-format %q: want %s or %s", so.logFormat, server.LogText, server.LogJSON)
	}
	var tokens *server.Tokens
	if so.tokens != "" {
		if tokens, err = server.LoadTokens(so.tokens); err != nil {
			return usageError{err}
		}
	}
	for _, a := range []struct{ flag, addr string }{{"--addr", so.addr}, {"--admin-addr", so.adminAddr}} {
		if a.addr == "" && a.flag == "--admin-addr" {
			continue
		}
		loopback, err := isLoopback(a.addr)
		if err != nil {
			return usageError{fmt.Errorf("%s %q: %w", a.flag, a.addr, err)}
		}
		if !loopback && tokens == nil {
			return usagef("refusing to listen on %s %s without --tokens: bind a loopback address (127.0.0.1) or give a token file", a.flag, a.addr)
		}
	}
	pol := verify.DefaultPolicy()
	if so.policy != "" {
		if pol, err = verify.LoadPolicy(so.policy); err != nil {
			return usageError{err}
		}
	}
	if pol, err = so.judge.policy(pol); err != nil {
		return err
	}
	links, err := viewerSigner(so, logger)
	if err != nil {
		return err
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // as it was, for a process (a test) that goes on
	memLimit, adaptive, err := server.SetMemoryLimit(so.memoryLimit)
	if err != nil {
		return usagef("--memory-limit %q: want auto, off or a size such as 512MiB", so.memoryLimit)
	}
	db, err := o.openStore(false)
	if err != nil {
		return err
	}
	defer db.Close()
	if os.Getenv("GOGC") == "" {
		// The heap stays small (texts are read from the mapped store) while
		// requests allocate briskly: with the default target the collector
		// runs some 50 times a second at 2,000 verifications/s, and its
		// pauses and assists show in the p99. Fewer, larger cycles cost a
		// few megabytes. GOGC in the environment still decides.
		debug.SetGCPercent(400)
	}
	srv := server.New(db, server.Options{Tokens: tokens, Policy: pol, MaxBody: so.maxBody, MaxUpload: so.maxUpload,
		ErrorLog: o.stderr, Logger: logger, TraceWrites: so.traceWrites, TraceFlush: so.traceFlush, TraceBatch: so.traceBatch,
		Links: links, Limits: so.limits, AdaptiveMemory: adaptive, PDF: ingest.PDFLimits{Worker: o.pdfWorker}})
	defer srv.Close() // after Serve's shutdown: queued traces are stored
	ln, err := net.Listen("tcp", so.addr)
	if err != nil {
		return err
	}
	var adminLn net.Listener
	if so.adminAddr != "" {
		if adminLn, err = net.Listen("tcp", so.adminAddr); err != nil {
			ln.Close()
			return fmt.Errorf("--admin-addr: %w", err)
		}
	}
	auth := "no tokens: X-Evidence-Principal is trusted"
	if tokens != nil {
		auth = plural(tokens.Len(), "token")
	}
	lim := srv.Limits()
	attrs := []any{"store", db.Path(), "auth", auth,
		"max_in_flight", lim.MaxInFlight, "max_queue", lim.MaxQueue, "max_conns", lim.MaxConns, "memory_limit", memLimit}
	adminAddr := ""
	if adminLn != nil {
		adminAddr = adminLn.Addr().String()
		attrs = append(attrs, "admin", "http://"+adminAddr)
	}
	logger.Info("evidence: serving http://"+ln.Addr().String(), attrs...)
	if ready != nil {
		ready(ln.Addr().String(), adminAddr)
	}
	err = srv.Serve(ctx, ln, adminLn)
	logger.Info("evidence: server stopped")
	return err
}

// checkLimits refuses limit flags that cannot work; 0 takes a default.
func (so serveOptions) checkLimits() error {
	l := so.limits
	switch {
	case l.MaxInFlight < 0 || l.MaxBulk < 0 || l.MaxConns < 0 || l.MaxQueue < 0 || l.MaxResponseBytes < 0:
		return usagef("--max-in-flight, --max-queue, --max-bulk, --max-conns and --max-response-memory must be 0 or more (0: the default; for --max-queue, no queue)")
	case l.QueueTimeout < 0 || l.WriteStall < 0 || l.ReadHeaderTimeout < 0:
		return usagef("--queue-timeout, --write-stall and --read-header-timeout must be 0 (the default) or more")
	}
	return nil
}

// checkTraceFlags refuses --trace-flush and --trace-batch values that
// would not bound anything.
func checkTraceFlags(so serveOptions) error {
	if so.traceFlush <= 0 {
		return usagef("--trace-flush %s: want a duration above 0 (e.g. 10ms)", so.traceFlush)
	}
	if so.traceBatch < 1 {
		return usagef("--trace-batch %d: want 1 or more", so.traceBatch)
	}
	return nil
}

// isLoopback reports whether a listen address binds loopback interfaces
// only: an IP literal in 127.0.0.0/8 or ::1, or "localhost". An empty host
// binds every interface; any other name is not trusted to stay local.
func isLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// viewerSigner makes the signer of viewer links from --public-url,
// --viewer-key and --viewer-ttl.
func viewerSigner(so serveOptions, logger *slog.Logger) (*server.LinkSigner, error) {
	switch {
	case so.viewerTTL < 0:
		return nil, usagef("--viewer-ttl %s: want a duration above 0 (e.g. 15m)", so.viewerTTL)
	case so.viewerTTL == 0:
		so.viewerTTL = server.DefaultViewerTTL
	}
	if so.publicURL != "" {
		u, err := url.Parse(so.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, usagef("--public-url %q: want an http:// or https:// URL without query or fragment, e.g. https://evidence.example.com", so.publicURL)
		}
	}
	if so.viewerKey == "" {
		return server.EphemeralSigner(so.viewerTTL, so.publicURL)
	}
	key, warning, err := server.LoadViewerKey(so.viewerKey)
	if err != nil {
		return nil, usageError{err}
	}
	if warning != "" {
		logger.Warn("evidence: " + warning)
	}
	return server.NewLinkSigner(key, so.viewerTTL, so.publicURL), nil
}
