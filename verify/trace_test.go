package verify_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// TestAnswerStoresTrace: Answer (the CLI's path) stores the request, the
// report as returned and the store state the report was made on, under the
// report's trace id.
func TestAnswerStoresTrace(t *testing.T) {
	db := storetest.Open(t)
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), db, []string{sample}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var id string
	err = db.View(func(tx *store.Tx) error {
		d, err := tx.Document("expense-policy.md")
		if err != nil {
			return err
		}
		id = store.ChunkID(d.Current, 1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := resolve.Chunk(db, id, "")
	if err != nil {
		t.Fatal(err)
	}
	quote := string([]rune(r.Text)[:60])
	req := &verify.Request{RequestID: "r-trace", Principal: "analyst@example.com", Retrieved: []string{id},
		Claims: []verify.Claim{{ClaimID: "c1", Text: quote, Evidence: []verify.Evidence{{ChunkID: id, Quote: quote}}}}}
	rep, err := verify.Answer(context.Background(), db, req, nil)
	if err != nil || rep.TraceID == "" || rep.Disposition != verify.AnswerAccept {
		t.Fatalf("Answer: %v, %+v", err, rep)
	}
	var raw []byte
	var seq uint64
	err = db.View(func(tx *store.Tx) (err error) {
		seq = tx.Sequence()
		raw, err = tx.Trace(rep.TraceID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var tr verify.Trace
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.TraceID != rep.TraceID || tr.StoreSequence != seq || seq == 0 || tr.Request.Principal != req.Principal ||
		tr.Report.TraceID != rep.TraceID || tr.Report.Disposition != rep.Disposition || tr.Policy.Name != "default" {
		t.Errorf("trace: %+v (store sequence %d)", tr, seq)
	}
}

// TestTraceIDFloor: ids made at or after t sort at or after the floor of
// t, ids made before t's millisecond sort before it.
func TestTraceIDFloor(t *testing.T) {
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	floor := verify.TraceIDFloor(base)
	for _, d := range []time.Duration{-24 * time.Hour, -time.Millisecond, 0, time.Microsecond, time.Millisecond, 7 * 24 * time.Hour} {
		id, err := verify.NewTraceID(base.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := id >= floor, d >= 0; got != want {
			t.Errorf("id made at %+v: id >= floor is %v, want %v (id %s, floor %s)", d, got, want, id, floor)
		}
	}
	if got := verify.TraceIDFloor(time.Unix(-5, 0)); got != "" {
		t.Errorf("floor before 1970: got %q, want \"\"", got)
	}
}
