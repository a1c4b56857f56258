package verify

import (
	_ "embed"
	"encoding/json"
	"sort"
	"strings"
)

// The meaning checks' word lists are data (meaning-words.json), English
// first: a phrase is a list of lower-case words matched token by token.

//go:embed meaning-words.json
var meaningWordsJSON []byte

type meaningWords struct {
	Irregular          map[string]string     `json:"irregular"`
	Negators           []string              `json:"negators"`
	NegatorPhrases     [][]string            `json:"negator_phrases"`
	NegativePredicates map[string][]string   `json:"negative_predicates"`
	NotNegations       [][]string            `json:"not_negations"`
	Bounds             map[string][][]string `json:"bounds"`
	Timing             map[string][][]string `json:"timing"`
	Trends             map[string][]string   `json:"trends"`
	Periods            map[string][][]string `json:"periods"`
	PeriodExempt       [][]string            `json:"period_exempt"`
	Modals             map[string][][]string `json:"modals"`
	Restriction        []string              `json:"restriction"`
	Exceptions         [][]string            `json:"exceptions"`
	ConditionWords     []string              `json:"condition_words"`
	ClauseBreaks       []string              `json:"clause_breaks"`
	Conditionals       []string              `json:"conditionals"`
	Auxiliaries        []string              `json:"auxiliaries"`
	NameStoplist       []string              `json:"name_stoplist"`
	DocumentWords      []string              `json:"document_words"`
	DrugSuffixes       []string              `json:"drug_suffixes"`
	Roles              []string              `json:"roles"`
	PartialNegation    []string              `json:"partial_negation"`
	OpenComplements    []string              `json:"open_complements"`
	ScopeConjunctions  []string              `json:"scope_conjunctions"`
	Antonyms           [][2][]string         `json:"antonyms"`
	Substitutions      []string              `json:"substitutions"`
	Quantities         []string              `json:"restriction_quantities"`
	Preventions        []string              `json:"preventions"`
	Options            []string              `json:"options"`
	Demonyms           map[string][]string   `json:"demonyms"`
}

// Phrase kinds; a phrase's value says which bound, period, trend or modal.
const (
	kNeg = iota
	kNotNeg
	kBound
	kTiming
	kTrend
	kPeriod
	kPeriodExempt
	kModal
	kException
)

// Values of bounds, timings, trends and modals.
const (
	vMin = iota
	vMax
	vBefore
	vAfter
	vUp
	vDown
	vObligation
	vPermission
	vRecommendation
)

var valueNames = map[string]uint8{"min": vMin, "max": vMax, "before": vBefore, "after": vAfter, "up": vUp,
	"down": vDown, "obligation": vObligation, "permission": vPermission, "recommendation": vRecommendation}

type phraseEntry struct {
	words []string // from the second word on
	kind  uint8
	value uint8
}

// Word flags: one map lookup per token tells all that a word can be.
const (
	fAux uint16 = 1 << iota
	fRestrict
	fCondition
	fClauseBreak
	fNameStop
	fDocWord
	fRole
	fConditional // starts a conditional clause: "if", "when", "unless"
	fPartial     // after a negator, makes it partial: "not all", "never both"
	fOpen        // opens a clause that asserts nothing: "whether"
	fScopeConj   // before an auxiliary, ends a negation's scope: "and may"
)

// lexWord is all the lexicon knows of a word: one map lookup per token.
type lexWord struct {
	flags     uint16
	phrases   []phraseEntry // starting with the word, longest first
	irregular string        // "paid" -> "pay"
}

type lexicon struct {
	words        map[string]*lexWord
	phrases      map[string][]phraseEntry // by first word, longest first
	flags        map[string]uint16
	negPredicate map[string][]string // stem prefix -> the positive stems it denies
	irregular    map[string]string   // "paid" -> "pay"
	periodNames  []string
	drugSuffixes []string
	drugTails    map[string]bool     // last three letters of the suffixes: a cheap first test
	table        wordTable           // words, for the scanner's lookups
	maxWord      int                 // bytes of the lexicon's longest word
	antonyms     map[string][]string // stem -> the stems of its opposites
	antonymForms map[string]bool     // the forms the antonym pairs list
	// substitutions are words of displacement ("replaces"), as written
	// (lower case): what "instead of" says in a word.
	substitutions map[string]bool
	// quantities, after a restriction word, make it bound an amount.
	quantities map[string]bool
	// preventions deny in other words ("prevent … from being read").
	preventions map[string]bool
	// demonyms are the adjectives of places not made from their names
	// ("Dutch" for "the Netherlands"), by the adjective.
	demonyms map[string][]string
	// options say a modal is a choice ("may, at its option"), which an
	// obligation is not: the phrases by their first word.
	options map[string][][]string
}

// wordTable is an open-addressing table of the lexicon's words keyed by
// FNV-1a: the scanner looks up every word of every text, and a Go map's
// string hashing was a third of its time.
type wordTable struct {
	mask    uint32
	entries []wordEntry
}

type wordEntry struct {
	hash uint32
	word string
	info *lexWord
}

func newWordTable(words map[string]*lexWord) wordTable {
	size := uint32(1)
	for size < uint32(4*len(words)) {
		size <<= 1
	}
	t := wordTable{mask: size - 1, entries: make([]wordEntry, size)}
	for w, info := range words {
		h := fnv32(w)
		i := h & t.mask
		for t.entries[i].info != nil {
			i = (i + 1) & t.mask
		}
		t.entries[i] = wordEntry{hash: h, word: w, info: info}
	}
	return t
}

// lookup returns the lexicon's entry for a lower-case word, or nil.
func (l *lexicon) lookup(w string) *lexWord {
	if len(w) > l.maxWord {
		return nil // longer than any word of the lexicon
	}
	return l.lookupHash(w, fnv32(w))
}

// lookupHash is lookup of a word whose fnv32 is h.
func (l *lexicon) lookupHash(w string, h uint32) *lexWord {
	if len(w) > l.maxWord {
		return nil
	}
	t := &l.table
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		e := &t.entries[i]
		if e.info == nil {
			return nil
		}
		if e.hash == h && e.word == w {
			return e.info
		}
	}
}

var lex = mustLexicon(meaningWordsJSON)

func mustLexicon(b []byte) *lexicon {
	l, err := parseLexicon(b)
	if err != nil {
		panic("verify: meaning-words.json: " + err.Error()) // a build-time asset; tests load it
	}
	return l
}

func parseLexicon(b []byte) (*lexicon, error) {
	var w meaningWords
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	l := &lexicon{phrases: map[string][]phraseEntry{}, flags: map[string]uint16{}, negPredicate: w.NegativePredicates,
		irregular: w.Irregular, drugSuffixes: w.DrugSuffixes}
	add := func(p []string, kind, value uint8) {
		if len(p) == 0 {
			return
		}
		l.phrases[p[0]] = append(l.phrases[p[0]], phraseEntry{words: p[1:], kind: kind, value: value})
	}
	for _, n := range w.Negators {
		add([]string{n}, kNeg, 0)
	}
	for _, p := range w.NegatorPhrases {
		add(p, kNeg, 0)
	}
	for _, p := range w.NotNegations {
		add(p, kNotNeg, 0)
	}
	for name, group := range map[uint8]map[string][][]string{kBound: w.Bounds, kTiming: w.Timing, kModal: w.Modals} {
		for v, ps := range group {
			for _, p := range ps {
				add(p, name, valueNames[v])
			}
		}
	}
	for v, ws := range w.Trends {
		for _, t := range ws {
			add([]string{t}, kTrend, valueNames[v])
		}
	}
	names := make([]string, 0, len(w.Periods))
	for name := range w.Periods {
		names = append(names, name)
	}
	sort.Strings(names) // period values are indices: keep them stable
	l.periodNames = names
	for i, name := range names {
		for _, p := range w.Periods[name] {
			add(p, kPeriod, uint8(i))
		}
	}
	for _, p := range w.PeriodExempt {
		add(p, kPeriodExempt, 0)
	}
	for _, p := range w.Exceptions {
		add(p, kException, 0)
	}
	for first, es := range l.phrases {
		sort.SliceStable(es, func(i, j int) bool { return len(es[i].words) > len(es[j].words) })
		l.phrases[first] = es
	}
	for flag, ws := range map[uint16][]string{fAux: w.Auxiliaries, fRestrict: w.Restriction, fCondition: w.ConditionWords,
		fClauseBreak: w.ClauseBreaks, fNameStop: w.NameStoplist, fDocWord: w.DocumentWords, fRole: w.Roles,
		fConditional: w.Conditionals, fPartial: w.PartialNegation, fOpen: w.OpenComplements, fScopeConj: w.ScopeConjunctions} {
		for _, x := range ws {
			l.flags[x] |= flag
		}
	}
	l.words = map[string]*lexWord{}
	word := func(w string) *lexWord {
		if l.words[w] == nil {
			l.words[w] = &lexWord{}
		}
		return l.words[w]
	}
	for w, es := range l.phrases {
		word(w).phrases = es
	}
	for w, f := range l.flags {
		word(w).flags = f
	}
	for w, base := range l.irregular {
		word(w).irregular = base
	}
	l.demonyms = w.Demonyms
	l.options = map[string][][]string{}
	for _, o := range w.Options {
		ws := strings.Fields(o)
		l.options[ws[0]] = append(l.options[ws[0]], ws)
	}
	l.preventions = map[string]bool{}
	for _, w := range w.Preventions {
		l.preventions[w] = true
	}
	l.quantities = map[string]bool{}
	for _, w := range w.Quantities {
		l.quantities[w] = true
	}
	l.substitutions = map[string]bool{}
	for _, w := range w.Substitutions {
		l.substitutions[w] = true
	}
	l.antonyms, l.antonymForms = map[string][]string{}, map[string]bool{}
	for _, pair := range w.Antonyms {
		for side := range 2 {
			for _, a := range pair[side] {
				l.antonymForms[a] = true
				for _, b := range pair[1-side] {
					l.antonyms[stem(a)] = append(l.antonyms[stem(a)], stem(b))
				}
			}
		}
	}
	l.table = newWordTable(l.words)
	for w := range l.words {
		l.maxWord = max(l.maxWord, len(w))
	}
	l.drugTails = map[string]bool{}
	for _, suffix := range l.drugSuffixes {
		l.drugTails[suffix[len(suffix)-3:]] = true
	}
	return l, nil
}

// lowerLookup returns the lexicon's entry for an ASCII word in any case,
// without allocating for a word that has none.
func (l *lexicon) lowerLookup(w string) *lexWord {
	if len(w) > l.maxWord {
		return nil
	}
	var buf [64]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return l.lookup(string(buf[:len(w)]))
}

// negatedStems returns the positive stems a negative predicate
// ("excluded", "prohibited") denies, and whether the stem is one.
func (l *lexicon) negatedStems(stem string) ([]string, bool) {
	for prefix, pos := range l.negPredicate {
		if strings.HasPrefix(stem, prefix) {
			return pos, true
		}
	}
	return nil, false
}

// drugName reports whether a lower-case word looks like a drug's
// international name by its stem ("-mab", "-pril", "-statin").
func (l *lexicon) drugName(w string) bool {
	if len(w) < 7 || !l.drugTails[w[len(w)-3:]] {
		return false
	}
	for _, s := range l.drugSuffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// stem cuts a common English suffix, keeping at least three letters, so
// "covers", "covered", "coverage" and "cover" compare equal. It returns a
// substring: no allocation.
func stem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if n := len(w); n < 4 || !stemEnds[w[n-1]] {
		return w
	}
	for _, s := range stemsByEnd[w[len(w)-1]] {
		if len(w)-len(s) >= 3 && strings.HasSuffix(w, s) {
			w = w[:len(w)-len(s)]
			// "submitted" -> "submitt" -> "submit"
			if n := len(w); (s == "ed" || s == "ing") && n >= 4 && w[n-1] == w[n-2] && !vowel(w[n-1]) && w[n-1] != 's' && w[n-1] != 'l' {
				w = w[:n-1]
			}
			return w
		}
	}
	return w
}

// stemEnds are the last letters of stemSuffixes: most words end in none;
// stemsByEnd lists the suffixes by last letter, in stemSuffixes' order.
// Initialised as variables, not in init, so that the lexicon, built
// before any init runs, stems its antonyms with them.
var stemEnds, stemsByEnd = stemTables()

func stemTables() (ends [256]bool, by [256][]string) {
	for _, s := range stemSuffixes {
		ends[s[len(s)-1]] = true
		by[s[len(s)-1]] = append(by[s[len(s)-1]], s)
	}
	return ends, by
}

var stemSuffixes = []string{"ements", "ement", "ments", "ment", "ations", "ation", "ables", "able", "ings", "ing",
	"ages", "age", "ied", "ies", "ed", "es", "ly", "s", "e", "y"}

func vowel(b byte) bool { return b == 'a' || b == 'e' || b == 'i' || b == 'o' || b == 'u' }
