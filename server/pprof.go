package server

import (
	"net/http"
	"net/http/pprof"
)

// pprof serves net/http/pprof under /debug/pprof/ to an administrator (a
// service token acting for no one; without --tokens, a loopback caller
// naming no principal), so a running server can be profiled without a
// special build (curl the profile with the administrator's token, then go
// tool pprof the file). The debug lane lets two
// profiles run at once and queues none.
func (s *Server) pprof(w http.ResponseWriter, r *http.Request, c *caller) error {
	switch name := r.PathValue("name"); name {
	case "":
		pprof.Index(w, r)
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Handler(name).ServeHTTP(w, r)
	}
	return nil
}
