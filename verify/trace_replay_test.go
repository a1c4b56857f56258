package verify_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

const (
	travelV1 = "# Travel\n\nSubmit all expense reports within 14 calendar days of the end of the trip.\n"
	travelV2 = "# Travel\n\nSubmit all expense reports within 10 calendar days of the end of the trip.\n"
	deadline = "Submit all expense reports within 14 calendar days of the end of the trip"
)

// ingestText stores text as document id and returns its version.
func ingestText(t *testing.T, db *store.DB, id, text string, opts ingest.Options) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), filepath.Base(id))
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.ID = id
	sum, err := ingest.Run(context.Background(), db, []string{p}, opts)
	if err != nil || sum.Failed > 0 {
		t.Fatalf("ingest %s: %v %+v", id, err, sum)
	}
	return sum.Results[0].DocumentVersion
}

func readTrace(t *testing.T, db *store.DB, id string) []byte {
	t.Helper()
	var b []byte
	if err := db.View(func(tx *store.Tx) (err error) { b, err = tx.Trace(id); return err }); err != nil {
		t.Fatal(err)
	}
	return b
}

func replay(t *testing.T, db *store.DB, trace []byte, pol *verify.Policy) *verify.Replay {
	t.Helper()
	r, err := verify.ReplayTrace(context.Background(), db, trace, pol)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReplayTrace: a stored request verified again shows nothing changed
// until the store changes, then the version superseded (by which version,
// written when), deleted (when), and the claim's and citation's verdicts
// with the reasons added.
func TestReplayTrace(t *testing.T) {
	db := storetest.Open(t)
	v1 := ingestText(t, db, "travel.md", travelV1, ingest.Options{})
	chunk := store.ChunkID(v1, 0)
	req := &verify.Request{RequestID: "r-replay", Principal: "analyst", Retrieved: []string{chunk},
		Claims: []verify.Claim{{ClaimID: "c1", Text: deadline + ".", Evidence: []verify.Evidence{{ChunkID: chunk, Quote: deadline}}}}}
	rep, err := verify.Answer(context.Background(), db, req, nil)
	if err != nil || rep.Disposition != verify.AnswerAccept {
		t.Fatalf("Answer: %v, %+v", err, rep)
	}
	trace := readTrace(t, db, rep.TraceID)

	r := replay(t, db, trace, nil)
	if r.Changed || r.Disposition != (verify.Change{Then: "accept", Now: "accept"}) || len(r.Claims)+len(r.Chunks) != 0 ||
		r.PolicyFrom != "trace" || r.Policy != "default" || r.TraceID != rep.TraceID || r.Principal != "analyst" {
		t.Errorf("unchanged store: %+v", r)
	}

	v2 := ingestText(t, db, "travel.md", travelV2, ingest.Options{})
	r = replay(t, db, trace, nil)
	if !r.Changed || r.Disposition.Now != verify.AnswerAbstain || r.StoreSequenceNow <= r.StoreSequence {
		t.Fatalf("superseded: %+v", r)
	}
	if len(r.Claims) != 1 || r.Claims[0].Status != (verify.Change{Then: verify.Supported, Now: verify.Stale}) ||
		len(r.Claims[0].Evidence) != 1 || !slices.Equal(r.Claims[0].Evidence[0].ReasonsAdded, []string{"superseded_by:" + v2}) ||
		r.Claims[0].Evidence[0].VersionStatus != (verify.Change{Then: "current", Now: "superseded"}) {
		t.Errorf("superseded: claim changes %+v", r.Claims)
	}
	if len(r.Chunks) != 1 || r.Chunks[0].Then != "ok" || r.Chunks[0].Now != "superseded" || r.Chunks[0].CurrentVersion != v2 ||
		r.Chunks[0].CurrentCreated == nil || r.Chunks[0].DocumentVersion != v1 {
		t.Errorf("superseded: chunk changes %+v", r.Chunks)
	}

	// Under a policy that accepts superseded versions the verdict holds,
	// and the chunk's new state is still shown.
	lenient, err := verify.ParsePolicy([]byte(`{"name": "lenient", "superseded": "accept"}`))
	if err != nil {
		t.Fatal(err)
	}
	r = replay(t, db, trace, lenient)
	if r.PolicyFrom != "given" || r.Policy != "lenient" || r.Disposition.Now != verify.AnswerAccept || len(r.Chunks) != 1 || !r.Changed {
		t.Errorf("lenient: %+v", r)
	}

	if _, err := db.Delete("travel.md", ""); err != nil {
		t.Fatal(err)
	}
	r = replay(t, db, trace, nil)
	if len(r.Chunks) != 1 || r.Chunks[0].Now != "deleted" || r.Chunks[0].Deleted == nil ||
		len(r.Claims) != 1 || !slices.Contains(r.Claims[0].Evidence[0].ReasonsAdded, "deleted") {
		t.Errorf("deleted: %+v %+v", r.Chunks, r.Claims)
	}
	// The store was only read.
	if got := readTrace(t, db, rep.TraceID); !bytes.Equal(got, trace) {
		t.Error("replay changed the stored trace")
	}
}

// TestReplayQuarantine: a cited chunk that resolves as quarantined now is
// shown with its reason. (A version never changes, so the trace is made to
// say the chunk was served then.)
func TestReplayQuarantine(t *testing.T) {
	db := storetest.Open(t)
	good := store.ChunkID(ingestText(t, db, "travel.md", travelV1, ingest.Options{}), 0)
	nv := storetest.NewVersion("other.md", travelV2, 0)
	nv.Chunks[0].Quarantine = &store.Quarantine{Reason: "text_mismatch", Want: `"not the text"`, Got: `"# Travel"`}
	nv.Version.Quarantined = 1
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	bad := store.ChunkID(nv.Version.ID, 0)
	req := &verify.Request{RequestID: "r-q", Retrieved: []string{good},
		Claims: []verify.Claim{{ClaimID: "c1", Text: deadline + ".", Evidence: []verify.Evidence{{ChunkID: good, Quote: deadline}}}}}
	rep, err := verify.Answer(context.Background(), db, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	trace := bytes.ReplaceAll(readTrace(t, db, rep.TraceID), []byte(good), []byte(bad))
	r := replay(t, db, trace, nil)
	if len(r.Chunks) != 1 || r.Chunks[0].Then != "ok" || r.Chunks[0].Now != "quarantined" || r.Chunks[0].Reason != "text_mismatch" {
		t.Errorf("quarantined: chunks %+v", r.Chunks)
	}
	if len(r.Claims) != 1 || !slices.Contains(r.Claims[0].Evidence[0].ReasonsAdded, "quarantined:text_mismatch") || r.Disposition.Now == verify.AnswerAccept {
		t.Errorf("quarantined: claims %+v, disposition %+v", r.Claims, r.Disposition)
	}
}

// replayJudge says supported and counts its calls.
type replayJudge struct{ calls atomic.Int32 }

func (j *replayJudge) ID() string { return "counting" }
func (j *replayJudge) Judge(context.Context, verify.JudgeInput) (verify.JudgeVerdict, error) {
	j.calls.Add(1)
	return verify.JudgeVerdict{Label: verify.JudgeSupported, Score: 0.9}, nil
}

// TestReplayCallsNoJudge: a replay reads the verdict the judge left in the
// cache and calls no judge; where the cache holds none, the claim goes to
// review.
func TestReplayCallsNoJudge(t *testing.T) {
	db := storetest.Open(t)
	chunk := store.ChunkID(ingestText(t, db, "travel.md", travelV1, ingest.Options{}), 0)
	j := &replayJudge{}
	pol := verify.DefaultPolicy().WithJudge(verify.CachedJudge(j, db))
	req := &verify.Request{RequestID: "r-j", Retrieved: []string{chunk},
		Claims: []verify.Claim{{ClaimID: "c1", Text: deadline + ".", Evidence: []verify.Evidence{{ChunkID: chunk, Quote: deadline}}}}}
	rep, err := verify.Answer(context.Background(), db, req, pol)
	if err != nil || j.calls.Load() != 1 || rep.Claims[0].Entailment != "judge:counting" {
		t.Fatalf("Answer: %v, %d calls, %+v", err, j.calls.Load(), rep.Claims[0])
	}
	trace := readTrace(t, db, rep.TraceID)
	r := replay(t, db, trace, nil)
	if r.Changed || j.calls.Load() != 1 || r.Report.Claims[0].Judge == nil || !r.Report.Claims[0].Judge.Cached {
		t.Errorf("cached verdict: changed %v, %d calls, %+v", r.Changed, j.calls.Load(), r.Report.Claims[0].Judge)
	}
	// Another claim text: no verdict in the cache.
	other := bytes.ReplaceAll(trace, []byte(`"text":"`+deadline+`."`), []byte(`"text":"`+deadline+`, always."`))
	r = replay(t, db, other, nil)
	if j.calls.Load() != 1 || len(r.Claims) != 1 || !slices.Contains(r.Claims[0].ReasonsAdded, verify.ReasonJudgeUnavailable) {
		t.Errorf("uncached: %d calls, %+v", j.calls.Load(), r.Claims)
	}
}
