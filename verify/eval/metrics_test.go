package eval_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

const expenseQuote = "Submit all expense reports within 14 calendar days of the end of the trip"

// metricsGolden is one answerable and one unanswerable test question.
const metricsGolden = `{"id": "deadline", "question": "Within how many days must expense reports be submitted?", "split": "test", "answerable": true, "expected_values": ["14 calendar days"], "expected_evidence": [{"document_id": "expense-policy.md", "quote": "` + expenseQuote + `"}]}
{"id": "leave", "question": "How many weeks of parental leave do employees get?", "split": "test", "answerable": false}
`

// goodAnswers answer both questions as they should be: the deadline
// quoted from its chunk and cited in the prose, the other declined.
func goodAnswers(ts *testStore, t *testing.T) map[string]*eval.Answer {
	c := ts.holding(t, "expense-policy.md", expenseQuote)
	other := ts.holding(t, "security-faq.html", "Security desk")
	return map[string]*eval.Answer{
		"deadline": {ID: "deadline", Retrieved: []string{c, other},
			Answer: expenseQuote + ". [" + c + "]",
			Claims: []verify.Claim{{ClaimID: "c1", Text: expenseQuote + ".", Evidence: []verify.Evidence{{ChunkID: c, Quote: expenseQuote}}}}},
		"leave": {ID: "leave", Retrieved: []string{}, Abstained: true, Answer: "I could not find this in the documents."},
	}
}

// TestMetricsMoveWithTheirFailure: every metric on hand-built recorded
// answers: the good answers score what they should, and injecting each
// metric's failure moves that metric to the value the failure implies.
func TestMetricsMoveWithTheirFailure(t *testing.T) {
	ts := newTestStore(t)
	g := parseGolden(t, metricsGolden)
	base := ts.run(t, g, goodAnswers(ts, t), nil)
	wantBase := map[string]float64{
		eval.MetricRetrievalHitRate: 1, eval.MetricMRR: 1, eval.MetricValueCorrectRate: 1, eval.MetricCitationSupportRate: 1,
		eval.MetricClaimCoverageRate: 1, eval.MetricUnanswerableDeclinedRate: 1, eval.MetricFalseRefusalRate: 0,
		eval.MetricAnswersBlocked: 0, eval.MetricAnswersPartial: 0, eval.MetricAnswersAbstained: 1, eval.MetricAnswersAccepted: 1,
		eval.MetricSentenceCitationRate: 1, eval.MetricValidMarkerRate: 1, eval.MetricAnswerErrorRate: 0,
	}
	test := base.Splits[eval.SplitTest]
	for name, want := range wantBase {
		if got, ok := test.Metrics[name]; !ok || got != want {
			t.Errorf("good answers: %s = %v (measured %v), want %v", name, got, ok, want)
		}
	}
	if f := test.Failures; f.Total() != 0 {
		t.Errorf("good answers: failures %+v, want none", f)
	}
	c := ts.holding(t, "expense-policy.md", expenseQuote)
	other := ts.holding(t, "security-faq.html", "Security desk")
	restricted := ts.holding(t, "board-minutes.md", "dividend")
	deadline := func(a map[string]*eval.Answer) *eval.Answer { return a["deadline"] }
	for _, tt := range []struct {
		name    string
		inject  func(a map[string]*eval.Answer)
		metrics map[string]float64
		fail    func(f eval.Failures) int // the failure category that must count it
	}{
		{"retrieval misses the expected chunk", func(a map[string]*eval.Answer) { deadline(a).Retrieved = []string{other} },
			map[string]float64{eval.MetricRetrievalHitRate: 0, eval.MetricMRR: 0}, nil},
		{"expected chunk ranked second", func(a map[string]*eval.Answer) { deadline(a).Retrieved = []string{other, c} },
			map[string]float64{eval.MetricRetrievalHitRate: 1, eval.MetricMRR: 0.5}, nil},
		{"a wrong value (21 for 14)", func(a map[string]*eval.Answer) {
			d := deadline(a)
			d.Claims[0].Text = strings.Replace(d.Claims[0].Text, "14", "21", 1)
			d.Answer = strings.Replace(d.Answer, "14", "21", 1)
		}, map[string]float64{eval.MetricValueCorrectRate: 0, eval.MetricAnswersBlocked: 1, eval.MetricAnswersAccepted: 0},
			func(f eval.Failures) int { return f.Correctness }},
		{"a citation of a chunk not retrieved", func(a map[string]*eval.Answer) {
			d := deadline(a)
			d.Claims[0].Evidence = append(d.Claims[0].Evidence, verify.Evidence{ChunkID: restricted})
		}, map[string]float64{eval.MetricCitationSupportRate: 0.5}, func(f eval.Failures) int { return f.Resolution }},
		{"a claim without evidence", func(a map[string]*eval.Answer) {
			d := deadline(a)
			d.Claims = append(d.Claims, verify.Claim{ClaimID: "c2", Text: "Late reports need the approval of the Chief Financial Officer."})
		}, map[string]float64{eval.MetricClaimCoverageRate: 0.5, eval.MetricAnswersPartial: 1}, func(f eval.Failures) int { return f.Coverage }},
		{"an unanswerable question answered", func(a map[string]*eval.Answer) {
			a["leave"] = &eval.Answer{ID: "leave", Retrieved: []string{c}, Answer: "Employees get 16 weeks of parental leave. [" + c + "]",
				Claims: []verify.Claim{{ClaimID: "c1", Text: "Employees get 16 weeks of parental leave.", Evidence: []verify.Evidence{{ChunkID: c}}}}}
		}, map[string]float64{eval.MetricUnanswerableDeclinedRate: 0}, func(f eval.Failures) int { return f.Abstention }},
		{"an answerable question declined", func(a map[string]*eval.Answer) {
			a["deadline"] = &eval.Answer{ID: "deadline", Retrieved: []string{c}, Abstained: true}
		}, map[string]float64{eval.MetricFalseRefusalRate: 1, eval.MetricValueCorrectRate: 0, eval.MetricAnswersAbstained: 2},
			func(f eval.Failures) int { return f.Abstention }},
		{"a factual sentence without a marker", func(a map[string]*eval.Answer) {
			deadline(a).Answer += " Late reports need the written approval of the Chief Financial Officer."
		}, map[string]float64{eval.MetricSentenceCitationRate: 0.5}, nil},
		{"a marker naming a chunk not retrieved", func(a map[string]*eval.Answer) {
			deadline(a).Answer += " Receipts above EUR 25 must be itemized. [" + restricted + "]"
		}, map[string]float64{eval.MetricValidMarkerRate: 0.5, eval.MetricSentenceCitationRate: 1}, nil},
		{"a source the principal may not read", func(a map[string]*eval.Answer) {
			d := deadline(a)
			d.Retrieved = append(d.Retrieved, restricted)
			d.Claims[0].Evidence = append(d.Claims[0].Evidence, verify.Evidence{ChunkID: restricted})
		}, map[string]float64{eval.MetricCitationSupportRate: 0.5}, func(f eval.Failures) int { return f.Permission }},
		{"a superseded version cited", func(a map[string]*eval.Answer) {
			d := deadline(a)
			d.Retrieved = append(d.Retrieved, ts.superseded)
			d.Claims = append(d.Claims, verify.Claim{ClaimID: "c2", Text: "The mileage rate is EUR 0.28 per kilometre.",
				Evidence: []verify.Evidence{{ChunkID: ts.superseded, Quote: "The mileage rate is EUR 0.28 per kilometre."}}})
		}, map[string]float64{eval.MetricCitationSupportRate: 0.5}, func(f eval.Failures) int { return f.Version }},
		{"an answer missing", func(a map[string]*eval.Answer) { delete(a, "deadline") },
			map[string]float64{eval.MetricAnswerErrorRate: 0.5}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answers := goodAnswers(ts, t)
			tt.inject(answers)
			rec := ts.run(t, g, answers, nil)
			test := rec.Splits[eval.SplitTest]
			for name, want := range tt.metrics {
				got, ok := test.Metrics[name]
				if !ok || got != want {
					t.Errorf("%s = %v (measured %v), want %v (good answers: %v)", name, got, ok, want, base.Splits[eval.SplitTest].Metrics[name])
				}
			}
			if tt.fail != nil && tt.fail(test.Failures) == 0 {
				t.Errorf("failures %+v: the injected failure is not counted in its category", test.Failures)
			}
		})
	}
}

// TestValueCorrectness: expected values are compared with the verifier's
// figure reader: separators and kinds as it reads them, a bare number
// matching any figure of its value, words folded.
func TestValueCorrectness(t *testing.T) {
	ts := newTestStore(t)
	for _, tt := range []struct {
		expected, answer string
		want             bool
	}{
		{"1,000", "It costs 1000.", true},
		{"USD 250,000,000", "a USD 250 000 000 loan", true},
		{"3,5", "a ratio of 3,25", false},
		{"3,25", "a ratio of 3.25", true},
		{"14 calendar days", "within 14 days", true},
		{"14 calendar days", "within 14 weeks", false},
		{"14", "within 14 weeks", true},
		{"EUR 25", "above USD 25", false},
		{"2029-06-28", "on 28 June 2029", true},
		{"Chief Financial Officer", "the chief financial officer approves", true},
		{"Chief Financial Officer", "the finance lead approves", false},
	} {
		g := parseGolden(t, `{"id": "v", "question": "q?", "split": "test", "answerable": true, "expected_values": ["`+tt.expected+`"]}`)
		rec := ts.run(t, g, map[string]*eval.Answer{"v": {ID: "v", Retrieved: []string{}, Answer: tt.answer}}, nil)
		q := rec.Question("v")
		got := q.Metrics[eval.MetricValueCorrectRate] == 1
		if got != tt.want {
			t.Errorf("expected %q in %q: got %v, want %v (missing %v)", tt.expected, tt.answer, got, tt.want, q.ValuesMissing)
		}
	}
}

// figureJudge is a deterministic judge: the evidence supports a claim
// when it holds every figure of the claim.
type figureJudge struct{ calls int }

func (j *figureJudge) ID() string { return "figures" }

func (j *figureJudge) Judge(_ context.Context, in verify.JudgeInput) (verify.JudgeVerdict, error) {
	j.calls++
	joined := strings.Join(in.Evidence, "\n")
	have := verify.Figures(joined)
	for _, f := range verify.Figures(in.Claim) {
		if !slices.ContainsFunc(have, func(h verify.Figure) bool { return h.Kind == f.Kind && h.Value == f.Value }) {
			return verify.JudgeVerdict{Judge: j.ID(), Label: verify.JudgeNotAddressed}, nil
		}
	}
	return verify.JudgeVerdict{Judge: j.ID(), Label: verify.JudgeSupported, Score: 1}, nil
}

// TestCitationRecallAndPrecision: with a judge, ALCE-style recall (the
// citations together support the claim) and precision (leave-one-out: a
// citation that supports nothing alone and is not needed is imprecise).
func TestCitationRecallAndPrecision(t *testing.T) {
	ts := newTestStore(t)
	g := parseGolden(t, metricsGolden)
	other := ts.holding(t, "security-faq.html", "Security desk")
	for _, tt := range []struct {
		name              string
		inject            func(*eval.Answer)
		recall, precision float64
	}{
		{"one citation that supports the claim", func(*eval.Answer) {}, 1, 1},
		{"a needless second citation", func(a *eval.Answer) {
			a.Claims[0].Evidence = append(a.Claims[0].Evidence, verify.Evidence{ChunkID: other})
		}, 1, 0.5},
		{"a claim its citation does not support", func(a *eval.Answer) {
			a.Claims = append(a.Claims, verify.Claim{ClaimID: "c2", Text: "Receipts above EUR 99 are kept.", Evidence: []verify.Evidence{{ChunkID: other}}})
		}, 0.5, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answers := goodAnswers(ts, t)
			tt.inject(answers["deadline"])
			j := &figureJudge{}
			rec := ts.run(t, g, answers, func(cfg *eval.Config) { cfg.Judge = j })
			m := rec.Splits[eval.SplitTest].Metrics
			if m[eval.MetricCitationRecall] != tt.recall || m[eval.MetricCitationPrecision] != tt.precision {
				t.Errorf("recall %v precision %v, want %v and %v", m[eval.MetricCitationRecall], m[eval.MetricCitationPrecision], tt.recall, tt.precision)
			}
			if rec.Budget.JudgeCalls != j.calls || j.calls == 0 {
				t.Errorf("judge calls: recorded %d, made %d", rec.Budget.JudgeCalls, j.calls)
			}
		})
	}
	// Without a judge, the metrics are not measured.
	rec := ts.run(t, g, goodAnswers(ts, t), nil)
	if _, ok := rec.Metrics[eval.MetricCitationRecall]; ok {
		t.Error("citation_recall measured without a judge")
	}
}
