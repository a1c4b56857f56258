package eval

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Probe kinds.
const (
	ProbeAblation       = "ablation"
	ProbeCounterfactual = "counterfactual"
)

// Probe outcomes.
const (
	// Ablation: the claim survives without the passage it cites, and
	// nothing left in the context says it: the citation was decoration.
	OutcomeDecoration = "decoration"
	// Ablation: the claim is gone (or the question declined).
	OutcomeEvidenceDriven = "evidence_driven"
	// Ablation: the claim survives, and another chunk left in the context
	// states it: not counted either way.
	OutcomeSupportedElsewhere = "supported_elsewhere"
	// Counterfactual: the answer keeps the old figure: it came from memory.
	OutcomeMemory = "memory"
	// Counterfactual: the answer says the edited figure.
	OutcomeFollowed = "followed"
	// Counterfactual: neither figure (or the question declined).
	OutcomeInconclusive = "inconclusive"
	OutcomeError        = "error"   // the generator failed: Detail says why
	OutcomeNotRun       = "not_run" // the budget was spent first
)

// ProbeResult is one probe of an answer that verified.
type ProbeResult struct {
	Kind    string `json:"kind"`
	ClaimID string `json:"claim_id"`
	Claim   string `json:"claim"`
	// Removed are the chunks an ablation took out of the context: those the
	// claim cites, and any other that holds a span it cites.
	Removed []string `json:"removed,omitempty"`
	// Figure is the figure a counterfactual changed, as the cited span
	// writes it, and Altered what the context said instead (14 → 21).
	Figure  string  `json:"figure,omitempty"`
	Altered string  `json:"altered,omitempty"`
	Outcome string  `json:"outcome"`
	Detail  string  `json:"detail,omitempty"`
	Answer  *Answer `json:"answer,omitempty"`
}

// probePlan is a probe ready to ask.
type probePlan struct {
	question int // result index
	result   ProbeResult
	req      *Request
	claim    string
	figs     []verify.Figure // the claim's figures (ablation)
	rest     []ContextChunk  // the context it was asked with
	old, alt verify.Figure   // counterfactual: the figure and its edit
}

// probe samples answers that verified (disposition accept), high-risk
// first, and asks each again with its cited passage removed (ablation)
// and with a figure of it changed (counterfactual). The store is only
// read: edits live in the context sent.
func (r *runner) probe() error {
	var idx []int
	for i := range r.results {
		qr := &r.results[i]
		if qr.Status == StatusAnswered && qr.Disposition == verify.AnswerAccept && r.qs[i] != nil {
			idx = append(idx, i)
		}
	}
	byRisk(idx, r.qs)
	if len(idx) > r.cfg.Probe {
		idx = idx[:r.cfg.Probe]
	}
	var plans []*probePlan
	err := r.cfg.DB.View(func(tx *store.Tx) error {
		for _, i := range idx {
			ps, err := planProbes(tx, i, r.qs[i], &r.results[i])
			if err != nil {
				return err
			}
			plans = append(plans, ps...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("eval: reading probe context: %w", err)
	}
	for n, p := range plans {
		p.req.ID = fmt.Sprintf("%s/probe/%d", r.qs[p.question].ID, n+1)
	}
	items := make([]int, len(plans))
	for i := range items {
		items[i] = i
	}
	results := make([]ProbeResult, len(plans))
	taken := r.each(items, true, "probes", func(i int) string {
		results[i] = r.ask(plans[i])
		return results[i].Outcome
	})
	for i := taken; i < len(plans); i++ {
		results[i] = plans[i].result
		results[i].Outcome, results[i].Detail = OutcomeNotRun, reason(ReasonBudget, r.spend.stoppedBy())
		r.rec.Budget.ProbesNotRun++
	}
	for i, p := range plans {
		qr := &r.results[p.question]
		res := results[i]
		qr.Probes = append(qr.Probes, res)
		switch res.Outcome {
		case OutcomeDecoration:
			qr.Counts.AblationProbes++
			qr.Counts.Decorations++
		case OutcomeEvidenceDriven, OutcomeSupportedElsewhere:
			qr.Counts.AblationProbes++
		case OutcomeMemory:
			qr.Counts.CounterfactualProbes++
			qr.Counts.MemoryAnswers++
		case OutcomeFollowed, OutcomeInconclusive:
			qr.Counts.CounterfactualProbes++
		}
		rescoreProbes(qr)
	}
	return nil
}

// ask asks one probe and judges the answer.
func (r *runner) ask(p *probePlan) ProbeResult {
	res := p.result
	a, err := r.cfg.Generator.Generate(r.runCtx, p.req)
	if err != nil {
		r.spend.settle(1, 0)
		if r.runCtx.Err() != nil {
			r.spend.stop(r.ctx)
			r.mu.Lock()
			r.rec.Budget.ProbesNotRun++
			r.mu.Unlock()
			res.Outcome, res.Detail = OutcomeNotRun, reason(ReasonBudget, r.spend.stoppedBy())
			return res
		}
		res.Outcome, res.Detail = OutcomeError, genReason(err)
		return res
	}
	r.spend.settle(a.calls(), a.cost())
	res.Answer = a
	if a.Error != "" {
		res.Outcome, res.Detail = OutcomeError, reason(ReasonGeneratorError, clip(a.Error, 500))
		return res
	}
	switch p.result.Kind {
	case ProbeAblation:
		res.Outcome, res.Detail = judgeAblation(p, a)
	case ProbeCounterfactual:
		res.Outcome, res.Detail = judgeCounterfactual(p, a)
	}
	return res
}

func judgeAblation(p *probePlan, a *Answer) (string, string) {
	if a.Abstained {
		return OutcomeEvidenceDriven, "declined without the passage"
	}
	kept := ""
	want := squash(p.claim)
	for _, c := range a.Claims {
		if squash(c.Text) == want {
			kept = "the same claim: " + clip(c.Text, 200)
		}
	}
	if kept == "" && len(p.figs) > 0 {
		figs := verify.Figures(answerText(a))
		all := true
		for _, f := range p.figs {
			all = all && holdsFigure(figs, f)
		}
		if all {
			kept = "every figure of the claim, still"
		}
	}
	if kept == "" {
		return OutcomeEvidenceDriven, "the claim is gone"
	}
	for _, c := range p.rest {
		if states(c.Text, p.claim, p.figs) {
			return OutcomeSupportedElsewhere, kept + "; chunk " + c.ChunkID + " of the context states it too"
		}
	}
	return OutcomeDecoration, kept + ", with nothing in the context saying it"
}

// states reports whether text says what claim does: all its figures, or
// for a claim without figures its words (folded).
func states(text, claim string, figs []verify.Figure) bool {
	if len(figs) == 0 {
		return strings.Contains(match.Fold(text, match.LevelNormalized), match.Fold(claim, match.LevelNormalized))
	}
	have := verify.Figures(text)
	for _, f := range figs {
		if !holdsFigure(have, f) {
			return false
		}
	}
	return true
}

func judgeCounterfactual(p *probePlan, a *Answer) (string, string) {
	if a.Abstained {
		return OutcomeInconclusive, "declined"
	}
	figs := verify.Figures(answerText(a))
	hasNew, hasOld := false, false
	for _, f := range figs {
		if f.Kind == p.old.Kind {
			hasNew = hasNew || f.Value == p.alt.Value
			hasOld = hasOld || f.Value == p.old.Value
		}
	}
	switch {
	case hasNew:
		return OutcomeFollowed, "says " + p.alt.Text + " as the edited context does"
	case hasOld:
		return OutcomeMemory, "still says " + p.old.Text + " where the context says " + p.alt.Text
	}
	return OutcomeInconclusive, "says neither " + p.old.Text + " nor " + p.alt.Text
}

// planProbes plans the probes of one answer: an ablation of its first
// supported claim, and a counterfactual of the first supported claim with
// a figure in its cited span. The context is what the answer retrieved,
// as the principal may read it.
func planProbes(tx *store.Tx, i int, q *Question, qr *QuestionResult) ([]*probePlan, error) {
	rep, a := qr.Verification, qr.Answer
	var context []ContextChunk
	seen := map[string]bool{}
	for _, id := range a.Retrieved {
		if seen[id] {
			continue
		}
		seen[id] = true
		res, err := resolve.ChunkTx(tx, id, q.Principal)
		if err != nil {
			return nil, err
		}
		if res.Served() {
			context = append(context, ContextChunk{ChunkID: id, DocumentID: res.DocumentID, Text: res.Text})
		}
	}
	var plans []*probePlan
	ablated, altered := false, false
	for ci := range rep.Claims {
		cr := &rep.Claims[ci]
		if cr.Status != verify.Supported || ci >= len(a.Claims) {
			continue
		}
		claim := a.Claims[ci].Text
		var spans, cited []string
		for _, e := range cr.Evidence {
			if e.Status == verify.EvidenceOK && e.Text != "" {
				spans = append(spans, e.Text)
				cited = append(cited, e.ChunkID)
			}
		}
		if len(spans) == 0 {
			continue
		}
		figs := claimFigures(claim)
		if !ablated {
			ablated = true
			p := &probePlan{question: i, claim: claim, figs: figs,
				result: ProbeResult{Kind: ProbeAblation, ClaimID: cr.ClaimID, Claim: claim}}
			var keep []ContextChunk
			for _, c := range context {
				drop := contains(cited, c.ChunkID)
				for _, s := range spans {
					drop = drop || strings.Contains(c.Text, s)
				}
				if drop {
					p.result.Removed = append(p.result.Removed, c.ChunkID)
				} else {
					keep = append(keep, c)
				}
			}
			p.rest = keep
			p.req = &Request{Question: q.Question, Principal: q.Principal, Context: orEmpty(keep)}
			plans = append(plans, p)
		}
		if !altered {
			if p := counterfactual(i, q, cr.ClaimID, claim, figs, spans, context); p != nil {
				altered = true
				plans = append(plans, p)
			}
		}
		if ablated && altered {
			break
		}
	}
	return plans, nil
}

func orEmpty(cs []ContextChunk) []ContextChunk {
	if cs == nil {
		return []ContextChunk{}
	}
	return cs
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// claimFigures are the figures of a claim a probe looks for: not the
// numbers that name a clause or section.
func claimFigures(claim string) []verify.Figure {
	var out []verify.Figure
	for _, f := range verify.Figures(claim) {
		if !f.Reference {
			out = append(out, f)
		}
	}
	return out
}

// counterfactual plans the edit of a figure of the claim that its cited
// span holds: every figure of the context of that kind and value is
// rewritten (14 → 21), so no chunk still says the old one.
func counterfactual(i int, q *Question, claimID, claim string, figs []verify.Figure, spans []string, context []ContextChunk) *probePlan {
	for _, f := range figs {
		if f.Kind == "id" {
			continue
		}
		var written verify.Figure
		for _, s := range spans {
			for _, g := range verify.Figures(s) {
				if g.Kind == f.Kind && g.Value == f.Value && written.Text == "" {
					written = g
				}
			}
		}
		if written.Text == "" {
			continue
		}
		altText, ok := alterFigure(written.Text)
		if !ok {
			continue
		}
		alt, ok := figureOf(altText, f.Kind)
		if !ok || alt.Value == f.Value {
			continue
		}
		edited := make([]ContextChunk, len(context))
		changed := false
		for k, c := range context {
			text := c.Text
			for _, g := range verify.Figures(c.Text) {
				if g.Kind == f.Kind && g.Value == f.Value {
					if ga, ok := alterFigure(g.Text); ok {
						text = replaceBounded(text, g.Text, ga)
					}
				}
			}
			changed = changed || text != c.Text
			edited[k] = ContextChunk{ChunkID: c.ChunkID, DocumentID: c.DocumentID, Text: text}
		}
		if !changed {
			continue
		}
		return &probePlan{question: i, claim: claim, old: f, alt: alt,
			result: ProbeResult{Kind: ProbeCounterfactual, ClaimID: claimID, Claim: claim, Figure: written.Text, Altered: altText},
			req:    &Request{Question: q.Question, Principal: q.Principal, Context: edited}, rest: edited}
	}
	return nil
}

func figureOf(text, kind string) (verify.Figure, bool) {
	for _, g := range verify.Figures(text) {
		if g.Kind == kind {
			return g, true
		}
	}
	return verify.Figure{}, false
}

// alterFigure changes the first number of a written figure: a year from
// 1900 to 2100 by one, any other n to n + max(1, n/2) (14 → 21, 7 → 10,
// 250,000,000 → 375,000,000, 3.25 → 4.25), keeping the way it is written.
func alterFigure(text string) (string, bool) {
	start := strings.IndexFunc(text, func(r rune) bool { return '0' <= r && r <= '9' })
	if start < 0 {
		return "", false
	}
	end := start
	for end < len(text) && '0' <= text[end] && text[end] <= '9' {
		end++
	}
	if end-start > 12 {
		return "", false
	}
	n, err := strconv.Atoi(text[start:end])
	if err != nil {
		return "", false
	}
	m := n + max(1, n/2)
	if end-start == 4 && n >= 1900 && n <= 2100 {
		m = n + 1
	}
	return text[:start] + strconv.Itoa(m) + text[end:], true
}

// replaceBounded replaces every occurrence of old in s that does not
// continue a word or number on either side.
func replaceBounded(s, old, repl string) string {
	if old == "" {
		return s
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], old)
		if j < 0 {
			break
		}
		j += i
		before, _ := utf8.DecodeLastRuneInString(s[:j])
		after, _ := utf8.DecodeRuneInString(s[j+len(old):])
		if (j == 0 || !isWordRune(before)) && (j+len(old) == len(s) || !isWordRune(after)) {
			b.WriteString(s[i:j])
			b.WriteString(repl)
		} else {
			b.WriteString(s[i : j+len(old)])
		}
		i = j + len(old)
	}
	b.WriteString(s[i:])
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// squash lower-cases, collapses white space and drops final punctuation,
// as the verifier compares claims with sentences.
func squash(s string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".!?。！？ ")
}
