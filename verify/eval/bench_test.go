package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

// BenchmarkEvalOverhead measures what the harness itself costs a question
// (golden set, evidence resolution, verification, scoring, the record),
// with an in-process generator that answers at once: the demo golden set
// over the sample corpus, each answerable question answered with its
// expected passage quoted and cited, the others declined. "probe" also
// plans and judges two probes for each of 6 answers.
func BenchmarkEvalOverhead(b *testing.B) {
	root, err := corpus.Root()
	if err != nil {
		b.Fatal(err)
	}
	db := storetest.Open(b)
	if _, err := ingest.Run(context.Background(), db, []string{filepath.Join(root, "corpus", "sample")}, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "corpus", "eval", "golden.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	g, err := eval.ParseGolden(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	answers := cannedAnswers(b, db, g)
	gen := eval.GeneratorFunc(func(_ context.Context, r *eval.Request) (*eval.Answer, error) {
		a := *answers[r.ID[:len(r.ID)-len(probeSuffix(r.ID))]]
		a.ID = r.ID
		return &a, nil
	})
	for _, probe := range []int{0, 6} {
		name := "questions"
		if probe > 0 {
			name = "probe"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec, err := eval.Run(context.Background(), eval.Config{Golden: g, DB: db, Generator: gen, Probe: probe})
				if err != nil || rec.Statuses[eval.StatusError] > 0 {
					b.Fatalf("%v %v", err, rec.Statuses)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(g.Questions)), "µs/question")
		})
	}
}

// probeSuffix is the "/probe/N" of a probe's request id.
func probeSuffix(id string) string {
	for i := 0; i+len("/probe/") <= len(id); i++ {
		if id[i:i+len("/probe/")] == "/probe/" {
			return id[i:]
		}
	}
	return ""
}

// cannedAnswers answers every answerable question with the first sentence
// of its expected passage, quoted from the chunk that holds it.
func cannedAnswers(b *testing.B, db *store.DB, g *eval.Golden) map[string]*eval.Answer {
	out := map[string]*eval.Answer{}
	err := db.View(func(tx *store.Tx) error {
		for i := range g.Questions {
			q := &g.Questions[i]
			if !q.Answerable {
				out[q.ID] = &eval.Answer{ID: q.ID, Retrieved: []string{}, Abstained: true}
				continue
			}
			ev, problem, err := eval.ResolveEvidence(tx, q)
			if err != nil || problem != "" {
				b.Fatalf("%s: %v %s", q.ID, err, problem)
			}
			c := ev[0].ChunkIDs[0]
			quote := q.ExpectedEvidence[0].Quote
			out[q.ID] = &eval.Answer{ID: q.ID, Retrieved: []string{c}, Answer: quote + " [" + c + "]",
				Claims: []verify.Claim{{ClaimID: "c1", Text: quote, Evidence: []verify.Evidence{{ChunkID: c, Quote: quote}}}}}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}
