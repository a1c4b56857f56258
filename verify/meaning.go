package verify

import (
	"sync"
)

// The meaning checks compare a claim with the evidence its quotes matched
// (widened to whole sentences of the chunk) for what a quote match cannot
// see: a dropped or added negation, a flipped bound or trend, another
// period, a stronger modal, a name the evidence does not hold or binds to
// another role, and a rule stated without its exception. Each check fires
// only where the two texts line up (clauses sharing most of the claim's
// words, or the same figure), so a claim that restates its evidence is
// never blocked; what they cannot line up they leave alone.

// meaningEvidence is one accepted citation as the meaning checks read it.
type meaningEvidence struct {
	context          string // the matched span widened to whole sentences
	spanFrom, spanTo int    // the matched span, bytes in context
	chunk            string // the cited chunk, where names are looked up
	section          []string
	document         string
	version          string // its document version, whose opening names may hold too
	// whole is set when the citation named no quote and no offsets: the
	// span is the whole chunk, and says nothing of which sentence is meant.
	whole bool
}

// meaningResult is what the checks found on one claim.
type meaningResult struct {
	findings     []Finding
	contradicted bool
	unsupported  bool
	review       bool     // a finding the words cannot confirm: a person (or the judge) decides
	clarify      []string // qualifier_missing names: exception, restriction
}

// Meaning reasons.
const (
	reasonPolarity = "polarity_contradicted"
	// reasonPolarityUnconfirmed: a negation on one side only, in clauses
	// worded apart or past the predicate: the claim goes to review.
	reasonPolarityUnconfirmed = "polarity_unconfirmed"
	reasonDirection           = "direction_contradicted"
	reasonPeriod              = "period_contradicted"
	reasonModality            = "modality_differs"
	// reasonModalityUnconfirmed: the claim's modal is stronger than its
	// evidence sentence's, which the words cannot tie to the claim's
	// clause: to review.
	reasonModalityUnconfirmed = "modality_unconfirmed"
	reasonAntonym             = "antonym_contradicted"
	reasonName                = "name_unsupported"
	reasonRole                = "role_contradicted"
)

// meaningScanner holds the buffers one checker reuses for every claim.
type meaningScanner struct {
	claim mtext
	ev    []mtext // views of cached scans (scanContext), or own[i]
	own   []mtext // evidence scanned into the scanner's own buffers
	owned []bool  // ev[i] is own[i]: a sentence read for the first time
	// the views' own clauses and negation scopes, reused
	evClauses [][]mclause
	evScopes  [][]int
	scans     []*scannedContext // the cache entries of the evidence
	evs       []meaningEvidence
	figs      []Figure
	// claimFigs are the figures of claimFigsOf when the checker has read
	// them (appendFigures of the same text): bounds reads them, not again.
	claimFigs   []Figure
	claimFigsOf string
	quote       [2]mtext // a loose quote and its span (quoteMeaningDiffers)
	// reused buffers
	aligned     [][]alignment
	claimB, evB []binding
	// head returns the opening of a version's text (set by the checker,
	// which holds the read transaction), or "".
	head     func(version string) string
	units    []ownedUnit // attribution's, reused
	unitFigs []Figure    // the figures of one unit, reused
	// excepted is set while polarity reads a claim clause that it or its
	// evidence states in a sentence part with an exception: no finding
	// there contradicts.
	excepted bool
}

type alignment struct{ ev, clause int }

// release returns the scanner to the pool, dropping the texts it read.
func (m *meaningScanner) release() {
	m.evs, m.claim.s, m.head = nil, "", nil
	m.claimFigs, m.claimFigsOf = nil, ""
	for i := range m.ev {
		m.ev[i] = mtext{} // holds no cache entry from one request to the next
		m.own[i].s = ""
	}
	clear(m.scans)
	// The units and their figures point into the chunks read: a pooled
	// scanner keeps no text of one request for the next.
	clear(m.units[:cap(m.units)])
	clear(m.unitFigs[:cap(m.unitFigs)])
	m.units, m.unitFigs = m.units[:0], m.unitFigs[:0]
	m.quote[0].s, m.quote[1].s = "", ""
	scanners.Put(m)
}

// scanners keeps meaning scanners, and the token buffers they have grown,
// from one request to the next.
var scanners = sync.Pool{New: func() any { return new(meaningScanner) }}

func (m *meaningScanner) check(claim string, evs []meaningEvidence) meaningResult {
	if restates(claim, evs) {
		return meaningResult{}
	}
	return m.checkAll(claim, evs)
}

// checkAll runs every meaning check.
func (m *meaningScanner) checkAll(claim string, evs []meaningEvidence) meaningResult {
	var res meaningResult
	m.claim.scan(claim)
	for len(m.ev) < len(evs) {
		m.ev, m.own, m.owned = append(m.ev, mtext{}), append(m.own, mtext{}), append(m.owned, false)
		m.evClauses, m.evScopes = append(m.evClauses, nil), append(m.evScopes, nil)
	}
	m.scans = m.scans[:0]
	for i := range evs {
		e := scanContext(evs[i].context)
		m.scans = append(m.scans, e)
		if t := e.cachedScan(); t != nil {
			m.ev[i], m.owned[i] = view(t, m.evClauses[i], m.evScopes[i]), false
		} else {
			m.own[i].scan(evs[i].context)
			m.ev[i], m.owned[i] = m.own[i], true
		}
	}
	ev := m.ev[:len(evs)]
	m.evs = evs
	aligned := m.aligned[:0]
	for range m.claim.clauses {
		aligned = append(aligned, nil)
	}
	m.aligned = aligned
	for ci := range m.claim.clauses {
		aligned[ci] = m.align(ci, ev)
		m.widen(ci, ev, aligned[ci])
	}
	for ci := range m.claim.clauses {
		if len(aligned[ci]) > 0 {
			m.polarity(ci, ev, aligned[ci], &res)
			m.trend(ci, ev, aligned[ci], &res)
			m.antonym(ci, ev, aligned[ci], &res)
			m.modality(ci, ev, aligned[ci], &res)
			m.period(ci, ev, aligned[ci], &res)
		}
	}
	m.bounds(claim, evs, &res)
	m.exceptions(ev, evs, aligned, &res)
	m.names(evs, &res)
	m.codeNames(evs, &res)
	m.roles(evs, &res)
	m.attribution(claim, evs, &res)
	for i := range ev { // grown buffers, kept
		if m.owned[i] {
			m.own[i] = ev[i]
		} else {
			m.evClauses[i], m.evScopes[i] = ev[i].clauses, ev[i].scopeBuf
		}
	}
	return res
}

// align returns the evidence clauses that share the most of claim clause
// ci's words: at least two (one for a clause of one or two words) and at
// least half of them.
func (m *meaningScanner) align(ci int, ev []mtext) []alignment {
	c := &m.claim.clauses[ci]
	var best []alignment
	bestShared, bestExtra := 0, 0
	for i := range ev {
		for j := range ev[i].clauses {
			e := &ev[i].clauses[j]
			if !m.inSpan(i, e) {
				continue
			}
			shared, total := m.claim.overlap(c, &ev[i], e)
			if total == 0 || shared < min(2, total) || 2*shared < total || shared < bestShared {
				continue
			}
			// Of clauses sharing as many words, the one with the fewest
			// words of its own: "covers flood damage" lines up with "does
			// not cover flood damage", not with "covers fire damage".
			extra := ev[i].contentWords(e) - shared
			if shared > bestShared || extra < bestExtra {
				best, bestShared, bestExtra = best[:0], shared, extra
			} else if extra > bestExtra {
				continue
			}
			best = append(best, alignment{i, j})
		}
	}
	return best
}

// widen handles a claim clause that runs over several clauses of the
// evidence (a quote joining lines or list items the evidence keeps
// apart): it is compared with all of them at once, as one clause appended
// to the evidence's, rather than with the one it shares most words with.
func (m *meaningScanner) widen(ci int, ev []mtext, al []alignment) {
	if len(al) == 0 {
		return
	}
	c := &m.claim.clauses[ci]
	n := m.claim.contentWords(c)
	for i, a := range al {
		et := &ev[a.ev]
		if n <= 2*et.contentWords(&et.clauses[a.clause])+2 {
			continue
		}
		from, to := -1, -1
		for j := range et.clauses {
			e := &et.clauses[j]
			if shared, _ := m.claim.overlap(c, et, e); shared == 0 || !m.inSpan(a.ev, e) {
				continue
			}
			if from < 0 {
				from = e.from
			}
			to = e.to
		}
		if from < 0 {
			continue
		}
		u := mclause{from: from, to: to, segment: et.clauses[a.clause].segment, exception: -1, set: et.stemSet(from, to)}
		for j := range et.clauses {
			e := &et.clauses[j]
			if e.from >= from && e.to <= to {
				u.negs += e.negs
				u.trends |= e.trends
				u.periods |= e.periods
				u.modals |= e.modals
				u.negModal = u.negModal || e.negModal
				u.restricted = u.restricted || e.restricted
				u.condition = u.condition || e.condition
				if e.exception >= 0 && u.exception < 0 {
					u.exception = e.exception
				}
			}
		}
		et.clauses = append(et.clauses, u)
		al[i].clause = len(et.clauses) - 1
	}
}

// inSpan reports whether a clause of evidence i holds part of the span the
// quote matched: the widened sentence lends its words to the checks, but
// the claim lines up only with what it quoted.
func (m *meaningScanner) inSpan(i int, c *mclause) bool {
	e := &m.evs[i]
	if e.spanTo <= e.spanFrom || c.from == c.to {
		return e.spanTo <= e.spanFrom
	}
	t := &m.ev[i]
	return t.toks[c.from].start < e.spanTo && t.toks[c.to-1].end > e.spanFrom
}

func (m *meaningScanner) add(res *meaningResult, check, reason, claim, evidence string) {
	for _, f := range res.findings {
		if f.Reason == reason && f.Claim == claim && f.Evidence == evidence {
			return
		}
	}
	msg := reason + ": claim " + quoteWords(claim) + " / evidence " + quoteWords(evidence)
	res.findings = append(res.findings, Finding{Check: check, Reason: reason, Claim: claim, Evidence: evidence, Message: msg})
}

func quoteWords(s string) string {
	if s == "" {
		return "(none)"
	}
	return `"` + s + `"`
}
