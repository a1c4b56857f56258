package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Log formats (--log-format): slog's text (key=value) and JSON handlers.
const (
	LogText = "text"
	LogJSON = "json"
)

// requestIDHeader carries a request's id: the caller's when it sends a
// usable one, else one the server makes. The response always carries it.
const requestIDHeader = "X-Request-ID"

// maxRequestIDLen bounds a caller's request id; a longer one is replaced.
const maxRequestIDLen = 128

// NewLogger returns the server's logger, writing one line a record
// to w in the given format.
func NewLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case LogText, "":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case LogJSON:
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("log format %q: want %s or %s", format, LogText, LogJSON)
}

// requestIDs makes request ids: a random prefix per server, so ids of
// different runs differ, and a sequence number.
type requestIDs struct {
	prefix string
	seq    atomic.Uint64
}

func newRequestIDs() *requestIDs {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand documents it)
	return &requestIDs{prefix: hex.EncodeToString(b[:]) + "-"}
}

// of returns r's id: its X-Request-ID when that is a short token of
// letters, digits and ._:- (so a log line never carries what a caller
// smuggled into a header), else a new one.
func (ids *requestIDs) of(r *http.Request) string {
	if v := r.Header.Get(requestIDHeader); v != "" && len(v) <= maxRequestIDLen && isIDToken(v) {
		return v
	}
	return ids.prefix + strconv.FormatUint(ids.seq.Add(1), 10)
}

func isIDToken(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// logRequest writes a request's access line: who (principal, and whether
// a service token acted), what (the route pattern, never the raw path or
// query, which may hold a quote), and how it went. It never logs a body
// or an error message, so no document text reaches the log.
func (s *Server) logRequest(r *http.Request, route string, c *caller, sw *statusWriter, errCode string, took time.Duration) {
	level := slog.LevelInfo
	if sw.code() >= 500 {
		level = slog.LevelError
	}
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs,
		slog.String("request_id", sw.Header().Get(requestIDHeader)),
		slog.String("route", route),
		slog.Int("status", sw.code()),
		slog.Float64("latency_ms", float64(took.Microseconds())/1000),
		slog.Int64("bytes", sw.bytes),
	)
	if c != nil {
		attrs = append(attrs, slog.String("principal", c.principal), slog.Bool("service", c.service))
	} else { // not authenticated (401, 400) or no route: nobody is known
		attrs = append(attrs, slog.String("principal", ""))
	}
	if errCode != "" {
		attrs = append(attrs, slog.String("error", errCode))
	}
	s.logger.LogAttrs(r.Context(), level, "request", attrs...)
}

// logSheds writes one line, "requests shed", with the number of requests
// the lanes shed since the last such line, when there were any; Serve
// calls it each second. A shed request has no request line of its own:
// at twice the server's capacity half the requests are shed, and a line
// for each (slog's formatting and a write to stderr) took a tenth of the
// CPU that answering them left to the requests admitted. Each shed is
// counted in the metrics as every request is.
func (s *Server) logSheds() {
	if n := s.shedUnlogged.Swap(0); n > 0 {
		s.logger.Warn("requests shed", "shed", n, "total", s.shed.Load())
	}
}
