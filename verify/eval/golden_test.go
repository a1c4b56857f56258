package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/verify/eval"
)

// TestParseGolden: good lines become questions; every bad line is kept
// with its line number and a reason naming what is wrong, and the rest is
// read on.
func TestParseGolden(t *testing.T) {
	in := strings.Join([]string{
		`{"id": "a", "question": "Q?", "split": "test", "answerable": true, "expected_values": ["EUR 25"], "expected_evidence": [{"document_id": "d", "quote": "q"}], "risk": "high", "tags": ["x"], "principal": "p"}`,
		``,
		`{"id": "b", "question": "Q?", "split": "dev", "answerable": false}`,
		`not json`,
		`{"id": "c", "question": "Q?", "split": "prod", "answerable": true}`,
		`{"id": "d", "question": "Q?", "split": "test"}`,
		`{"id": "e", "question": "Q?", "split": "test", "answerable": false, "expected_values": ["1"]}`,
		`{"id": "f", "question": "Q?", "split": "test", "answerable": true, "colour": "red"}`,
		`{"id": "a", "question": "again", "split": "test", "answerable": true}`,
		`{"id": "g", "question": "Q?", "split": "test", "answerable": true, "risk": "extreme"}`,
		`{"id": "h", "question": " ", "split": "test", "answerable": true}`,
		`{"id": "i/j", "question": "Q?", "split": "test", "answerable": true}`,
		`{"id": "k", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "d"}]}`,
		`{"id": "l", "question": "Q?", "split": "test", "answerable": true} {"id": "m"}`,
		"{\"id\": \"n\", \"question\": \"\xff\", \"split\": \"test\", \"answerable\": true}",
		`{"question": "Q?", "split": "test", "answerable": true}`,
	}, "\n")
	g, err := eval.ParseGolden(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range g.Questions {
		ids = append(ids, q.ID)
	}
	if !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("questions %v, want [a b]", ids)
	}
	if q := g.Questions[0]; !q.Answerable || q.Risk != "high" || q.Principal != "p" || len(q.ExpectedEvidence) != 1 {
		t.Errorf("question a read as %+v", q)
	}
	want := []struct {
		line int
		id   string
		has  string
	}{
		{4, "", "not a question"},
		{5, "c", `split "prod"`},
		{6, "d", "missing answerable"},
		{7, "e", "unanswerable question expects no values"},
		{8, "f", `unknown field "colour"`},
		{9, "a", "given on line 1 already"},
		{10, "g", `risk "extreme"`},
		{11, "h", "missing question"},
		{12, "i/j", "without /"},
		{13, "k", "needs a document_id and a quote"},
		{14, "l", "more than one JSON value"},
		{15, "n", "UTF-8"},
		{16, "", "missing id"},
	}
	if len(g.Invalid) != len(want) {
		t.Fatalf("got %d invalid lines, want %d: %+v", len(g.Invalid), len(want), g.Invalid)
	}
	for i, w := range want {
		got := g.Invalid[i]
		if got.Line != w.line || got.ID != w.id || !strings.Contains(got.Reason, w.has) {
			t.Errorf("invalid[%d] = %+v, want line %d, id %q, a reason holding %q", i, got, w.line, w.id, w.has)
		}
	}
	if _, err := eval.ParseGolden(strings.NewReader("\n\n")); err == nil {
		t.Error("a golden set without questions parsed")
	}
	long := `{"id": "x", "question": "` + strings.Repeat("a", eval.MaxGoldenLine) + `", "split": "test", "answerable": true}` + "\n" +
		`{"id": "y", "question": "Q?", "split": "test", "answerable": true}`
	g, err = eval.ParseGolden(strings.NewReader(long))
	if err != nil || len(g.Questions) != 1 || len(g.Invalid) != 1 || !strings.Contains(g.Invalid[0].Reason, "longer than") {
		t.Errorf("a too-long line: %v, %+v", err, g)
	}
}

// TestGoldenSchema: docs/golden.schema.json names exactly the fields
// ParseGolden reads, requires what it requires, and the demo golden set
// is valid, with both splits and both kinds of question.
func TestGoldenSchema(t *testing.T) {
	root, err := corpus.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "golden.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	var fields []string
	typ := reflect.TypeOf(eval.Question{})
	for i := range typ.NumField() {
		fields = append(fields, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	var props []string
	for p := range schema.Properties {
		props = append(props, p)
	}
	slices.Sort(fields)
	slices.Sort(props)
	if !slices.Equal(fields, props) {
		t.Errorf("schema properties %v, Question fields %v", props, fields)
	}
	if r := slices.Sorted(slices.Values(schema.Required)); !slices.Equal(r, []string{"answerable", "id", "question", "split"}) {
		t.Errorf("schema requires %v", r)
	}
	f, err := os.Open(filepath.Join(root, "corpus", "eval", "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := eval.ParseGolden(f)
	if err != nil || len(g.Invalid) > 0 {
		t.Fatalf("demo golden set: %v %+v", err, g.Invalid)
	}
	kinds := map[string]bool{}
	for _, q := range g.Questions {
		kinds[q.Split+map[bool]string{true: "/answerable", false: "/unanswerable"}[q.Answerable]] = true
	}
	if len(kinds) != 4 {
		t.Errorf("demo golden set has %v, want answerable and unanswerable questions in both splits", kinds)
	}
}

// TestUnresolvedEvidence: expected evidence that does not resolve (an
// unknown document, a quote not in the current version, one that matches
// only fuzzily with a changed figure, one that matches twice, a document
// the principal may not read) makes its
// question invalid with the reason, reported before anything runs; the
// other questions run.
func TestUnresolvedEvidence(t *testing.T) {
	ts := newTestStore(t)
	g := parseGolden(t, `{"id": "ok", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "expense-policy.md", "quote": "`+expenseQuote+`"}]}
{"id": "nodoc", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "nope.md", "quote": "x"}]}
{"id": "gone", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "expense-policy.md", "quote": "within 15 calendar days of the end of the trip"}]}
{"id": "absent", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "expense-policy.md", "quote": "Dogs are welcome in the office on Fridays"}]}
{"id": "twice", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "expense-policy.md", "quote": "14 calendar days"}]}
{"id": "hidden", "question": "Q?", "split": "test", "answerable": true, "expected_evidence": [{"document_id": "board-minutes.md", "quote": "dividend of EUR 0.42"}]}
`)
	var reported []string
	asked := 0
	rec := ts.run(t, g, map[string]*eval.Answer{}, func(cfg *eval.Config) {
		cfg.Answers = nil
		cfg.Generator = eval.GeneratorFunc(func(_ context.Context, r *eval.Request) (*eval.Answer, error) {
			if len(reported) != 5 {
				t.Errorf("question %s asked before every unresolved passage was reported (%v)", r.ID, reported)
			}
			asked++
			return &eval.Answer{ID: r.ID, Abstained: true}, nil
		})
		cfg.Invalid = func(q eval.QuestionResult) { reported = append(reported, q.ID+": "+q.Reason) }
	})
	if asked != 1 || rec.Question("ok").Status != eval.StatusAbstained {
		t.Errorf("asked %d questions, ok is %s; want only ok asked", asked, rec.Question("ok").Status)
	}
	for id, has := range map[string]string{"nodoc": "no such document", "absent": "not in its current version",
		"gone": "only fuzzily, with other figures", "twice": "matches 2 places",
		"hidden": "may not read"} {
		q := rec.Question(id)
		if q.Status != eval.StatusInvalid || !strings.HasPrefix(q.Reason, eval.ReasonEvidenceUnresolved) || !strings.Contains(q.Reason, has) {
			t.Errorf("%s: %s %q, want invalid, evidence_unresolved, %q", id, q.Status, q.Reason, has)
		}
	}
	if e := rec.Splits[eval.SplitTest].Errors[eval.ReasonEvidenceUnresolved]; e != 5 {
		t.Errorf("errors counted: %v", rec.Splits[eval.SplitTest].Errors)
	}
	ev := rec.Question("ok").ExpectedEvidence[0]
	if ev.DocumentVersion == "" || len(ev.ChunkIDs) == 0 || ev.Match != "exact" || ev.SourceEnd-ev.SourceStart != len([]rune(expenseQuote)) {
		t.Errorf("resolved evidence %+v", ev)
	}
	if !slices.ContainsFunc(rec.Versions, func(v eval.CitedVersion) bool { return v.DocumentVersion == ev.DocumentVersion }) {
		t.Errorf("the record does not pin the expected evidence's version: %+v", rec.Versions)
	}
}
