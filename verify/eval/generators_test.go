package eval_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify/eval"
)

// demo is the sample corpus in a store, its chunks exported as
// `evidence chunks` writes them, and the paths of corpus/eval.
type demo struct {
	db                  *store.DB
	chunks, dir, python string
}

func newDemo(t *testing.T) *demo {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the example generators of corpus/eval are not tested (CI installs it)")
	}
	root, err := corpus.Root()
	if err != nil {
		t.Fatal(err)
	}
	d := &demo{db: storetest.Open(t), dir: filepath.Join(root, "corpus", "eval"), python: python}
	if _, err := ingest.Run(context.Background(), d.db, []string{filepath.Join(root, "corpus", "sample")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	d.chunks = filepath.Join(t.TempDir(), "chunks.jsonl")
	f, err := os.Create(d.chunks)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	err = d.db.View(func(tx *store.Tx) error {
		return tx.ForEachDocument(func(doc *store.Document) error {
			v, err := tx.Version(doc.Current)
			if err != nil {
				return err
			}
			return resolve.Export(tx, v, doc, func(c *resolve.ChunkRecord) error { return enc.Encode(c) })
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *demo) golden(t *testing.T) (*eval.Golden, eval.FileInfo) {
	path := filepath.Join(d.dir, "golden.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := eval.ParseGolden(f)
	if err != nil {
		t.Fatal(err)
	}
	return g, eval.FileInfo{Path: path}
}

func (d *demo) run(t *testing.T, argv ...string) *eval.Record {
	t.Helper()
	g, info := d.golden(t)
	p := eval.NewProcess(append([]string{d.python}, argv...), 2, 30*time.Second)
	defer p.Close()
	rec, err := eval.Run(context.Background(), eval.Config{Golden: g, GoldenFile: info, DB: d.db, Generator: p, Parallel: 2, Probe: 6,
		Source: eval.Source{Mode: "live", Generator: strings.Join(argv, " ")}})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestDemoGenerator: the deterministic BM25 generator of corpus/eval over
// the sample corpus passes the demo thresholds, and its probes find its
// citations drive its answers; with --memory it fails them, its probes
// find decoration and memory, and against the extractive run as baseline
// the questions it answered from memory regress.
func TestDemoGenerator(t *testing.T) {
	d := newDemo(t)
	th, err := eval.LoadThresholds(filepath.Join(d.dir, "thresholds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(d.dir, "bm25_generator.py")
	extractive := d.run(t, gen, "--chunks", d.chunks)
	if g := eval.Gate(extractive, th, nil, eval.GateOptions{}); !g.Pass {
		t.Errorf("extractive run fails the demo gate: %+v", g)
	}
	probes := 0
	for _, q := range extractive.Questions {
		if q.Status == eval.StatusError || q.Status == eval.StatusInvalid {
			t.Errorf("%s: %s %s", q.ID, q.Status, q.Reason)
		}
		for _, p := range q.Probes {
			probes++
			if p.Outcome == eval.OutcomeDecoration || p.Outcome == eval.OutcomeMemory || p.Outcome == eval.OutcomeError {
				t.Errorf("extractive %s: %s probe %s: %s", q.ID, p.Kind, p.Outcome, p.Detail)
			}
		}
	}
	if probes < 6 {
		t.Errorf("%d probes ran, want two for each of 6 answers", probes)
	}

	memory := d.run(t, gen, "--chunks", d.chunks, "--memory")
	g := eval.Gate(memory, th, extractive, eval.GateOptions{})
	if g.Pass {
		t.Error("the memory generator passes the demo gate")
	}
	m := memory.Splits[eval.SplitTest].Metrics
	if m[eval.MetricProbeDecorationRate] == 0 || m[eval.MetricProbeMemoryRate] == 0 || m[eval.MetricUnanswerableDeclinedRate] != 0 {
		t.Errorf("memory run: decoration %v, memory %v, unanswerable declined %v", m[eval.MetricProbeDecorationRate],
			m[eval.MetricProbeMemoryRate], m[eval.MetricUnanswerableDeclinedRate])
	}
	regressed := map[string][]string{}
	for _, r := range g.Regressions {
		for _, c := range r.Changes {
			regressed[r.ID] = append(regressed[r.ID], c.What)
		}
	}
	for id, what := range map[string]string{
		"term-loan-size":   eval.MetricProbeMemoryRate,  // remembered right, but from memory
		"commitment-fee":   eval.MetricValueCorrectRate, // remembered the fee before the amendment
		"parental-leave":   eval.MetricUnanswerableDeclinedRate,
		"expense-deadline": "disposition",
	} {
		if !slices.Contains(regressed[id], what) {
			t.Errorf("%s regressed in %v, want %s among them", id, regressed[id], what)
		}
	}
}

// TestOpenAIGenerator: the OpenAI-compatible example generator against a
// fake chat completions server: the request it sends (model, temperature
// 0, bearer key, the passages), an answer that verifies, a declined one,
// the cost from the tokens the server reports, and a server error
// recorded against its question while the run goes on.
func TestOpenAIGenerator(t *testing.T) {
	d := newDemo(t)
	passage := regexp.MustCompile(`(?m)^\[([0-9a-f]{32}-\d+)\]\n`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model       string  `json:"model"`
			Temperature float64 `json:"temperature"`
			Messages    []struct {
				Role, Content string
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" ||
			json.Unmarshal(b, &body) != nil || body.Model != "fake-model" || body.Temperature != 0 || len(body.Messages) != 2 {
			http.Error(w, "unexpected request: "+r.URL.Path+" "+string(b), http.StatusBadRequest)
			return
		}
		user := body.Messages[1].Content
		question, _, _ := strings.Cut(user, "\n")
		if strings.Contains(question, "dogs") {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		reply := map[string]any{"abstained": true, "claims": []any{}}
		if strings.Contains(question, "expense reports") {
			for _, m := range passage.FindAllStringSubmatchIndex(user, -1) {
				id := user[m[2]:m[3]]
				if i := strings.Index(user[m[1]:], expenseQuote); i >= 0 && !strings.Contains(user[m[1]:m[1]+i], "\n[") {
					reply = map[string]any{"abstained": false, "claims": []any{map[string]string{"text": expenseQuote + ".", "chunk_id": id, "quote": expenseQuote}}}
					break
				}
			}
		}
		content, _ := json.Marshal(reply)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]int{"prompt_tokens": 1000, "completion_tokens": 100},
		})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "test-key")
	g := parseGolden(t, `{"id": "expense-deadline", "question": "Within how many days must expense reports be submitted?", "split": "test", "answerable": true, "expected_values": ["14 calendar days"]}
{"id": "parental-leave", "question": "How many weeks of parental leave do employees get?", "split": "test", "answerable": false}
{"id": "office-dogs", "question": "Are dogs allowed in the office?", "split": "test", "answerable": false}
`)
	p := eval.NewProcess([]string{d.python, filepath.Join(d.dir, "openai_generator.py"), "--chunks", d.chunks, "--base-url", srv.URL + "/v1",
		"--model", "fake-model", "--price-in", "1", "--price-out", "2"}, 1, 30*time.Second)
	defer p.Close()
	rec, err := eval.Run(context.Background(), eval.Config{Golden: g, DB: d.db, Generator: p})
	if err != nil {
		t.Fatal(err)
	}
	q := rec.Question("expense-deadline")
	if q.Status != eval.StatusAnswered || q.Disposition != "accept" || q.Metrics[eval.MetricValueCorrectRate] != 1 {
		t.Errorf("expense-deadline: %s %s %s, values missing %v, answer %+v", q.Status, q.Disposition, q.Reason, q.ValuesMissing, q.Answer)
	}
	if q := rec.Question("parental-leave"); q.Status != eval.StatusAbstained {
		t.Errorf("parental-leave: %s %s", q.Status, q.Reason)
	}
	if q := rec.Question("office-dogs"); q.Status != eval.StatusError || !strings.HasPrefix(q.Reason, eval.ReasonGeneratorError+": chat endpoint: HTTPError") {
		t.Errorf("office-dogs: %s %q, want a generator_error from the chat endpoint", q.Status, q.Reason)
	}
	// Two answered calls of 1000 prompt tokens at $1/M and 100 completion tokens at $2/M.
	if b := rec.Budget; b.Calls != 3 || b.CostUSD < 0.0024-1e-9 || b.CostUSD > 0.0024+1e-9 {
		t.Errorf("spent %d calls, $%v; want 3 calls, $0.0024", b.Calls, b.CostUSD)
	}
}
