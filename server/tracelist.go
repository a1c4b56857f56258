package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// maxTraceScan bounds the traces one GET /v1/traces reads: a filter that
// matches little returns a short page and a cursor to go on from rather
// than holding a read transaction over the whole store.
const maxTraceScan = 100_000

// traceCaller narrows a trace filter to what the caller may read: an
// administrator reads every trace; anyone else (a principal's token, a
// service acting for a principal) only the traces made for that principal,
// and naming another is refused.
func traceCaller(f *verify.TraceFilter, c *caller) *httpError {
	if c.admin {
		return nil
	}
	if f.ByPrincipal && f.Principal != c.principal {
		return errorf(http.StatusForbidden, "forbidden", "a caller acting for a principal reads only that principal's traces")
	}
	f.Principal, f.ByPrincipal = c.principal, true
	return nil
}

// traceRequest reads the filter of a trace listing or stats request and
// narrows it to the caller.
func traceRequest(r *http.Request, c *caller) (verify.TraceFilter, error) {
	f, err := verify.ParseTraceFilter(r.URL.Query(), time.Now())
	if err != nil {
		return f, errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	if herr := traceCaller(&f, c); herr != nil {
		return f, herr
	}
	return f, nil
}

// getTraces lists the stored traces the caller may read that pass the
// query's filter, newest first, a page at a time.
func (s *Server) getTraces(w http.ResponseWriter, r *http.Request, c *caller) error {
	f, err := traceRequest(r, c)
	if err != nil {
		return err
	}
	limit, cursor, err := verify.ParseTracePage(r.URL.Query())
	if err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	var page *verify.TracePage
	err = s.db.View(func(tx *store.Tx) (err error) {
		page, err = verify.ListTraces(tx, &f, cursor, limit, maxTraceScan)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, page)
}

// getTraceStats counts the stored traces the caller may read that pass
// the query's filter, grouped by the query's key.
func (s *Server) getTraceStats(w http.ResponseWriter, r *http.Request, c *caller) error {
	f, err := traceRequest(r, c)
	if err != nil {
		return err
	}
	by, top, err := verify.ParseTraceStats(r.URL.Query())
	if err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	var st *verify.TraceStats
	err = s.db.View(func(tx *store.Tx) (err error) {
		st, err = verify.TopTraceStats(tx, &f, by, top)
		return err
	})
	if errors.Is(err, verify.ErrTraceFilter) {
		return errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}
