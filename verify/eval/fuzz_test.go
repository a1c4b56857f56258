package eval_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/verify/eval"
)

// FuzzParseGolden: any input gives questions and invalid lines, or an
// error, never a panic; every question is valid and every invalid line is
// a line of the input, with a reason.
func FuzzParseGolden(f *testing.F) {
	f.Add([]byte(`{"id": "a", "question": "Q?", "split": "test", "answerable": true, "expected_values": ["EUR 25"], "expected_evidence": [{"document_id": "d", "quote": "q"}]}` + "\n"))
	f.Add([]byte("not json\n{\"id\": \"a\"}\r\n\n{\"id\": \"b\", \"question\": \"Q\", \"split\": \"dev\", \"answerable\": false, \"risk\": \"high\"}"))
	f.Add([]byte(`{"id": "a", "question": "Q?", "split": "test", "answerable": true} {"id": "a"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := eval.ParseGolden(bytes.NewReader(in))
		if err != nil {
			return
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		seen := map[string]bool{}
		for _, q := range g.Questions {
			if strings.TrimSpace(q.ID) == "" || strings.TrimSpace(q.Question) == "" || (q.Split != eval.SplitTest && q.Split != eval.SplitDev) || seen[q.ID] {
				t.Errorf("invalid question accepted: %+v", q)
			}
			seen[q.ID] = true
			if !q.Answerable && (len(q.ExpectedValues) > 0 || len(q.ExpectedEvidence) > 0) {
				t.Errorf("unanswerable question with expectations: %+v", q)
			}
		}
		for _, l := range g.Invalid {
			if l.Line < 1 || l.Line > lines || l.Reason == "" {
				t.Errorf("invalid line %+v of %d lines", l, lines)
			}
		}
	})
}

// FuzzParseAnswers: any answers file gives answers and issues, never a
// panic; every answer has an id and no negative usage.
func FuzzParseAnswers(f *testing.F) {
	f.Add([]byte(`{"id": "q", "retrieved": ["c"], "claims": [{"claim_id": "c1", "text": "t", "evidence": [{"chunk_id": "c", "quote": "t"}]}], "abstained": false, "usage": {"calls": 1, "cost_usd": 0.5}}` + "\n"))
	f.Add([]byte("{\"id\": \"q\", \"usage\": {\"calls\": -1}}\n{\"id\": \"q\"}\n{\"id\": \"q\"}\ngarbage"))
	f.Fuzz(func(t *testing.T, in []byte) {
		as, err := eval.ParseAnswers(bytes.NewReader(in))
		if err != nil {
			return
		}
		for id, a := range as.ByID {
			if a.ID != id || strings.TrimSpace(id) == "" {
				t.Errorf("answer %q under %q", a.ID, id)
			}
			if u := a.Usage; u != nil && (u.Calls < 0 || u.CostUSD < 0) {
				t.Errorf("negative usage accepted: %+v", u)
			}
		}
	})
}

// FuzzParseThresholds: any thresholds file parses to known metrics with
// consistent bounds, or is an error, never a panic.
func FuzzParseThresholds(f *testing.F) {
	f.Add([]byte(`{"metrics": {"citation_support_rate": {"min": 0.95}, "answers_blocked": {"max": 0}}}`))
	f.Add([]byte(`{"metrics": {"mrr": {"min": 2, "max": 1}}}`))
	known := map[string]bool{}
	for _, m := range eval.Metrics {
		known[m] = true
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		th, err := eval.ParseThresholds(in)
		if err != nil {
			return
		}
		for name, b := range th.Metrics {
			if !known[name] || b.Min == nil && b.Max == nil || b.Min != nil && b.Max != nil && *b.Min > *b.Max {
				t.Errorf("accepted %s: %+v", name, b)
			}
		}
	})
}
