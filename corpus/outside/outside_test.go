package outside_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// outsideCase is one line of cases.jsonl: a claim written against a real
// passage, the needle that finds the cited chunk, and its label.
type outsideCase struct {
	ID        string  `json:"id"`
	Doc       string  `json:"doc"`    // document id: the path under ../shared/corpus
	Needle    string  `json:"needle"` // text of the cited chunk, compared with white space collapsed
	Claim     string  `json:"claim"`
	Quote     *string `json:"quote,omitempty"`
	Label     string  `json:"label"`                // correct or wrong
	WrongKind string  `json:"wrong_kind,omitempty"` // what is wrong, for wrong claims
	Note      string  `json:"note"`
	// Probe marks a case written after the first run, to check a pattern
	// that run showed; probes are listed apart and kept out of the table.
	Probe bool `json:"probe,omitempty"`
}

// maxFalseBlocks is the number of correct claims the verifier may block
// or remove: 13 when the cases were first run, none since the fixes of
// README.md's second table. The test fails when it grows: a correct claim
// newly blocked is a regression.
const maxFalseBlocks = 0

// maxFalseBlocksHeldout2 is the same bound for heldout2.jsonl, a second
// held-out set written by another outside tester: the number of its
// correct claims blocked or removed at its first run, 11 (README.md).
const maxFalseBlocksHeldout2 = 1

// maxFalseBlocksHeldout3 is the same bound for heldout3.jsonl, a third
// held-out set written by another outside tester: the number of its
// correct claims blocked or removed at its first run, 6 (README.md).
const maxFalseBlocksHeldout3 = 1

// maxFalseBlocksHeldout4 is the same bound for heldout4.jsonl, a fourth
// held-out set written by another outside tester: 26 at its first run, 2
// since "0 to 1" reads as a range (README.md).
const maxFalseBlocksHeldout4 = 2

// maxFalseBlocksHeldout5 is the same bound for heldout5.jsonl, a fifth
// held-out set written by another outside tester: 4 at its first run, 0
// since it was tuned on, after sets 6 and 7 (README.md).
const maxFalseBlocksHeldout5 = 0

// maxFalseBlocksHeldout6 is the same bound for heldout6.jsonl, a sixth
// held-out set written by another outside tester: 3 at its first run, 0
// since the fixes it showed (README.md).
const maxFalseBlocksHeldout6 = 0

// maxFalseBlocksHeldout7 is the same bound for heldout7.jsonl, a seventh
// held-out set written by another outside tester: 10 at its first run, 1
// since the fixes it showed (x064, whose cited chunk lacks the file the
// claim names; README.md).
const maxFalseBlocksHeldout7 = 1

// maxFalseBlocksHeldout8 is the same bound for heldout8.jsonl, an eighth
// held-out set written by another outside tester: 7 at its first run, 0
// since the fixes it showed (README.md).
const maxFalseBlocksHeldout8 = 0

// maxFalseBlocksHeldout9 is the same bound for heldout9.jsonl, a ninth
// held-out set written by another outside tester: 9 at its first run, 4
// since the fixes it showed (README.md).
const maxFalseBlocksHeldout9 = 4

// maxFalseBlocksHeldout10 is the same bound for heldout10.jsonl, a tenth
// held-out set written by another outside tester: 5 at its first run, 1
// since the fixes it showed (README.md).
const maxFalseBlocksHeldout10 = 1

func readCases(t *testing.T, file string) []outsideCase {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []outsideCase
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var c outsideCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s:%d: %v", file, n, err)
		}
		switch {
		case c.ID == "" || seen[c.ID]:
			t.Fatalf("%s:%d: missing or repeated id %q", file, n, c.ID)
		case c.Label != "correct" && c.Label != "wrong":
			t.Fatalf("%s:%d (%s): label %q, want correct or wrong", file, n, c.ID, c.Label)
		case (c.Label == "wrong") != (c.WrongKind != ""):
			t.Fatalf("%s:%d (%s): wrong_kind %q does not fit label %s", file, n, c.ID, c.WrongKind, c.Label)
		case c.Doc == "" || c.Needle == "" || c.Claim == "":
			t.Fatalf("%s:%d (%s): doc, needle and claim are required", file, n, c.ID)
		}
		seen[c.ID] = true
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

type chunk struct{ id, text, flat string }

// outcome is what the verifier did with one case.
type outcome struct {
	c           outsideCase
	chunk       chunk
	disposition string
	status      string
	reasons     []string
	detail      string
}

// TestOutside verifies every case against the shared corpus and logs the
// table of README.md. It fails on a broken case (needle not found), and
// when more correct claims are blocked than maxFalseBlocks; false accepts
// of wrong claims are measured, never a failure.
func TestOutside(t *testing.T) { runOutside(t, "cases.jsonl", maxFalseBlocks) }

// TestOutsideHeldout2 is TestOutside on heldout2.jsonl, bounded by
// maxFalseBlocksHeldout2.
func TestOutsideHeldout2(t *testing.T) {
	runOutside(t, "heldout2.jsonl", maxFalseBlocksHeldout2)
}

// TestOutsideHeldout3 is TestOutside on heldout3.jsonl, bounded by
// maxFalseBlocksHeldout3.
func TestOutsideHeldout3(t *testing.T) {
	runOutside(t, "heldout3.jsonl", maxFalseBlocksHeldout3)
}

// TestOutsideHeldout4 is TestOutside on heldout4.jsonl, bounded by
// maxFalseBlocksHeldout4.
func TestOutsideHeldout4(t *testing.T) {
	runOutside(t, "heldout4.jsonl", maxFalseBlocksHeldout4)
}

// TestOutsideHeldout5 is TestOutside on heldout5.jsonl, bounded by
// maxFalseBlocksHeldout5.
func TestOutsideHeldout5(t *testing.T) {
	runOutside(t, "heldout5.jsonl", maxFalseBlocksHeldout5)
}

// TestOutsideHeldout6 is TestOutside on heldout6.jsonl, bounded by
// maxFalseBlocksHeldout6.
func TestOutsideHeldout6(t *testing.T) {
	runOutside(t, "heldout6.jsonl", maxFalseBlocksHeldout6)
}

// TestOutsideHeldout7 is TestOutside on heldout7.jsonl, bounded by
// maxFalseBlocksHeldout7.
func TestOutsideHeldout7(t *testing.T) {
	runOutside(t, "heldout7.jsonl", maxFalseBlocksHeldout7)
}

// TestOutsideHeldout8 is TestOutside on heldout8.jsonl, bounded by
// maxFalseBlocksHeldout8.
func TestOutsideHeldout8(t *testing.T) {
	runOutside(t, "heldout8.jsonl", maxFalseBlocksHeldout8)
}

// TestOutsideHeldout9 is TestOutside on heldout9.jsonl, bounded by
// maxFalseBlocksHeldout9.
func TestOutsideHeldout9(t *testing.T) {
	runOutside(t, "heldout9.jsonl", maxFalseBlocksHeldout9)
}

// TestOutsideHeldout10 is TestOutside on heldout10.jsonl, bounded by
// maxFalseBlocksHeldout10.
func TestOutsideHeldout10(t *testing.T) {
	runOutside(t, "heldout10.jsonl", maxFalseBlocksHeldout10)
}

// maxFalseBlocksHeldout11 is the same bound for heldout11.jsonl, an
// eleventh held-out set, on legal, insurance, clinical and finance
// documents its tester wrote (docs/): 20 at its first run, 8 since the
// fixes it showed, each a claim whose quote is narrower than it (README.md).
const maxFalseBlocksHeldout11 = 8

// TestOutsideHeldout11 is TestOutside on heldout11.jsonl, whose documents
// are the project's own (docs/, written for it), bounded by
// maxFalseBlocksHeldout11.
func TestOutsideHeldout11(t *testing.T) {
	runOutsideIn(t, ".", "heldout11.jsonl", maxFalseBlocksHeldout11)
}

// maxFalseBlocksHeldout12 is the same bound for heldout12.jsonl, a
// twelfth held-out set, on legal, insurance, clinical and finance
// documents its testers wrote (docs12/): 11 at its first run, 2 since the
// fixes it showed (README.md).
const maxFalseBlocksHeldout12 = 2

// TestOutsideHeldout12 is TestOutside on heldout12.jsonl, whose documents
// are the project's own (docs12/), bounded by maxFalseBlocksHeldout12.
func TestOutsideHeldout12(t *testing.T) {
	runOutsideIn(t, ".", "heldout12.jsonl", maxFalseBlocksHeldout12)
}

// maxFalseBlocksHeldout13 is the same bound for heldout13.jsonl, a
// thirteenth held-out set, on legal, insurance, clinical and finance
// documents its tester wrote (docs13/): 9 at its first run, 4 since the
// fixes it showed (README.md).
const maxFalseBlocksHeldout13 = 4

// TestOutsideHeldout13 is TestOutside on heldout13.jsonl, whose documents
// are the project's own (docs13/), bounded by maxFalseBlocksHeldout13.
func TestOutsideHeldout13(t *testing.T) {
	runOutsideIn(t, ".", "heldout13.jsonl", maxFalseBlocksHeldout13)
}

// maxFalseBlocksHeldout14 is the same bound for heldout14.jsonl, a
// fourteenth held-out set, on legal, insurance, clinical and finance
// documents its tester wrote (docs14/): 10 at its first run, 1 since the
// fixes it showed (README.md).
const maxFalseBlocksHeldout14 = 1

// TestOutsideHeldout14 is TestOutside on heldout14.jsonl, whose documents
// are the project's own (docs14/), bounded by maxFalseBlocksHeldout14.
func TestOutsideHeldout14(t *testing.T) {
	runOutsideIn(t, ".", "heldout14.jsonl", maxFalseBlocksHeldout14)
}

// maxFalseBlocksHeldout15 is the same bound for heldout15.jsonl, a
// fifteenth held-out set, on legal, insurance, clinical and finance
// documents its tester wrote (docs15/): 6 at its first run, 0 since the
// fixes it showed (README.md).
const maxFalseBlocksHeldout15 = 0

// TestOutsideHeldout15 is TestOutside on heldout15.jsonl, whose documents
// are the project's own (docs15/), bounded by maxFalseBlocksHeldout15.
func TestOutsideHeldout15(t *testing.T) {
	runOutsideIn(t, ".", "heldout15.jsonl", maxFalseBlocksHeldout15)
}

// runOutside verifies the cases of file and fails when more correct claims
// are blocked than max (a negative max bounds nothing).
func runOutside(t *testing.T, file string, max int) {
	root, ok := corpus.Shared("")
	if !ok {
		t.Skip("../shared/corpus absent: the outside cases need its real documents")
	}
	runOutsideIn(t, root, file, max)
}

// runOutsideIn is runOutside on documents under root.
func runOutsideIn(t *testing.T, root, file string, max int) {
	cases := readCases(t, file)
	docs := map[string]bool{}
	var paths []string
	for _, c := range cases {
		if !docs[c.Doc] {
			docs[c.Doc] = true
			paths = append(paths, filepath.Join(root, filepath.FromSlash(c.Doc)))
		}
	}
	sort.Strings(paths)
	db := storetest.Open(t)
	sum, err := ingest.Run(context.Background(), db, paths, ingest.Options{Base: root, Workers: 2,
		Chunk: ingest.ChunkOptions{Size: 1000, Overlap: 100}, PDF: ingest.PDFLimits{Worker: pdfWorker}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if r.Status != "ingested" {
			t.Fatalf("ingest %s: %s %s %s", r.Path, r.Status, r.Reason, r.Error)
		}
	}
	chunks := map[string][]chunk{}
	err = db.View(func(tx *store.Tx) error {
		return tx.ForEachVersion(func(v *store.Version) error {
			return tx.ForEachChunk(v, func(c *store.Chunk) error {
				if c.Quarantine != nil {
					return nil
				}
				span, err := tx.Span(v, c)
				if err != nil {
					return err
				}
				s := string(span)
				chunks[v.DocumentID] = append(chunks[v.DocumentID], chunk{c.ID(), s, collapse(s)})
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	pol := verify.DefaultPolicy()
	var outs []outcome
	for _, c := range cases {
		ch, err := cite(chunks[c.Doc], c)
		if err != nil {
			t.Errorf("%s: %v", c.ID, err)
			continue
		}
		ev := verify.Evidence{ChunkID: ch.id}
		if c.Quote != nil {
			ev.Quote = *c.Quote
		}
		req := &verify.Request{RequestID: c.ID, Retrieved: []string{ch.id},
			Claims: []verify.Claim{{ClaimID: c.ID, Text: c.Claim, Evidence: []verify.Evidence{ev}}}}
		rep, err := verify.Check(context.Background(), db, req, pol)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		cr := rep.Claims[0]
		o := outcome{c: c, chunk: ch, disposition: cr.Disposition, status: cr.Status, reasons: cr.Reasons}
		var d []string
		for _, f := range cr.Findings {
			d = append(d, f.Message)
		}
		for _, f := range cr.MissingFigures {
			d = append(d, "missing figure "+f.Kind+" "+f.Text)
		}
		for _, e := range cr.Evidence {
			if len(e.Reasons) > 0 {
				d = append(d, fmt.Sprintf("evidence %s match=%s %v", e.Status, e.Match, e.Reasons))
			}
		}
		o.detail = strings.Join(d, "; ")
		outs = append(outs, o)
	}
	if f := os.Getenv("OUTSIDE_DUMP"); f != "" {
		dump(t, f, outs) // every verdict, to compare two builds claim by claim
	}
	falseBlocks := report(t, outs)
	switch {
	case max >= 0 && falseBlocks > max:
		t.Errorf("%s: %d correct claims blocked or removed, more than the %d recorded in README.md", file, falseBlocks, max)
	case falseBlocks < max:
		t.Logf("%s: only %d false blocks now: lower its bound from %d", file, falseBlocks, max)
	}
}

// cite returns the chunk a case cites: the first of its document's chunks
// that holds the needle, and for a correct claim with a quote the first
// that holds the quote too (chunks overlap; a writer cites where the quote
// is). White space is collapsed on both sides.
func cite(chs []chunk, c outsideCase) (chunk, error) {
	needle := collapse(c.Needle)
	var cands []chunk
	for _, ch := range chs {
		if strings.Contains(ch.flat, needle) {
			cands = append(cands, ch)
		}
	}
	if len(cands) == 0 {
		return chunk{}, fmt.Errorf("needle %q is in no chunk of %s (%d chunks)", c.Needle, c.Doc, len(chs))
	}
	if c.Quote != nil {
		q := strings.ToLower(collapse(*c.Quote))
		for _, ch := range cands {
			if strings.Contains(strings.ToLower(ch.flat), q) {
				return ch, nil
			}
		}
	}
	return cands[0], nil
}

// dump appends one line per outcome to file: the case, its disposition,
// status, reasons and findings.
func dump(t *testing.T, file string, outs []outcome) {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, o := range outs {
		fmt.Fprintf(f, "%s\t%s\t%s\t%v\t%s\n", o.c.ID, o.disposition, o.status, o.reasons, o.detail)
	}
}

func blocks(disposition string) bool {
	return disposition == verify.RemoveClaim || disposition == verify.BlockClaim || disposition == verify.BlockAnswer
}

// report logs the tables and the lists of README.md and returns the
// number of false blocks.
func report(t *testing.T, outs []outcome) int {
	dispositions := []string{verify.Accept, verify.Clarify, verify.Review, verify.RemoveClaim, verify.BlockClaim, verify.BlockAnswer}
	count := map[string]map[string]int{} // label or kind -> disposition -> n
	add := func(key, d string) {
		if count[key] == nil {
			count[key] = map[string]int{}
		}
		count[key][d]++
	}
	var kinds []string
	for _, o := range outs {
		if o.c.Probe {
			continue
		}
		if o.c.Label == "correct" {
			add("correct", o.disposition)
			continue
		}
		if count[o.c.WrongKind] == nil {
			kinds = append(kinds, o.c.WrongKind)
		}
		add(o.c.WrongKind, o.disposition)
		add("wrong (all)", o.disposition)
	}
	sort.Strings(kinds)
	var b strings.Builder
	total := func(m map[string]int) (n int) {
		for _, v := range m {
			n += v
		}
		return n
	}
	fmt.Fprintf(&b, "\n| cases | n | accept | clarify | review | remove_claim | block_claim | block_answer |\n|---|---|---|---|---|---|---|---|\n")
	for _, k := range append([]string{"correct", "wrong (all)"}, kinds...) {
		fmt.Fprintf(&b, "| %s | %d |", k, total(count[k]))
		for _, d := range dispositions {
			fmt.Fprintf(&b, " %d |", count[k][d])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n| wrong_kind | n | caught | accepted (false accept) |\n|---|---|---|---|\n")
	for _, k := range append(kinds, "wrong (all)") {
		n := total(count[k])
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", k, n, n-count[k][verify.Accept], count[k][verify.Accept])
	}
	falseBlocks := 0
	b.WriteString("\nFalse blocks (correct claims removed or blocked):\n")
	for _, o := range outs {
		if !o.c.Probe && o.c.Label == "correct" && blocks(o.disposition) {
			falseBlocks++
			line(&b, o)
		}
	}
	b.WriteString("\nCorrect claims sent to clarify or review:\n")
	for _, o := range outs {
		if !o.c.Probe && o.c.Label == "correct" && (o.disposition == verify.Clarify || o.disposition == verify.Review) {
			line(&b, o)
		}
	}
	b.WriteString("\nFalse accepts (wrong claims accepted):\n")
	for _, o := range outs {
		if !o.c.Probe && o.c.Label == "wrong" && o.disposition == verify.Accept {
			line(&b, o)
		}
	}
	b.WriteString("\nWrong claims caught only by clarify:\n")
	for _, o := range outs {
		if !o.c.Probe && o.c.Label == "wrong" && o.disposition == verify.Clarify {
			line(&b, o)
		}
	}
	b.WriteString("\nProbes (written after the first run; not in the table):\n")
	for _, o := range outs {
		if o.c.Probe {
			line(&b, o)
		}
	}
	t.Log(b.String())
	if p := os.Getenv("OUTSIDE_REPORT"); p != "" { // the full outcomes, for README.md
		var all []map[string]any
		for _, o := range outs {
			all = append(all, map[string]any{"id": o.c.ID, "probe": o.c.Probe, "label": o.c.Label, "wrong_kind": o.c.WrongKind, "claim": o.c.Claim,
				"quote": o.c.Quote, "disposition": o.disposition, "status": o.status, "reasons": o.reasons, "detail": o.detail,
				"chunk": o.chunk.text})
		}
		js, _ := json.MarshalIndent(all, "", " ")
		if err := os.WriteFile(p, js, 0o644); err != nil {
			t.Error(err)
		}
	}
	return falseBlocks
}

func line(b *strings.Builder, o outcome) {
	label := o.c.Label
	if o.c.WrongKind != "" {
		label += " " + o.c.WrongKind
	}
	fmt.Fprintf(b, "- %s [%s] %s %s %v %q", o.c.ID, label, o.disposition, o.status, o.reasons, o.c.Claim)
	if o.c.Quote != nil {
		fmt.Fprintf(b, " quote %q", *o.c.Quote)
	}
	if o.detail != "" {
		fmt.Fprintf(b, " (%s)", o.detail)
	}
	b.WriteString("\n")
}

// maxFalseBlocksHeldout16 is the same bound for heldout16.jsonl, a
// sixteenth held-out set, on banking, reinsurance, clinical, zoning and
// guaranty documents its tester wrote (docs16/): 20 at its first run (14
// of them quotes narrower than the claim, which the contract removes), 14
// since the fixes it showed (all narrower quotes; README.md).
const maxFalseBlocksHeldout16 = 14

// TestOutsideHeldout16 is TestOutside on heldout16.jsonl, whose documents
// are the project's own (docs16/), bounded by maxFalseBlocksHeldout16.
func TestOutsideHeldout16(t *testing.T) {
	runOutsideIn(t, ".", "heldout16.jsonl", maxFalseBlocksHeldout16)
}

// maxFalseBlocksHeldout17 is the same bound for heldout17.jsonl, a
// seventeenth held-out set, on medical device, employment, SaaS, appellate
// and D&O insurance documents its tester wrote (docs17/): 18 at its first
// run (12 narrower quotes or elisions), 10 since (all narrower quotes).
const maxFalseBlocksHeldout17 = 10

// TestOutsideHeldout17 is TestOutside on heldout17.jsonl, whose documents
// are the project's own (docs17/), bounded by maxFalseBlocksHeldout17.
func TestOutsideHeldout17(t *testing.T) {
	runOutsideIn(t, ".", "heldout17.jsonl", maxFalseBlocksHeldout17)
}

// maxFalseBlocksHeldout18 is the same bound for heldout18.jsonl, an
// eighteenth held-out set, on derivatives collateral, sepsis, general
// liability, home purchase and earnings documents its tester wrote
// (docs18/): 31 at its first run (18 narrower quotes or elisions), 23
// since (21 of them narrower quotes or an elision that drops an exception).
const maxFalseBlocksHeldout18 = 23

// TestOutsideHeldout18 is TestOutside on heldout18.jsonl, whose documents
// are the project's own (docs18/), bounded by maxFalseBlocksHeldout18.
func TestOutsideHeldout18(t *testing.T) {
	runOutsideIn(t, ".", "heldout18.jsonl", maxFalseBlocksHeldout18)
}

// maxFalseBlocksHeldout19 is the same bound for heldout19.jsonl, a
// nineteenth held-out set, on formulary, franchise, trial consent,
// mortgage and cyber insurance documents its tester wrote (docs19/): 18
// at its first run (12 narrower quotes or elisions), 13 since (all
// narrower quotes).
const maxFalseBlocksHeldout19 = 13

// TestOutsideHeldout19 is TestOutside on heldout19.jsonl, whose documents
// are the project's own (docs19/), bounded by maxFalseBlocksHeldout19.
func TestOutsideHeldout19(t *testing.T) {
	runOutsideIn(t, ".", "heldout19.jsonl", maxFalseBlocksHeldout19)
}

// maxFalseBlocksHeldout21 is the same bound for heldout21.jsonl, a
// twenty-first held-out set, on software licensing, paediatric dosing,
// marine cargo, bank capital and tenancy documents its tester wrote
// (docs21/): 18 at its first run, after the fixes of sets 16 to 19 (7
// narrower quotes), 10 since (8 narrower quotes).
const maxFalseBlocksHeldout21 = 10

// TestOutsideHeldout21 is TestOutside on heldout21.jsonl, whose documents
// are the project's own (docs21/), bounded by maxFalseBlocksHeldout21.
func TestOutsideHeldout21(t *testing.T) {
	runOutsideIn(t, ".", "heldout21.jsonl", maxFalseBlocksHeldout21)
}

// maxFalseBlocksHeldout20 is the same bound for heldout20.jsonl, a
// twentieth held-out set, on term loan, renal dosing, property and
// business interruption, asset management and unemployment insurance
// documents its tester wrote (docs20/): 12 at its first run, which came
// after the fixes of sets 16 to 19 (9 of them quotes narrower than the
// claim), 9 since (all narrower quotes).
const maxFalseBlocksHeldout20 = 9

// TestOutsideHeldout20 is TestOutside on heldout20.jsonl, whose documents
// are the project's own (docs20/), bounded by maxFalseBlocksHeldout20.
func TestOutsideHeldout20(t *testing.T) {
	runOutsideIn(t, ".", "heldout20.jsonl", maxFalseBlocksHeldout20)
}

// maxFalseBlocksHeldout22 is the same bound for heldout22.jsonl, a
// twenty-second held-out set, on fund partnership, anticoagulation,
// professional indemnity, construction and municipal bond documents its
// tester wrote (docs22/): 19 at its first run, after every fix of sets 16
// to 21 (11 of them quotes narrower than the claim), 14 since (11).
const maxFalseBlocksHeldout22 = 14

// TestOutsideHeldout22 is TestOutside on heldout22.jsonl, whose documents
// are the project's own (docs22/), bounded by maxFalseBlocksHeldout22.
func TestOutsideHeldout22(t *testing.T) {
	runOutsideIn(t, ".", "heldout22.jsonl", maxFalseBlocksHeldout22)
}

// maxFalseBlocksHeldout23 is the same bound for heldout23.jsonl, a
// twenty-third held-out set, on hospital billing, shareholder agreement,
// travel insurance, mortgage product and workplace exposure documents its
// tester wrote (docs23/): 14 at its first run, after every fix of sets 16
// to 22 (8 narrower quotes), 12 since (10).
const maxFalseBlocksHeldout23 = 12

// TestOutsideHeldout23 is TestOutside on heldout23.jsonl, whose documents
// are the project's own (docs23/), bounded by maxFalseBlocksHeldout23.
func TestOutsideHeldout23(t *testing.T) {
	runOutsideIn(t, ".", "heldout23.jsonl", maxFalseBlocksHeldout23)
}

// maxFalseBlocksHeldout24 is the same bound for heldout24.jsonl, a
// twenty-fourth held-out set, on swap, laboratory, flood insurance,
// chapter 11 and REIT documents its tester wrote (docs24/): 11 at its
// first run, after every fix of sets 16 to 23 (4 of them quotes narrower
// than the claim), 8 since (4).
const maxFalseBlocksHeldout24 = 8

// TestOutsideHeldout24 is TestOutside on heldout24.jsonl, whose documents
// are the project's own (docs24/), bounded by maxFalseBlocksHeldout24.
func TestOutsideHeldout24(t *testing.T) {
	runOutsideIn(t, ".", "heldout24.jsonl", maxFalseBlocksHeldout24)
}

// maxFalseBlocksHeldout25 is the same bound for heldout25.jsonl, a
// twenty-fifth held-out set, on procurement, vaccine storage, auto
// finance, bylaws and pharmaceutical licence documents its tester wrote
// (docs25/): 14 at its first run, after every fix of sets 16 to 24 (9
// narrower quotes or elisions that drop a bound or a negator's verb), 12
// since (9).
const maxFalseBlocksHeldout25 = 12

// TestOutsideHeldout25 is TestOutside on heldout25.jsonl, whose documents
// are the project's own (docs25/), bounded by maxFalseBlocksHeldout25.
func TestOutsideHeldout25(t *testing.T) {
	runOutsideIn(t, ".", "heldout25.jsonl", maxFalseBlocksHeldout25)
}
