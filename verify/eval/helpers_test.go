package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify/eval"
)

// testStore is the sample corpus in a test store (checked at cleanup),
// with two more documents: board-minutes.md, readable by
// board@example.com only, and rates.md, ingested twice so that its first
// version is superseded.
type testStore struct {
	db         *store.DB
	chunks     []resolve.ChunkRecord // servable chunks of current versions
	superseded string                // the chunk of rates.md's first version
}

func newTestStore(t testing.TB) *testStore {
	t.Helper()
	db := storetest.Open(t)
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := ingest.Run(ctx, db, []string{sample}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := ingest.Run(ctx, db, []string{write("board-minutes.md", "# Board minutes\n\nThe board approved a dividend of EUR 0.42 per share for 2024.\n")},
		ingest.Options{ID: "board-minutes.md", ACL: []string{"board@example.com"}}); err != nil {
		t.Fatal(err)
	}
	ts := &testStore{db: db}
	rates := write("rates.md", "# Rates\n\nThe mileage rate is EUR 0.28 per kilometre.\n")
	if _, err := ingest.Run(ctx, db, []string{rates}, ingest.Options{ID: "rates.md"}); err != nil {
		t.Fatal(err)
	}
	ts.superseded = ts.load(t, "rates.md")
	write("rates.md", "# Rates\n\nThe mileage rate is EUR 0.30 per kilometre.\n")
	if _, err := ingest.Run(ctx, db, []string{rates}, ingest.Options{ID: "rates.md"}); err != nil {
		t.Fatal(err)
	}
	ts.chunks = nil
	ts.load(t, "")
	return ts
}

// load reads the servable chunks of current versions and returns the
// first chunk id of docID ("" for none).
func (ts *testStore) load(t testing.TB, docID string) string {
	t.Helper()
	first := ""
	err := ts.db.View(func(tx *store.Tx) error {
		return tx.ForEachDocument(func(d *store.Document) error {
			v, err := tx.Version(d.Current)
			if err != nil {
				return err
			}
			return resolve.Export(tx, v, d, func(c *resolve.ChunkRecord) error {
				ts.chunks = append(ts.chunks, *c)
				if c.DocumentID == docID && first == "" {
					first = c.ChunkID
				}
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return first
}

// holding returns the first chunk of docID whose text holds text.
func (ts *testStore) holding(t testing.TB, docID, text string) string {
	t.Helper()
	for _, c := range ts.chunks {
		if c.DocumentID == docID && strings.Contains(c.Text, text) {
			return c.ChunkID
		}
	}
	t.Fatalf("no chunk of %s holds %q", docID, text)
	return ""
}

// run evaluates recorded answers.
func (ts *testStore) run(t testing.TB, g *eval.Golden, answers map[string]*eval.Answer, mod func(*eval.Config)) *eval.Record {
	t.Helper()
	cfg := eval.Config{Golden: g, GoldenFile: eval.FileInfo{Path: "golden.jsonl"}, DB: ts.db, RunID: "test-run",
		Answers: &eval.Answers{ByID: answers, Bad: map[string]string{}},
		Source:  eval.Source{Mode: "answers", Answers: &eval.FileInfo{Path: "answers.jsonl"}}}
	if mod != nil {
		mod(&cfg)
	}
	rec, err := eval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func parseGolden(t testing.TB, lines string) *eval.Golden {
	t.Helper()
	g, err := eval.ParseGolden(strings.NewReader(lines))
	if err != nil {
		t.Fatal(err)
	}
	return g
}
