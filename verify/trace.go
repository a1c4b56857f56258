package verify

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/evidence-rag/evidence/store"
)

// Trace is what a verification leaves behind: the request, the report,
// when, and the state of the store it saw, readable later with
// `evidence trace show ID`.
type Trace struct {
	TraceID string    `json:"trace_id"`
	Time    time.Time `json:"time"`
	// StoreSequence is the store's version sequence at verification time:
	// versions written later have higher sequence numbers.
	StoreSequence uint64   `json:"store_sequence"`
	Policy        *Policy  `json:"policy"`
	Request       *Request `json:"request"`
	Report        *Report  `json:"report"`
}

// TraceStore is the part of *store.DB that Answer uses.
type TraceStore interface {
	Viewer
	PutTraceRecord(store.TraceRecord) error
}

// Answer verifies a request like Check and stores the trace; the report
// carries its trace_id.
func Answer(ctx context.Context, db TraceStore, req *Request, pol *Policy) (*Report, error) {
	if pol == nil {
		pol = DefaultPolicy()
	}
	rep, err := Check(ctx, db, req, pol)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	if rep.TraceID, err = NewTraceID(now); err != nil {
		return nil, err
	}
	policy, err := json.Marshal(pol)
	if err != nil {
		return nil, err
	}
	report, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	b, err := EncodeTrace(rep.TraceID, now, rep.StoreSequence(), policy, req, report)
	if err != nil {
		return nil, err
	}
	summary, err := EncodeTraceSummary(rep.TraceID, now, req, rep)
	if err != nil {
		return nil, err
	}
	if err := db.PutTraceRecord(store.TraceRecord{ID: rep.TraceID, Trace: b, Summary: summary}); err != nil {
		return nil, fmt.Errorf("verify: storing trace: %w", err)
	}
	return rep, nil
}

// NewTraceID returns the id of a trace made at now: the time in
// milliseconds, so that traces are appended to the store's index in time
// order (a random id would rewrite pages all over it), then 8 random
// bytes, in hex.
func NewTraceID(now time.Time) (string, error) {
	var id [14]byte
	binary.BigEndian.PutUint64(id[:8], uint64(now.UnixMilli())<<16)
	if _, err := rand.Read(id[6:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(id[:]), nil
}

// TraceIDFloor returns the least id NewTraceID can give at t or later
// (its millisecond prefix), where a scan of the traces made since t starts
// in the store's id order. Times before 1970 floor to "", the first id.
func TraceIDFloor(t time.Time) string {
	ms := t.UnixMilli()
	if ms <= 0 {
		return ""
	}
	var p [8]byte
	binary.BigEndian.PutUint64(p[:], uint64(ms)<<16)
	return hex.EncodeToString(p[:6])
}

// EncodeTrace returns the stored form of a trace whose policy and report
// are already JSON, as a server has them (the policy encoded once, the
// report as sent): the bytes json.Marshal of the Trace gives.
func EncodeTrace(id string, at time.Time, storeSequence uint64, policy json.RawMessage, req *Request, report json.RawMessage) ([]byte, error) {
	return json.Marshal(&struct {
		TraceID       string          `json:"trace_id"`
		Time          time.Time       `json:"time"`
		StoreSequence uint64          `json:"store_sequence"`
		Policy        json.RawMessage `json:"policy"`
		Request       *Request        `json:"request"`
		Report        json.RawMessage `json:"report"`
	}{id, at, storeSequence, policy, req, report})
}
