package verify

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzMeaning feeds the meaning checks any claim and any evidence, with the
// span anywhere in it: they never panic, every finding quotes words that
// are in the texts, tokens stay inside their text and in order, and the
// shortcut for a restated claim never hides a finding.
func FuzzMeaning(f *testing.F) {
	for _, tc := range meaningCases {
		f.Add(tc.claim, tc.evidence, 0, len(tc.evidence))
	}
	f.Add("The Insured may not cancel", "the Insurer’s right to cancel isn't the Insured's, unless… N.A., (the \"Agent\")", 3, 20)
	f.Add("", "\f\n\n- not\n| only", 0, 1)
	f.Fuzz(func(t *testing.T, claim, evidence string, from, to int) {
		if len(claim) > 4096 || len(evidence) > 8192 {
			return
		}
		from, to = clamp(from, len(evidence)), clamp(to, len(evidence))
		if from > to {
			from, to = to, from
		}
		ev := meaningContext(evidence, from, to, &EvidenceReport{SectionPath: []string{"Section"}, DocumentID: "doc"})
		var m meaningScanner
		res := m.checkAll(claim, []meaningEvidence{ev})
		for _, fd := range res.findings {
			if fd.Claim != "" && !strings.Contains(claim, fd.Claim) && fd.Check != "modality" && fd.Check != "direction" {
				t.Errorf("finding %q quotes claim words %q not in the claim", fd.Message, fd.Claim)
			}
			if fd.Reason == "" || fd.Message == "" {
				t.Errorf("finding without reason or message: %+v", fd)
			}
		}
		if restates(claim, []meaningEvidence{ev}) && len(res.findings) > 0 {
			t.Errorf("restates(%q) in %q, but the checks find %s", claim, ev.context, res.findings[0].Message)
		}
		// The cached sentence reads as the sentence scanned afresh.
		if a, b := restatesIn(claim, []meaningEvidence{ev}, true), restatesIn(claim, []meaningEvidence{ev}, false); a != b {
			t.Errorf("restates(%q) in %q: %v from the cached scan, %v scanning", claim, ev.context, a, b)
		}
		// A cached scan is left as it was by the checks that read it: the
		// same claim, after another claim on the same sentence, finds the same.
		m.checkAll(ev.context[ev.spanFrom:ev.spanTo]+" not", []meaningEvidence{ev})
		if again := m.checkAll(claim, []meaningEvidence{ev}); !reflect.DeepEqual(again.findings, res.findings) {
			t.Errorf("claim %q on %q: %v first, %v from the cached scan", claim, ev.context, res.findings, again.findings)
		}
		var tx mtext
		tx.scan(evidence)
		last := 0
		for _, tok := range tx.toks {
			if tok.start < last || tok.end < tok.start || tok.end > len(evidence) {
				t.Fatalf("token %+v out of order or range (last end %d, text %d bytes)", tok, last, len(evidence))
			}
			last = tok.start
		}
		for _, c := range tx.clauses {
			if c.from > c.to || c.to > len(tx.toks) {
				t.Fatalf("clause %+v out of range", c)
			}
		}
	})
}

func clamp(i, n int) int {
	if i < 0 {
		i = -i
	}
	if n == 0 {
		return 0
	}
	return i % (n + 1)
}
