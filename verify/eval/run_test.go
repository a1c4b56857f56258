package eval_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

// TestMain makes the test binary a generator process when
// EVAL_FAKE_GENERATOR is set: fakeGenerator answers by the question id's
// prefix, so that a test can order crashes, hangs and garbage.
func TestMain(m *testing.M) {
	if os.Getenv("EVAL_FAKE_GENERATOR") == "1" {
		os.Exit(fakeGenerator())
	}
	os.Exit(m.Run())
}

func fakeGenerator() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var req eval.Request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			return 2
		}
		kind, _, _ := strings.Cut(req.ID, "-")
		switch kind {
		case "crash":
			fmt.Fprintln(os.Stderr, "loading the model\nfatal: model weights missing")
			return 3
		case "hang":
			time.Sleep(time.Hour)
		case "garbage":
			fmt.Println("this is not json")
		case "wrongid":
			fmt.Println(`{"id": "someone-else", "abstained": true}`)
		case "invalid":
			fmt.Printf(`{"id": %q, "retrieved": [], "claims": [{"text": "no claim id", "evidence": []}]}`+"\n", req.ID)
		case "error":
			fmt.Printf(`{"id": %q, "error": "model overloaded"}`+"\n", req.ID)
		case "unknown":
			fmt.Printf(`{"id": %q, "abstained": true, "confidence": 0.9}`+"\n", req.ID)
		default:
			fmt.Printf(`{"id": %q, "retrieved": [], "abstained": true, "usage": {"calls": 1, "cost_usd": 0.25}}`+"\n", req.ID)
		}
	}
	return 0
}

// fakeProcess is a pool of this test binary as generator processes.
func fakeProcess(t *testing.T, parallel int, timeout time.Duration) *eval.Process {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("EVAL_FAKE_GENERATOR", "1")
	p := eval.NewProcess([]string{exe}, parallel, timeout)
	t.Cleanup(func() { p.Close() })
	return p
}

func goldenOf(t *testing.T, ids ...string) *eval.Golden {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, `{"id": %q, "question": "Q %s?", "split": "test", "answerable": false}`+"\n", id, id)
	}
	return parseGolden(t, b.String())
}

// TestBadGeneratorOutput: a generator that crashes, hangs, prints garbage,
// answers another id, answers something the verifier refuses, reports an
// error or adds fields of its own: each is recorded against its question
// with its reason, the process is restarted, and the run goes on, in
// order, at any parallelism.
func TestBadGeneratorOutput(t *testing.T) {
	ts := newTestStore(t)
	ids := []string{"good-1", "crash-1", "good-2", "hang-1", "garbage-1", "good-3", "wrongid-1", "invalid-1", "error-1", "unknown-1", "good-4"}
	want := map[string]string{
		"crash-1":   eval.ReasonCrashed + ": ended without answering (exit status 3): fatal: model weights missing",
		"hang-1":    eval.ReasonTimeout + ": no answer within",
		"garbage-1": eval.ReasonBadOutput + ": eval: bad answer: invalid character",
		"wrongid-1": eval.ReasonBadOutput + `: an answer for id "someone-else"`,
		"invalid-1": eval.ReasonAnswerInvalid + ": verify: bad request: claims[0]: missing claim_id",
		"error-1":   eval.ReasonGeneratorError + ": model overloaded",
		"unknown-1": eval.ReasonBadOutput + `: eval: bad answer: unknown field "confidence"`,
	}
	for _, parallel := range []int{1, 3} {
		t.Run(fmt.Sprint("parallel ", parallel), func(t *testing.T) {
			rec := ts.run(t, goldenOf(t, ids...), nil, func(cfg *eval.Config) {
				cfg.Answers, cfg.Generator, cfg.Parallel = nil, fakeProcess(t, parallel, 500*time.Millisecond), parallel
			})
			for i, q := range rec.Questions {
				if q.ID != ids[i] {
					t.Fatalf("question %d is %s, want %s: results out of golden order", i, q.ID, ids[i])
				}
				if w, bad := want[q.ID]; bad {
					if q.Status != eval.StatusError || !strings.HasPrefix(q.Reason, w) {
						t.Errorf("%s: %s %q, want error %q…", q.ID, q.Status, q.Reason, w)
					}
				} else if q.Status != eval.StatusAbstained {
					t.Errorf("%s: %s %q, want abstained: the run did not go on after a bad answer", q.ID, q.Status, q.Reason)
				}
			}
			errs := rec.Splits[eval.SplitTest].Errors
			if errs[eval.ReasonBadOutput] != 3 || errs[eval.ReasonCrashed] != 1 || errs[eval.ReasonTimeout] != 1 || errs[eval.ReasonAnswerInvalid] != 1 {
				t.Errorf("errors by reason: %v", errs)
			}
			if got := rec.Splits[eval.SplitTest].Metrics[eval.MetricAnswerErrorRate]; got != 7.0/11 {
				t.Errorf("answer_error_rate %v, want 7/11", got)
			}
		})
	}
}

// TestBudgetStopsTheRun: each bound stops a live run cleanly: no question
// after it is asked, the record says which bound stopped it and which
// questions were not run, and the run is incomplete.
func TestBudgetStopsTheRun(t *testing.T) {
	ts := newTestStore(t)
	ids := []string{"good-1", "good-2", "good-3", "good-4", "good-5", "good-6"}
	for _, tt := range []struct {
		name    string
		budget  eval.Budget
		ids     []string
		ran     int
		stopped string
	}{
		{"max calls", eval.Budget{MaxCalls: 3}, ids, 3, "max_calls"},
		{"max cost", eval.Budget{MaxCostUSD: 0.5}, ids, 2, "max_cost_usd"}, // each answer costs 0.25
		{"max seconds", eval.Budget{MaxTime: 300 * time.Millisecond}, []string{"good-1", "hang-1", "good-2"}, 1, "max_seconds"},
		{"within budget", eval.Budget{MaxCalls: 10, MaxCostUSD: 5}, ids, 6, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			rec := ts.run(t, goldenOf(t, tt.ids...), nil, func(cfg *eval.Config) {
				cfg.Answers, cfg.Generator, cfg.Budget = nil, fakeProcess(t, 1, 10*time.Second), tt.budget
			})
			if time.Since(start) > 5*time.Second {
				t.Errorf("the run took %v: the budget did not stop it", time.Since(start))
			}
			b := rec.Budget
			if b.Stopped != tt.stopped || len(tt.ids)-len(b.NotRun) != tt.ran || rec.Complete != (tt.stopped == "") {
				t.Errorf("stopped %q, not run %v, complete %v; want stopped %q after %d", b.Stopped, b.NotRun, rec.Complete, tt.stopped, tt.ran)
			}
			for i, q := range rec.Questions {
				if i < tt.ran && q.Status == eval.StatusNotRun || i >= tt.ran && (q.Status != eval.StatusNotRun || q.Reason != "budget: "+tt.stopped) {
					t.Errorf("%s: %s %q", q.ID, q.Status, q.Reason)
				}
			}
			if tt.stopped == "max_calls" && b.Calls != 3 || tt.stopped == "max_cost_usd" && b.CostUSD != 0.5 {
				t.Errorf("spent %d calls, $%v", b.Calls, b.CostUSD)
			}
		})
	}
}

// TestRequestContext: a question's request has a null context (the
// generator retrieves); a probe's a list, empty when the ablation left
// nothing, never left out.
func TestRequestContext(t *testing.T) {
	for req, want := range map[*eval.Request]string{
		{ID: "q"}: `"context":null`,
		{ID: "q/probe/1", Context: []eval.ContextChunk{}}: `"context":[]`,
	} {
		b, err := json.Marshal(req)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v, want %s", b, err, want)
		}
	}
}

// TestInterrupted: a cancelled run stops, and records what it did not run.
func TestInterrupted(t *testing.T) {
	ts := newTestStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	gen := eval.GeneratorFunc(func(ctx context.Context, r *eval.Request) (*eval.Answer, error) {
		if r.ID == "good-2" {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &eval.Answer{ID: r.ID, Abstained: true}, nil
	})
	rec, err := eval.Run(ctx, eval.Config{Golden: goldenOf(t, "good-1", "good-2", "good-3"), DB: ts.db, Generator: gen})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Budget.Stopped != eval.ReasonInterrupted || len(rec.Budget.NotRun) != 2 || rec.Question("good-3").Reason != eval.ReasonInterrupted {
		t.Errorf("stopped %q, not run %v, good-3 %q", rec.Budget.Stopped, rec.Budget.NotRun, rec.Question("good-3").Reason)
	}
}

// probeGenerator answers the deadline question, extractively (the deadline
// as the context it is given states it) or from memory (14 days, whatever
// the context says, citing the first chunk it has).
func probeGenerator(ts *testStore, t *testing.T, memory bool, calls *int) eval.Generator {
	c := ts.holding(t, "expense-policy.md", expenseQuote)
	other := ts.holding(t, "security-faq.html", "Security desk")
	return eval.GeneratorFunc(func(_ context.Context, r *eval.Request) (*eval.Answer, error) {
		*calls++
		if !strings.HasPrefix(r.ID, "deadline") {
			return &eval.Answer{ID: r.ID, Abstained: true}, nil
		}
		context := r.Context
		retrieved := []string{}
		for _, ch := range context {
			retrieved = append(retrieved, ch.ChunkID)
		}
		if context == nil {
			context = []eval.ContextChunk{{ChunkID: c, Text: expenseQuote}, {ChunkID: other, Text: "Security desk"}}
			retrieved = []string{c, other}
		}
		claim := func(id, quote string) (*eval.Answer, error) {
			return &eval.Answer{ID: r.ID, Retrieved: retrieved, Answer: quote + ". [" + id + "]",
				Claims: []verify.Claim{{ClaimID: "c1", Text: quote + ".", Evidence: []verify.Evidence{{ChunkID: id, Quote: quote}}}}}, nil
		}
		if memory && len(context) > 0 {
			return claim(context[0].ChunkID, expenseQuote)
		}
		for _, ch := range context {
			if i := strings.Index(ch.Text, "Submit all expense reports within"); i >= 0 {
				quote := ch.Text[i:]
				quote = quote[:strings.Index(quote, "trip")+len("trip")]
				return claim(ch.ChunkID, quote)
			}
		}
		return &eval.Answer{ID: r.ID, Abstained: true}, nil
	})
}

// TestProbes: an extractive generator's citations drive its answers (the
// ablated answer declines, the counterfactual one says the edited figure);
// a memory generator's are decoration and its figures memory. Probes edit
// only what is sent: the store is unchanged.
func TestProbes(t *testing.T) {
	ts := newTestStore(t)
	g := parseGolden(t, metricsGolden)
	var seqBefore uint64
	_ = ts.db.View(func(tx *store.Tx) error { seqBefore = tx.Sequence(); return nil })
	for _, tt := range []struct {
		memory             bool
		decoration, memRat float64
		outcomes           []string
	}{
		{false, 0, 0, []string{eval.OutcomeEvidenceDriven, eval.OutcomeFollowed}},
		{true, 1, 1, []string{eval.OutcomeDecoration, eval.OutcomeMemory}},
	} {
		calls := 0
		rec := ts.run(t, g, nil, func(cfg *eval.Config) {
			cfg.Answers, cfg.Generator, cfg.Probe = nil, probeGenerator(ts, t, tt.memory, &calls), 5
		})
		q := rec.Question("deadline")
		var got []string
		for _, p := range q.Probes {
			got = append(got, p.Outcome)
		}
		if strings.Join(got, ",") != strings.Join(tt.outcomes, ",") {
			t.Errorf("memory %v: probe outcomes %v, want %v (%+v)", tt.memory, got, tt.outcomes, q.Probes)
		}
		m := rec.Splits[eval.SplitTest].Metrics
		if m[eval.MetricProbeDecorationRate] != tt.decoration || m[eval.MetricProbeMemoryRate] != tt.memRat {
			t.Errorf("memory %v: decoration %v memory %v, want %v %v", tt.memory, m[eval.MetricProbeDecorationRate], m[eval.MetricProbeMemoryRate], tt.decoration, tt.memRat)
		}
		cf := q.Probes[1]
		if cf.Figure != "14 calendar days" || cf.Altered != "21 calendar days" {
			t.Errorf("counterfactual changed %q to %q, want 14 calendar days to 21", cf.Figure, cf.Altered)
		}
		if len(q.Probes[0].Removed) == 0 {
			t.Error("the ablation removed nothing")
		}
		if calls != 4 || rec.Budget.Calls != 4 {
			t.Errorf("generator called %d times, recorded %d: want two answers and two probes", calls, rec.Budget.Calls)
		}
	}
	var seqAfter uint64
	_ = ts.db.View(func(tx *store.Tx) error { seqAfter = tx.Sequence(); return nil })
	if seqAfter != seqBefore {
		t.Errorf("the store changed during the probes: sequence %d → %d", seqBefore, seqAfter)
	}
	// A budget spent before the probes leaves them not run, and says so.
	calls := 0
	rec := ts.run(t, g, nil, func(cfg *eval.Config) {
		cfg.Answers, cfg.Generator, cfg.Probe, cfg.Budget = nil, probeGenerator(ts, t, false, &calls), 5, eval.Budget{MaxCalls: 3}
	})
	q := rec.Question("deadline")
	if rec.Complete || rec.Budget.ProbesNotRun != 1 || q.Probes[1].Outcome != eval.OutcomeNotRun {
		t.Errorf("budget of 3 calls, 2 questions and 2 probes: complete %v, probes not run %d, outcomes %+v", rec.Complete, rec.Budget.ProbesNotRun, q.Probes)
	}
}
