package verify_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// traceSpec describes a stored trace by what listing and stats read.
type traceSpec struct {
	name, request, principal, disposition, policy string
	day                                           int // of January 2024, at noon
	reasons                                       []string
	claims                                        []claimSpec
	uncited                                       int
	failures                                      verify.Failures
}

type claimSpec struct {
	disposition string
	reasons     []string
	evidence    []evSpec
}

type evSpec struct {
	status, document string
	reasons          []string
}

func dayOf(day int) time.Time { return time.Date(2024, 1, day, 12, 0, 0, 0, time.UTC) }

// putSpecTraces stores the traces of specs, with their summaries or
// without, and returns their ids by name.
func putSpecTraces(t testing.TB, db *store.DB, specs []traceSpec, summaries bool) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, s := range specs {
		at := dayOf(s.day)
		id, err := verify.NewTraceID(at)
		if err != nil {
			t.Fatal(err)
		}
		rep := verify.Report{RequestID: s.request, TraceID: id, Disposition: s.disposition, Reasons: append([]string{}, s.reasons...),
			Policy: s.policy, Failures: s.failures, Claims: []verify.ClaimReport{}, UncitedSentences: []verify.Sentence{}}
		req := &verify.Request{RequestID: s.request, Principal: s.principal}
		for i, c := range s.claims {
			cr := verify.ClaimReport{ClaimID: string(rune('a' + i)), Disposition: c.disposition, Reasons: c.reasons}
			for _, e := range c.evidence {
				cr.Evidence = append(cr.Evidence, verify.EvidenceReport{ChunkID: "x", Status: e.status, DocumentID: e.document, Reasons: e.reasons})
			}
			rep.Claims = append(rep.Claims, cr)
			req.Claims = append(req.Claims, verify.Claim{ClaimID: cr.ClaimID, Text: "secret claim text"})
		}
		for range s.uncited {
			rep.UncitedSentences = append(rep.UncitedSentences, verify.Sentence{Text: "An uncited sentence of six words."})
		}
		report, err := json.Marshal(&rep)
		if err != nil {
			t.Fatal(err)
		}
		b, err := verify.EncodeTrace(id, at, 1, json.RawMessage(`{"name":"`+s.policy+`"}`), req, report)
		if err != nil {
			t.Fatal(err)
		}
		rec := store.TraceRecord{ID: id, Trace: b}
		if summaries {
			if rec.Summary, err = verify.EncodeTraceSummary(id, at, req, &rep); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.PutTraceRecord(rec); err != nil {
			t.Fatal(err)
		}
		ids[s.name] = id
	}
	return ids
}

// specTraces: six traces of two principals and the anonymous one, every
// disposition but clarify, under two policies, citing documents A and B.
var specTraces = []traceSpec{
	{name: "T1", request: "r1", principal: "analyst", disposition: "accept", policy: "default", day: 1,
		claims: []claimSpec{{disposition: "accept", evidence: []evSpec{{"ok", "A", nil}}}}},
	{name: "T2", request: "r2", principal: "analyst", disposition: "partial", policy: "default", day: 2, uncited: 1,
		claims: []claimSpec{{disposition: "accept", evidence: []evSpec{{"ok", "A", nil}}},
			{disposition: "remove_claim", reasons: []string{"figure_missing"}, evidence: []evSpec{{"insufficient", "B", []string{"figure_missing"}}}}}},
	{name: "T3", request: "r3", principal: "intern", disposition: "block", policy: "strict", day: 3, reasons: []string{"evidence_contradicts_claim"},
		claims: []claimSpec{{disposition: "block_answer", reasons: []string{"figure_contradicted"}, evidence: []evSpec{{"contradicts", "A", []string{"figure_contradicted"}}}}}},
	{name: "T4", request: "r4", principal: "intern", disposition: "abstain", policy: "default", day: 4, reasons: []string{"no_claim_supported"},
		claims: []claimSpec{{disposition: "block_claim", evidence: []evSpec{{"unresolved", "", []string{"quarantined:text_mismatch"}}}}}},
	{name: "T5", request: "r5", principal: "analyst", disposition: "review", policy: "strict", day: 5, reasons: []string{"superseded_evidence"},
		claims: []claimSpec{{disposition: "review", evidence: []evSpec{{"stale", "B", []string{"superseded_by:0123456789abcdef0123456789abcdef"}}}}}},
	{name: "T6", request: "r6", principal: "", disposition: "abstain", policy: "default", day: 6, reasons: []string{"insufficient_evidence"},
		failures: verify.Failures{Resolution: 1}},
}

// forEachSpecStore runs fn on a store of specTraces stored with their
// summaries, and on one without: both must read the same.
func forEachSpecStore(t *testing.T, fn func(t *testing.T, db *store.DB, id map[string]string)) {
	for _, summaries := range []bool{true, false} {
		name := "summaries"
		if !summaries {
			name = "traces"
		}
		t.Run(name, func(t *testing.T) {
			db := storetest.Open(t)
			fn(t, db, putSpecTraces(t, db, specTraces, summaries))
		})
	}
}

func listIDs(t *testing.T, db *store.DB, f verify.TraceFilter, cursor string, limit, maxScan int) ([]string, *verify.TracePage) {
	t.Helper()
	var page *verify.TracePage
	if err := db.View(func(tx *store.Tx) (err error) {
		page, err = verify.ListTraces(tx, &f, cursor, limit, maxScan)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, s := range page.Traces {
		ids = append(ids, s.TraceID)
	}
	return ids, page
}

// TestListTraces: every filter selects the traces it names, newest first.
func TestListTraces(t *testing.T) { forEachSpecStore(t, testListTraces) }

func testListTraces(t *testing.T, db *store.DB, id map[string]string) {
	names := func(ns ...string) []string {
		out := []string{}
		for _, n := range ns {
			out = append(out, id[n])
		}
		return out
	}
	for _, tt := range []struct {
		name string
		f    verify.TraceFilter
		want []string
	}{
		{"all", verify.TraceFilter{}, names("T6", "T5", "T4", "T3", "T2", "T1")},
		{"principal", verify.TraceFilter{Principal: "analyst"}, names("T5", "T2", "T1")},
		{"anonymous principal", verify.TraceFilter{ByPrincipal: true}, names("T6")},
		{"request", verify.TraceFilter{RequestID: "r3"}, names("T3")},
		{"disposition", verify.TraceFilter{Disposition: "abstain"}, names("T6", "T4")},
		{"reason with parameter", verify.TraceFilter{Reason: "quarantined:text_mismatch"}, names("T4")},
		{"reason kind", verify.TraceFilter{Reason: "quarantined"}, names("T4")},
		{"reason without its instance", verify.TraceFilter{Reason: "superseded_by"}, names("T5")},
		{"reason prefix is no kind", verify.TraceFilter{Reason: "figure"}, names()},
		{"uncited sentence", verify.TraceFilter{Reason: verify.ReasonUncitedSentence}, names("T2")},
		{"category correctness", verify.TraceFilter{Category: verify.FailCorrectness}, names("T3")},
		{"category support", verify.TraceFilter{Category: verify.FailSupport}, names("T2")},
		{"category coverage", verify.TraceFilter{Category: verify.FailCoverage}, names("T2")},
		{"category resolution, from failure counts without claims", verify.TraceFilter{Category: verify.FailResolution}, names("T6", "T4")},
		{"category version", verify.TraceFilter{Category: verify.FailVersion}, names("T5")},
		{"category abstention", verify.TraceFilter{Category: verify.FailAbstention}, names("T6", "T4")},
		{"category permission", verify.TraceFilter{Category: verify.FailPermission}, names()},
		{"document", verify.TraceFilter{Document: "B"}, names("T5", "T2")},
		{"since and until", verify.TraceFilter{Since: dayOf(3), Until: dayOf(5)}, names("T4", "T3")},
		{"since between", verify.TraceFilter{Since: dayOf(2).Add(time.Hour)}, names("T6", "T5", "T4", "T3")},
		{"until is exclusive", verify.TraceFilter{Until: dayOf(2)}, names("T1")},
		{"until a nanosecond after", verify.TraceFilter{Until: dayOf(2).Add(time.Nanosecond)}, names("T2", "T1")},
		{"filters combine", verify.TraceFilter{Principal: "intern", Category: verify.FailAbstention}, names("T4")},
	} {
		got, page := listIDs(t, db, tt.f, "", 50, 0)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
		if page.NextCursor != "" {
			t.Errorf("%s: a page that read every trace gives cursor %q", tt.name, page.NextCursor)
		}
	}

	// The summary of T2: its claims, with the uncited sentence, and why.
	_, page := listIDs(t, db, verify.TraceFilter{RequestID: "r2"}, "", 50, 0)
	want := verify.TraceSummary{TraceID: id["T2"], Time: dayOf(2), RequestID: "r2", Principal: "analyst", Disposition: "partial", Policy: "default",
		Claims: 3, FailedClaims: 2, Reasons: []string{"figure_missing", verify.ReasonUncitedSentence},
		Categories: []string{verify.FailSupport, verify.FailCoverage}, Documents: []string{"A", "B"}}
	if diff := cmp.Diff([]verify.TraceSummary{want}, page.Traces); diff != "" {
		t.Errorf("summary (-want +got)\n%s", diff)
	}
}

// TestListTracesPages: pages of two follow each other by cursor, and a
// scan budget returns a short page with a cursor to go on from.
func TestListTracesPages(t *testing.T) { forEachSpecStore(t, testListTracesPages) }

func testListTracesPages(t *testing.T, db *store.DB, id map[string]string) {
	var all []string
	cursor, pages := "", 0
	for {
		got, page := listIDs(t, db, verify.TraceFilter{}, cursor, 2, 0)
		all = append(all, got...)
		pages++
		if page.NextCursor == "" {
			break
		}
		if len(got) != 2 || page.NextCursor != got[len(got)-1] {
			t.Fatalf("page %d: %v, cursor %q: want a full page ending at its cursor", pages, got, page.NextCursor)
		}
		cursor = page.NextCursor
	}
	if want := []string{id["T6"], id["T5"], id["T4"], id["T3"], id["T2"], id["T1"]}; !slices.Equal(all, want) || pages != 4 {
		t.Errorf("paged: got %v in %d pages, want %v in 4 (the last empty)", all, pages, want)
	}

	got, page := listIDs(t, db, verify.TraceFilter{Principal: "analyst"}, "", 50, 3)
	if !slices.Equal(got, []string{id["T5"]}) || page.NextCursor != id["T4"] || page.Scanned != 3 {
		t.Errorf("budget of 3: got %v, cursor %q, scanned %d; want T5, cursor T4, 3", got, page.NextCursor, page.Scanned)
	}
	got, page = listIDs(t, db, verify.TraceFilter{Principal: "analyst"}, page.NextCursor, 50, 3)
	if !slices.Equal(got, []string{id["T2"], id["T1"]}) || page.NextCursor != "" {
		t.Errorf("after the budget: got %v, cursor %q; want T2, T1 and no cursor", got, page.NextCursor)
	}
}

func TestTraceFilterValidate(t *testing.T) {
	for _, f := range []verify.TraceFilter{{Disposition: "accepted"}, {Category: "meaning"}, {Since: dayOf(3), Until: dayOf(3)}} {
		if err := f.Validate(); !errors.Is(err, verify.ErrTraceFilter) {
			t.Errorf("%+v: got %v, want ErrTraceFilter", f, err)
		}
	}
	if err := (&verify.TraceFilter{Disposition: "clarify", Category: "correctness", Since: dayOf(1), Until: dayOf(2)}).Validate(); err != nil {
		t.Errorf("a good filter: %v", err)
	}
}

func stats(t *testing.T, db *store.DB, f verify.TraceFilter, by string) *verify.TraceStats {
	t.Helper()
	var st *verify.TraceStats
	if err := db.View(func(tx *store.Tx) (err error) { st, err = verify.TraceStatsOf(tx, &f, by); return err }); err != nil {
		t.Fatal(err)
	}
	return st
}

func group(key string, traces, failedTraces, claims, failedClaims int, dispositions map[string]int) verify.TraceGroup {
	return verify.TraceGroup{Key: key, TraceCounts: verify.TraceCounts{Traces: traces, FailedTraces: failedTraces, Claims: claims,
		FailedClaims: failedClaims, Dispositions: dispositions}}
}

type dm = map[string]int

// TestTraceStats: counts by each key over the six traces, and a filter
// narrows them.
func TestTraceStats(t *testing.T) { forEachSpecStore(t, testTraceStats) }

func testTraceStats(t *testing.T, db *store.DB, _ map[string]string) {
	total := verify.TraceCounts{Traces: 6, FailedTraces: 5, Claims: 7, FailedClaims: 5,
		Dispositions: dm{"accept": 1, "partial": 1, "block": 1, "abstain": 2, "review": 1}}
	for _, tt := range []struct {
		by   string
		want []verify.TraceGroup
	}{
		{verify.ByCategory, []verify.TraceGroup{
			group("support", 1, 1, 1, 1, dm{"partial": 1}),
			group("coverage", 1, 1, 1, 1, dm{"partial": 1}),
			group("resolution", 2, 2, 1, 1, dm{"abstain": 2}),
			group("version", 1, 1, 1, 1, dm{"review": 1}),
			group("permission", 0, 0, 0, 0, dm{}),
			group("abstention", 2, 2, 0, 0, dm{"abstain": 2}),
			group("correctness", 1, 1, 1, 1, dm{"block": 1}),
		}},
		{verify.ByReason, []verify.TraceGroup{
			group("evidence_contradicts_claim", 1, 1, 0, 0, dm{"block": 1}),
			group("figure_contradicted", 1, 1, 1, 1, dm{"block": 1}),
			group("figure_missing", 1, 1, 1, 1, dm{"partial": 1}),
			group("insufficient_evidence", 1, 1, 0, 0, dm{"abstain": 1}),
			group("no_claim_supported", 1, 1, 0, 0, dm{"abstain": 1}),
			group("quarantined:text_mismatch", 1, 1, 1, 1, dm{"abstain": 1}),
			group("superseded_by", 1, 1, 1, 1, dm{"review": 1}),
			group("superseded_evidence", 1, 1, 0, 0, dm{"review": 1}),
			group("uncited_sentence", 1, 1, 1, 1, dm{"partial": 1}),
		}},
		{verify.ByDocument, []verify.TraceGroup{
			group("B", 2, 2, 2, 2, dm{"partial": 1, "review": 1}),
			group("A", 3, 1, 3, 1, dm{"accept": 1, "partial": 1, "block": 1}),
		}},
		{verify.ByPolicy, []verify.TraceGroup{
			group("default", 4, 3, 5, 3, dm{"accept": 1, "partial": 1, "abstain": 2}),
			group("strict", 2, 2, 2, 2, dm{"block": 1, "review": 1}),
		}},
	} {
		st := stats(t, db, verify.TraceFilter{}, tt.by)
		if diff := cmp.Diff(total, st.TraceCounts); diff != "" {
			t.Errorf("by %s: totals (-want +got)\n%s", tt.by, diff)
		}
		if diff := cmp.Diff(tt.want, st.Groups); diff != "" {
			t.Errorf("by %s: groups (-want +got)\n%s", tt.by, diff)
		}
	}

	st := stats(t, db, verify.TraceFilter{Principal: "intern"}, verify.ByCategory)
	if st.Traces != 2 || st.Groups[2].Traces != 1 || st.Groups[5].Traces != 1 || st.Groups[6].Traces != 1 || st.Groups[0].Traces != 0 {
		t.Errorf("intern's traces by category: %+v", st)
	}
	st = stats(t, db, verify.TraceFilter{Since: dayOf(5)}, verify.ByPolicy)
	if st.Traces != 2 || st.Since == nil || !st.Since.Equal(dayOf(5)) || len(st.Groups) != 2 {
		t.Errorf("since day 5 by policy: %+v", st)
	}
	var err error
	if db.View(func(tx *store.Tx) error {
		_, err = verify.TraceStatsOf(tx, &verify.TraceFilter{}, "colour")
		return nil
	}); !errors.Is(err, verify.ErrTraceFilter) {
		t.Errorf("by colour: got %v, want ErrTraceFilter", err)
	}
}

// TestListTracesDamaged: a trace that is not JSON is reported, named.
func TestListTracesDamaged(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "e.db"), nil) // not storetest's: its audit would fail on the damage
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	putSpecTraces(t, db, specTraces, true)
	if err := db.PutTrace("01ffffffffff0000000000000000", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		_, err := verify.ListTraces(tx, &verify.TraceFilter{}, "", 50, 0)
		return err
	})
	if !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("got %v, want ErrCorrupt naming the trace", err)
	}
}
