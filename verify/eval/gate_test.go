package eval_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

var update = flag.Bool("update", false, "rewrite testdata/*.md golden files")

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadThresholds: JSON and YAML read the same; an unknown metric, an
// unknown field, an empty bound or an inverted range is an error naming it.
func TestLoadThresholds(t *testing.T) {
	j, err := eval.LoadThresholds(writeFile(t, "t.json", `{"metrics": {"citation_support_rate": {"min": 0.95}, "answers_blocked": {"max": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	y, err := eval.LoadThresholds(writeFile(t, "t.yaml", "metrics:\n  citation_support_rate: {min: 0.95}\n  answers_blocked:\n    max: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(j, y); d != "" {
		t.Errorf("JSON and YAML differ (-json +yaml):\n%s", d)
	}
	for in, has := range map[string]string{
		`{"metrics": {"citation_suport_rate": {"min": 1}}}`: `unknown metric "citation_suport_rate"`,
		`{"metrics": {"mrr": {"minimum": 1}}}`:              `unknown field "minimum"`,
		`{"metrics": {"mrr": {}}}`:                          "give min or max",
		`{"metrics": {"mrr": {"min": 0.9, "max": 0.5}}}`:    "above max",
		`{"metrics": {}}`:                                   "no metrics",
		`[1]`:                                               "cannot unmarshal",
	} {
		if _, err := eval.LoadThresholds(writeFile(t, "bad.json", in)); err == nil || !strings.Contains(err.Error(), has) {
			t.Errorf("%s: got %v, want an error holding %q", in, err, has)
		}
	}
}

// gateRuns are a good run and a worse one of the metrics golden set: in the
// worse one, the deadline is answered with the wrong figure (blocked) and
// the unanswerable question is answered.
func gateRuns(t *testing.T, ts *testStore) (good, bad *eval.Record) {
	g := parseGolden(t, metricsGolden)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	good = ts.run(t, g, goodAnswers(ts, t), func(cfg *eval.Config) { cfg.RunID, cfg.Now = "run-good", func() time.Time { return at } })
	answers := goodAnswers(ts, t)
	d := answers["deadline"]
	d.Claims[0].Text = strings.Replace(d.Claims[0].Text, "14", "30", 1)
	d.Answer = strings.Replace(d.Answer, "14", "30", 1)
	c := ts.holding(t, "expense-policy.md", expenseQuote)
	answers["leave"] = &eval.Answer{ID: "leave", Retrieved: []string{c}, Answer: "Employees get 16 weeks of parental leave. [" + c + "]",
		Claims: []verify.Claim{{ClaimID: "c1", Text: "Employees get 16 weeks of parental leave.", Evidence: []verify.Evidence{{ChunkID: c}}}}}
	bad = ts.run(t, g, answers, func(cfg *eval.Config) {
		cfg.RunID, cfg.Now = "run-bad", func() time.Time { return at.Add(time.Hour) }
	})
	return good, bad
}

const gateThresholds = `{"metrics": {"citation_support_rate": {"min": 0.95}, "value_correct_rate": {"min": 1},
 "unanswerable_declined_rate": {"min": 1}, "answers_blocked": {"max": 0}, "false_refusal_rate": {"max": 0}}}`

// TestGate: the good run passes, the worse one fails on exactly the
// thresholds it breaks, and against the good one as baseline lists both
// questions with what changed; a metric not measured fails; an incomplete
// test split fails unless allowed; the dev split never gates.
func TestGate(t *testing.T) {
	ts := newTestStore(t)
	good, bad := gateRuns(t, ts)
	th, err := eval.ParseThresholds([]byte(gateThresholds))
	if err != nil {
		t.Fatal(err)
	}
	if g := eval.Gate(good, th, nil, eval.GateOptions{}); !g.Pass || len(g.Incomplete) > 0 {
		t.Errorf("good run: %+v", g)
	}
	g := eval.Gate(bad, th, good, eval.GateOptions{})
	var failed []string
	for _, c := range g.Checks {
		if !c.Pass {
			failed = append(failed, c.Metric)
		}
	}
	if g.Pass || strings.Join(failed, ",") != "value_correct_rate,citation_support_rate,unanswerable_declined_rate,answers_blocked" {
		t.Errorf("bad run: pass %v, failed %v", g.Pass, failed)
	}
	want := []eval.Regression{
		{ID: "deadline", Changes: []eval.Change{
			{What: "disposition", Baseline: "accept", Now: "block"},
			{What: "value_correct_rate", Baseline: "1", Now: "0", Detail: "missing 14 calendar days"},
			{What: "citation_support_rate", Baseline: "1", Now: "0"},
			{What: "claim_coverage_rate", Baseline: "1", Now: "0"},
		}},
		{ID: "leave", Changes: []eval.Change{{What: "unanswerable_declined_rate", Baseline: "1", Now: "0"}}},
	}
	if d := cmp.Diff(want, g.Regressions); d != "" {
		t.Errorf("regressions (-want +got):\n%s", d)
	}
	if r := eval.Regressions(good, good); len(r) != 0 {
		t.Errorf("a run regresses against itself: %+v", r)
	}

	unmeasured, _ := eval.ParseThresholds([]byte(`{"metrics": {"probe_memory_rate": {"max": 0}}}`))
	if g := eval.Gate(good, unmeasured, nil, eval.GateOptions{}); g.Pass || !strings.Contains(g.Checks[0].Reason, "not measured") {
		t.Errorf("a threshold on a metric nothing measured: %+v", g.Checks)
	}

	// One test question not run: incomplete.
	partial := ts.run(t, parseGolden(t, metricsGolden), map[string]*eval.Answer{"leave": goodAnswers(ts, t)["leave"]}, nil)
	loose, _ := eval.ParseThresholds([]byte(`{"metrics": {"unanswerable_declined_rate": {"min": 1}}}`))
	if g := eval.Gate(partial, loose, nil, eval.GateOptions{}); g.Pass || len(g.Incomplete) != 1 || !strings.Contains(g.Incomplete[0], "answer_missing 1") {
		t.Errorf("incomplete run: pass %v, incomplete %v", g.Pass, g.Incomplete)
	}
	if g := eval.Gate(partial, loose, nil, eval.GateOptions{AllowIncomplete: true}); !g.Pass {
		t.Errorf("incomplete run with AllowIncomplete: %+v", g)
	}

	// The same failures on the dev split do not gate.
	devGolden := strings.ReplaceAll(metricsGolden, `"split": "test"`, `"split": "dev"`) +
		`{"id": "extra", "question": "Q?", "split": "test", "answerable": false}` + "\n"
	_, badAnswers := gateRunsAnswers(t, ts)
	badAnswers["extra"] = &eval.Answer{ID: "extra", Abstained: true}
	dev := ts.run(t, parseGolden(t, devGolden), badAnswers, nil)
	if g := eval.Gate(dev, loose, nil, eval.GateOptions{}); !g.Pass {
		t.Errorf("dev failures gated: %+v", g)
	}
}

func gateRunsAnswers(t *testing.T, ts *testStore) (good, bad map[string]*eval.Answer) {
	good = goodAnswers(ts, t)
	bad = goodAnswers(ts, t)
	c := ts.holding(t, "expense-policy.md", expenseQuote)
	bad["leave"] = &eval.Answer{ID: "leave", Retrieved: []string{c}, Answer: "Employees get 16 weeks of parental leave.",
		Claims: []verify.Claim{{ClaimID: "c1", Text: "Employees get 16 weeks of parental leave.", Evidence: []verify.Evidence{{ChunkID: c}}}}}
	return good, bad
}

// TestMarkdown: the Markdown summary of the worse run, gated against the
// good one, with the trend of both (golden file testdata/gate-fail.md;
// -update rewrites it).
func TestMarkdown(t *testing.T) {
	ts := newTestStore(t)
	good, bad := gateRuns(t, ts)
	th, _ := eval.ParseThresholds([]byte(gateThresholds))
	g := eval.Gate(bad, th, good, eval.GateOptions{})
	var buf bytes.Buffer
	if err := eval.WriteMarkdown(&buf, []*eval.Record{bad, good}, th, g); err != nil {
		t.Fatal(err)
	}
	// Timings and version ids vary with the machine and the ingest.
	got := buf.String()
	for _, v := range bad.Versions {
		got = strings.ReplaceAll(got, v.DocumentVersion, "VERSION")
	}
	got = strings.Replace(got, strings.Split(strings.Split(got, "Spent: ")[1], "\n")[0], "…", 1)
	golden := filepath.Join("testdata", "gate-fail.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("Markdown summary (-%s +got):\n%s", golden, d)
	}
}
