package verify

import (
	"slices"
	"strings"
)

// polarity: the claim's clause and every clause it lines up with differ
// in negation: an odd count, on one side, of negators that deny a word the
// other side states ("does not cover" against "covers"). Negators that
// deny something the other side does not mention are not counted, so a
// long clause's other negations do not matter. Exceptions turn a negation
// around ("not covered unless …"): segments holding one are left to the
// exception check.
func (m *meaningScanner) polarity(ci int, ev []mtext, al []alignment, res *meaningResult) {
	c := &m.claim.clauses[ci]
	// A sentence part with an exception ("provided that", "unless") may
	// turn a negation around in words the clauses do not line up: a
	// negation on one side only there is never a contradiction, only a
	// reading to review.
	excepted := m.claim.segmentHasException(c.segment)
	var claimNeg, evNeg int
	for _, a := range al {
		et, e := &ev[a.ev], &ev[a.ev].clauses[a.clause]
		excepted = excepted || et.segmentHasException(e.segment)
		pc, kc := m.claim.relevantNegs(c, et, e)
		pe, ke := et.relevantNegs(e, &m.claim, c)
		if pc == 1 && pe == 1 && len(al) == 1 && kc >= 0 && ke >= 0 {
			m.swappedDenial(res, c, kc, et, e, ke)
			return
		}
		if pc%2 == pe%2 {
			return
		}
		claimNeg, evNeg = kc, ke
	}
	a := al[len(al)-1]
	et, e := &ev[a.ev], &ev[a.ev].clauses[a.clause]
	m.excepted = excepted
	defer func() { m.excepted = false }()
	// Both sides may deny something ("should not … without" against
	// "should … without"): the finding is the negation the other side
	// lacks, the claim's first tried.
	if claimNeg >= 0 && m.deniedOnly(res, &m.claim, c, claimNeg, et, e) {
		return
	}
	if evNeg >= 0 {
		m.deniedOnly(res, et, e, evNeg, &m.claim, c)
	}
}

// deniedOnly reports, and adds as a finding, that negator k of clause
// negClause denies a word that clause otherClause of other states plainly.
func (m *meaningScanner) deniedOnly(res *meaningResult, negText *mtext, negClause *mclause, k int, other *mtext, otherClause *mclause) bool {
	negWords, otherWords, ok := m.deniedPlainly(negText, negClause, k, other, otherClause)
	if !ok {
		return false
	}
	// "without within, this case is ignored" against "this case is
	// ignored when within is not present": the same absence. "serializes
	// rather than fails" against "serialize rather than fail on
	// contention": the same denial.
	if absenceSaid(negText, k, other) || sameDenial(negText, k, other) || noSaysNot(negText, negClause, k, other, otherClause) {
		return true
	}
	// "{1-5} instead of {1,2,3,4,5}" against "{1-5} can replace
	// {1,2,3,4,5}": the other side says the same displacement in a word
	// of its own.
	if w := negText.toks[k].w; (w == "instead" || w == "rather") && other.substitutes(otherClause) {
		return true
	}
	claimWords, evWords := negWords, otherWords
	if negText != &m.claim {
		claimWords, evWords = otherWords, negWords
	}
	denied, _ := negText.denies(k, negClause, other, otherClause)
	onHead := (denied == k || denied == negText.head(k, negClause)) && !negText.comparisonAfter(k, negClause) &&
		!conditionalDenial(negText, k, negClause, other, otherClause) && !other.prevents(otherClause)
	m.polarityFinding(res, negText, negClause, other, otherClause, onHead, false, claimWords, evWords)
	return true
}

// polarityMinOverlap is the share of the claim clause's content words the
// evidence clause must hold for a polarity finding to contradict.
const polarityMinOverlap = 60 // percent

// polarityFinding records a negation on one side only. It contradicts the
// claim when the two clauses say nearly the same words, each holding most
// of the other's ("The policy covers flood damage" / "This policy does not
// cover flood damage"), the negation denies its head, the predicate, the
// other side holds no negator of its own there, and neither clause is a
// condition. Otherwise the negation is a reading the words alone cannot
// confirm ("cope badly with pages" / "do not work well with pages"; "is
// not allowed" / "cannot be empty"; "if it isn't a nil slice" / "if it is
// a nil slice …, otherwise"): polarity_unconfirmed sends the claim to
// review, for a person or the judge, instead of blocking a paraphrase.
func (m *meaningScanner) polarityFinding(res *meaningResult, negText *mtext, negClause *mclause, other *mtext, otherClause *mclause, onHead, swapped bool, claimWords, evWords string) {
	claimClause, evText, evClause := negClause, other, otherClause
	if negText != &m.claim {
		claimClause, evText, evClause = otherClause, negText, negClause
	}
	shared, total := m.claim.overlap(claimClause, evText, evClause)
	near := shared*100 >= polarityMinOverlap*total && shared*100 >= polarityMinOverlap*len(evClause.set)
	if onHead && near && !m.excepted && !restrictionSaysDenial(negText, negClause, other, otherClause) && !other.unmatchedNegation(otherClause, negText, negClause) &&
		!m.claim.conditionClause(claimClause) && !evText.conditionClause(evClause) &&
		(swapped || !(negText == &m.claim && evText.negatedLike(&m.claim, claimClause, otherClause))) {
		m.add(res, "polarity", reasonPolarity, claimWords, evWords)
		res.contradicted = true
		return
	}
	m.add(res, "polarity", reasonPolarityUnconfirmed, claimWords, evWords)
	res.review = true
}

// restrictionSaysDenial reports whether a denial with a condition of time
// or exception ("cannot be started until …", "may not … unless …") meets an
// "only" on the other side ("may be started only after …"): the same rule
// in the other form, which the negator count alone reads as opposites.
func restrictionSaysDenial(negText *mtext, negClause *mclause, other *mtext, otherClause *mclause) bool {
	cond := false
	for k := negClause.from; k < negClause.to; k++ {
		if w := negText.toks[k].w; w == "until" || w == "unless" {
			cond = true
		}
	}
	if !cond {
		return false
	}
	for k := otherClause.from; k < otherClause.to; k++ {
		if other.toks[k].w == "only" {
			return true
		}
	}
	return false
}

// swappedDenial: each side denies one thing, and each denies what the
// other states plainly ("python3-pyxdg rather than python3-xdg" citing
// "python3-xdg and not python3-pyxdg"). One side alone is not enough:
// "not full or not empty" against "not empty" denies different words
// that both sides may hold.
func (m *meaningScanner) swappedDenial(res *meaningResult, c *mclause, kc int, et *mtext, e *mclause, ke int) {
	// Two different words, neither a negator itself ("excluded" denies
	// itself): the same denial on both sides is agreement.
	dc, _ := m.claim.denies(kc, c, et, e)
	de, _ := et.denies(ke, e, &m.claim, c)
	if dc < 0 || de < 0 || m.claim.toks[dc].neg || et.toks[de].neg || m.claim.toks[dc].hash == et.toks[de].hash {
		return
	}
	// "no fractional votes are allowed" says "fractional votes are not
	// allowed": a "no" before the subject denies the predicate too.
	if clauseDenial(et, e, ke, m.claim.toks[dc].hash) || clauseDenial(&m.claim, c, kc, et.toks[de].hash) {
		return
	}
	cw, ew, ok1 := m.deniedPlainly(&m.claim, c, kc, et, e)
	if !ok1 {
		return
	}
	if _, _, ok2 := m.deniedPlainly(et, e, ke, &m.claim, c); ok2 {
		m.polarityFinding(res, &m.claim, c, et, e, dc == m.claim.head(kc, c) && !conditionalDenial(&m.claim, kc, c, et, e), true, cw, ew)
	}
}

// noSaysNot reports whether negator k is a "no" before the subject whose
// clause goes on to a word the other side denies with its own negator
// ("no fractional votes are allowed" / "fractional votes are not
// allowed"): the same denial.
func noSaysNot(t *mtext, c *mclause, k int, other *mtext, oc *mclause) bool {
	if t.toks[k].w != "no" {
		return false
	}
	for j := oc.from; j+1 < oc.to; j++ {
		if other.toks[j].w == "not" || other.toks[j].w == "never" {
			for n := j + 1; n < oc.to && n <= j+2; n++ {
				if other.toks[n].content && clauseDenial(t, c, k, other.toks[n].hash) {
					return true
				}
			}
		}
	}
	return false
}

// clauseDenial reports whether negator k of clause c is a "no" whose
// clause goes on to the word h ("no fractional votes are allowed"), which
// it then denies as well.
func clauseDenial(t *mtext, c *mclause, k int, h uint32) bool {
	if t.toks[k].w != "no" {
		return false
	}
	for j := k + 1; j < c.to; j++ {
		if t.toks[j].hash == h {
			return true
		}
	}
	return false
}

// deniedPlainly reports whether negator k of clause negClause denies a
// word that clause otherClause of other states plainly, with the words of
// both.
func (m *meaningScanner) deniedPlainly(negText *mtext, negClause *mclause, k int, other *mtext, otherClause *mclause) (string, string, bool) {
	denied, match := negText.denies(k, negClause, other, otherClause)
	// The denied word must be stated plainly on the other side, denied
	// nowhere there, and not also stated plainly beside the negation:
	// clause edges that differ between a quote and its source (joined
	// lines, list items) then cannot fake a difference.
	if denied < 0 || match < 0 || other.toks[match].negated || other.negates(negText.toks[denied].hash) ||
		negText.plain(negClause, negText.toks[denied].hash, denied) {
		return "", "", false
	}
	// The other side denies the negation's head itself, in another clause:
	// the two draw the clause edges differently (a heading "No mandate"
	// run into the sentence after it), and the negation is on both.
	if h := negText.head(k, negClause); h >= 0 && h != denied && other.negates(negText.toks[h].hash) {
		return "", "", false
	}
	// A word inside "whether …" is asked about, not stated: "controls
	// whether the command will follow symlinks" states no following.
	if other.open(otherClause, match) || negText.open(negClause, denied) {
		return "", "", false
	}
	// The other side says the negated word's opposite: "is disabled" for
	// "is not enabled" states the same.
	if h := negText.head(k, negClause); h >= 0 && other.hasAntonym(otherClause, negText.toks[h].stem) {
		return "", "", false
	}
	// "is not in a block" is "outside a block".
	if k+1 < negClause.to && insideWords[negText.toks[k+1].w] && other.has(otherClause, outsideHash) {
		return "", "", false
	}
	// The negation's own predicate is absent from the other clause, and
	// the other side denies, in another clause, what shares two words of
	// the negated one ("does not limit a map's size" against a sentence on
	// maps and "the initial capacity does not bound its size"): the
	// clauses lined up by the words around the negation, not by it.
	if h := negText.head(k, negClause); h >= 0 && !other.has(otherClause, negText.toks[h].hash) &&
		other.deniesAlike(otherClause, negText, negClause) {
		return "", "", false
	}
	from := k
	if from > negClause.from && negText.toks[from-1].flags&fAux != 0 {
		from--
	}
	return negText.words(min(from, denied), max(k, denied)+1), other.words(match, match+1), true
}

// partial reports whether negator k of clause c is partial: a quantifier
// follows it ("not all", "never both", "not always"), and denying all of
// something is not stating its opposite.
func (t *mtext) partial(k int, c *mclause) bool {
	for j := k + 1; j < c.to && j <= k+3; j++ {
		switch f := t.toks[j].flags; {
		case f&fPartial != 0:
			return true
		case f&fAux == 0:
			return false
		}
	}
	return false
}

// open reports whether token k of clause c follows an open complement
// ("whether") in its clause: what follows is asked, not asserted.
func (t *mtext) open(c *mclause, k int) bool {
	for j := c.from; j < k; j++ {
		if t.toks[j].flags&fOpen != 0 {
			return true
		}
	}
	return false
}

// negates reports whether any negator of the text denies a word of stem
// hash h.
func (t *mtext) negates(h uint32) bool {
	for k := range t.toks {
		if t.toks[k].hash == h && t.toks[k].negated {
			return true
		}
	}
	return false
}

// has reports whether the clause holds a word of stem hash h.
func (t *mtext) has(c *mclause, h uint32) bool {
	for k := c.from; k < c.to; k++ {
		if t.toks[k].hash == h {
			return true
		}
	}
	return false
}

// insideWords after a negator say "outside".
var insideWords = map[string]bool{"in": true, "inside": true, "within": true}

var outsideHash = fnv32(stem("outside"))

// thanWords start the comparisons a negator before them denies.
var thanWords = map[string]bool{"more": true, "greater": true, "higher": true, "fewer": true, "less": true, "lower": true,
	"exceed": true, "exceeds": true, "exceeding": true, "exceeded": true}

// comparisonAfter reports whether a comparison starts within three words
// after negator k: "must not be greater than high" denies the
// comparison ("low <= high"), not "high".
func (t *mtext) comparisonAfter(k int, c *mclause) bool {
	for _, mt := range t.matches {
		if mt.kind == kBound && mt.from > k && mt.from <= k+3 && mt.from < c.to && thanWords[t.toks[mt.from].w] {
			return true
		}
	}
	return false
}

// unmatchedNegation reports whether the clause holds a negator whose head
// the other clause does not hold: a negation of its own, on another
// predicate ("is not allowed" against "cannot be empty"), which may be
// the one the other side's says in other words.
func (t *mtext) unmatchedNegation(c *mclause, other *mtext, oc *mclause) bool {
	for k := c.from; k < c.to; k++ {
		if t.toks[k].neg {
			if h := t.head(k, c); h >= 0 && !other.has(oc, t.toks[h].hash) {
				return true
			}
		}
	}
	return false
}

// conditionClause reports whether the clause is a condition ("if …", "when
// …", "unless …"): a negation there states no fact to contradict.
func (t *mtext) conditionClause(c *mclause) bool {
	for k := c.from; k < c.to; k++ {
		if t.toks[k].flags&fConditional != 0 {
			return true
		}
	}
	return false
}

// hasAntonym reports whether the clause holds an opposite of stem st.
func (t *mtext) hasAntonym(c *mclause, st string) bool {
	opposites := lex.antonyms[st]
	for k := c.from; k < c.to && len(opposites) > 0; k++ {
		for _, o := range opposites {
			if t.toks[k].stem == o {
				return true
			}
		}
	}
	return false
}

// deniesAlike reports whether a clause of t other than skip holds a
// negator and shares two content words or more with clause c of u.
func (t *mtext) deniesAlike(skip *mclause, u *mtext, c *mclause) bool {
	for j := range t.clauses {
		if e := &t.clauses[j]; e != skip && e.negs > 0 {
			if shared, _ := u.overlap(c, t, e); shared >= 2 {
				return true
			}
		}
	}
	return false
}

// plain reports whether the clause states a word of stem hash h that no
// negator denies (other than at token skip).
func (t *mtext) plain(c *mclause, h uint32, skip int) bool {
	for k := c.from; k < c.to; k++ {
		if k != skip && t.toks[k].hash == h && t.toks[k].content && !t.toks[k].negated {
			return true
		}
	}
	return false
}

// relevantNegs counts the negators of clause c that deny a word clause oc
// of other states, and returns the first of them (or -1).
func (t *mtext) relevantNegs(c *mclause, other *mtext, oc *mclause) (int, int) {
	n, first, neither := 0, -1, false
	var buf [8]uint32
	seen := buf[:0]
	for k := c.from; k < c.to; k++ {
		tok := &t.toks[k]
		if !oneNegation(tok, &neither) || t.partial(k, c) {
			continue
		}
		denied, match := t.denies(k, c, other, oc)
		_, predicate := lex.negatedStems(tok.stem)
		if match < 0 && !predicate {
			continue
		}
		// One negation a denied word: "the Agent is not liable, and the
		// Arranger is not liable either" denies liability once, as "neither
		// the Agent nor the Arranger is liable" does. A negative predicate
		// ("prohibited", "excluded") denies its whole clause, which lines
		// up with the other: it always counts.
		h := t.toks[max(denied, k)].hash
		if slices.Contains(seen, h) {
			continue
		}
		seen = append(seen, h)
		n++
		if first < 0 {
			first = k
		}
	}
	return n, first
}

// denies returns the word negator k denies and where clause oc of other
// states it, or -1: the head after the negator, or, for a negative
// predicate ("excluded"), the positive words it denies.
func (t *mtext) denies(k int, c *mclause, other *mtext, oc *mclause) (int, int) {
	tok := &t.toks[k]
	if pos, ok := lex.negatedStems(tok.stem); ok {
		return k, other.findStem(oc, pos, tok.hash)
	}
	sc := t.scope(k, c)
	if len(sc) == 0 {
		return -1, -1
	}
	reach := 0 // words of the scope, past its head, that are not function words
	for _, h := range sc {
		if h != sc[0] && t.toks[h].flags&fNameStop == 0 {
			reach++
		}
		// The head and the word after it are denied: "does not count as a
		// receipt" denies the receipt. Past them the negation is the
		// predicate's, not the object's: "do not require any particular
		// version" denies the requirement, not the version.
		if reach > 1 {
			break
		}
		if match := other.findHash(oc, t.toks[h].hash); match >= 0 {
			return h, match
		}
	}
	// "not covered" denies what "excluded" denies.
	h := sc[0]
	for j := oc.from; j < oc.to; j++ {
		if pos, ok := lex.negatedStems(other.toks[j].stem); ok && other.toks[j].neg {
			for _, p := range pos {
				if strings.HasPrefix(t.toks[h].stem, p) {
					return h, j
				}
			}
		}
	}
	return h, -1
}

// exceptionAfter reports whether segment seg holds an exception after
// token j: what it excepts, it excepts from the words before it.
func (t *mtext) exceptionAfter(seg, j int) bool {
	for i := range t.clauses {
		if t.clauses[i].segment == seg && t.clauses[i].exception > j {
			return true
		}
	}
	return false
}

// segmentHasException reports whether a segment holds an exception
// ("unless", "only if"), which turns a negation around.
func (t *mtext) segmentHasException(seg int) bool {
	for i := range t.clauses {
		if t.clauses[i].segment == seg && t.clauses[i].exception >= 0 {
			return true
		}
	}
	return false
}

// findHash returns a content token of the clause with stem hash h, or -1.
func (t *mtext) findHash(c *mclause, h uint32) int {
	for k := c.from; k < c.to; k++ {
		if t.toks[k].hash == h && (t.toks[k].content || t.toks[k].neg || t.toks[k].trend) {
			return k
		}
	}
	return -1
}

// findStem returns a token of the clause whose stem is one of stems, or
// the negative predicate itself (hash self), or -1.
func (t *mtext) findStem(c *mclause, stems []string, self uint32) int {
	for k := c.from; k < c.to; k++ {
		tok := &t.toks[k]
		if tok.hash == self {
			return k
		}
		for _, s := range stems {
			if strings.HasPrefix(tok.stem, s) {
				return k
			}
		}
	}
	return -1
}

// trend: the claim says up (or down) and the clauses it lines up with say
// only the other way. Negations turn trends around, so either side having
// one leaves it alone.
func (m *meaningScanner) trend(ci int, ev []mtext, al []alignment, res *meaningResult) {
	c := &m.claim.clauses[ci]
	if c.trends == 0 || c.trends == 1<<vUp|1<<vDown || c.negs > 0 {
		return
	}
	var union uint16
	for _, a := range al {
		e := &ev[a.ev].clauses[a.clause]
		if e.negs > 0 {
			return
		}
		union |= e.trends
	}
	if union == 0 {
		return
	}
	claimWords := m.claim.matchWords(c, kTrend)
	evWords := ev[al[0].ev].matchWords(&ev[al[0].ev].clauses[al[0].clause], kTrend)
	if union&c.trends != 0 {
		// Both ways in one clause ("raised the facility and reduced the
		// fee"): the trend of the thing the claim speaks of decides.
		var ok bool
		if evWords, ok = m.trendOfObject(c, ev, al); !ok {
			return
		}
	}
	m.add(res, "direction", reasonDirection, claimWords, evWords)
	res.contradicted = true
}

// trendOfObject finds, in the clauses the claim lines up with, the trends
// whose objects (the content words after them) share the most with the
// object of the claim's trend, and reports whether they all go the other
// way, with the words of one of them.
func (m *meaningScanner) trendOfObject(c *mclause, ev []mtext, al []alignment) (string, bool) {
	ct := m.claim.firstMatch(c, kTrend)
	if ct < 0 {
		return "", false
	}
	claimTrend := m.claim.matches[ct]
	best, same, other := 0, false, ""
	for _, a := range al {
		et := &ev[a.ev]
		e := &et.clauses[a.clause]
		for _, mt := range et.matches {
			if mt.kind != kTrend || mt.from < e.from || mt.from >= e.to {
				continue
			}
			n := 0
			for k := mt.to; k < min(e.to, mt.to+5); k++ {
				if et.toks[k].content && m.claim.objectHas(claimTrend.to, c.to, et.toks[k].hash) {
					n++
				}
			}
			switch {
			case n == 0 || n < best:
				continue
			case n > best:
				best, same, other = n, false, ""
			}
			if mt.value == claimTrend.value {
				same = true
			} else if other == "" {
				other = et.words(mt.from, mt.to)
			}
		}
	}
	return other, best > 0 && !same && other != ""
}

// firstMatch returns the index in t.matches of the clause's first phrase
// of a kind, or -1.
func (t *mtext) firstMatch(c *mclause, kind uint8) int {
	for i, mt := range t.matches {
		if mt.kind == kind && mt.from >= c.from && mt.from < c.to {
			return i
		}
	}
	return -1
}

// objectHas reports whether the content words [from, from+5) of the text,
// within to, hold stem hash h.
func (t *mtext) objectHas(from, to int, h uint32) bool {
	for k := from; k < min(to, from+5); k++ {
		if t.toks[k].content && t.toks[k].hash == h {
			return true
		}
	}
	return false
}

// matchWords returns the words of the clause's first phrase of a kind.
func (t *mtext) matchWords(c *mclause, kind uint8) string {
	for _, mt := range t.matches {
		if mt.kind == kind && mt.from >= c.from && mt.from < c.to {
			return t.words(mt.from, mt.to)
		}
	}
	return ""
}

// modality: "must" where the evidence only says "may" or "should", or
// "may only" where it says "may", is more than the evidence says; "may"
// where it says "may only" drops a restriction (clarify). A weaker modal
// than the evidence's ("may" for "must") is implied by it and passes;
// negated modals are the polarity check's.
func (m *meaningScanner) modality(ci int, ev []mtext, al []alignment, res *meaningResult) {
	c := &m.claim.clauses[ci]
	if c.modals == 0 || c.negModal {
		return
	}
	verb := m.claim.modalHead(c)
	var union uint16
	restricted, restrictedNear := false, false
	for _, a := range al {
		e := &ev[a.ev].clauses[a.clause]
		modals, negModal := e.modals, e.negModal
		if g, neg, ok := ev[a.ev].governingModal(e, m.claim.toks, verb); ok {
			modals, negModal = g, neg
		}
		if negModal {
			return
		}
		union |= modals
		restricted = restricted || e.restricted
		// "may be able to avoid …, and declare Build-Depends on the runtime
		// environment only": the restriction sits in a clause of the
		// modal's sentence part that has no modal of its own. It supports
		// the claim's "may … only"; it is not asked of a claim without one.
		restrictedNear = restrictedNear || e.restricted || ev[a.ev].segmentRestricts(e.segment)
	}
	if union == 0 {
		m.segmentModality(c, ev, al, res)
		return
	}
	// A modal the quoted part of the evidence states anywhere is not more
	// than it says (clause edges differ between a quote and its source).
	// A citation of a whole chunk quotes nothing: "must" somewhere in it
	// does not make the aligned "should" a "must".
	var quoted uint16
	for _, a := range al {
		if m.evs[a.ev].whole {
			continue
		}
		for j := range ev[a.ev].clauses {
			if e := &ev[a.ev].clauses[j]; m.inSpan(a.ev, e) {
				quoted |= e.modals
			}
		}
	}
	if union&(1<<vObligation) != 0 && union&(1<<vPermission) == 0 {
		if opt := m.claim.optionIn(c); opt != "" && !m.saidAnywhere(opt) {
			// "the Borrower may, at its option, use them to prepay" for "the
			// Borrower shall prepay": a choice where the evidence obliges. A
			// plain "may" for "must" is implied by it and passes.
			m.add(res, "modality", reasonModality, opt, ev[al[0].ev].matchWords(&ev[al[0].ev].clauses[al[0].clause], kModal))
			res.unsupported = true
			return
		}
	}
	if m.modalOfAnotherClause(ci, verb, ev, al) {
		return
	}
	if c.modals&(1<<vObligation) != 0 && m.claim.purposeOrCondition() && m.provisoAligned(ev, al[:1], verb) {
		// "may withhold a disputed amount, provided that it notifies the
		// Licensor … within 20 days" for "to withhold a disputed sum, the
		// Licensee must give written notice within 20 days": a proviso is
		// what one must do to have the right.
		return
	}
	stated := c.modals&^(quoted|m.modalSaid(ev, c, verb)) == 0
	claimWords := m.claim.matchWords(c, kModal)
	evWords := ev[al[0].ev].matchWords(&ev[al[0].ev].clauses[al[0].clause], kModal)
	switch {
	case !stated && c.modals&(1<<vObligation) != 0 && union&(1<<vObligation) == 0,
		!stated && c.modals&(1<<vRecommendation) != 0 && union&(1<<vObligation|1<<vRecommendation) == 0,
		c.restricted && !restrictedNear && union&(1<<vObligation) == 0:
		m.add(res, "modality", reasonModality, claimWords, evWords)
		res.unsupported = true
	case c.modals == 1<<vPermission && !c.restricted && restricted && union&(1<<vObligation) == 0 && !c.condition:
		m.add(res, "modality", "qualifier_missing:restriction", claimWords, evWords+" only")
		res.clarify = appendOnce(res.clarify, "restriction")
	}
}

// purposeOrCondition reports whether the text opens with a purpose ("To
// withhold a disputed sum, …") or holds a condition clause ("if …").
func (t *mtext) purposeOrCondition() bool {
	if len(t.toks) > 0 && t.toks[0].w == "to" {
		return true
	}
	for i := range t.clauses {
		if t.clauses[i].condition {
			return true
		}
	}
	return false
}

// provisoAligned reports whether a clause the claim lines up with holds a
// proviso ("provided that …", "on condition that …"), in a sentence part
// whose modals govern other verbs than the claim's (verb): "may cure …, provided that …" for "is required to cure"
// strengthens the "may" itself.
func (m *meaningScanner) provisoAligned(ev []mtext, al []alignment, verb int) bool {
	for _, a := range al {
		et := &ev[a.ev]
		e := &et.clauses[a.clause]
		if e.exception < 0 {
			continue
		}
		switch et.toks[e.exception].w {
		case "provided", "providing", "on":
		default:
			continue
		}
		for j := range et.clauses {
			o := &et.clauses[j]
			if o.segment != e.segment {
				continue
			}
			if h := et.modalHead(o); h >= 0 && verb >= 0 && et.toks[h].stem == m.claim.toks[verb].stem {
				return false
			}
		}
		return true
	}
	return false
}

// modalOfAnotherClause reports whether the modal of the evidence clause
// claim clause ci lines up with governs another verb than the claim's,
// one that another clause of the claim puts under a modal of its own: "The roller clamp has to be
// closed …, since opening the door … can cause free flow" lined up with
// "Opening the door with the clamp open may cause free flow": the "may"
// is the cause's, which the claim's "can" answers, not the closing's.
func (m *meaningScanner) modalOfAnotherClause(ci, verb int, ev []mtext, al []alignment) bool {
	et := &ev[al[0].ev]
	h := et.modalHead(&et.clauses[al[0].clause])
	if h < 0 || verb >= 0 && m.claim.toks[verb].stem == et.toks[h].stem {
		return false
	}
	for cj := range m.claim.clauses {
		if cj == ci {
			continue
		}
		if oh := m.claim.modalHead(&m.claim.clauses[cj]); oh >= 0 && m.claim.toks[oh].stem == et.toks[h].stem {
			return true
		}
	}
	return false
}

// antonym: a word of the claim whose opposite the aligned evidence clause
// says, where neither the evidence's sentences hold the claim's own word
// nor the claim's clause the opposite ("may be relative" citing "must be
// absolute", "are honored" citing "are ignored"; "arithmetic for signed
// and logical for unsigned" pairs both, which is the roles' business).
// Neither clause may hold a negator: "disabled" for "not enabled" says
// the same, and two negations are the polarity check's.
func (m *meaningScanner) antonym(ci int, ev []mtext, al []alignment, res *meaningResult) {
	c := &m.claim.clauses[ci]
	if c.negs > 0 {
		return
	}
	for _, a := range al {
		if ev[a.ev].clauses[a.clause].negs > 0 {
			return
		}
	}
	for k := c.from; k < c.to; k++ {
		opposites := lex.antonyms[m.claim.toks[k].stem]
		if len(opposites) == 0 || !antonymForm(&m.claim.toks[k]) {
			continue
		}
		other, excepted := "", false
		for _, a := range al {
			et := &ev[a.ev]
			e := &et.clauses[a.clause]
			for j := e.from; j < e.to && other == ""; j++ {
				for _, o := range opposites {
					if et.toks[j].stem == o && antonymForm(&et.toks[j]) {
						other, excepted = et.words(j, j+1), et.exceptionAfter(e.segment, j)
					}
				}
			}
		}
		if other == "" || m.claim.hasAntonym(c, m.claim.toks[k].stem) {
			continue
		}
		said := false // the claim's own word, anywhere in the evidence's sentences
		for i := range ev {
			for j := range ev[i].toks {
				said = said || ev[i].toks[j].stem == m.claim.toks[k].stem
			}
		}
		if !said && excepted {
			// "waives any defense …, other than a defense arising from …":
			// the exception turns the opposite around for what it names,
			// which the words alone cannot line up ("the only defense a
			// Guarantor keeps is one arising from …"). A person decides.
			m.add(res, "polarity", reasonPolarityUnconfirmed, m.claim.words(k, k+1), other)
			res.review = true
			return
		}
		if !said {
			m.add(res, "polarity", reasonAntonym, m.claim.words(k, k+1), other)
			res.contradicted = true
			return
		}
	}
}

// antonymForm reports whether a token is a form an antonym pair lists, or
// one no suffix was cut from: "lasts" (it endures) is no "last".
func antonymForm(t *mtok) bool { return t.w == t.stem || lex.antonymForms[t.w] }

// modalHead is the token of the verb the clause's first modal governs
// ("must use" → use), or -1.
func (t *mtext) modalHead(c *mclause) int {
	for _, mt := range t.matches {
		if mt.kind == kModal && mt.from >= c.from && mt.from < c.to {
			return t.head(mt.to-1, c)
		}
	}
	return -1
}

// saidAnywhere reports whether an evidence sentence holds the words w,
// case aside.
func (m *meaningScanner) saidAnywhere(w string) bool {
	for i := range m.evs {
		if containsWordFold(m.evs[i].context, w) {
			return true
		}
	}
	return false
}

// optionIn returns the words of clause c that make its modal a choice
// ("at its option", "optional", "may choose whether"), or "".
func (t *mtext) optionIn(c *mclause) string {
	for k := c.from; k < c.to; k++ {
		for _, o := range lex.options[t.toks[k].w] {
			if k+len(o) <= c.to && t.wordsAre(k, o) {
				return strings.Join(o, " ")
			}
		}
	}
	return ""
}

// wordsAre reports whether the tokens from k on are the words ws.
func (t *mtext) wordsAre(k int, ws []string) bool {
	for i, w := range ws {
		if t.toks[k+i].w != w || i > 0 && t.toks[k+i].brk != brkNone {
			return false
		}
	}
	return true
}

// segmentModality: the clauses the claim lines up with hold no modal, but
// their sentence part does, and a weaker one than the claim's ("the
// controller must refuse" lined up with "Where requests … are manifestly
// unfounded or excessive", whose sentence goes on "the controller may
// either charge a reasonable fee … or refuse"). Which clause of the
// sentence the modal governs, the words cannot always tell ("You may
// request a copy, and the controller provides it" says no "may" of the
// providing): modality_unconfirmed, to review.
func (m *meaningScanner) segmentModality(c *mclause, ev []mtext, al []alignment, res *meaningResult) {
	var union uint16
	for _, a := range al {
		seg := ev[a.ev].clauses[a.clause].segment
		for j := range ev[a.ev].clauses {
			if e := &ev[a.ev].clauses[j]; e.segment == seg {
				if e.negModal {
					return // a denied modal is the polarity check's
				}
				union |= e.modals
			}
		}
	}
	if union == 0 || m.claim.restrictedOnly(c) {
		return
	}
	if c.modals&(1<<vObligation) != 0 && union&(1<<vObligation) == 0 ||
		c.modals&(1<<vRecommendation) != 0 && union&(1<<vObligation|1<<vRecommendation) == 0 {
		m.add(res, "modality", reasonModalityUnconfirmed, m.claim.matchWords(c, kModal), ev[al[0].ev].segmentModalWords(ev[al[0].ev].clauses[al[0].clause].segment))
		res.review = true
	}
}

// restrictedOnly reports whether the claim clause's modal is no more
// than a restriction ("may only"): the restriction check's business.
func (t *mtext) restrictedOnly(c *mclause) bool { return c.restricted && c.modals == 1<<vPermission }

// segmentModalWords returns the words of the first modal of a segment.
func (t *mtext) segmentModalWords(seg int) string {
	for j := range t.clauses {
		if e := &t.clauses[j]; e.segment == seg && e.modals != 0 {
			return t.matchWords(e, kModal)
		}
	}
	return ""
}

// modalSaid returns the modals the evidence puts on the claim's own verb
// after the claim's own subject word, anywhere in its sentences ("the date cancellation is to take effect"
// holds the claim's "when the cancellation is to take effect", whichever
// clause the claim lines up with): a modal stated of the same verb is not
// more than the evidence says.
func (m *meaningScanner) modalSaid(ev []mtext, c *mclause, verb int) uint16 {
	if verb < 0 {
		return 0
	}
	claimClause := c
	ct := m.claim.firstMatch(c, kModal)
	if ct < 0 {
		return 0
	}
	subject := m.claim.contentBefore(m.claim.matches[ct].from, c)
	if subject < 0 {
		return 0
	}
	var said uint16
	for i := range ev {
		et := &ev[i]
		for _, mt := range et.matches {
			if mt.kind != kModal {
				continue
			}
			for ci := range et.clauses {
				c := &et.clauses[ci]
				if mt.from < c.from || mt.from >= c.to {
					continue
				}
				if h := et.head(mt.to-1, c); h >= 0 && et.toks[h].stem == m.claim.toks[verb].stem && !et.negatedNear(mt.from, mt.to, c) &&
					// the same subject ("Applications must use" is not said
					// by "packages must use"), and every content word of the
					// claim's clause in the clause ("The disablethp setting
					// will be removed" is not said by another setting's)
					sameStem(et, et.contentBefore(mt.from, c), &m.claim, subject) && m.holdsAll(claimClause, et, c) {
					said |= 1 << mt.value
				}
				break
			}
		}
	}
	return said
}

// contentBefore returns the content word nearest before token k in
// clause c, at most three words back, or -1.
func (t *mtext) contentBefore(k int, c *mclause) int {
	for j := k - 1; j >= c.from && j >= k-3; j-- {
		if t.toks[j].content {
			return j
		}
	}
	return -1
}

// holdsAll reports whether evidence clause e holds every content word of
// claim clause c.
func (m *meaningScanner) holdsAll(c *mclause, et *mtext, e *mclause) bool {
	shared, total := m.claim.overlap(c, et, e)
	return total > 0 && shared == total
}

func sameStem(a *mtext, i int, b *mtext, j int) bool {
	return i >= 0 && j >= 0 && a.toks[i].stem == b.toks[j].stem
}

// governingModal is, when an evidence clause holds two modals or more
// ("should use Python 3 and must not be packaged for Python 2"), the one
// nearest before the claim's verb: its value, and whether it is negated.
// ok is false when the clause has one modal or the verb is not in it; the
// clause's modals then stand.
func (t *mtext) governingModal(c *mclause, claim []mtok, verb int) (modals uint16, neg, ok bool) {
	if verb < 0 {
		return 0, false, false
	}
	n, last := 0, -1
	for k, mt := range t.matches {
		if mt.kind == kModal && mt.from >= c.from && mt.from < c.to {
			n++
			if t.head(mt.to-1, c) >= 0 && t.toks[t.head(mt.to-1, c)].stem == claim[verb].stem {
				last = k
			}
		}
	}
	if n < 2 || last < 0 {
		return 0, false, false
	}
	mt := t.matches[last]
	if t.negatedNear(mt.from, mt.to, c) {
		return 0, true, true
	}
	return 1 << mt.value, false, true
}

func appendOnce(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

// period: the claim names a period ("annually") and the segment of every
// clause it lines up with names others only ("quarterly").
func (m *meaningScanner) period(ci int, ev []mtext, al []alignment, res *meaningResult) {
	c := &m.claim.clauses[ci]
	if c.periods == 0 {
		return
	}
	var union uint32
	for _, a := range al {
		for _, e := range ev[a.ev].clauses {
			if e.segment == ev[a.ev].clauses[a.clause].segment {
				union |= e.periods
			}
		}
	}
	if union == 0 || union&c.periods != 0 {
		return
	}
	// The claim's period said of the same things in another sentence part
	// ("a yearly rate of 6.125%" lined up, "My initial monthly payment of
	// principal and interest" beside it): the pairing picked the wrong part.
	for i := range ev {
		for j := range ev[i].clauses {
			if e := &ev[i].clauses[j]; e.periods&c.periods != 0 {
				if shared, _ := m.claim.overlap(c, &ev[i], e); shared >= 2 {
					return
				}
			}
		}
	}
	et := &ev[al[0].ev]
	evWords := ""
	for _, mt := range et.matches {
		if mt.kind == kPeriod && !et.toks[mt.from].noPeriod && union&(1<<mt.value) != 0 {
			evWords = et.words(mt.from, mt.to)
			break
		}
	}
	m.add(res, "period", reasonPeriod, m.claim.matchWords(c, kPeriod), evWords)
	res.contradicted = true
}

// exceptions: a clause of the evidence that carries "unless", "except",
// "provided that", "subject to" … in the part the claim rests on (the
// matched span's segment, or a segment a claim clause lines up with), and
// a claim that states no condition and few of the exception's words.
func (m *meaningScanner) exceptions(ev []mtext, evs []meaningEvidence, aligned [][]alignment, res *meaningResult) {
	for _, c := range m.claim.clauses {
		if c.condition {
			return
		}
	}
	for i := range ev {
		et := &ev[i]
		for j := range et.clauses {
			e := &et.clauses[j]
			if e.exception < 0 || scaleCarveOut(et, e.exception) || !m.restsOn(et, evs[i], i, e.segment, aligned) || !m.qualifiesClaim(et, e.exception) {
				continue
			}
			// The exception's words: to the clause's end or the next comma.
			from := e.exception + 1
			for from < e.to && !et.toks[from].content {
				from++
			}
			to := from
			for to < e.to && (to == from || et.toks[to].brk < brkComma) {
				to++
			}
			shared, total := 0, 0
			for k := from; k < to; k++ {
				if !et.toks[k].content {
					continue
				}
				total++
				if m.claim.hasAnyStem(et.toks[k].hash) {
					shared++
				}
			}
			if total > 0 && 2*shared >= total {
				continue // the claim carries the exception in its own words
			}
			m.add(res, "exception", "qualifier_missing:exception", "", et.words(e.exception, to))
			res.clarify = appendOnce(res.clarify, "exception")
			return
		}
	}
}

// scaleCarveOut reports whether the exception at token k carves the
// per-share figures out of a unit scale ("USD thousands, except per-share
// data"): a table's reading, no rule's exception.
func scaleCarveOut(et *mtext, k int) bool {
	if k+1 >= len(et.toks) {
		return false
	}
	w := et.toks[k+1].w
	return w == "per-share" || w == "per" && k+2 < len(et.toks) && (et.toks[k+2].w == "share" || et.toks[k+2].w == "unit")
}

// qualifiesClaim reports whether the exception at token k may qualify
// what the claim says: the words it follows, back to the last comma (or
// clause start), share a content word with the claim, or hold none (an
// exception that opens its sentence, "Subject to Clause 7, …", qualifies
// what follows). "Meals are reimbursed at cost, and alcohol is excluded
// except at client dinners" excepts alcohol, not meals.
func (m *meaningScanner) qualifiesClaim(et *mtext, k int) bool {
	s := k - 1
	for s > 0 && et.toks[s].brk < brkComma {
		s--
	}
	content := false
	for j := max(s, 0); j < k; j++ {
		if tok := &et.toks[j]; tok.content && !tok.neg {
			content = true
			if m.claim.hasAnyStem(tok.hash) {
				return true
			}
		}
	}
	return !content
}

// contentWords counts the distinct content words of a clause.
func (t *mtext) contentWords(c *mclause) int { return len(c.set) }

func (t *mtext) hasAnyStem(h uint32) bool {
	for k := range t.toks {
		if t.toks[k].hash == h {
			return true
		}
	}
	return false
}

// restsOn reports whether segment seg of evidence i is what the claim
// rests on: it holds part of the matched span, or a clause a claim clause
// lines up with.
func (m *meaningScanner) restsOn(et *mtext, e meaningEvidence, i, seg int, aligned [][]alignment) bool {
	any := false
	for _, al := range aligned {
		for _, a := range al {
			if a.ev == i && et.clauses[a.clause].segment == seg {
				return true
			}
			any = any || a.ev == i
		}
	}
	if any || e.spanTo <= e.spanFrom {
		return false
	}
	for _, c := range et.clauses {
		if c.segment != seg || c.from == c.to {
			continue
		}
		if et.toks[c.from].start < e.spanTo && et.toks[c.to-1].end > e.spanFrom {
			return true
		}
	}
	return false
}

// bounds: a figure of the claim with a bound or a timing ("at least 4.00:1",
// "14 days after") that the evidence states of the same figure only the
// other way ("not exceed 4.00:1", "14 days before").
func (m *meaningScanner) bounds(claim string, evs []meaningEvidence, res *meaningResult) {
	bounded := false
	for _, mt := range m.claim.matches {
		bounded = bounded || mt.kind == kBound || mt.kind == kTiming
	}
	if !bounded {
		return // the claim bounds no figure: nothing to compare
	}
	var claimFigs []Figure
	if m.claimFigsOf == claim && m.claimFigs != nil {
		claimFigs = m.claimFigs // the checker's, read for the figure check already
	} else {
		claimFigs = appendFigures(m.figs[:0], claim)
		m.figs = claimFigs
	}
	if len(claimFigs) == 0 {
		return
	}
	nClaim := len(claimFigs)
	pos := 0
	for fi := 0; fi < nClaim; fi++ {
		f := claimFigs[fi]
		at := strings.Index(claim[pos:], f.Text)
		if at < 0 {
			continue
		}
		fs, fe := pos+at, pos+at+len(f.Text)
		pos = fe
		for _, kind := range [...]uint8{kBound, kTiming} {
			cv, cw, ok := m.claim.boundAt(fs, fe, kind)
			if !ok {
				continue
			}
			same, opposite, ow, excepted := false, false, "", false
			for i := range evs {
				et := &m.ev[i]
				for _, g := range m.scans[i].figures() {
					if g.Kind != f.Kind || g.Value != f.Value {
						continue
					}
					if v, w, ok := et.boundAt(g.start, g.end, kind); ok {
						if v == cv {
							same = true
						} else {
							opposite, ow = true, w
							excepted = excepted || et.exceptionAround(g.start)
						}
					} else if kind == kBound && et.rangeEnd(g.start, g.end) == int(cv) {
						// "50 to 95" bounds 95 from above as "up to 95"
						// does: support, never a contradiction ("from 2
						// to 5" says nothing against "at least 5").
						same = true
					}
				}
			}
			if opposite && !same && kind == kTiming && m.timingSaid(cv) {
				same = true // "after 3 months on four agents, or sooner if …": both ways, by condition
			}
			if opposite && !same && excepted && m.claim.restrictedAnywhere() {
				// "do not exceed 10 per cent. …, except during the 30 days
				// following …" for "may exceed 10% only during the 30
				// days after …": the claim's "only" restates the exception,
				// which turns the bound around. A person decides.
				m.add(res, "direction", reasonPolarityUnconfirmed, cw+" "+f.Text, ow)
				res.review = true
				continue
			}
			if opposite && !same {
				m.add(res, "direction", reasonDirection, cw+" "+f.Text, ow)
				res.contradicted = true
			}
		}
	}
}

// exceptionAround reports whether the sentence part holding byte at has
// an exception ("provided that no Event of Default will occur … if … less
// than", "do not exceed …, except during").
func (t *mtext) exceptionAround(at int) bool {
	for i := range t.clauses {
		c := &t.clauses[i]
		if c.from < c.to && t.toks[c.from].start <= at && at < t.toks[c.to-1].end {
			return t.segmentHasException(c.segment)
		}
	}
	return false
}

// restrictedAnywhere reports whether the text restricts what it says:
// a clause with a restriction, or an "only" ("only bites where …").
func (t *mtext) restrictedAnywhere() bool {
	for i := range t.clauses {
		if t.clauses[i].restricted {
			return true
		}
	}
	for k := range t.toks {
		if t.toks[k].w == "only" {
			return true
		}
	}
	return false
}

// timingSaid reports whether a cited sentence holds a timing of value v
// of its own, outside any bound ("or sooner if hypokalemia persists").
func (m *meaningScanner) timingSaid(v uint8) bool {
	for i := range m.evs {
		et := &m.ev[i]
		for _, mt := range et.matches {
			if mt.kind == kTiming && mt.value == v && !et.inBound(mt) {
				return true
			}
		}
	}
	return false
}

// boundAt returns the bound (or timing) of a figure at bytes [fs, fe): a
// phrase ending at most three words before it, or starting right after it
// ("or more", "maximum", "before"), in its clause.
func (t *mtext) boundAt(fs, fe int, kind uint8) (uint8, string, bool) {
	first, last := -1, -1
	for k := range t.toks {
		if t.toks[k].end > fs && t.toks[k].start < fe {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if first < 0 {
		return 0, "", false
	}
	for _, mt := range t.matches {
		if mt.kind != kind {
			continue
		}
		if at := t.toks[mt.from].start; at > 0 && t.s[at-1] == '/' {
			continue // "95 mL/min": a unit per minute, no minimum
		}
		if kind == kTiming && t.inBound(mt) {
			continue // "no earlier than 21 days after": a floor; the timing is "after"
		}
		// "Greater than 50 to 95": the bound is the nearer number's. A bound
		// written after its number ("ST3 or above", "a $15 floor") is that
		// number's, never the next one's.
		before := mt.to <= first && first-mt.to <= 3 && !t.breakBetween(mt.to, first) && !t.numberBetween(mt.to, first) &&
			!t.postposed(mt) && !t.matchBetween(mt.to, first, kind)
		after := mt.from > last && mt.from-last <= 2 && !t.breakBetween(last+1, mt.from+1) && (kind == kTiming || t.followsItsNumber(mt))
		if before || after {
			v := mt.value
			if kind == kBound && t.leadTime(mt, last) {
				v ^= 1 // vMin <-> vMax
			}
			return v, t.words(mt.from, mt.to), true
		}
	}
	return 0, "", false
}

// matchBetween reports whether a phrase of kind lies in tokens [from, to):
// "hand over Form NV-OBS within 36 hours" bounds 36 hours by "within",
// the nearer, not by the verb's "over".
func (t *mtext) matchBetween(from, to int, kind uint8) bool {
	for _, mt := range t.matches {
		if mt.kind == kind && mt.from >= from && mt.to <= to {
			return true
		}
	}
	return false
}

// postposed reports whether bound phrase p follows the number it bounds:
// it starts with "or" or "and" ("or more", "and above"), or it is a noun of
// bound right after a number ("a $15 floor and a $100 cap").
func (t *mtext) postposed(p pmatch) bool {
	if p.to-p.from == 1 && p.from > 0 && (t.toks[p.from-1].w == "or" || t.toks[p.from-1].w == "and") {
		switch t.toks[p.from].w {
		case "above", "over", "higher", "greater", "more", "below", "under", "lower", "less", "fewer":
			return true // "ST3 or above", where "or" parts the words
		}
	}
	switch w := t.toks[p.from].w; w {
	case "or", "and":
		return true
	case "floor", "cap", "ceiling", "minimum", "maximum", "min", "max":
		return p.from > 0 && hasDigit(t.toks[p.from-1].w)
	}
	return false
}

// followsItsNumber reports whether bound phrase p is one that can stand
// after the number it bounds ("or more", "maximum", "above", "at least"),
// unlike "not more than" or "up to", which bound the number after them
// ("$15.00 and not more than $100.00").
func (t *mtext) followsItsNumber(p pmatch) bool {
	if t.postposed(p) {
		return true
	}
	w, n := t.toks[p.from].w, p.to-p.from
	switch {
	case w == "or" || w == "and":
		return true
	case n == 1:
		switch w {
		case "minimum", "maximum", "min", "max", "floor", "cap", "capped", "ceiling", "above", "over", "below", "under":
			return true
		}
	case w == "at":
		return n == 2 && (t.toks[p.from+1].w == "least" || t.toks[p.from+1].w == "most") || n == 3 && t.toks[p.from+2].w == "minimum"
	}
	return false
}

// leadTime reports whether bound phrase p compares times ("no earlier
// than", "no later than") of a duration its figure (ending at token last)
// counts back from an event: "no earlier than 15 months … before
// expiration" is a lead of at most 15 months, "no later than 9 months
// before" one of at least 9. "After" ends the look, and so does a clause
// break.
func (t *mtext) leadTime(p pmatch, last int) bool {
	temporal := false
	for k := p.from; k < p.to; k++ {
		temporal = temporal || t.toks[k].w == "earlier" || t.toks[k].w == "later"
	}
	if !temporal || durationUnits[t.toks[last].w] == "" {
		return false // a time of day or a date is no lead
	}
	for k := last + 1; k < len(t.toks) && k <= last+8; k++ {
		if t.toks[k].brk >= brkClause {
			return false
		}
		switch t.toks[k].w {
		case "before", "prior", "preceding":
			return true
		case "after", "following", "from":
			return false
		}
	}
	return false
}

// rangeEnd returns vMax when the figure at bytes [fs, fe) ends a range
// ("15 to 50", "15-50"), vMin when it starts one, else -1.
func (t *mtext) rangeEnd(fs, fe int) int {
	join := func(between string) bool {
		switch strings.TrimSpace(between) {
		case "to", "-", "–", "through":
			return true
		}
		return false
	}
	isNum := func(i int) bool { return i >= 0 && i < len(t.s) && t.s[i] >= '0' && t.s[i] <= '9' }
	// Before: a number, then the join.
	for i := fs - 1; i >= 0 && fs-i <= 12; i-- {
		if isNum(i) {
			if join(t.s[i+1 : fs]) {
				return int(vMax)
			}
			break
		}
	}
	for i := fe; i < len(t.s) && i-fe <= 12; i++ {
		if isNum(i) {
			if join(t.s[fe:i]) {
				return int(vMin)
			}
			break
		}
	}
	return -1
}

// inBound reports whether a phrase lies inside a bound phrase ("earlier
// than" in "no earlier than").
func (t *mtext) inBound(p pmatch) bool {
	for _, b := range t.matches {
		if b.kind == kBound && b.from <= p.from && p.to <= b.to && b.to-b.from > p.to-p.from {
			return true
		}
	}
	return false
}

// numberBetween reports whether a token in [from, to) is a number.
func (t *mtext) numberBetween(from, to int) bool {
	for k := from; k < to && k < len(t.toks); k++ {
		if w := t.toks[k].w; w != "" && w[0] >= '0' && w[0] <= '9' {
			return true
		}
	}
	return false
}

func (t *mtext) breakBetween(from, to int) bool {
	for k := from; k < to && k < len(t.toks); k++ {
		if t.toks[k].brk >= brkClause {
			return true
		}
	}
	return false
}

// substitutes reports whether clause c holds a word of displacement
// ("replace", "substitute", "supersede"), which says what "instead of"
// and "rather than" say.
func (t *mtext) substitutes(c *mclause) bool {
	for k := c.from; k < c.to; k++ {
		if lex.substitutions[t.toks[k].w] {
			return true
		}
	}
	return false
}

// conditionalDenial reports whether negator k is followed by "without"
// in its segment, where the other side has none: the two turn the denial
// into a condition ("must not write … without coordination": writes need
// it), which the words alone cannot line up with the other side's
// ("uncoordinated write access … must not be done").
func conditionalDenial(negText *mtext, k int, negClause *mclause, other *mtext, otherClause *mclause) bool {
	return negText.withoutAfter(k, negClause) && !other.holdsWithout(otherClause)
}

// sameDenial reports whether the other side holds negator k's own words:
// the same negator before the same word, the first after it that is a
// content word or a negator ("rather than fail" / "rather than fails"),
// which no count of negations should set apart.
func sameDenial(negText *mtext, k int, other *mtext) bool {
	next := func(toks []mtok, i int) int {
		for i++; i < len(toks) && !toks[i].content && !toks[i].neg; i++ {
		}
		return i
	}
	toks, ot := negText.toks, other.toks
	a := next(toks, k)
	if a >= len(toks) || toks[a].stem == "" {
		return false
	}
	for j := range ot {
		if ot[j].neg && ot[j].w == toks[k].w {
			if b := next(ot, j); b < len(ot) && ot[b].stem == toks[a].stem {
				return true
			}
		}
	}
	return false
}

// prevents reports whether clause c holds a word of prevention ("Use
// pauseOnConnect to prevent the sockets from being read"): a denial in
// other words, which the negation count cannot line up, so a one-sided
// "not" there is left to review.
func (t *mtext) prevents(c *mclause) bool {
	for k := c.from; k < c.to; k++ {
		if lex.preventions[t.toks[k].w] {
			return true
		}
	}
	return false
}

// absenceSaid reports whether negator k is "without W" and other says
// W is absent in a phrase of its own: "W is not present" (given, set,
// specified, supplied, provided, defined), "W is absent" (missing,
// omitted), "no W is given".
func absenceSaid(negText *mtext, k int, other *mtext) bool {
	toks := negText.toks
	if toks[k].w != "without" || k+1 >= len(toks) || toks[k+1].brk != brkNone {
		return false
	}
	w := toks[k+1].w
	ot := other.toks
	for j := range ot {
		if ot[j].w != w {
			continue
		}
		// W, then within three words "not" and a word of presence, or a
		// word of absence.
		for n := j + 1; n < len(ot) && n <= j+4 && ot[n].brk < brkComma; n++ {
			if absenceWords[ot[n].w] {
				return true
			}
			if ot[n].w == "not" && n+1 < len(ot) && presenceWords[ot[n+1].w] {
				return true
			}
		}
	}
	return false
}

var (
	presenceWords = map[string]bool{"present": true, "given": true, "set": true, "specified": true, "supplied": true, "provided": true, "defined": true}
	absenceWords  = map[string]bool{"absent": true, "missing": true, "omitted": true}
)

// withoutAfter reports whether the segment of clause c holds "without"
// after negator k (clauses part at "and", the condition may be past it).
func (t *mtext) withoutAfter(k int, c *mclause) bool {
	end := c.to
	for i := range t.clauses {
		if t.clauses[i].segment == c.segment {
			end = max(end, t.clauses[i].to)
		}
	}
	for j := k + 1; j < end; j++ {
		if t.toks[j].w == "without" {
			return true
		}
	}
	return false
}

// holdsWithout reports whether the segment of clause c holds "without".
func (t *mtext) holdsWithout(c *mclause) bool {
	for i := range t.clauses {
		if e := &t.clauses[i]; e.segment == c.segment {
			for j := e.from; j < e.to; j++ {
				if t.toks[j].w == "without" {
					return true
				}
			}
		}
	}
	return false
}

// negatedLike reports whether a clause of t other than aligned holds a
// negator ("without" aside: a condition, not a denial) and half the
// content words of clause c of claim (or more): the
// evidence says the claim's words with a negation of its own somewhere,
// which the clause they were lined up with lacked ("None of the packaging
// tools is mandatory" lined up with the heading "Packaging Tools", beside
// "none of these tools are mandatory"). The words alone cannot tell
// which it means: review, not a block.
func (t *mtext) negatedLike(claim *mtext, c, aligned *mclause) bool {
	for i := range t.clauses {
		e := &t.clauses[i]
		if e == aligned || e.negs == 0 || !t.denialIn(e) {
			continue
		}
		if shared, total := claim.overlap(c, t, e); total > 0 && shared*2 >= total {
			return true
		}
	}
	return false
}

// denialIn reports whether clause c holds a negator other than "without".
func (t *mtext) denialIn(c *mclause) bool {
	for k := c.from; k < c.to; k++ {
		if t.toks[k].neg && t.toks[k].w != "without" {
			return true
		}
	}
	return false
}

// segmentRestricts reports whether a clause of segment seg holds a
// restriction word ("only"), with or without a modal of its own.
func (t *mtext) segmentRestricts(seg int) bool {
	for i := range t.clauses {
		if c := &t.clauses[i]; c.segment == seg {
			for k := c.from; k < c.to; k++ {
				if t.toks[k].flags&fRestrict != 0 {
					return true
				}
			}
		}
	}
	return false
}
