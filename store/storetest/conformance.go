package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
)

// Conformance runs the suite every store backend must pass (restic's
// internal/backend test suite is the model): versions, texts, chunks,
// layouts, quarantine, repairs, failures, tombstones, traces, judge
// verdicts, reviews and evaluation runs, each written and read back;
// idempotent puts; a version in one transaction; concurrent writers; and
// an audit with no findings at the end of each part. open returns a new,
// empty store for each part; the suite closes it.
func Conformance(t *testing.T, open func(t *testing.T) *store.DB) {
	for _, part := range []struct {
		name string
		run  func(*testing.T, *store.DB)
	}{
		{"Versions", conformVersions},
		{"Idempotent", conformIdempotent},
		{"Supersede", conformSupersede},
		{"QuarantineAndRepairs", conformQuarantine},
		{"Tombstones", conformTombstones},
		{"OneTransaction", conformOneTransaction},
		{"ConcurrentWriters", conformConcurrent},
		{"Records", conformRecords},
	} {
		t.Run(part.name, func(t *testing.T) {
			db := open(t)
			defer func() {
				findings, err := db.Check()
				if err != nil {
					t.Errorf("Check: %v", err)
				}
				for _, f := range findings {
					t.Errorf("Check: %s", f)
				}
				if err := db.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			part.run(t, db)
		})
	}
}

func put(t *testing.T, db *store.DB, nv *store.NewVersion) store.PutResult {
	t.Helper()
	r, err := db.PutVersion(nv)
	if err != nil {
		t.Fatalf("PutVersion %s: %v", nv.Version.DocumentID, err)
	}
	return r
}

func view(t *testing.T, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// checkServed: the version reads back whole: header, document, text
// (against its hash), layout, and every chunk's span (against its hash).
func checkServed(t *testing.T, db *store.DB, nv *store.NewVersion, status store.Status) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		v, err := tx.Version(nv.Version.ID)
		if err != nil {
			return err
		}
		if v.Status != status || v.DocumentID != nv.Version.DocumentID || v.Chunks != len(nv.Chunks) || v.TextHash != nv.Version.TextHash {
			t.Errorf("version %s: got %s of %s with %d chunks, want %s of %s with %d", v.ID, v.Status, v.DocumentID, v.Chunks, status, nv.Version.DocumentID, len(nv.Chunks))
		}
		txt, err := tx.Text(v)
		if err != nil {
			return err
		}
		if err := store.VerifyText(v, txt); err != nil || !bytes.Equal(txt.Bytes(), nv.Text.Bytes()) {
			t.Errorf("text of %s: %v (%d bytes, want %d)", v.ID, err, len(txt.Bytes()), len(nv.Text.Bytes()))
		}
		l, err := tx.Layout(v)
		if err != nil {
			return err
		}
		if !slices.Equal(l.PageStarts, nv.Layout.PageStarts) {
			t.Errorf("layout of %s: page starts %v, want %v", v.ID, l.PageStarts, nv.Layout.PageStarts)
		}
		n := 0
		if err := tx.ForEachChunk(v, func(c *store.Chunk) error {
			want := nv.Chunks[c.Ordinal]
			span, err := tx.Span(v, c)
			if err != nil {
				return err
			}
			if c.Start != want.Start || c.End != want.End || c.Page != want.Page || !bytes.Equal(span, nv.Text.Bytes()[want.ByteStart:want.ByteEnd]) {
				t.Errorf("chunk %s: [%d,%d) page %d %q, want [%d,%d) page %d", c.ID(), c.Start, c.End, c.Page, span, want.Start, want.End, want.Page)
			}
			n++
			return nil
		}); err != nil {
			return err
		}
		if n != len(nv.Chunks) {
			t.Errorf("version %s: %d chunks read, want %d", v.ID, n, len(nv.Chunks))
		}
		return nil
	})
}

func conformVersions(t *testing.T, db *store.DB) {
	nv := NewVersion("docs/policy.md", "Claims are paid within 30 days.\fThe insurer may audit any claim.", 16)
	nv.ACL = []string{"analyst@example.com"}
	if r := put(t, db, nv); r.Status != store.PutIngested || r.Version != nv.Version.ID {
		t.Fatalf("first put: %+v", r)
	}
	checkServed(t, db, nv, store.StatusCurrent)
	view(t, db, func(tx *store.Tx) error {
		d, err := tx.Document("docs/policy.md")
		if err != nil {
			return err
		}
		if d.Current != nv.Version.ID || !slices.Equal(d.ACL, nv.ACL) {
			t.Errorf("document: current %s, acl %v", d.Current, d.ACL)
		}
		if _, err := tx.Document("no/such.md"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("missing document: got %v, want ErrNotFound", err)
		}
		vs, err := tx.VersionsOfSource(nv.Version.SourceHash)
		if err != nil || len(vs) != 1 || vs[0].ID != nv.Version.ID {
			t.Errorf("VersionsOfSource: %v, %v", vs, err)
		}
		return nil
	})
}

func conformIdempotent(t *testing.T, db *store.DB) {
	nv := NewVersion("a.txt", "The same bytes, twice.", 8)
	put(t, db, nv)
	seq := sequence(t, db)
	if r := put(t, db, NewVersion("a.txt", "The same bytes, twice.", 8)); r.Status != store.PutUnchanged {
		t.Errorf("second put of the same version: %s, want unchanged", r.Status)
	}
	if got := sequence(t, db); got != seq {
		t.Errorf("the unchanged put wrote a version: sequence %d, was %d", got, seq)
	}
	checkServed(t, db, nv, store.StatusCurrent)
}

func sequence(t *testing.T, db *store.DB) (seq uint64) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error { seq = tx.Sequence(); return nil })
	return seq
}

func conformSupersede(t *testing.T, db *store.DB) {
	v1 := NewVersion("b.md", "First edition: 14 days.", 8)
	v2 := NewVersion("b.md", "Second edition: 30 days.", 8)
	put(t, db, v1)
	if r := put(t, db, v2); r.Status != store.PutIngested || r.Superseded != v1.Version.ID {
		t.Errorf("second version: %+v", r)
	}
	checkServed(t, db, v1, store.StatusSuperseded)
	checkServed(t, db, v2, store.StatusCurrent)
	if r := put(t, db, NewVersion("b.md", "First edition: 14 days.", 8)); r.Status != store.PutRestored {
		t.Errorf("the first again: %s, want restored", r.Status)
	}
	checkServed(t, db, v1, store.StatusCurrent)
}

func conformQuarantine(t *testing.T, db *store.DB) {
	nv := NewVersion("c.txt", "Alpha beta gamma delta epsilon zeta.", 6)
	nv.Chunks[1].Quarantine = &store.Quarantine{Reason: "text_mismatch"}
	nv.Version.Quarantined = 1
	nv.Chunks[2].Repair = &store.Repair{Reason: "text_mismatch", Method: "fuzzy", Distance: 1, ClaimedStart: 13, ClaimedEnd: 19}
	nv.Version.Repaired = 1
	put(t, db, nv)
	var quarantined, repaired []string
	view(t, db, func(tx *store.Tx) error {
		if err := tx.ForEachQuarantined(func(_ *store.Version, c *store.Chunk) error {
			quarantined = append(quarantined, c.ID()+" "+c.Quarantine.Reason)
			return nil
		}); err != nil {
			return err
		}
		return tx.ForEachRepaired(func(_ *store.Version, c *store.Chunk) error {
			repaired = append(repaired, c.ID()+" "+c.Repair.Method)
			return nil
		})
	})
	if want := []string{store.ChunkID(nv.Version.ID, 1) + " text_mismatch"}; !slices.Equal(quarantined, want) {
		t.Errorf("quarantined: %v, want %v", quarantined, want)
	}
	if want := []string{store.ChunkID(nv.Version.ID, 2) + " fuzzy"}; !slices.Equal(repaired, want) {
		t.Errorf("repaired: %v, want %v", repaired, want)
	}
}

func conformTombstones(t *testing.T, db *store.DB) {
	v1 := NewVersion("d.md", "Withdrawn guidance.", 8)
	v2 := NewVersion("d.md", "Current guidance.", 8)
	put(t, db, v1)
	put(t, db, v2)
	deleted, err := db.Delete("d.md", v1.Version.ID)
	if err != nil || !slices.Equal(deleted, []string{v1.Version.ID}) {
		t.Fatalf("Delete one version: %v, %v", deleted, err)
	}
	view(t, db, func(tx *store.Tx) error {
		v, err := tx.Version(v1.Version.ID)
		if err != nil {
			return err
		}
		if v.Status != store.StatusDeleted {
			t.Errorf("deleted version: status %s", v.Status)
		}
		if _, err := tx.Text(v); !errors.Is(err, store.ErrDeleted) {
			t.Errorf("text of a deleted version: got %v, want ErrDeleted", err)
		}
		return nil
	})
	checkServed(t, db, v2, store.StatusCurrent)
	if r := put(t, db, NewVersion("d.md", "Withdrawn guidance.", 8)); r.Status != store.PutDeleted {
		t.Errorf("put of deleted bytes: %s, want deleted", r.Status)
	}
	if _, err := db.Delete("d.md", ""); err != nil {
		t.Fatal(err)
	}
	view(t, db, func(tx *store.Tx) error {
		d, err := tx.Document("d.md")
		if err != nil {
			return err
		}
		if !d.Deleted || d.Current != "" {
			t.Errorf("deleted document: %+v", d)
		}
		return nil
	})
}

func conformOneTransaction(t *testing.T, db *store.DB) {
	good := NewVersion("e.txt", "A good version.", 8)
	bad := NewVersion("f.txt", "A bad version.", 8)
	bad.Chunks[0].End = 10_000 // past its text: the put must fail as a whole
	if _, err := db.PutVersions([]*store.NewVersion{good, bad}); err == nil {
		t.Fatal("PutVersions with a chunk past its text: no error")
	}
	view(t, db, func(tx *store.Tx) error {
		for _, id := range []string{good.Version.ID, bad.Version.ID} {
			if _, err := tx.Version(id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("version %s after the failed group: got %v, want ErrNotFound", id, err)
			}
		}
		return nil
	})
	if got := sequence(t, db); got != 0 {
		t.Errorf("sequence after the failed group: %d, want 0", got)
	}
}

func conformConcurrent(t *testing.T, db *store.DB) {
	const writers = 8
	var wg sync.WaitGroup
	results := make([]store.PutResult, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(2)
		go func() { // all of them: the same bytes
			defer wg.Done()
			results[i], errs[i] = db.PutVersion(NewVersion("same.txt", "One version, eight writers.", 8))
		}()
		go func() { // each its own document
			defer wg.Done()
			if _, err := db.PutVersion(NewVersion(fmt.Sprintf("own-%d.txt", i), fmt.Sprintf("Writer %d's own text.", i), 8)); err != nil {
				t.Errorf("writer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	ingested := 0
	for i := range writers {
		if errs[i] != nil {
			t.Errorf("writer %d of the same bytes: %v", i, errs[i])
		}
		if results[i].Status == store.PutIngested {
			ingested++
		}
	}
	if ingested != 1 {
		t.Errorf("%d writers of the same bytes ingested them, want 1 (the others unchanged)", ingested)
	}
	view(t, db, func(tx *store.Tx) error {
		n := 0
		err := tx.ForEachDocument(func(*store.Document) error { n++; return nil })
		if n != writers+1 {
			t.Errorf("%d documents, want %d", n, writers+1)
		}
		return err
	})
}

func conformRecords(t *testing.T, db *store.DB) {
	when := time.Unix(1_700_000_000, 0).UTC()
	if err := db.PutFailure(&store.Failure{Path: "in/g.pdf", DocumentID: "g.pdf", Reason: "encrypted", Error: "pdf: encrypted", Time: when}); err != nil {
		t.Fatal(err)
	}
	const trace = "0190f3a2b4c5-conform"
	if err := db.PutTraceRecord(store.TraceRecord{ID: trace, Trace: []byte(`{"trace_id":"` + trace + `"}`), Summary: []byte(`{"v":1}`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutTraceRecord(store.TraceRecord{ID: trace, Trace: []byte(`{"trace_id":"` + trace + `"}`), Summary: []byte(`{"v":1}`)}); err != nil {
		t.Errorf("the same trace again: %v, want no error (a retried batch)", err)
	}
	if err := db.PutTrace(trace, []byte(`{"other":true}`)); err == nil {
		t.Error("another trace under a stored id: no error")
	}
	if err := db.PutJudgment([]byte("k1"), []byte("verdict-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutReviews([]store.Review{{TraceID: trace, ClaimID: "c1", Judge: "j", JudgeLabel: "supported", HumanLabel: "unsupported", Recorded: when}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutEvalRun("0190f3a2b4c6-run", []byte(`{"run_id":"0190f3a2b4c6-run"}`)); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := db.Judgment([]byte("k1")); err != nil || !ok || string(v) != "verdict-1" {
		t.Errorf("Judgment: %q %v %v", v, ok, err)
	}
	if _, ok, err := db.Judgment([]byte("k2")); err != nil || ok {
		t.Errorf("Judgment of an unknown key: %v %v", ok, err)
	}
	view(t, db, func(tx *store.Tx) error {
		var failures []string
		if err := tx.ForEachFailure(func(f *store.Failure) error { failures = append(failures, f.DocumentID+" "+f.Reason); return nil }); err != nil {
			return err
		}
		if !slices.Equal(failures, []string{"g.pdf encrypted"}) {
			t.Errorf("failures: %v", failures)
		}
		if b, err := tx.Trace(trace); err != nil || string(b) != `{"trace_id":"`+trace+`"}` {
			t.Errorf("Trace: %q %v", b, err)
		}
		var summaries []string
		if err := tx.ForEachTraceSummaryBefore("\xff", func(id, summary []byte, _ func() ([]byte, error)) error {
			summaries = append(summaries, string(id)+" "+string(summary))
			return nil
		}); err != nil {
			return err
		}
		if !slices.Equal(summaries, []string{trace + ` {"v":1}`}) {
			t.Errorf("trace summaries: %v", summaries)
		}
		if r, err := tx.Review(trace, "c1"); err != nil || r.HumanLabel != "unsupported" {
			t.Errorf("Review: %+v %v", r, err)
		}
		if b, err := tx.EvalRun("0190f3a2b4c6-run"); err != nil || !bytes.Contains(b, []byte("0190f3a2b4c6-run")) {
			t.Errorf("EvalRun: %q %v", b, err)
		}
		return nil
	})
}
