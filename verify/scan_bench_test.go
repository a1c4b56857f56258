package verify

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/resolve/match"
)

// scanSample is 200-code-point passages of the generated finance text, the
// claims and spans the 10-claim benchmark checks.
func scanSample(b *testing.B) []string {
	doc := string(corpus.Markdown(11, 64<<10))
	var out []string
	for i := 1000; i+200 < len(doc) && len(out) < 64; i += 997 {
		out = append(out, doc[i:i+200])
	}
	return out
}

func BenchmarkFigures(b *testing.B) {
	texts := scanSample(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Figures(texts[i%len(texts)])
	}
}

func BenchmarkQualifiers(b *testing.B) {
	texts := scanSample(b)
	c := checker{pol: DefaultPolicy()}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.checkQualifiers(texts[i%len(texts)], texts[(i+1)%len(texts)])
	}
}

func BenchmarkFindQuote(b *testing.B) {
	doc := string(corpus.Markdown(11, 64<<10))
	type pair struct {
		chunk, quote string
		at           int
	}
	var pairs []pair
	for i := 1000; i+1000 < len(doc) && len(pairs) < 32; i += 1993 {
		chunk := doc[i : i+1000]
		pairs = append(pairs, pair{chunk, chunk[400:600], utf8.RuneCountInString(chunk[:400])})
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p := pairs[i%len(pairs)]
		if m, _, _ := match.Locate(p.chunk, p.quote, match.Options{}); m.Start != p.at {
			b.Fatal(m)
		}
	}
}

// BenchmarkMeaningCheck: the full meaning checks of one paraphrased claim
// against the sentence its quote matched (no shortcut: the claim is no
// part of the sentence), and of one that restates it (the shortcut).
func BenchmarkMeaningCheck(b *testing.B) {
	sentence := "For the avoidance of doubt, the Borrower shall not prepay the Term Loan before 2026-06-30, unless the Agent consents in writing."
	for _, bc := range []struct{ name, claim string }{
		{"paraphrase", "The Borrower may not repay the Term Loan early, before 30 June 2026, without the Agent's written consent."},
		{"restated", "the Borrower shall not prepay the Term Loan before 2026-06-30"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			at := max(0, strings.Index(sentence, bc.claim))
			ev := []meaningEvidence{{context: sentence, spanFrom: at, spanTo: at + len(bc.claim), chunk: sentence}}
			var m meaningScanner
			b.ReportAllocs()
			for b.Loop() {
				m.check(bc.claim, ev)
			}
		})
	}
}
