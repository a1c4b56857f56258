package verify_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// rewordings turn a sentence into a claim that says the same: the
// sentence itself, attributed, with a modal synonym, with contractions.
var rewordings = []struct {
	name string
	do   func(string) string
}{
	{"itself", func(s string) string { return s }},
	{"attributed", func(s string) string { return "According to the source, " + s }},
	{"modal synonym", func(s string) string {
		return strings.NewReplacer(" must ", " shall ", " shall ", " must ", " is required to ", " must ").Replace(s)
	}},
	{"weaker modal", func(s string) string { // "may" is implied by "must": never more than the source says
		return strings.NewReplacer(" must ", " may ", " shall ", " may ").Replace(s)
	}},
	{"contraction", func(s string) string {
		return strings.NewReplacer(" does not ", " doesn't ", " is not ", " isn't ", " cannot ", " can't ", " do not ", " don't ").Replace(s)
	}},
}

// TestSelfConsistency: on real documents, a claim that is its own quote,
// or a light rewording of it, is never blocked, removed or sent to
// clarify: precision before recall. Every sentence of every chunk of the
// sample corpus and of ../shared/corpus/text (when present) is tried.
func TestSelfConsistency(t *testing.T) {
	dirs := []string{}
	if d, err := corpus.SampleDir(); err == nil {
		dirs = append(dirs, d)
	}
	if d, ok := corpus.Shared("text"); ok {
		dirs = append(dirs, d)
	} else {
		t.Log("../shared/corpus/text absent: the sample corpus only")
	}
	db := storetest.Open(t)
	var paths []string
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); (ext == ".md" || ext == ".txt" || ext == ".html") && !strings.HasSuffix(e.Name(), ".pdftotext.txt") {
				paths = append(paths, filepath.Join(d, e.Name()))
			}
		}
	}
	// Real PDFs too: a legal notice, an essay, a multi-column paper.
	if d, ok := corpus.Shared("pdf"); ok {
		for _, name := range []string{"gh-pdfminer__dmca.pdf", "gh-pdfcpu__Walden.pdf", "gh-pypdfsamples__multicolumn.pdf",
			"gh-pypdfsamples__crazyones-pdfa.pdf"} {
			paths = append(paths, filepath.Join(d, name))
		}
	}
	sum, err := ingest.Run(context.Background(), db, paths, ingest.Options{Chunk: ingest.ChunkOptions{Size: 1000, Overlap: 100}, PDF: ingest.PDFLimits{Worker: pdfWorker}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results { // a file that fails would leave its sentences untried
		if r.Status == ingest.Failed {
			t.Errorf("%s: %s: %s", r.Path, r.Reason, r.Error)
		}
	}
	type item struct{ chunk, sentence string }
	var items []item
	err = db.View(func(tx *store.Tx) error {
		return tx.ForEachVersion(func(v *store.Version) error {
			n := 0
			return tx.ForEachChunk(v, func(c *store.Chunk) error {
				if c.Quarantine != nil || n >= 400 {
					return nil
				}
				span, err := tx.Span(v, c)
				if err != nil {
					return err
				}
				for _, s := range claimSentences(string(span)) {
					items = append(items, item{c.ID(), s})
					n++
				}
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := 20 + 180*len(dirs[1:]); len(items) < want { // the shared corpus brings hundreds more
		t.Fatalf("only %d sentences to try, want at least %d", len(items), want)
	}
	pol := verify.DefaultPolicy()
	tried, blocked := 0, 0
	for _, rw := range rewordings {
		for i, it := range items {
			claim := rw.do(it.sentence)
			if rw.name != "itself" && claim == it.sentence {
				continue
			}
			req := &verify.Request{RequestID: "self", Retrieved: []string{it.chunk}, Claims: []verify.Claim{{
				ClaimID: fmt.Sprint(i), Text: claim, Evidence: []verify.Evidence{{ChunkID: it.chunk, Quote: it.sentence}}}}}
			rep, err := verify.Check(context.Background(), db, req, pol)
			if err != nil {
				t.Fatal(err)
			}
			tried++
			if cr := rep.Claims[0]; cr.Disposition != verify.Accept {
				blocked++
				if blocked <= 20 {
					t.Errorf("%s: claim %q blocked: %s %s %v %v %v %+v", rw.name, claim, cr.Status, cr.Disposition, cr.Reasons, cr.Findings, cr.MissingFigures, cr.Evidence[0].Reasons)
				}
			}
		}
	}
	t.Logf("%d claims from %d sentences, %d blocked", tried, len(items), blocked)
	if blocked > 0 {
		t.Errorf("%d of %d self-consistent claims blocked", blocked, tried)
	}
}

// claimSentences returns the sentences of a chunk that make a claim: six
// to sixty words, one line of prose, no page break.
func claimSentences(chunk string) []string {
	var out []string
	for _, s := range strings.SplitAfter(chunk, ". ") {
		s = strings.TrimSpace(s)
		words := strings.Fields(s)
		if len(words) < 6 || len(words) > 60 || strings.ContainsAny(s, "\f|#`<>*") || !utf8.ValidString(s) {
			continue
		}
		out = append(out, strings.Join(words, " ")) // a PDF's line breaks, as an answer would quote them
	}
	return out
}
