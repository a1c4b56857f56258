package verify

import (
	"strings"
	"unicode/utf8"
)

// restates reports whether the claim is, word for word, part of the
// sentence of one of its citations, and the rest of that sentence holds
// nothing that could turn it around: no exception, no negator or
// restriction in its clause, no phrase reaching across its edges. Every check would
// then find nothing (the claim's words, names, figures and bindings are
// the evidence's own), so none runs: the answer that restates its quotes
// pays for one scan of a few words.
func restates(claim string, evs []meaningEvidence) bool { return restatesIn(claim, evs, true) }

// restatesIn is restates reading the words beside the claim from the
// sentence's cached scan, or, when cached is false, scanning them.
func restatesIn(claim string, evs []meaningEvidence, cached bool) bool {
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
		if at < 0 || saidTwice(ctx, claim) {
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
		end := at + len(claim)
		bTo, aFrom := at, end
		if from < at {
			bTo = at + wordLen(ctx[at:])
		}
		if to > end {
			aFrom = end - lastWordLen(ctx[:end])
		}
		src := sides{ctx: ctx}
		if cached {
			src.words, src.runs = scanContext(ctx).wordList()
		}
		return quietAround(&src, bTo, at, end, aFrom)
	}
	return false
}

// saidTwice reports whether s holds two occurrences of w that do not
// overlap (strings.Count(s, w) > 1): the first, then another after it.
func saidTwice(s, w string) bool {
	i := strings.Index(s, w)
	return i >= 0 && strings.Contains(s[i+len(w):], w)
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

// sideWord is a word beside a restated claim, where it starts in the
// sentence, and what the lexicon knows of it.
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

// contextWords lists the words of s as eachWord splits them, and the
// run of word characters each was cut from (eachWord trims apostrophes
// and hyphens from a run's ends; a run gives at most one word): what the
// restated-claim shortcut reads beside a claim.
func contextWords(s string) ([]sideWord, [][2]int) {
	n := len(s)/6 + 4 // words of some 6 bytes
	words, runs := make([]sideWord, 0, n), make([][2]int, 0, n)
	for i := 0; i < len(s); {
		for i < len(s) {
			ok, size := wordRuneAt(s, i)
			if ok {
				break
			}
			i += size
		}
		j := i
		for j < len(s) {
			ok, size := wordRuneAt(s, j)
			if !ok {
				break
			}
			j += size
		}
		if j == i {
			break
		}
		// eachWord's trim of the run's apostrophes and hyphens.
		from, to := i, j
		for from < to && (s[from] == '\'' || s[from] == '-') {
			from++
		}
		for to > from && (s[to-1] == '\'' || s[to-1] == '-') {
			to--
		}
		if from < to {
			words, runs = append(words, sideWord{w: s[from:to], at: from, e: lex.lowerLookup(s[from:to])}), append(runs, [2]int{i, j})
		}
		i = j
	}
	return words, runs
}

// sides gives the words of parts of one sentence, where each starts in
// it: from its cached word list where there is one (a run the part's
// edges cut is split again), else by scanning the part.
type sides struct {
	ctx   string
	words []sideWord // nil: scan
	runs  [][2]int
}

// of returns up to cap(buf) words of ctx[from:to]; ok is false when it
// has more. The words may be the cache's own: read them, never write.
func (s *sides) of(from, to int, buf []sideWord) (_ []sideWord, ok bool) {
	if s.words == nil {
		ws, ok := sideWords(s.ctx[from:to], buf)
		for i := range ws {
			ws[i].at += from
		}
		return ws, ok
	}
	lo, hi := firstRun(s.runs, 1, from+1), firstRun(s.runs, 0, to)
	if lo >= hi {
		return buf[:0], true
	}
	if s.runs[lo][0] >= from && s.runs[hi-1][1] <= to {
		if hi-lo > cap(buf) {
			return s.words[lo : lo+cap(buf) : lo+cap(buf)], false
		}
		return s.words[lo:hi:hi], true
	}
	// An edge cuts a run: its piece splits as eachWord would split it.
	ws := buf[:0]
	for k := lo; k < hi; k++ {
		w := s.words[k]
		if r := s.runs[k]; r[0] < from || r[1] > to {
			rf, rt := max(r[0], from), min(r[1], to)
			found := false
			eachWord(s.ctx[rf:rt], func(x string, at int) bool {
				w, found = sideWord{w: x, at: rf + at, e: lex.lowerLookup(x)}, true
				return false
			})
			if !found {
				continue
			}
		}
		if len(ws) == cap(ws) {
			return ws, false
		}
		ws = append(ws, w)
	}
	return ws, true
}

// firstRun returns the first run whose edge (0: start, 1: end) is at
// least x; runs are sorted and do not overlap. A binary search written
// out: slices.BinarySearchFunc's closure was a fifth of the shortcut.
func firstRun(runs [][2]int, edge, x int) int {
	lo, hi := 0, len(runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if runs[m][edge] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// quietAround reports whether the words before and after a restated claim
// in its sentence hold no exception, its own clause no negator or
// restriction beside it, and no phrase reaches across its edges ("whether
// or | not", "Subject | to", "not | exceed"): each would make the checks
// read the claim otherwise than it reads alone. Bounds and timings need no
// look of their own: a restated claim states its figures' bounds itself.
// The claim is src.ctx[at:end]; before is ctx[:bTo] and after ctx[aFrom:]
// (either may hold a word the claim cuts), the raw sides ctx[:at] and
// ctx[end:].
func quietAround(src *sides, bTo, at, end, aFrom int) bool {
	ctx := src.ctx
	before, after := ctx[:bTo], ctx[aFrom:]
	var b1, b2, b3, b4 [64]sideWord
	bw, ok1 := src.of(0, bTo, b1[:])
	aw, ok2 := src.of(aFrom, len(ctx), b2[:])
	if !ok1 || !ok2 || exception(bw) || exception(aw) {
		return false
	}
	// The claim's own clause: after the last clause break before it,
	// before the first one after it.
	start := 0
	for i, w := range bw {
		if w.e != nil && w.e.flags&(fClauseBreak|fConditional) != 0 && !(i > 0 && parentheticalIn(ctx, bw[i-1], w)) {
			start = i + 1
		}
	}
	if i := strings.LastIndexAny(before, ";:"); i >= 0 {
		for start < len(bw) && bw[start].at < i {
			start++
		}
	}
	stop := len(aw)
	semi := strings.IndexAny(after, ";:")
	for i, w := range aw {
		if semi >= 0 && w.at > aFrom+semi || w.e != nil && w.e.flags&(fClauseBreak|fConditional) != 0 &&
			!(i > 0 && parentheticalIn(ctx, aw[i-1], w)) {
			stop = i
			break
		}
	}
	if loud(bw[start:]) || loud(aw[:stop]) {
		return false
	}
	// A negator at the claim's end denies words after it ("… does not |
	// cover"): the claim alone reads it otherwise.
	var b5 [64]sideWord
	n := end - at
	if cw, ok := src.of(end-min(n, 96), end, b5[:]); !ok || loud(tail(cw, negScope+2)) {
		return false
	}
	// Phrases across the edges, on the sides as cut at the claim.
	cb, _ := src.of(at, at+min(n, 64), b3[:8])
	ce, _ := src.of(end-min(n, 64), end, b4[:16])
	rb, _ := src.of(at-min(at, 64), at, b1[:16])
	ra, _ := src.of(end, end+min(len(ctx)-end, 64), b2[:8])
	return !phraseAcross(tail(rb, 4), cb) && !phraseAcross(tail(ce, 4), ra)
}

// parentheticalIn reports whether w is a word the scanner's parenthetical
// reads as no break: set off by commas after a negator or an auxiliary
// ("are not, however, customizable").
func parentheticalIn(ctx string, before, w sideWord) bool {
	if !parentheticalWords[strings.ToLower(w.w)] {
		return false
	}
	b := strings.ToLower(before.w)
	if b != "not" && b != "never" && !strings.HasSuffix(b, "n't") && !strings.HasSuffix(b, "n’t") && (before.e == nil || before.e.flags&fAux == 0) {
		return false
	}
	end := w.at + len(w.w)
	return strings.HasSuffix(strings.TrimRight(ctx[:w.at], " "), ",") && strings.HasPrefix(strings.TrimLeft(ctx[end:], " "), ",")
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
