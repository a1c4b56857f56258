package verify

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
}

// meaningResult is what the checks found on one claim.
type meaningResult struct {
	findings     []Finding
	contradicted bool
	unsupported  bool
	clarify      []string // qualifier_missing names: exception, restriction
}

// Meaning reasons.
const (
	reasonPolarity  = "polarity_contradicted"
	reasonDirection = "direction_contradicted"
	reasonPeriod    = "period_contradicted"
	reasonModality  = "modality_differs"
	reasonName      = "name_unsupported"
	reasonRole      = "role_contradicted"
)

// meaningScanner holds the buffers one checker reuses for every claim.
type meaningScanner struct {
	claim mtext
	ev    []mtext
	evs   []meaningEvidence
	figs  []Figure
	quote [2]mtext // a loose quote and its span (quoteMeaningDiffers)
	// head returns the opening of a version's text (set by the checker,
	// which holds the read transaction), or "".
	head func(version string) string
}

type alignment struct{ ev, clause int }

// release returns the scanner to the pool, dropping the texts it read.
func (m *meaningScanner) release() {
	m.evs, m.claim.s, m.head = nil, "", nil
	for i := range m.ev {
		m.ev[i].s = ""
	}
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
		m.ev = append(m.ev, mtext{})
	}
	for i := range evs {
		m.ev[i].scan(evs[i].context)
	}
	ev := m.ev[:len(evs)]
	m.evs = evs
	aligned := make([][]alignment, len(m.claim.clauses))
	for ci := range m.claim.clauses {
		aligned[ci] = m.align(ci, ev)
		m.widen(ci, ev, aligned[ci])
	}
	for ci := range m.claim.clauses {
		if len(aligned[ci]) > 0 {
			m.polarity(ci, ev, aligned[ci], &res)
			m.trend(ci, ev, aligned[ci], &res)
			m.modality(ci, ev, aligned[ci], &res)
			m.period(ci, ev, aligned[ci], &res)
		}
	}
	m.bounds(claim, evs, &res)
	m.exceptions(ev, evs, aligned, &res)
	m.names(evs, &res)
	m.roles(evs, &res)
	return res
}

// restates reports whether the claim is, word for word, part of the
// sentence of one of its citations, and the rest of that sentence holds
// nothing that could turn it around: no negator, exception or
// restriction, and no bound or timing right beside it. Every check would
// then find nothing (the claim's words, names, figures and bindings are
// the evidence's own), so none runs: the answer that restates its quotes
// pays for one scan of a few words.
func restates(claim string, evs []meaningEvidence) bool {
	claim = strings.TrimRight(claim, ". ")
	if claim == "" {
		return false
	}
	for i := range evs {
		ctx := evs[i].context
		// The occurrence the quote matched: the checks line the claim up
		// with the span's clauses, not with the same words elsewhere.
		at := -1
		for from := 0; from < len(ctx); {
			j := strings.Index(ctx[from:], claim)
			if j < 0 {
				break
			}
			if j += from; j < evs[i].spanTo && j+len(claim) > evs[i].spanFrom {
				at = j
				break
			}
			from = j + 1
		}
		if at < 0 || strings.Count(ctx, claim) > 1 {
			continue // absent, or said twice: which one lines up is for the checks to find
		}
		// A claim cut mid-word at an edge (as a quote can be) leaves that
		// word, whole, to the words around it, which must be quiet too.
		from, to := at, at+len(claim)
		for from > 0 && isWordByteASCII(ctx[from-1]) && isWordByteASCII(ctx[from]) {
			from--
		}
		for to < len(ctx) && to > 0 && isWordByteASCII(ctx[to]) && isWordByteASCII(ctx[to-1]) {
			to++
		}
		before, after := ctx[:at], ctx[at+len(claim):]
		if from < at {
			before = ctx[:at+wordLen(ctx[at:])]
		}
		if to > at+len(claim) {
			after = ctx[at+len(claim)-lastWordLen(ctx[:at+len(claim)]):]
		}
		return quietAround(before, claim, after, ctx[:at], ctx[at+len(claim):])
	}
	return false
}

// wordLen is the length of the word s starts with.
func wordLen(s string) int {
	n := 0
	for n < len(s) && isWordByteASCII(s[n]) {
		n++
	}
	return n
}

// lastWordLen is the length of the word s ends with.
func lastWordLen(s string) int {
	n := 0
	for n < len(s) && isWordByteASCII(s[len(s)-1-n]) {
		n++
	}
	return n
}

// eachWord calls fn on the words of s and where each starts, split as the
// scanner splits them (letters and digits of any script, apostrophes and
// hyphens inside), until fn says stop.
func eachWord(s string, fn func(w string, at int) bool) {
	for i := 0; i < len(s); {
		for i < len(s) {
			if c := s[i]; c < 0x80 {
				if asciiWord[c] || c == '\'' || c == '-' {
					break
				}
				i++
				continue
			}
			ok, size := wordRuneAt(s, i)
			if ok {
				break
			}
			i += size
		}
		j := i
		for j < len(s) {
			if c := s[j]; c < 0x80 {
				if !(asciiWord[c] || c == '\'' || c == '-') {
					break
				}
				j++
				continue
			}
			ok, size := wordRuneAt(s, j)
			if !ok {
				break
			}
			j += size
		}
		if j == i {
			return
		}
		from, to := i, j
		for from < to && (s[from] == '\'' || s[from] == '-') {
			from++
		}
		for to > from && (s[to-1] == '\'' || s[to-1] == '-') {
			to--
		}
		if from < to && !fn(s[from:to], from) {
			return
		}
		i = j
	}
}

// wordRuneAt reports whether the character at s[i] belongs to a word, and
// its size.
func wordRuneAt(s string, i int) (bool, int) {
	if c := s[i]; c < 0x80 {
		return asciiWord[c] || c == '\'' || c == '-', 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r) || r == '’', size
}

// sideWord is a word beside a restated claim, where it starts, and what
// the lexicon knows of it.
type sideWord struct {
	w  string
	at int
	e  *lexWord
}

// sideWords returns up to cap(buf) words of s; ok is false when s has
// more (a long side is left to the full check).
func sideWords(s string, buf []sideWord) (_ []sideWord, ok bool) {
	ws := buf[:0]
	ok = true
	eachWord(s, func(w string, at int) bool {
		if len(ws) == cap(ws) {
			ok = false
			return false
		}
		ws = append(ws, sideWord{w: w, at: at, e: lex.lowerLookup(w)})
		return true
	})
	return ws, ok
}

// quietAround reports whether the words before and after a restated claim
// in its sentence hold no exception, its own clause no negator or
// restriction beside it, and no phrase reaches across its edges ("whether
// or | not", "Subject | to", "not | exceed"): each would make the checks
// read the claim otherwise than it reads alone. Bounds and timings need no
// look of their own: a restated claim states its figures' bounds itself.
// rawBefore and rawAfter are the sides as cut at the claim (before and
// after may hold a word the claim cuts).
func quietAround(before, claim, after, rawBefore, rawAfter string) bool {
	var b1, b2, b3, b4 [64]sideWord
	bw, ok1 := sideWords(before, b1[:])
	aw, ok2 := sideWords(after, b2[:])
	if !ok1 || !ok2 || exception(bw) || exception(aw) {
		return false
	}
	// The claim's own clause: after the last clause break before it,
	// before the first one after it.
	start := 0
	for i, w := range bw {
		if w.e != nil && w.e.flags&(fClauseBreak|fConditional) != 0 {
			start = i + 1
		}
	}
	if i := strings.LastIndexAny(before, ";:"); i >= 0 {
		for start < len(bw) && bw[start].at < i {
			start++
		}
	}
	end := len(aw)
	semi := strings.IndexAny(after, ";:")
	for i, w := range aw {
		if semi >= 0 && w.at > semi || w.e != nil && w.e.flags&(fClauseBreak|fConditional) != 0 {
			end = i
			break
		}
	}
	if loud(bw[start:]) || loud(aw[:end]) {
		return false
	}
	// A negator at the claim's end denies words after it ("… does not |
	// cover"): the claim alone reads it otherwise.
	var b5 [64]sideWord
	if cw, ok := sideWords(claim[len(claim)-min(len(claim), 96):], b5[:]); !ok || loud(tail(cw, negScope+2)) {
		return false
	}
	// Phrases across the edges, on the sides as cut at the claim.
	cb, _ := sideWords(claim[:min(len(claim), 64)], b3[:8])
	ce, _ := sideWords(claim[len(claim)-min(len(claim), 64):], b4[:16])
	rb, _ := sideWords(rawBefore[len(rawBefore)-min(len(rawBefore), 64):], b1[:16])
	ra, _ := sideWords(rawAfter[:min(len(rawAfter), 64)], b2[:8])
	return !phraseAcross(tail(rb, 4), cb) && !phraseAcross(tail(ce, 4), ra)
}

func tail(ws []sideWord, n int) []sideWord { return ws[len(ws)-min(len(ws), n):] }

// exception reports whether the words hold an exception phrase.
func exception(ws []sideWord) bool {
	for n, w := range ws {
		if w.e == nil {
			continue
		}
		for _, p := range w.e.phrases {
			if p.kind == kException && sideFollow(ws[n+1:], p.words) {
				return true
			}
		}
	}
	return false
}

// loud reports whether the words hold a negator (one that is not part of
// a bound or a non-negation: "no later than", "not only") or a restriction.
func loud(ws []sideWord) bool {
	for n := 0; n < len(ws); n++ {
		w := ws[n]
		if n := len(w.w); n >= 3 && strings.EqualFold(w.w[n-3:], "n't") || n >= 5 && strings.EqualFold(w.w[n-5:], "n’t") {
			return true
		}
		if w.e == nil {
			continue
		}
		if w.e.flags&fRestrict != 0 {
			return true
		}
		skip := 0
		for _, e := range w.e.phrases {
			if (e.kind == kBound || e.kind == kTiming || e.kind == kNotNeg) && sideFollow(ws[n+1:], e.words) {
				skip = max(skip, len(e.words))
			}
		}
		if skip > 0 {
			n += skip
			continue
		}
		for _, e := range w.e.phrases {
			if e.kind == kNeg && sideFollow(ws[n+1:], e.words) {
				return true
			}
		}
	}
	return false
}

// phraseAcross reports whether a phrase starts among the words a and ends
// among the words b that follow them.
func phraseAcross(a, b []sideWord) bool {
	for i, w := range a {
		if w.e == nil {
			continue
		}
		for _, p := range w.e.phrases {
			rest := len(a) - i - 1 // words of a after w
			if len(p.words) <= rest {
				continue // ends within a
			}
			if sideFollow(a[i+1:], p.words[:rest]) && sideFollow(b, p.words[rest:]) {
				return true
			}
		}
	}
	return false
}

func sideFollow(ws []sideWord, phrase []string) bool {
	if len(phrase) > len(ws) {
		return false
	}
	for i, p := range phrase {
		if !strings.EqualFold(ws[i].w, p) {
			return false
		}
	}
	return true
}

// isWordByteASCII: letters, digits, apostrophes and hyphens, and any byte
// of a multi-byte character (no lexicon word has one; "n’t" is checked).
func isWordByteASCII(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '\'' || c == '-' || c >= 0x80
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

// polarity: the claim's clause and every clause it lines up with differ
// in negation: an odd count, on one side, of negators that deny a word the
// other side states ("does not cover" against "covers"). Negators that
// deny something the other side does not mention are not counted, so a
// long clause's other negations do not matter. Exceptions turn a negation
// around ("not covered unless …"): segments holding one are left to the
// exception check.
func (m *meaningScanner) polarity(ci int, ev []mtext, al []alignment, res *meaningResult) {
	c := &m.claim.clauses[ci]
	if m.claim.segmentHasException(c.segment) {
		return
	}
	var claimNeg, evNeg int
	for _, a := range al {
		et, e := &ev[a.ev], &ev[a.ev].clauses[a.clause]
		if et.segmentHasException(e.segment) {
			return
		}
		pc, kc := m.claim.relevantNegs(c, et, e)
		pe, ke := et.relevantNegs(e, &m.claim, c)
		if pc%2 == pe%2 {
			return
		}
		claimNeg, evNeg = kc, ke
	}
	a := al[len(al)-1]
	et, e := &ev[a.ev], &ev[a.ev].clauses[a.clause]
	negText, negClause, k, other, otherClause := et, e, evNeg, &m.claim, c
	if claimNeg >= 0 {
		negText, negClause, k, other, otherClause = &m.claim, c, claimNeg, et, e
	}
	if k < 0 {
		return
	}
	denied, match := negText.denies(k, negClause, other, otherClause)
	// The denied word must be stated plainly on the other side, denied
	// nowhere there, and not also stated plainly beside the negation:
	// clause edges that differ between a quote and its source (joined
	// lines, list items) then cannot fake a difference.
	if denied < 0 || match < 0 || other.toks[match].negated || other.negates(negText.toks[denied].hash) ||
		negText.plain(negClause, negText.toks[denied].hash, denied) {
		return
	}
	from := k
	if from > negClause.from && negText.toks[from-1].flags&fAux != 0 {
		from--
	}
	negWords := negText.words(min(from, denied), max(k, denied)+1)
	otherWords := other.words(match, match+1)
	if negText == &m.claim {
		m.add(res, "polarity", reasonPolarity, negWords, otherWords)
	} else {
		m.add(res, "polarity", reasonPolarity, otherWords, negWords)
	}
	res.contradicted = true
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
		if !oneNegation(tok, &neither) {
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
	for _, h := range sc {
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
		if t.toks[k].hash == h && (t.toks[k].content || t.toks[k].neg) {
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
	if union == 0 || union&c.trends != 0 {
		return
	}
	m.add(res, "direction", reasonDirection, m.claim.matchWords(c, kTrend), ev[al[0].ev].matchWords(&ev[al[0].ev].clauses[al[0].clause], kTrend))
	res.contradicted = true
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
	var union uint16
	restricted := false
	for _, a := range al {
		e := &ev[a.ev].clauses[a.clause]
		if e.negModal {
			return
		}
		union |= e.modals
		restricted = restricted || e.restricted
	}
	if union == 0 {
		return
	}
	// A modal the quoted part of the evidence states anywhere is not more
	// than it says (clause edges differ between a quote and its source).
	var quoted uint16
	for _, a := range al {
		for j := range ev[a.ev].clauses {
			if e := &ev[a.ev].clauses[j]; m.inSpan(a.ev, e) {
				quoted |= e.modals
			}
		}
	}
	stated := c.modals&^quoted == 0
	claimWords := m.claim.matchWords(c, kModal)
	evWords := ev[al[0].ev].matchWords(&ev[al[0].ev].clauses[al[0].clause], kModal)
	switch {
	case !stated && c.modals&(1<<vObligation) != 0 && union&(1<<vObligation) == 0,
		!stated && c.modals&(1<<vRecommendation) != 0 && union&(1<<vObligation|1<<vRecommendation) == 0,
		c.restricted && !restricted && union&(1<<vObligation) == 0:
		m.add(res, "modality", reasonModality, claimWords, evWords)
		res.unsupported = true
	case c.modals == 1<<vPermission && !c.restricted && restricted && union&(1<<vObligation) == 0 && !c.condition:
		m.add(res, "modality", "qualifier_missing:restriction", claimWords, evWords+" only")
		res.clarify = appendOnce(res.clarify, "restriction")
	}
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
			if e.exception < 0 || !m.restsOn(et, evs[i], i, e.segment, aligned) {
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
	claimFigs := appendFigures(m.figs[:0], claim)
	m.figs = claimFigs
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
			same, opposite, ow := false, false, ""
			for i := range evs {
				et := &m.ev[i]
				ctx := evs[i].context
				evFigs := appendFigures(m.figs[len(m.figs):], ctx)
				epos := 0
				for _, g := range evFigs {
					at := strings.Index(ctx[epos:], g.Text)
					if at < 0 {
						continue
					}
					gs, ge := epos+at, epos+at+len(g.Text)
					epos = ge
					if g.Kind != f.Kind || g.Value != f.Value {
						continue
					}
					if v, w, ok := et.boundAt(gs, ge, kind); ok {
						if v == cv {
							same = true
						} else {
							opposite, ow = true, w
						}
					}
				}
			}
			if opposite && !same {
				m.add(res, "direction", reasonDirection, cw+" "+f.Text, ow)
				res.contradicted = true
			}
		}
	}
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
		before := mt.to <= first && first-mt.to <= 3 && !t.breakBetween(mt.to, first)
		after := mt.from > last && mt.from-last <= 2 && !t.breakBetween(last+1, mt.from+1)
		if before || after {
			return mt.value, t.words(mt.from, mt.to), true
		}
	}
	return 0, "", false
}

func (t *mtext) breakBetween(from, to int) bool {
	for k := from; k < to && k < len(t.toks); k++ {
		if t.toks[k].brk >= brkClause {
			return true
		}
	}
	return false
}

// names: a proper name, defined term or drug of the claim that none of its
// accepted chunks (nor their section headings or document id) holds is
// not supported. The first word of a sentence, reference words (Clause,
// Section), months and a name that ends in a document word ("the Expense
// Policy") are not checked.
func (m *meaningScanner) names(evs []meaningEvidence, res *meaningResult) {
	toks := m.claim.toks
	for k := 0; k < len(toks); k++ {
		// A run of capitalized words: one name.
		if toks[k].cap && !toks[k].initial && toks[k].flags&fNameStop == 0 && !hasDigit(toks[k].w) {
			end := k + 1
			for end < len(toks) && toks[end].cap && toks[end].brk == brkNone {
				end++
			}
			docName := toks[end-1].flags&fDocWord != 0
			// A name spelt out where the evidence abbreviates it ("Chief
			// Financial Officer" for "CFO") is the evidence's own.
			spelt := end-k >= 2 && heldBy(evs, m.claim.initials(k, end))
			for j := k; j < end && !docName && !spelt; j++ {
				tok := &toks[j]
				w := strings.TrimSuffix(strings.TrimSuffix(m.claim.s[tok.start:tok.end], "'s"), "’s")
				if tok.flags&fNameStop != 0 || hasDigit(tok.w) || utf8.RuneCountInString(w) < 2 || currencyCodes[w] {
					continue
				}
				if !heldBy(evs, w) && !m.cutWord(j, evs) && !(acronym(w) && len(w) <= 8 && spelledOut(evs, w)) && !m.inHead(evs, w) {
					m.add(res, "name", reasonName+":"+w, w, "")
					res.unsupported = true
				}
			}
			k = end - 1
			continue
		}
		if !toks[k].cap && lex.drugName(toks[k].w) && !heldBy(evs, toks[k].w) && !m.cutWord(k, evs) && !m.inHead(evs, toks[k].w) {
			w := m.claim.s[toks[k].start:toks[k].end]
			m.add(res, "name", reasonName+":"+w, w, "")
			res.unsupported = true
		}
	}
}

// initials returns the first letters of the capitalized tokens [from, to).
func (t *mtext) initials(from, to int) string {
	var b [16]byte
	n := 0
	for k := from; k < to && n < len(b); k++ {
		if c := t.s[t.toks[k].start]; 'A' <= c && c <= 'Z' {
			b[n] = c
			n++
		}
	}
	return string(b[:n])
}

// spelledOut reports whether a cited chunk spells out an acronym of the
// claim as capitalized words ("Chief Financial Officer" for "CFO";
// "of", "and", "the", "for" and "&" may stand between them).
func spelledOut(evs []meaningEvidence, acr string) bool {
	for i := range evs {
		words := strings.Fields(evs[i].chunk)
		for start := range words {
			n := 0
			for k := start; k < len(words) && n < len(acr); k++ {
				w := strings.Trim(words[k], ",;:()\"'.")
				if w == "" {
					break
				}
				if n > 0 && (w == "of" || w == "and" || w == "the" || w == "for" || w == "&") {
					continue
				}
				if w[0] != acr[n] {
					break
				}
				n++
			}
			if n == len(acr) {
				return true
			}
		}
	}
	return false
}

// inHead reports whether the opening of a cited version (its title and
// parties: "KESTREL HARBOR GROUP LTD … Borrower: Kestrel Harbor Group Ltd")
// names w: a name the document states for itself holds for every chunk of
// it. Read only for a name no chunk holds.
func (m *meaningScanner) inHead(evs []meaningEvidence, w string) bool {
	if m.head == nil {
		return false
	}
	for i := range evs {
		if h := m.head(evs[i].version); h != "" && (containsWordFold(h, w) || containsWordFold(h, w+"s")) {
			return true
		}
	}
	return false
}

// cutWord reports whether claim token k is its first or last word and a
// piece of a word of a cited chunk: a quote cut mid-word ("… Policy FI" of
// "FIN-07") names nothing new.
func (m *meaningScanner) cutWord(k int, evs []meaningEvidence) bool {
	toks := m.claim.toks
	if k != 0 && k != len(toks)-1 {
		return false
	}
	w := m.claim.s[toks[k].start:toks[k].end]
	for i := range evs {
		if strings.Contains(evs[i].chunk, w) {
			return true
		}
	}
	return false
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}

// heldBy reports whether a word appears, as a whole word and ignoring
// case, in a cited chunk, its section path or its document id.
func heldBy(evs []meaningEvidence, w string) bool {
	// A defined term in the singular or the plural is the same name:
	// "an Event of Default" under "Events of Default".
	if heldExactly(evs, w) || heldExactly(evs, w+"s") {
		return true
	}
	return len(w) > 3 && strings.HasSuffix(w, "s") && heldExactly(evs, w[:len(w)-1])
}

func heldExactly(evs []meaningEvidence, w string) bool {
	for i := range evs {
		// A quote cut mid-word ("… Policy FI" of "FIN-07") holds its own
		// last and first words.
		if e := &evs[i]; e.spanTo > e.spanFrom && e.spanTo <= len(e.context) {
			span := e.context[e.spanFrom:e.spanTo]
			if strings.HasSuffix(span, w) || strings.HasPrefix(span, w) {
				return true
			}
		}
		if containsWordFold(evs[i].chunk, w) || containsWordFold(evs[i].document, w) {
			return true
		}
		for _, s := range evs[i].section {
			if containsWordFold(s, w) {
				return true
			}
		}
	}
	return false
}

// containsWordFold finds w in s as a whole word, ignoring case; the exact
// spelling is tried first, since names keep their capitals.
func containsWordFold(s, w string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		if wholeWord(s, from+i, from+i+len(w)) {
			return true
		}
		from += i + 1
	}
	n := len(w)
	if n == 0 {
		return false
	}
	if c := w[0]; c < 0x80 && isWordRune(rune(c)) {
		// Only where the first letter stands, in either case.
		lo, up := c|0x20, c&^0x20
		if c < 'A' {
			lo, up = c, c // a digit
		}
		for i := 0; i+n <= len(s); i++ {
			j := strings.IndexByte(s[i:len(s)-n+1], lo)
			if k := strings.IndexByte(s[i:len(s)-n+1], up); k >= 0 && (j < 0 || k < j) {
				j = k
			}
			if j < 0 {
				return false
			}
			i += j
			if strings.EqualFold(s[i:i+n], w) && wholeWord(s, i, i+n) {
				return true
			}
		}
		return false
	}
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], w) && wholeWord(s, i, i+n) {
			return true
		}
	}
	return false
}

func wholeWord(s string, i, j int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWordRune(r) {
			return false
		}
	}
	if j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); isWordRune(r) {
			return false
		}
	}
	return true
}

// roles: a name the claim binds to a role ("Alder Street Bank is the
// Arranger", "the Insured may cancel") that the evidence binds, without
// ambiguity, to another ("Alder Street Bank, as Agent", "the Insurer may
// cancel"), while it knows the claim's name too.
func (m *meaningScanner) roles(evs []meaningEvidence, res *meaningResult) {
	claimB := bindings(&m.claim, nil)
	if len(claimB) == 0 {
		return
	}
	var evB []binding
	for i := range evs {
		evB = bindings(&m.ev[i], evB)
	}
	for _, cb := range claimB {
		var others []binding
		same := false
		for _, eb := range evB {
			if eb.verb != cb.verb {
				continue
			}
			switch {
			case cb.verb != "" && eb.role == cb.role, cb.verb == "" && eb.role == cb.role && sameName(eb.name, cb.name):
				same = true
			case cb.verb == "" && sameName(eb.name, cb.name) != (eb.role == cb.role):
				others = append(others, eb)
			case cb.verb != "" && eb.role != cb.role:
				others = append(others, eb)
			}
		}
		if same || len(others) == 0 || !heldBy(evs, cb.subject()) {
			continue
		}
		if cb.verb != "" && distinctRoles(others) > 1 {
			continue // the evidence gives the verb to several: no clear binding
		}
		o := others[0]
		m.add(res, "role", reasonRole, cb.text, o.text)
		res.contradicted = true
	}
}

// sameName reports whether two lower-cased names are one, or one is the
// other shortened at word boundaries ("street bank", "alder street bank").
func sameName(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.Contains(" "+b+" ", " "+a+" ")
}

func distinctRoles(bs []binding) int {
	n := 0
	for i, b := range bs {
		dup := false
		for _, c := range bs[:i] {
			if c.role == b.role {
				dup = true
			}
		}
		if !dup {
			n++
		}
	}
	return n
}

// binding ties a name to a role ("X, as Agent": name X, role agent) or a
// defined term to what it does ("the Insurer may cancel": role insurer,
// verb cancel).
type binding struct {
	name, role, verb string
	text             string
}

// subject is the first word of the bound name: enough to know whether the
// evidence knows the name at all.
func (b binding) subject() string {
	w, _, _ := strings.Cut(b.name, " ")
	return w
}

// bindings finds the role bindings of a text: `NAME (the "ROLE")`,
// `NAME, as ROLE`, `NAME acts as ROLE`, `NAME is the ROLE`, and a defined
// term as the subject of a verb: `the ROLE [may|shall|must …] [not] VERB`,
// `the ROLE's right to VERB`.
func bindings(t *mtext, out []binding) []binding {
	toks := t.toks
	for k := 0; k < len(toks); k++ {
		if !toks[k].cap || toks[k].flags&fNameStop != 0 && toks[k].w != "the" {
			continue
		}
		end := k + 1
		for end < len(toks) && toks[end].cap && (toks[end].brk == brkNone || toks[end].brk == brkComma && corporateSuffix[toks[end].w]) {
			end++
		}
		name := t.lowerRun(k, end)
		if name == "" {
			continue
		}
		j := end
		// NAME (the "ROLE") / NAME, as ROLE / NAME acts as ROLE / NAME is the ROLE
		if j < len(toks) && toks[j].w == "the" && j+1 < len(toks) && toks[j+1].cap && strings.Contains(t.s[toks[end-1].end:toks[j].start], "(") {
			out = append(out, binding{name: name, role: toks[j+1].stem, text: t.words(k, j+2)})
		} else if j+1 < len(toks) && (toks[j].w == "as" || toks[j].w == "acts" || toks[j].w == "act" || toks[j].w == "acting") {
			r := j + 1
			if toks[j].w != "as" && toks[r].w == "as" {
				r++
			}
			if r < len(toks) && toks[r].w == "the" {
				r++
			}
			if r+1 < len(toks) && toks[r].flags&fRole == 0 && !toks[r].cap && toks[r+1].flags&fRole != 0 {
				r++ // "as administrative agent"
			}
			if r < len(toks) && (toks[r].cap || toks[r].flags&fRole != 0) && (toks[j].w != "as" || toks[j].brk == brkComma || toks[r].flags&fRole != 0) {
				out = append(out, binding{name: name, role: toks[r].stem, text: t.words(k, r+1)})
			}
		} else if j+2 < len(toks) && toks[j].w == "is" && toks[j+1].w == "the" && (toks[j+2].cap || toks[j+2].flags&fRole != 0) &&
			(j+3 >= len(toks) || toks[j+3].brk != brkNone || !toks[j+3].cap) {
			out = append(out, binding{name: name, role: toks[j+2].stem, text: t.words(k, j+3)})
		}
		// the ROLE [modal] [not|only] VERB: a defined term as subject.
		s := k
		if toks[s].w == "the" {
			s++
		}
		if s > 0 && toks[s-1].w == "the" && end-s == 1 {
			v := end
			if v < len(toks) && (toks[v].w == "'s" || strings.HasSuffix(toks[k].w, "'s") || strings.HasSuffix(toks[k].w, "’s")) {
				v++
			}
			if v+1 < len(toks) && (toks[v].w == "right" || toks[v].w == "option" || toks[v].w == "obligation") && toks[v+1].w == "to" {
				v += 2
			}
			for v < len(toks) && v < end+3 && (toks[v].info != nil && len(toks[v].info.phrases) > 0 && !toks[v].content || toks[v].neg || toks[v].flags&fRestrict != 0) && toks[v].brk == brkNone {
				v++
			}
			if v < len(toks) && v > end && toks[v].content && !toks[v].cap && toks[v].brk == brkNone {
				out = append(out, binding{name: strings.TrimSuffix(strings.TrimSuffix(toks[s].w, "'s"), "’s"), role: toks[s].stem,
					verb: toks[v].stem, text: t.words(s-1, v+1)})
			}
		}
		k = end - 1
	}
	return out
}

// corporateSuffix ends a company's name after a comma: "Alder Street
// Bank, N.A.", "Kestrel Harbor, Inc.".
var corporateSuffix = map[string]bool{"n.a": true, "inc": true, "ltd": true, "llc": true, "plc": true, "gmbh": true,
	"ag": true, "sa": true, "lp": true, "llp": true, "bv": true, "nv": true, "co": true, "corp": true}

// lowerRun returns the capitalized words [from, to) lower-cased, without
// a leading "the", or "" for a run of stop words.
func (t *mtext) lowerRun(from, to int) string {
	for from < to && t.toks[from].w == "the" {
		from++
	}
	if from >= to {
		return ""
	}
	var b strings.Builder
	for k := from; k < to; k++ {
		if k > from {
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimRightFunc(t.toks[k].w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
	}
	return b.String()
}

// meaningContext widens the matched span [bs, be) of a chunk to whole
// sentences: the negation, bound or exception that turns a quote around
// often sits just outside it ("does not" + quote "cover flood damage").
func meaningContext(chunk string, bs, be int, er *EvidenceReport) meaningEvidence {
	cs, ce := sentenceStart(chunk, bs), sentenceStop(chunk, be)
	return meaningEvidence{context: chunk[cs:ce], spanFrom: bs - cs, spanTo: be - cs, chunk: chunk,
		section: er.SectionPath, document: er.DocumentID, version: er.DocumentVersion}
}

// maxWiden bounds how far a span is widened to a sentence's ends.
const maxWiden = 250

func sentenceStart(s string, bs int) int {
	for i := bs - 1; i >= 0 && bs-i <= maxWiden; i-- {
		switch c := s[i]; {
		case c == '\f' || c == '\n' && (i > 0 && s[i-1] == '\n' || lineItem(s, i+1)):
			return i + 1
		case (c == '.' || c == '!' || c == '?') && i+1 < len(s) && isSpaceByte(s[i+1]) && stops(s, i):
			return i + 1
		}
	}
	if bs > maxWiden {
		return bs
	}
	return 0
}

func sentenceStop(s string, be int) int {
	if be > 0 && be <= len(s) && (s[be-1] == '.' || s[be-1] == '!' || s[be-1] == '?') && stops(s, be-1) {
		return be
	}
	for i := be; i < len(s) && i-be <= maxWiden; i++ {
		switch c := s[i]; {
		case c == '\f' || c == '\n' && (i+1 < len(s) && s[i+1] == '\n' || lineItem(s, i+1)):
			return i
		case (c == '.' || c == '!' || c == '?') && (i+1 == len(s) || isSpaceByte(s[i+1])) && stops(s, i):
			return i + 1
		}
	}
	return min(len(s), be+maxWiden)
}

// lineItem reports whether a line starting at i is a list item, a table
// row or a heading: a sentence does not run across it.
func lineItem(s string, i int) bool {
	return i < len(s) && (s[i] == '-' || s[i] == '*' || s[i] == '#' || s[i] == '|')
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// stops reports whether the stop at s[i] ends a sentence: the next word
// does not start in lower case and the word before is no abbreviation.
func stops(s string, i int) bool {
	k := i + 1
	for k < len(s) && isSpaceByte(s[k]) {
		k++
	}
	if k < len(s) && k == i+2 && s[i+1] == ' ' {
		if r, _ := utf8.DecodeRuneInString(s[k:]); unicode.IsLower(r) || unicode.IsDigit(r) {
			return false
		}
	}
	w := i
	for w > 0 && isWordRune(rune(s[w-1])) && s[w-1] < 0x80 {
		w--
	}
	word := strings.ToLower(s[w:i])
	return len(word) > 1 && !abbreviations[word]
}

// quoteMeaningDiffers compares the negators, bounds, timings and
// exception words of a loosely matched quote with those of its span: OCR
// noise changes letters, not whether a sentence says "not" or "unless".
// It returns the words that differ, or "", "".
func (c *checker) quoteMeaningDiffers(quote, span string) (string, string) {
	q, s := &c.meaning.quote[0], &c.meaning.quote[1]
	q.scan(quote)
	s.scan(span)
	qs, ss := q.signature(), s.signature()
	if qs == ss {
		return "", ""
	}
	return q.meaningWords(), s.meaningWords()
}

// signature counts a text's negators and its bound, timing and exception
// phrases by value.
func (t *mtext) signature() [8]int {
	var sig [8]int
	for k := range t.toks {
		if t.toks[k].neg {
			sig[0]++
		}
	}
	for _, m := range t.matches {
		switch m.kind {
		case kBound:
			sig[1+m.value]++ // vMin, vMax
		case kTiming:
			sig[3+m.value-vBefore]++
		case kException:
			sig[5]++
		}
	}
	return sig
}

// meaningWords lists a text's negators and bound, timing and exception
// phrases, for a finding.
func (t *mtext) meaningWords() string {
	var b strings.Builder
	add := func(w string) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w)
	}
	for _, m := range t.matches {
		switch m.kind {
		case kBound, kTiming, kException:
			add(t.words(m.from, m.to))
		case kNeg:
			if t.toks[m.from].neg {
				add(t.words(m.from, m.to))
			}
		}
	}
	return b.String()
}
