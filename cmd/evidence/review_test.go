package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// judgedSpec is one claim of a test trace: a judge's verdict on it, or
// none (judge "").
type judgedSpec struct {
	claimID, judge, label, err string
	score                      float64
}

// judgedTraceJSON builds a stored trace the way a verification with a
// judge leaves it: each claim's text in the request, and in the report one
// accepted evidence span (with its text and coordinates), one rejected
// citation (no text: not shown to a judge) and the judge's verdict.
func judgedTraceJSON(t testing.TB, id string, at time.Time, claims ...judgedSpec) []byte {
	t.Helper()
	req := &verify.Request{RequestID: "req-" + id[len(id)-4:], Principal: "analyst@example.com"}
	rep := &verify.Report{RequestID: req.RequestID, TraceID: id, Disposition: verify.AnswerAccept}
	for i, c := range claims {
		req.Claims = append(req.Claims, verify.Claim{ClaimID: c.claimID, Text: "claim " + c.claimID + " of " + id})
		cr := verify.ClaimReport{ClaimID: c.claimID, Status: verify.Supported, Disposition: verify.Accept,
			Evidence: []verify.EvidenceReport{
				{ChunkID: "v1-" + fmt.Sprint(i), Status: verify.EvidenceOK, Match: "exact", DocumentID: "policy.md", DocumentVersion: "v1",
					PageNumber: 2, SourceStart: 10 * i, SourceEnd: 10*i + 9, Text: "span of " + c.claimID},
				{ChunkID: "v1-99", Status: verify.EvidenceUnresolved, Reasons: []string{"not_retrieved"}},
			}}
		if c.judge != "" {
			cr.Judge = &verify.JudgeVerdict{Judge: c.judge, Label: c.label, Score: c.score, Fragment: "fragment " + c.claimID, Error: c.err, LatencyMS: 12}
			cr.Entailment = verify.EntailmentJudge + c.judge
		}
		rep.Claims = append(rep.Claims, cr)
	}
	b, err := json.Marshal(&verify.Trace{TraceID: id, Time: at, StoreSequence: 4, Policy: verify.DefaultPolicy(), Request: req, Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func putTrace(t testing.TB, db *store.DB, at time.Time, claims ...judgedSpec) string {
	t.Helper()
	id, err := verify.NewTraceID(at)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutTrace(id, judgedTraceJSON(t, id, at, claims...)); err != nil {
		t.Fatal(err)
	}
	return id
}

// populate stores traces with 26 judged claims of judge nli-a (20
// supported, 5 contradicted, 1 not_addressed) and 3 of judge nli-b (all
// supported), two verdicts that cannot be reviewed (an error, no label)
// and unjudged claims, one trace a second, made before base.
func populate(t testing.TB, db *store.DB, base time.Time) {
	t.Helper()
	at := base.Add(-time.Hour)
	next := func() time.Time { at = at.Add(time.Second); return at }
	for i := range 20 {
		putTrace(t, db, next(), judgedSpec{claimID: "c1", judge: "nli-a", label: verify.JudgeSupported, score: 0.9},
			judgedSpec{claimID: fmt.Sprint("u", i)})
	}
	for range 5 {
		putTrace(t, db, next(), judgedSpec{claimID: "c1", judge: "nli-a", label: verify.JudgeContradicted, score: 0.8})
	}
	putTrace(t, db, next(), judgedSpec{claimID: "c1", judge: "nli-a", label: verify.JudgeNotAddressed, score: 0.6},
		judgedSpec{claimID: "c2", judge: "nli-b", label: verify.JudgeSupported, score: 0.7},
		judgedSpec{claimID: "c3", judge: "nli-a", err: "timeout after 10000 ms"},
		judgedSpec{claimID: "c4", judge: "nli-a", label: ""})
	for range 2 {
		putTrace(t, db, next(), judgedSpec{claimID: "c1", judge: "nli-b", label: verify.JudgeSupported, score: 0.7})
	}
}

func openTestStore(t testing.TB) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func ptr(v float64) *float64 { return &v }

// TestAgreement checks accuracy, Cohen's κ and precision/recall against
// values computed by hand.
func TestAgreement(t *testing.T) {
	type m = [3][3]int
	tests := []struct {
		name      string
		m         m
		accuracy  float64
		expected  float64
		kappa     *float64
		precision [3]*float64
		recall    [3]*float64
	}{
		// The textbook example of Wikipedia's "Cohen's kappa" article
		// (50 grant proposals, two readers): both yes 20, A yes B no 5,
		// A no B yes 10, both no 15. p_o = 35/50 = 0.7, p_e = 0.5·0.6 +
		// 0.5·0.4 = 0.5, κ = 0.4. A third, unused label changes nothing.
		{"wikipedia 2x2", m{{20, 5, 0}, {10, 15, 0}}, 0.7, 0.5, ptr(0.4),
			[3]*float64{ptr(20.0 / 30), ptr(15.0 / 20), nil}, [3]*float64{ptr(20.0 / 25), ptr(15.0 / 25), nil}},
		// By hand: n 30, agreed 22; rows 13, 7, 10; columns 13, 8, 9;
		// Σ rₖcₖ = 169 + 56 + 90 = 315; p_o = 22/30, p_e = 315/900 = 0.35,
		// κ = (660 − 315) / (900 − 315) = 345/585 = 0.589744.
		{"three labels", m{{10, 2, 1}, {1, 5, 1}, {2, 1, 7}}, 22.0 / 30, 0.35, ptr(345.0 / 585),
			[3]*float64{ptr(10.0 / 13), ptr(5.0 / 8), ptr(7.0 / 9)}, [3]*float64{ptr(10.0 / 13), ptr(5.0 / 7), ptr(7.0 / 10)}},
		// Perfect agreement on two labels: κ = 1.
		{"perfect", m{{3, 0, 0}, {0, 2, 0}}, 1, 13.0 / 25, ptr(1),
			[3]*float64{ptr(1), ptr(1), nil}, [3]*float64{ptr(1), ptr(1), nil}},
		// Every claim swapped between two labels: p_o 0, p_e 0.5, κ = −1.
		{"opposite", m{{0, 3, 0}, {3, 0, 0}}, 0, 0.5, ptr(-1),
			[3]*float64{ptr(0), ptr(0), nil}, [3]*float64{ptr(0), ptr(0), nil}},
		// Judge always contradicted, humans always supported: p_e 0, κ 0.
		{"disjoint single labels", m{{0, 4, 0}}, 0, 0, ptr(0),
			[3]*float64{nil, ptr(0), nil}, [3]*float64{ptr(0), nil, nil}},
		// Both gave every claim "supported": p_e = 1, κ undefined.
		{"one label only", m{{5, 0, 0}}, 1, 1, nil,
			[3]*float64{ptr(1), nil, nil}, [3]*float64{ptr(1), nil, nil}},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := agreement("j", tt.m)
			if diff := cmp.Diff(tt.accuracy, a.Accuracy, approx); diff != "" {
				t.Errorf("accuracy (-want +got): %s", diff)
			}
			if diff := cmp.Diff(tt.expected, a.ExpectedAgreement, approx); diff != "" {
				t.Errorf("expected agreement (-want +got): %s", diff)
			}
			if diff := cmp.Diff(tt.kappa, a.Kappa, approx); diff != "" {
				t.Errorf("kappa (-want +got): %s", diff)
			}
			if (a.Kappa == nil) != (a.KappaUndefined != "") {
				t.Errorf("kappa %v with kappa_undefined %q", a.Kappa, a.KappaUndefined)
			}
			for k, p := range a.PerLabel {
				if diff := cmp.Diff(tt.precision[k], p.Precision, approx); diff != "" {
					t.Errorf("%s precision (-want +got): %s", p.Label, diff)
				}
				if diff := cmp.Diff(tt.recall[k], p.Recall, approx); diff != "" {
					t.Errorf("%s recall (-want +got): %s", p.Label, diff)
				}
			}
		})
	}
}

func TestAllocate(t *testing.T) {
	for _, tt := range []struct {
		sizes []int
		n     int
		want  []int
	}{
		{[]int{10, 10, 10}, 6, []int{2, 2, 2}},
		{[]int{50, 30, 20}, 10, []int{5, 3, 2}},   // proportional
		{[]int{100, 1, 1}, 10, []int{8, 1, 1}},    // the small strata still get one
		{[]int{5, 0, 3}, 100, []int{5, 0, 3}},     // N over the population: everything
		{[]int{5, 3, 1, 1}, 2, []int{1, 1, 0, 0}}, // fewer places than strata: the largest
		{[]int{2, 2, 2}, 5, []int{2, 2, 1}},       // a tie goes to the earlier stratum
		{[]int{0, 0}, 3, []int{0, 0}},
	} {
		if got := allocate(tt.sizes, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("allocate(%v, %d) = %v, want %v", tt.sizes, tt.n, got, tt.want)
		}
	}
	// Properties over random strata: exactly min(n, population) places,
	// none over a stratum's size, one for each stratum when n allows.
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		sizes := make([]int, 1+r.IntN(9))
		total, strata := 0, 0
		for i := range sizes {
			if r.IntN(4) > 0 {
				sizes[i] = 1 + r.IntN(200)
			}
			total += sizes[i]
			if sizes[i] > 0 {
				strata++
			}
		}
		n := 1 + r.IntN(total+10)
		got := allocate(sizes, n)
		sum := 0
		for i, g := range got {
			sum += g
			if g > sizes[i] || (n >= strata && sizes[i] > 0 && g == 0) {
				t.Fatalf("allocate(%v, %d) = %v: stratum %d", sizes, n, got, i)
			}
		}
		if sum != min(n, total) {
			t.Fatalf("allocate(%v, %d) = %v: %d places, want %d", sizes, n, got, sum, min(n, total))
		}
	}
}

func strataOf(items []*reviewItem) map[string]int {
	s := map[string]int{}
	for _, it := range items {
		s[it.Judge+"/"+it.Verdict.Label]++
	}
	return s
}

func TestSampleStratified(t *testing.T) {
	db, _ := openTestStore(t)
	populate(t, db, time.Now())

	items, sum, err := sampleJudged(db, 8, time.Time{}, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Population != 29 || sum.Sampled != 8 || sum.Unreviewable != 2 || len(items) != 8 {
		t.Fatalf("got population %d, sampled %d, unreviewable %d, %d items; want 29, 8, 2, 8", sum.Population, sum.Sampled, sum.Unreviewable, len(items))
	}
	// 4 strata of 20, 5, 1, 3: one each, the 4 others in proportion to 19, 4, 0, 2.
	want := map[string]int{"nli-a/supported": 4, "nli-a/contradicted": 2, "nli-a/not_addressed": 1, "nli-b/supported": 1}
	if diff := cmp.Diff(want, strataOf(items)); diff != "" {
		t.Errorf("strata (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, it := range items {
		key := it.TraceID + "/" + it.ClaimID
		if seen[key] {
			t.Errorf("%s sampled twice", key)
		}
		seen[key] = true
		if it.Claim != "claim "+it.ClaimID+" of "+it.TraceID {
			t.Errorf("%s: claim %q", key, it.Claim)
		}
		// Only the accepted span, with its coordinates.
		wantEv := []reviewEvidence{{ChunkID: it.Evidence[0].ChunkID, DocumentID: "policy.md", DocumentVersion: "v1", PageNumber: 2,
			SourceStart: it.Evidence[0].SourceStart, SourceEnd: it.Evidence[0].SourceStart + 9, Text: "span of " + it.ClaimID}}
		if diff := cmp.Diff(wantEv, it.Evidence); diff != "" {
			t.Errorf("%s evidence (-want +got):\n%s", key, diff)
		}
		if it.Verdict.Fragment != "fragment "+it.ClaimID || it.Verdict.Score == 0 || it.HumanLabel != "" {
			t.Errorf("%s: verdict %+v, human label %q", key, it.Verdict, it.HumanLabel)
		}
	}

	// The same seed draws the same items, in the same order; another seed
	// draws others.
	again, _, err := sampleJudged(db, 8, time.Time{}, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(items, again); diff != "" {
		t.Errorf("same seed, other sample (-first +second):\n%s", diff)
	}
	differs := false
	for seed := uint64(8); seed < 12 && !differs; seed++ {
		other, _, err := sampleJudged(db, 8, time.Time{}, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		differs = !cmp.Equal(items, other)
	}
	if !differs {
		t.Error("seeds 8 to 11 all drew the sample of seed 7")
	}

	// More places than judged claims: every one, once.
	all, sum, err := sampleJudged(db, 1000, time.Time{}, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]int{"nli-a/supported": 20, "nli-a/contradicted": 5, "nli-a/not_addressed": 1, "nli-b/supported": 3}
	if diff := cmp.Diff(want, strataOf(all)); diff != "" || sum.Sampled != 29 {
		t.Errorf("n over the population: %d sampled, strata (-want +got):\n%s", sum.Sampled, diff)
	}

	blind, _, err := sampleJudged(db, 3, time.Time{}, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range blind {
		if it.Verdict != nil || it.Judge == "" {
			t.Errorf("blind item: verdict %+v, judge %q", it.Verdict, it.Judge)
		}
	}
}

func TestSampleSince(t *testing.T) {
	db, _ := openTestStore(t)
	now := time.Now().UTC()
	old := putTrace(t, db, now.Add(-10*24*time.Hour), judgedSpec{claimID: "c1", judge: "j", label: verify.JudgeSupported})
	mid := putTrace(t, db, now.Add(-2*time.Hour), judgedSpec{claimID: "c1", judge: "j", label: verify.JudgeSupported})
	recent := putTrace(t, db, now.Add(-time.Minute), judgedSpec{claimID: "c1", judge: "j", label: verify.JudgeContradicted})
	for _, tt := range []struct {
		since string
		want  []string
	}{
		{"24h", []string{mid, recent}},
		{"7d", []string{mid, recent}},
		{"30d", []string{old, mid, recent}},
		{"90m", []string{recent}},
		{now.Add(-3 * time.Hour).Format(time.RFC3339), []string{mid, recent}},
		{now.Add(time.Hour).Format(time.RFC3339Nano), nil},
	} {
		from, err := parseSince(tt.since, now)
		if err != nil {
			t.Fatal(err)
		}
		items, _, err := sampleJudged(db, 10, from, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.TraceID)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("--since %s: got traces %v, want %v", tt.since, got, tt.want)
		}
	}
	// A trace made in the same millisecond as since, but before it, is
	// left out: the id only seeks, the trace's time decides.
	at := time.Date(2026, 11, 1, 0, 0, 0, 400_000, time.UTC)
	edge := putTrace(t, db, at, judgedSpec{claimID: "c1", judge: "j", label: verify.JudgeSupported})
	items, _, err := sampleJudged(db, 10, at.Add(time.Microsecond), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.TraceID == edge {
			t.Errorf("a trace made 1µs before --since was sampled")
		}
	}

	for _, bad := range []string{"", "7", "7x", "-1h", "d", "1.5d", "-2d", "2026-11-30", "yesterday"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q): no error", bad)
		}
	}
}

// sampleFile runs `review sample` into a file and returns its items.
func sampleFile(t *testing.T, db string, args ...string) (string, []reviewItem) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sample.jsonl")
	code, stdout, stderr := runCLI(t, append([]string{"--db", db, "review", "sample", "--out", out}, args...)...)
	if code != exitOK {
		t.Fatalf("review sample: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "to "+out) {
		t.Errorf("review sample --out: summary %q does not name the file", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var items []reviewItem
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var it reviewItem
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("sample line %q: %v", line, err)
		}
		items = append(items, it)
	}
	return out, items
}

func writeItems(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itemLine(t *testing.T, it reviewItem) string {
	t.Helper()
	b, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReviewRoundTrip: sample, label, record, stats through the CLI;
// recording again is idempotent, a changed label replaces the review.
func TestReviewRoundTrip(t *testing.T) {
	db, path := openTestStore(t)
	populate(t, db, time.Now())
	db.Close()

	file, items := sampleFile(t, path, "--n", "29", "--seed", "3")
	if len(items) != 29 {
		t.Fatalf("got %d items, want 29", len(items))
	}
	// The reviewer agrees with nli-a's supported verdicts but calls its
	// contradicted ones not_addressed, and leaves nli-b's unreviewed but one.
	var lines []string
	nb := 0
	for _, it := range items {
		switch {
		case it.Judge == "nli-a" && it.Verdict.Label == verify.JudgeContradicted:
			it.HumanLabel, it.Note = verify.JudgeNotAddressed, "the span is about another limit"
		case it.Judge == "nli-a":
			it.HumanLabel = it.Verdict.Label
		case nb == 0:
			it.HumanLabel = verify.JudgeSupported
			nb++
		}
		lines = append(lines, itemLine(t, it))
	}
	writeItems(t, file, lines...)
	code, out, errs := runCLI(t, "--db", path, "--json", "review", "record", file)
	if code != exitOK {
		t.Fatalf("record: exit %d: %s %s", code, out, errs)
	}
	var res recordResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Added != 27 || res.Skipped != 2 || len(res.Errors) != 0 {
		t.Errorf("record: got %+v, want 27 added, 2 skipped", res)
	}

	code, out, _ = runCLI(t, "--db", path, "--json", "review", "stats")
	if code != exitOK {
		t.Fatalf("stats: exit %d", code)
	}
	var st reviewStats
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Judges) != 2 || st.Reviews != 27 || !slices.Equal(st.Labels, reviewLabels[:]) {
		t.Fatalf("stats: %s", out)
	}
	a := st.Judges[0]
	// nli-a: 20 supported agreed, 1 not_addressed agreed, 5 contradicted
	// that a person calls not_addressed. n 26, agreed 21; rows 20, 0, 6;
	// columns 20, 5, 1; Σ rₖcₖ = 400 + 0 + 6 = 406;
	// κ = (26·21 − 406) / (676 − 406) = 140/270.
	wantConf := [3][3]int{{20, 0, 0}, {0, 0, 0}, {0, 5, 1}}
	if a.Judge != "nli-a" || a.N != 26 || a.Agreed != 21 || a.Confusion != wantConf || a.Kappa == nil || math.Abs(*a.Kappa-140.0/270) > 1e-9 {
		t.Errorf("nli-a: got %+v, want n 26, agreed 21, confusion %v, kappa %.6f", a, wantConf, 140.0/270)
	}
	if p := a.PerLabel[1]; p.Precision == nil || *p.Precision != 0 || p.Recall != nil {
		t.Errorf("nli-a contradicted: precision %v recall %v, want 0 and null", p.Precision, p.Recall)
	}
	// nli-b: one review, supported by both: p_e = 1.
	b := st.Judges[1]
	if b.Judge != "nli-b" || b.N != 1 || b.Accuracy != 1 || b.Kappa != nil || b.KappaUndefined == "" {
		t.Errorf("nli-b: got %+v, want n 1, accuracy 1, kappa null with a reason", b)
	}
	if !strings.Contains(out, `"kappa": null`) {
		t.Errorf("stats --json: kappa undefined is not null:\n%s", out)
	}

	// The same file again: nothing changes. One label changed: replaced.
	code, out, _ = runCLI(t, "--db", path, "review", "record", file)
	if code != exitOK || !strings.Contains(out, "0 new, 0 replaced, 27 unchanged; 2 skipped") {
		t.Errorf("record again: exit %d, %s", code, out)
	}
	var first reviewItem
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.HumanLabel == "" {
		t.Fatal("the first item is unlabelled")
	}
	first.HumanLabel = verify.JudgeContradicted
	lines[0] = itemLine(t, first)
	writeItems(t, file, lines...)
	code, out, _ = runCLI(t, "--db", path, "review", "record", file)
	if code != exitOK || !strings.Contains(out, "0 new, 1 replaced, 26 unchanged") {
		t.Errorf("record a changed label: exit %d, %s", code, out)
	}
	rdb, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	n := 0
	err = rdb.View(func(tx *store.Tx) error {
		r, err := tx.Review(first.TraceID, first.ClaimID)
		if err != nil {
			return err
		}
		if r.HumanLabel != verify.JudgeContradicted || r.JudgeLabel != first.Verdict.Label || r.Judge != first.Judge {
			t.Errorf("replaced review: %+v", r)
		}
		return tx.ForEachReview(func(*store.Review) error { n++; return nil })
	})
	if err != nil || n != 27 {
		t.Errorf("reviews after re-recording: %d (%v), want 27", n, err)
	}

	// An existing --out is never overwritten.
	if code, _, errs := runCLI(t, "--db", path, "review", "sample", "--n", "2", "--out", file); code != exitUsage || !strings.Contains(errs, "exists") {
		t.Errorf("sample over an existing file: exit %d, %s", code, errs)
	}
}

func TestRecordBadLines(t *testing.T) {
	db, path := openTestStore(t)
	populate(t, db, time.Now())
	db.Close()
	file, items := sampleFile(t, path, "--n", "4", "--seed", "1")
	label := func(it reviewItem, l string) reviewItem { it.HumanLabel = l; return it }
	good := label(items[0], verify.JudgeSupported)
	wrongVerdict := label(items[1], verify.JudgeSupported)
	wrongVerdict.Verdict = &reviewVerdict{Label: "not_a_label"}
	wrongJudge := label(items[2], verify.JudgeSupported)
	wrongJudge.Judge = "other-judge"
	unknownTrace := label(items[3], verify.JudgeSupported)
	unknownTrace.TraceID = "0000000000000000000000000000"
	noClaim := label(items[3], verify.JudgeSupported)
	noClaim.ClaimID = "c-none"
	lines := []string{
		itemLine(t, good),  // 1
		`{"trace_id": "x"`, // 2: not JSON
		strings.Replace(itemLine(t, label(items[3], "supported")), `"note"`, `"notes"`, 1), // 3: unknown field
		itemLine(t, label(items[3], "Supported")),                                          // 4: not the vocabulary
		itemLine(t, wrongVerdict),                                                          // 5
		itemLine(t, wrongJudge),                                                            // 6
		itemLine(t, unknownTrace),                                                          // 7
		"",                                                                                 // 8: blank, ignored
		itemLine(t, noClaim),                                                               // 9
		itemLine(t, label(items[0], verify.JudgeContradicted)),    // 10: item of line 1 again
		itemLine(t, items[3]) + " {}",                             // 11: text after the object
		itemLine(t, items[3]),                                     // 12: unlabelled, skipped
		itemLine(t, label(items[3], verify.JudgeSupported)) + "]", // 13: a stray bracket after the object
	}
	writeItems(t, file, lines...)
	code, out, errs := runCLI(t, "--db", path, "review", "record", file)
	if code != exitPartial {
		t.Fatalf("record with bad lines: exit %d, want %d: %s", code, exitPartial, errs)
	}
	if !strings.Contains(out, "recorded 1 review ") || !strings.Contains(out, "1 skipped") || !strings.Contains(out, "10 bad lines") {
		t.Errorf("summary: %s", out)
	}
	for _, want := range []string{
		":2: not a review item", `:3: not a review item: json: unknown field "notes"`, `:4: human_label "Supported": want supported | contradicted | not_addressed`,
		`:5: claim`, `label "not_a_label"`, `:6: claim`, `judge "other-judge"`, ":7: trace 0000000000000000000000000000 is not in this store",
		`:9: trace ` + noClaim.TraceID + ` reports no claim "c-none"`, ":10: claim " + fmt.Sprintf("%q", good.ClaimID) + " of trace " + good.TraceID + " is also on line 1",
		":11: text after the item's JSON object", ":13: text after the item's JSON object",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, ":8:") || strings.Contains(errs, ":12:") || strings.Contains(errs, ":1:") {
		t.Errorf("a good, blank or unlabelled line reported:\n%s", errs)
	}
}

func TestReadReviewLine(t *testing.T) {
	long := bytes.Repeat([]byte("x"), maxReviewLine+10)
	in := "first\n" + string(long) + "\nthird"
	r := bufio.NewReader(strings.NewReader(in))
	var got []string
	for {
		b, err := readReviewLine(r)
		if b == nil && err != nil {
			break
		}
		var tl *lineTooLong
		if errors.As(err, &tl) {
			got = append(got, "too long")
			continue
		}
		got = append(got, string(b))
	}
	if want := []string{"first\n", "too long", "third"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestReviewReadOnlyOldStore: stats and sample open the store read-only,
// so they work on a store written before reviews existed, without
// changing it.
func TestReviewReadOnlyOldStore(t *testing.T) {
	db, path := openTestStore(t)
	putTrace(t, db, time.Now(), judgedSpec{claimID: "c1", judge: "j", label: verify.JudgeSupported})
	db.Close()
	dropBucket(t, path, "reviews")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "--db", path, "review", "stats"); code != exitOK || !strings.Contains(out, "no reviews recorded") {
		t.Errorf("stats on an old store: exit %d: %s %s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "--db", path, "review", "sample", "--n", "1", "--seed", "1"); code != exitOK || !strings.Contains(out, `"claim_id":"c1"`) {
		t.Errorf("sample on an old store: exit %d: %s %s", code, out, errs)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a read-only command changed the old store")
	}
}

// dropBucket makes path a store of before the bucket existed.
func dropBucket(t *testing.T, path, bucket string) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(bucket)) }); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReviewUsage(t *testing.T) {
	db, path := openTestStore(t)
	db.Close()
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	nostore := filepath.Join(t.TempDir(), "none.db")
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"review", "sample"}, exitUsage, "--n is required"},
		{[]string{"review", "sample", "--n", "0"}, exitUsage, "want 1 to"},
		{[]string{"review", "sample", "--n", "3", "--since", "yesterday"}, exitUsage, `--since "yesterday"`},
		{[]string{"review", "sample", "--n", "3", "extra"}, exitUsage, "takes 0 argument"},
		{[]string{"review", "record"}, exitUsage, "takes 1 argument"},
		{[]string{"review", "record", filepath.Join(t.TempDir(), "none.jsonl")}, exitUsage, "no such file"},
		{[]string{"review", "stats", "x"}, exitUsage, "takes 0 argument"},
		{[]string{"review", "sample", "--n", "3"}, exitOK, "no judged claims to sample"},
		{[]string{"review", "sample", "--n", "3", "--out", empty}, exitOK, ""},
		{[]string{"--db", nostore, "review", "record", "-"}, exitNotFound, "no store at"},
		{[]string{"--db", nostore, "review", "stats"}, exitNotFound, "no store at"},
	} {
		code, _, errs := runCLI(t, append([]string{"--db", path}, tt.args...)...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d (%s), want %d with %q", tt.args, code, errs, tt.code, tt.msg)
		}
	}
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty sample created %s (%v): it would block the next one", empty, err)
	}
	if _, err := os.Stat(nostore); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record without a store created %s (%v)", nostore, err)
	}
}

// reviewScriptCmds are the testscript commands of the review scripts.
var reviewScriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// puttraces DB FILE stores the traces of FILE (JSON Lines of
	// verify.Trace, as `evidence trace show` prints them) in the store DB,
	// as a server with a judge would.
	"puttraces": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: puttraces DB FILE")
		}
		db, err := store.Open(ts.MkAbs(args[0]), nil)
		ts.Check(err)
		defer db.Close()
		for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(args[1])), "\n") {
			var tr verify.Trace
			ts.Check(json.Unmarshal([]byte(line), &tr))
			b, err := json.Marshal(&tr)
			ts.Check(err)
			ts.Check(db.PutTrace(tr.TraceID, b))
		}
	},
}

// FuzzRecordReviews: any review file gives a result or an error, never a
// panic; every bad line it names is a line of the file, and nothing is
// stored that the store's trace does not hold as judged.
func FuzzRecordReviews(f *testing.F) {
	id := "01a22161fe8000000000000000a1"
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	f.Add([]byte(`{"trace_id":"` + id + `","claim_id":"c1","judge":"j","human_label":"supported","note":""}` + "\n"))
	f.Add([]byte(`{"trace_id":"` + id + `","claim_id":"c1","judge":"j","human_label":"contradicted","note":"x"}` + "\n\n{}\n"))
	f.Add([]byte("not json\n{\"trace_id\":\"x\"}\r\n" + `{"trace_id":"` + id + `","claim_id":"c2","judge":"j","verdict":{"label":"supported"},"human_label":"x"}`))
	path := filepath.Join(f.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	if err := db.PutTrace(id, judgedTraceJSON(f, id, at, judgedSpec{claimID: "c1", judge: "j", label: verify.JudgeSupported})); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := recordReviews(db, bytes.NewReader(in), at)
		if err != nil {
			t.Fatalf("recordReviews: %v", err)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		for _, e := range res.Errors {
			if e.Line < 1 || e.Line > lines {
				t.Errorf("error on line %d of a %d-line file: %s", e.Line, lines, e.Error)
			}
		}
		if n := res.Added + res.Replaced + res.Unchanged; n > 1 {
			t.Errorf("%d reviews stored from a store with one judged claim", n)
		}
		_ = db.View(func(tx *store.Tx) error {
			return tx.ForEachReview(func(r *store.Review) error {
				if r.TraceID != id || r.ClaimID != "c1" || r.Judge != "j" || r.JudgeLabel != verify.JudgeSupported || labelIndex(r.HumanLabel) < 0 {
					t.Errorf("stored review %+v", r)
				}
				return nil
			})
		})
	})
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"24h", "7d", "90m", "2026-11-30T00:00:00Z", "2026-11-30T00:00:00.5+02:00", "65535d", "-1h", "d"} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, now)
		if err != nil {
			return
		}
		if _, perr := time.Parse(time.RFC3339Nano, s); perr != nil && got.After(now) {
			t.Errorf("parseSince(%q) = %v: a duration went forward from now", s, got)
		}
	})
}
