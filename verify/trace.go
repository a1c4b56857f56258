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
	PutTrace(id string, trace []byte) error
}

// Answer verifies a request like Check and stores the trace; the report
// carries its trace_id.
func Answer(ctx context.Context, db TraceStore, req *Request, pol *Policy) (*Report, error) {
	if pol == nil {
		pol = DefaultPolicy()
	}
	var seq uint64
	if err := db.View(func(tx *store.Tx) error { seq = tx.Sequence(); return nil }); err != nil {
		return nil, err
	}
	rep, err := Check(ctx, db, req, pol)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	// The id starts with the time in milliseconds, so that traces are
	// appended to the store's index in time order (a random id would
	// rewrite pages all over it), then 8 random bytes.
	var id [14]byte
	binary.BigEndian.PutUint64(id[:8], uint64(now.UnixMilli())<<16)
	if _, err := rand.Read(id[6:]); err != nil {
		return nil, err
	}
	rep.TraceID = hex.EncodeToString(id[:])
	b, err := json.Marshal(&Trace{TraceID: rep.TraceID, Time: now, StoreSequence: seq, Policy: pol, Request: req, Report: rep})
	if err != nil {
		return nil, err
	}
	if err := db.PutTrace(rep.TraceID, b); err != nil {
		return nil, fmt.Errorf("verify: storing trace: %w", err)
	}
	return rep, nil
}
