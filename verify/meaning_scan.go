package verify

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// mtok is one word of a text the meaning checks read.
type mtok struct {
	w          string // lower case
	stem       string
	hash       uint32 // of stem: clause overlap compares numbers
	start, end int    // bytes in the text
	flags      uint16
	brk        uint8 // the strongest break before the token: see brk* below
	cap        bool  // starts with an upper-case letter
	initial    bool  // first word of a sentence, or after a colon or an opening quote
	content    bool  // counts for clause overlap
	neg        bool  // a negator that counts (not inside "no more than", "not only")
	negated    bool  // the word a negator denies
	soft       bool  // its clause break comes from a word ("but", "if"), not punctuation
	info       *lexWord
	noPeriod   bool // inside "annual report" and the like
	trend      bool // a word of a trend ("dropped", "rose"): no content, but what a negator denies
}

const (
	brkNone uint8 = iota
	brkComma
	brkClause  // ':' or a clause-break word ("but", "whereas")
	brkSegment // ';'
	brkSentence
)

// pmatch is a phrase of the lexicon found at tokens [from, to).
type pmatch struct {
	from, to int
	kind     uint8
	value    uint8
}

// mclause is a clause: tokens between breaks of brkClause or stronger.
type mclause struct {
	from, to   int // tokens
	segment    int // clauses of one segment are not parted by ';' or a sentence end
	negs       int // counted negators
	trends     uint16
	periods    uint32
	modals     uint16 // not negated
	negModal   bool
	restricted bool
	exception  int // token of the first exception phrase, or -1
	condition  bool
	set        []uint32 // sorted distinct stem hashes of its content words
}

// mtext is a scanned text.
type mtext struct {
	s           string
	toks        []mtok
	matches     []pmatch
	clauses     []mclause
	sets        []uint32 // the clauses' stem sets
	lower       []byte   // arena of lower-cased words
	conditional bool     // inside a conditional clause, while tokenizing
	scopeBuf    []int    // scope's result, reused
}

// scan tokenizes s and finds the lexicon's phrases, the clauses and what
// each clause says.
func (t *mtext) scan(s string) {
	t.s = s
	t.toks, t.matches, t.clauses, t.sets, t.lower = t.toks[:0], t.matches[:0], t.clauses[:0], t.sets[:0], t.lower[:0]
	t.conditional = false
	t.tokenize()
	t.phrases()
	t.split()
}

func isWordRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// asciiWord marks the ASCII bytes a word is made of.
var asciiWord = func() (w [128]bool) {
	for c := '0'; c <= '9'; c++ {
		w[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		w[c], w[c-'a'+'A'] = true, true
	}
	return w
}()

func (t *mtext) tokenize() {
	s := t.s
	brk, initial := brkSentence, true
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 && !asciiWord[c] || c >= 0x80 && !t.wordRuneAt(i) {
			r, size := rune(c), 1
			if c >= 0x80 {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
			switch r {
			case ',':
				brk = max(brk, brkComma)
			case ':':
				brk, initial = max(brk, brkClause), true
			case ';':
				brk = max(brk, brkSegment)
			case '.', '!', '?', '。', '！', '？':
				if sentenceEnd(s, i+size, t.toks) {
					brk, initial = brkSentence, true
				}
			case '\n':
				if j := i + 1; j < len(s) && (s[j] == '\n' || s[j] == '-' || s[j] == '*' || s[j] == '#' || s[j] == '|') {
					brk, initial = brkSentence, true
				}
			case '\f':
				brk, initial = brkSentence, true
			case '"', '“', '(', '[', '‘':
				initial = true
			}
			i += size
			continue
		}
		start := i
		for i < len(s) {
			if c := s[i]; c < 0x80 {
				if asciiWord[c] {
					i++
					continue
				}
				if (c == '\'' || c == '-' || c == '.' || c == ',' || c == ':') && t.joins(start, i, 1) {
					i++
					continue
				}
				break
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if isWordRune(r) || r == '’' && t.joins(start, i, size) {
				i += size
				continue
			}
			break
		}
		word := s[start:i]
		tok := mtok{start: start, end: i, brk: brk, initial: initial, w: t.lowerWord(word)}
		if c := word[0]; c < 0x80 {
			tok.cap = 'A' <= c && c <= 'Z'
		} else {
			first, _ := utf8.DecodeRuneInString(word)
			tok.cap = unicode.IsUpper(first)
		}
		brk, initial = brkNone, false
		if (tok.w == "no" || tok.w == "nos") && i < len(s) && s[i] == '.' {
			tok.w += "." // "No. 1" numbers, it does not deny
		}
		if tok.w == "cannot" {
			// "cannot exceed" is "can not exceed": the bound and the modal's
			// negation read as they do written apart.
			tok.w, tok.end = "can", start+3
			t.add(tok)
			t.add(mtok{w: "not", start: start + 3, end: i})
			continue
		}
		if base, n, ok := notContraction(tok.w); ok {
			tok.w, tok.end = base, i-n
			t.add(tok)
			t.add(mtok{w: "not", start: i - n, end: i})
			continue
		}
		t.add(tok)
	}
}

func (t *mtext) wordRuneAt(i int) bool {
	r, _ := utf8.DecodeRuneInString(t.s[i:])
	return isWordRune(r)
}

// joins reports whether the joiner of size bytes at i, inside the word
// that began at start, holds the word together: don't, pre-approved, 4.00,
// 250,000, 4.00:1, and dotted initials (N.A., U.S., e.g).
func (t *mtext) joins(start, i, size int) bool {
	s := t.s
	j := i + size
	if j >= len(s) || i == start {
		return false
	}
	next, _ := utf8.DecodeRuneInString(s[j:])
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	switch s[i] {
	case '\'', '-', 0xe2: // ', -, ’
		return isWordRune(next)
	case '.':
		if unicode.IsLetter(prev) && unicode.IsLetter(next) && (i-start == 1 || s[i-2] == '.') {
			return true
		}
	}
	return unicode.IsDigit(prev) && unicode.IsDigit(next)
}

// add classifies a token by the lexicon and appends it.
func (t *mtext) add(tok mtok) {
	t.toks = append(t.toks, tok)
	t.classify(&t.toks[len(t.toks)-1])
}

// classify fills in what the lexicon says of a token, in place.
func (t *mtext) classify(tok *mtok) {
	h := fnv32(tok.w)
	tok.info = lex.lookupHash(tok.w, h)
	if tok.info != nil {
		tok.flags = tok.info.flags
	}
	hard := tok.brk
	if tok.flags&fClauseBreak != 0 {
		tok.brk = max(tok.brk, brkClause)
	}
	// ", and" and ", or" join clauses: "reports are due in 14 days, and
	// claims above EUR 25 need a receipt" states two things.
	if tok.brk == brkComma && (tok.w == "and" || tok.w == "or") {
		tok.brk = brkClause
	}
	// A conditional is a clause of its own, to its comma: "if T is not an
	// interface type, x.(T) asserts …" negates the condition only.
	if tok.brk >= brkSegment {
		t.conditional = false
	}
	if tok.flags&fConditional != 0 {
		tok.brk, t.conditional = max(tok.brk, brkClause), true
	} else if t.conditional && tok.brk == brkComma {
		tok.brk, t.conditional = brkClause, false
	}
	// A break the words make, not the punctuation, does not part a phrase:
	// "only if", "but only" stay exceptions.
	tok.soft = tok.brk >= brkClause && hard < brkClause
	t.parenthetical(tok, hard)
	if tok.info != nil && tok.info.irregular != "" {
		tok.stem = tok.info.irregular
	} else {
		tok.stem = stem(tok.w)
	}
	tok.content = tok.flags&(fAux|fClauseBreak) == 0 && (len(tok.w) > 1 || tok.w[0] >= '0' && tok.w[0] <= '9')
	if len(tok.stem) == len(tok.w) && tok.stem == tok.w {
		tok.hash = h // most words have no suffix to cut
	} else {
		tok.hash = fnv32(tok.stem)
	}
}

// parentheticalWords stand between commas inside a clause ("are not,
// however, customizable"): they break nothing.
var parentheticalWords = map[string]bool{"however": true, "therefore": true, "moreover": true, "furthermore": true,
	"nevertheless": true, "nonetheless": true, "thus": true, "indeed": true}

// parenthetical joins a clause across a word set off by commas after a
// negator or an auxiliary: tok follows the word, its comma is hard.
func (t *mtext) parenthetical(tok *mtok, hard uint8) {
	n := len(t.toks)
	if hard != brkComma || n < 3 || &t.toks[n-1] != tok {
		return
	}
	word, before := &t.toks[n-2], &t.toks[n-3]
	if !parentheticalWords[word.w] || word.start == 0 || t.s[word.start-1] != ' ' && t.s[word.start-1] != ',' ||
		!strings.HasSuffix(strings.TrimRight(t.s[:word.start], " "), ",") ||
		before.w != "not" && before.w != "never" && before.flags&fAux == 0 {
		return
	}
	word.brk, word.soft, word.content = brkNone, false, false
	tok.brk, tok.soft = brkNone, false
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// lowerWord lower-cases a word. A word with capitals is lowered into the
// text's arena: the string lives until the next scan, which is as long as
// anything keeps it (findings quote the text itself, not these words).
func (t *mtext) lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 {
			return strings.ToLower(w)
		} else if 'A' <= c && c <= 'Z' {
			start := len(t.lower)
			for j := 0; j < len(w); j++ {
				c := w[j]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				} else if c >= 0x80 {
					t.lower = t.lower[:start]
					return strings.ToLower(w)
				}
				t.lower = append(t.lower, c)
			}
			b := t.lower[start:]
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
	}
	return w
}

// notContraction splits "doesn't" into "does" and a "not" of n bytes
// that follows.
func notContraction(w string) (string, int, bool) {
	var base string
	n := 0
	switch {
	case len(w) > 3 && strings.HasSuffix(w, "n't"):
		base, n = w[:len(w)-3], 3
	case len(w) > 5 && strings.HasSuffix(w, "n’t"):
		base, n = w[:len(w)-5], 5
	default:
		return "", 0, false
	}
	switch base {
	case "ca":
		base = "can"
	case "wo":
		base = "will"
	case "sha":
		base = "shall"
	}
	return base, n, true
}

// sentenceEnd reports whether a stop ends a sentence: a space or the end
// follows, the next word does not start in lower case ("per cent. of"),
// and the word before is no abbreviation ("Dr.", "p.", "e.g.").
func sentenceEnd(s string, j int, toks []mtok) bool {
	if j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\f' && s[j] != '"' && s[j] != ')' {
		return false
	}
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t') {
		k++
	}
	// One space before a lower-case word continues the sentence ("per
	// cent. of"); two spaces or a line break end it ("lock.  dpkg reads").
	if k < len(s) && k-j == 1 && s[j] == ' ' {
		if r, _ := utf8.DecodeRuneInString(s[k:]); unicode.IsLower(r) {
			return false
		}
	}
	if len(toks) > 0 && toks[len(toks)-1].end == j-1 {
		last := toks[len(toks)-1].w
		if abbreviations[last] {
			return false
		}
		// An initial ("J. Smith"), unless a sentence plainly starts after
		// it ("type T. In this case").
		if r, _ := utf8.DecodeRuneInString(last); utf8.RuneCountInString(last) == 1 && unicode.IsLetter(r) {
			return startsSentence(s[k:])
		}
	}
	return true
}

// startsSentence reports whether s begins with a capitalized function
// word ("In", "The", "If"): a sentence, not a name, follows.
func startsSentence(s string) bool {
	end := 0
	for end < len(s) && s[end] < 0x80 && isWordRune(rune(s[end])) {
		end++
	}
	return end > 0 && 'A' <= s[0] && s[0] <= 'Z' && lex.flags[strings.ToLower(s[:end])]&fNameStop != 0
}

// phrases finds the lexicon's phrases; the longest phrase of a kind at a
// token wins. Negators inside a bound ("no more than") or a non-negation
// ("not only", "whether or not") do not count.
func (t *mtext) phrases() {
	toks := t.toks
	for i := range toks {
		if toks[i].info == nil {
			continue
		}
		seen := uint16(0)
		for _, e := range toks[i].info.phrases {
			if seen&(1<<e.kind) != 0 || !t.follows(i, e.words) {
				continue
			}
			seen |= 1 << e.kind
			t.matches = append(t.matches, pmatch{from: i, to: i + 1 + len(e.words), kind: e.kind, value: e.value})
		}
	}
	for i := range toks {
		toks[i].neg = false
	}
	for _, m := range t.matches {
		if m.kind == kNeg {
			toks[m.from].neg = true
		}
	}
	// "No, the policy does not cover …": an answer's "no" before a comma
	// denies the question, not the words after it. "a character it lacks
	// prints …": a verb of lacking after its subject pronoun ends a
	// relative clause whose object came before it; it denies nothing
	// after it.
	for i := range toks {
		if toks[i].neg && toks[i].w == "no" && (i+1 == len(toks) || toks[i+1].brk >= brkComma) {
			toks[i].neg = false
		}
		if toks[i].neg && lackVerbs[toks[i].w] && relativeLack(toks, i) {
			toks[i].neg = false
		}
	}
	for _, m := range t.matches {
		switch m.kind {
		case kBound, kTiming, kNotNeg:
			if m.kind == kNotNeg && orNotDenies(toks, m) {
				break
			}
			for k := m.from; k < m.to; k++ {
				toks[k].neg = false
			}
		case kPeriodExempt:
			for k := m.from; k < m.to; k++ {
				toks[k].noPeriod = true
			}
		case kTrend:
			for k := m.from; k < m.to; k++ {
				toks[k].trend = true
			}
		}
		// The words that say how are not what the clause is about: they
		// stay out of the overlap that pairs clauses.
		if m.kind != kPeriodExempt && m.kind != kNeg {
			for k := m.from; k < m.to; k++ {
				toks[k].content = false
			}
		}
	}
	t.negatedBounds()
}

// beForms are the forms of "be" (and "not" after one) that make
// "entitled to" a right the clause gives ("is entitled to", "shall be
// entitled to").
var beForms = map[string]bool{"is": true, "are": true, "be": true, "was": true, "were": true, "been": true,
	"being": true, "not": true, "remain": true, "remains": true}

// lackVerbs are the negators that are verbs of lacking, and
// subjectPronouns the words that, right before one, make it the end of a
// relative clause ("the glyphs it lacks").
var (
	lackVerbs       = map[string]bool{"lack": true, "lacks": true, "lacked": true}
	subjectPronouns = map[string]bool{"it": true, "they": true, "he": true, "she": true, "we": true, "you": true, "i": true, "one": true}
)

// relativeLack reports whether the verb of lacking at i ends a relative
// clause: right after a subject pronoun that follows a content word with
// no break ("a character it lacks prints": the "that" left out), and not
// before a determiner ("the device it ships lacks a port"). "; it lacks
// power", "and it lacks power" are main clauses: no content word before
// the pronoun.
func relativeLack(toks []mtok, i int) bool {
	if i < 2 || !subjectPronouns[toks[i-1].w] || toks[i-1].brk != brkNone || toks[i].brk != brkNone || !toks[i-2].content {
		return false
	}
	return i+1 == len(toks) || toks[i+1].brk != brkNone || !determiners[toks[i+1].w]
}

// determiners open a noun phrase: after a verb, its object.
var determiners = map[string]bool{"a": true, "an": true, "the": true, "any": true, "some": true, "its": true, "their": true, "his": true, "her": true, "our": true, "your": true, "no": true, "all": true}

// negatedBounds turns a bound or timing that a negator denies, with at
// most two words between them in its clause (a timing: right before it),
// the other way, and the
// negator into part of it: "has not received more than two" is "has
// received no more than two", "does not exceed" is "at most", "not
// before" is "on or after". The polarity check then reads no negation
// there, and the bound check compares the bound as meant.
func (t *mtext) negatedBounds() {
	toks := t.toks
	for mi := range t.matches {
		m := &t.matches[mi]
		if m.kind != kBound && m.kind != kTiming ||
			m.kind == kBound && (!comparisonWords[toks[m.from].w] || !t.figureAt(m.to) && m.to < len(toks)) {
			continue // "not acknowledged within 6 days" denies the acknowledging, "not … under the assumption" the optimising (a text cut after its bound, as a quote may be, is read as if its number followed)
		}
		reach := 3 // "has not received more than two"
		if m.kind == kTiming {
			reach = 1 // "not before"; "must not be dropped before" denies the dropping
		}
		flipped := false
		for k, n := m.from-1, 0; k >= 0 && n < reach; k, n = k-1, n+1 {
			if toks[k+1].brk >= brkComma {
				break
			}
			if toks[k].w == "be" || toks[k].w == "been" {
				n-- // "shall not be changed by more than 20%": the passive's "be" is no word of its own
			}
			if toks[k].neg {
				if deniesNecessity(toks, k) {
					break // "need not give more than two" is no "gives at most two"
				}
				toks[k].neg = false
				m.value ^= 1 // vMin <-> vMax, vBefore <-> vAfter
				flipped = true
				break
			}
		}
		if !flipped && m.kind == kBound && t.covenantNegator(m.from) >= 0 {
			// The negator stays one: it denies its verb too, and a claim
			// that keeps it ("shall not permit the ratio …") must read
			// as the evidence does.
			m.value ^= 1
		}
	}
}

// deniesNecessity reports whether negator k denies a necessity, not the
// act its bound limits: "need not give more than two", "is not required
// to give more than two" say that more is not owed, not that more is
// barred, so the bound stays as written and the negation with it.
func deniesNecessity(toks []mtok, k int) bool {
	if k > 0 && (toks[k-1].w == "need" || toks[k-1].w == "needs") {
		return true
	}
	for j := k + 1; j < len(toks) && j <= k+2; j++ {
		switch toks[j].w {
		case "required", "obliged", "obligated", "need", "have", "has":
			return true
		}
	}
	return false
}

// covenantNegator returns the negator of a covenant whose limit is the
// bound at token b, or -1: "shall not permit the ratio … for any period
// of four consecutive fiscal quarters to be less than 2.50:1.00" is a
// floor of 2.50, "shall not make Capital Expenditures in any fiscal year
// in excess of $60,000,000" a cap. The negator is in the bound's clause
// (commas aside: covenants set their conditions off with them), at most
// covenantReach words before it, and denies a verb of the act the bound
// limits (boundVerbs) within two words; a negator of another verb ("does
// not require prepayment of amounts above $5") turns nothing around.
func (t *mtext) covenantNegator(b int) int {
	toks := t.toks
	for k := b - 1; k >= 0 && k >= b-covenantReach; k-- {
		if toks[k+1].brk >= brkClause {
			return -1
		}
		if !toks[k].neg {
			continue
		}
		for j := k + 1; j < b && j <= k+3; j++ {
			if toks[j].brk >= brkComma && j > k+1 {
				break
			}
			if boundVerbs[toks[j].w] {
				return k
			}
		}
		if toks[k].w == "no" {
			// "No single Portfolio Company shall receive, at the time of
			// investment, more than 20%": the subject's "no" denies the
			// verb after its modal.
			for j := k + 1; j < b-1 && j <= k+6; j++ {
				if toks[j].brk >= brkComma {
					break
				}
				if modalWords[toks[j].w] && boundVerbs[toks[j+1].w] {
					return k
				}
			}
		}
		return -1
	}
	return -1
}

// covenantReach is how far before its bound a covenant's negator may be.
const covenantReach = 30

// boundVerbs are the acts a covenant limits: permitting (a ratio to be
// less than), making, incurring, paying, spending, borrowing, lending.
var boundVerbs = map[string]bool{"permit": true, "allow": true, "suffer": true, "cause": true, "make": true,
	"incur": true, "pay": true, "declare": true, "spend": true, "invest": true, "borrow": true, "lend": true,
	"receive": true, "hold": true, "acquire": true}

// modalWords are the modals a subject's "no" reaches its verb through.
var modalWords = map[string]bool{"shall": true, "may": true, "will": true, "must": true, "can": true, "should": true}

// figureAt reports whether token k starts a figure: digits, a currency
// sign's number or a number word ("more than two").
func (t *mtext) figureAt(k int) bool {
	if k >= len(t.toks) || t.toks[k].brk >= brkComma {
		return false
	}
	w := t.toks[k].w
	return w[0] >= '0' && w[0] <= '9' || spelledValue(w) > 0 || k > 0 && strings.ContainsAny(t.s[t.toks[k-1].end:t.toks[k].start], "$€£¥")
}

// comparisonWords start the bounds a negator before them turns around.
var comparisonWords = map[string]bool{"in": true /* "in excess of" */, "more": true, "greater": true, "higher": true, "fewer": true, "less": true,
	"lower": true, "exceed": true, "exceeds": true, "exceeding": true, "exceeded": true, "above": true, "below": true,
	"over": true, "under": true}

// orNotDenies reports whether "or not" is a negator after all: "not full
// or not empty" denies "empty"; "whether or not …" and "… or not." deny
// nothing.
func orNotDenies(toks []mtok, m pmatch) bool {
	if toks[m.from].w != "or" || m.from > 0 && toks[m.from-1].w == "whether" {
		return false
	}
	return m.to < len(toks) && toks[m.to].brk == brkNone
}

// follows reports whether the tokens after i are words, with no clause
// break between them.
func (t *mtext) follows(i int, words []string) bool {
	if i+len(words) >= len(t.toks) {
		return false
	}
	for k, w := range words {
		tok := &t.toks[i+1+k]
		if tok.w != w && !(w == "." && tok.brk == brkSentence) || tok.brk >= brkClause && !tok.soft {
			return false
		}
	}
	return true
}

// split cuts the tokens into clauses and records what each says.
func (t *mtext) split() {
	segment := 0
	for i := range t.toks {
		tok := &t.toks[i]
		if i == 0 || tok.brk >= brkClause {
			if i > 0 && tok.brk >= brkSegment {
				segment++
			}
			if n := len(t.clauses); n > 0 {
				t.clauses[n-1].to = i
			}
			t.clauses = append(t.clauses, mclause{from: i, segment: segment, exception: -1})
		}
		if tok.flags&fCondition != 0 {
			t.clauses[len(t.clauses)-1].condition = true
		}
	}
	if n := len(t.clauses); n > 0 {
		t.clauses[n-1].to = len(t.toks)
	}
	ci := 0
	for _, m := range t.matches {
		for ci < len(t.clauses) && t.clauses[ci].to <= m.from {
			ci++
		}
		if ci == len(t.clauses) {
			break
		}
		c := &t.clauses[ci]
		switch m.kind {
		case kTrend:
			if !(m.from > 0 && (t.toks[m.from-1].w == "or" || t.toks[m.from-1].w == "and") && t.inBound(m)) { // "2.0 mmol/L or higher" bounds a value; nothing rose
				c.trends |= 1 << m.value
			}
		case kPeriod:
			if !t.toks[m.from].noPeriod {
				c.periods |= 1 << m.value
			}
		case kModal:
			if t.toks[m.from].w == "entitled" && (m.from == 0 || !beForms[t.toks[m.from-1].w]) {
				break // "Stockholders entitled to vote must …": who, not a right the clause gives
			}
			if t.negatedNear(m.from, m.to, c) {
				c.negModal = true
			} else {
				c.modals |= 1 << m.value
			}
		case kException:
			if c.exception < 0 {
				c.exception = m.from
			}
			c.condition = true
		}
	}
	// The sets may move while they grow: take the slices once all are in.
	bounds := make([][2]int, 0, 16)
	for ci := range t.clauses {
		from := len(t.sets)
		t.stemSet(t.clauses[ci].from, t.clauses[ci].to)
		bounds = append(bounds, [2]int{from, len(t.sets)})
	}
	for ci := range t.clauses {
		t.clauses[ci].set = t.sets[bounds[ci][0]:bounds[ci][1]:bounds[ci][1]]
	}
	for ci := range t.clauses {
		c := &t.clauses[ci]
		for k := c.from; k < c.to; k++ {
			if t.toks[k].neg {
				for _, h := range t.scope(k, c) {
					t.toks[h].negated = true
				}
			}
		}
	}
	for ci := range t.clauses {
		c := &t.clauses[ci]
		neither := false
		for k := c.from; k < c.to; k++ {
			tok := &t.toks[k]
			if tok.flags&fRestrict != 0 && c.modals&(1<<vPermission) != 0 && !t.quantityAfter(k, c) {
				c.restricted = true
			}
			if oneNegation(tok, &neither) {
				c.negs++
			}
		}
	}
}

// oneNegation reports whether a token is a negator that counts on its own:
// the "nor" of "neither … nor" is the same negation as its "neither".
func oneNegation(tok *mtok, neither *bool) bool {
	if !tok.neg {
		return false
	}
	switch tok.w {
	case "neither":
		*neither = true
	case "nor":
		return !*neither
	}
	return true
}

// negatedNear reports whether a modal is negated: "may not", "must not",
// "not required to".
func (t *mtext) negatedNear(from, to int, c *mclause) bool {
	if from > c.from && t.toks[from-1].neg {
		return true
	}
	for k := to; k < min(to+2, c.to); k++ {
		if t.toks[k].neg {
			return true
		}
	}
	return false
}

// words returns the text of tokens [from, to), trimmed to the clause.
func (t *mtext) words(from, to int) string {
	from, to = max(from, 0), min(to, len(t.toks))
	if from >= to {
		return ""
	}
	return t.s[t.toks[from].start:t.toks[to-1].end]
}

// head is the first content word after token i in its clause: what a
// negator denies.
func (t *mtext) head(i int, c *mclause) int {
	for k := i + 1; k < c.to && k <= i+4; k++ {
		if (t.toks[k].content || t.toks[k].trend) && !t.toks[k].neg {
			return k
		}
	}
	return -1
}

// negScope is how many content words after its head a negator denies:
// "does not count as a receipt" denies the receipt as much as the count.
const negScope = 3

// scope returns the tokens negator i denies: its head and the content
// words after it in its clause, up to a comma or another negator.
func (t *mtext) scope(i int, c *mclause) []int {
	h := t.head(i, c)
	if h < 0 {
		return nil
	}
	out := t.scopeBuf[:0]
	out = append(out, h)
	for k := h + 1; k < c.to && len(out) <= negScope; k++ {
		tok := &t.toks[k]
		if tok.brk >= brkComma || tok.neg {
			break
		}
		// "will not be considered and may result in …": a conjunction
		// before an auxiliary starts another predicate, which the
		// negation does not reach.
		if tok.flags&fScopeConj != 0 && k+1 < c.to && t.toks[k+1].flags&fAux != 0 {
			break
		}
		if tok.content {
			out = append(out, k)
		}
	}
	t.scopeBuf = out
	return out
}

// overlap counts the distinct content stems of claim clause a found in
// clause b of text u, and the distinct stems of a.
func (t *mtext) overlap(a *mclause, u *mtext, b *mclause) (shared, total int) {
	x, y := a.set, b.set
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] == y[j]:
			shared++
			i++
			j++
		case x[i] < y[j]:
			i++
		default:
			j++
		}
	}
	return shared, len(x)
}

// stemSet returns the sorted distinct content stems of tokens [from, to).
func (t *mtext) stemSet(from, to int) []uint32 {
	start := len(t.sets)
	for k := from; k < to; k++ {
		if tok := &t.toks[k]; tok.content && !tok.neg {
			t.sets = append(t.sets, tok.hash)
		}
	}
	set := t.sets[start:]
	slices.Sort(set)
	set = slices.Compact(set)
	t.sets = t.sets[:start+len(set)]
	return set[:len(set):len(set)]
}

// quantityAfter reports whether token k ("only") is followed by a
// quantity ("only limited effort", "only a few", "only 2"): it then
// bounds the amount, not what the modal allows ("can spend only limited
// administration effort" says what "can spend limited administration
// efforts" says).
func (t *mtext) quantityAfter(k int, c *mclause) bool {
	if k+1 >= c.to {
		return false
	}
	next := &t.toks[k+1]
	return lex.quantities[next.w] || next.w != "" && next.w[0] >= '0' && next.w[0] <= '9'
}
