package match

import (
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Level says how a quote matched, strongest first.
type Level string

// The matching levels of docs/contract.md#quote-match-levels, strongest first.
const (
	LevelExact      Level = "exact"      // the quote's bytes equal the span
	LevelWhitespace Level = "whitespace" // equal after whitespace folding
	LevelNormalized Level = "normalized" // equal after normalized folding
	LevelFuzzy      Level = "fuzzy"      // within MaxDistance edits after normalized folding
	LevelNone       Level = "none"       // not found
)

// NoHint is the Options.Hint of a search with no expected position.
const NoHint = -1

// MaxFuzzyLen is the longest quote, in code points after normalized folding,
// that the fuzzy level searches. A longer quote can still match at the
// exact, whitespace and normalized levels; fuzzy search of it would cost
// ceil(m/64) words per text code point, and no chunk is that long.
const MaxFuzzyLen = 16384

// maxDefaultDistance caps the default fuzzy bound, as the Hypothesis client
// caps approx-string-match's: beyond it a "match" is a different text.
const maxDefaultDistance = 256

// ctxLen is how many code points of Prefix and Suffix break ties: enough to
// tell repeated paragraphs apart by their neighbours, and one 64-bit word.
const ctxLen = 64

// Match is where a quote was found.
type Match struct {
	// Level is the strongest level at which the quote matched, LevelNone if
	// it did not.
	Level Level
	// Start and End are the half-open range of the match, in Unicode code
	// points of the original text (the canonical text), whatever level found
	// it. The span text[Start:End], folded at Level, equals the quote folded
	// at Level.
	Start, End int
	// Distance is the edit distance of a fuzzy match (insertions, deletions
	// and substitutions of code points) between the quote and the span,
	// both folded at the normalized level; 0 for the other levels.
	Distance int
	// Count is how many places matched at Level with the best distance and
	// the best Prefix/Suffix context. More than one means the quote is
	// ambiguous: Start and End then name one of them (the nearest to Hint,
	// else the first), and callers must not treat it as the place.
	Count int
	// Elided is set when the quote left words out and was located part by
	// part (LocateElided).
	Elided bool
}

// Found reports whether the quote matched at some level.
func (m Match) Found() bool { return m.Level != LevelNone && m.Level != "" }

// Options tunes a search. The zero value searches for a quote expected at
// offset 0; set Hint to NoHint when there is no expected position.
type Options struct {
	// MaxDistance bounds the fuzzy level, in edits (code points). Zero or
	// less means the default: one edit per eight code points of the folded
	// quote, at most 256. It never exceeds half the quote's length.
	MaxDistance int
	// Hint is where the quote is expected to start, in code points of the
	// text, or NoHint (-1). At each level a match inside the window around
	// Hint wins; the rest of the text is searched at that level only when
	// the window holds none.
	Hint int
	// Window is how many code points on each side of Hint, beyond the
	// quote's own length, are searched first. Zero or less means
	// 4·len(quote)+2000.
	Window int
	// Prefix and Suffix are text expected right before and after the quote
	// (e.g. the neighbouring chunks). Among places that tie at the best
	// level and distance, the ones whose surroundings are closest to them
	// (edit distance over 64 code points, normalized folding) win.
	Prefix, Suffix string
}

// Index is a text prepared for quote searches: its folded forms are built
// on first need, once, and reused by every later search. An Index is safe
// for concurrent use.
type Index struct {
	text  string
	n     int  // length in code points
	valid bool // text is valid UTF-8
	ascii bool // text is ASCII, so byte offsets are code-point offsets

	wsOnce, normOnce, cpOnce sync.Once
	ws, norm                 *folded
	cpOf                     []int32 // invalid UTF-8 only: code point at each byte, -1 inside a rune

	plainOnce sync.Once
	plain     bool // valid UTF-8 without a character the folded levels drop

	ckOnce sync.Once
	ck     []int // valid non-ASCII text: byte offset of every ckStride-th code point

	// scratch, when set, holds buffers the folded forms are built in,
	// reused from one short-lived Index to the next (Locate's); nil for an
	// Index that keeps its forms.
	scratch *scratch
}

// ckStride is the spacing of the code-point checkpoints that turn a window
// in code points into a byte range without counting from the start.
const ckStride = 256

// byteOffset returns the byte offset of code point cp (clamped to the text)
// of a valid UTF-8 text.
func (ix *Index) byteOffset(cp int) int {
	if cp <= 0 {
		return 0
	}
	if cp >= ix.n {
		return len(ix.text)
	}
	if ix.ascii {
		return cp
	}
	ix.ckOnce.Do(func() {
		if ix.scratch != nil {
			ix.ck = ix.scratch.ck[:0]
			defer func() { ix.scratch.ck = ix.ck }()
		} else {
			ix.ck = make([]int, 0, ix.n/ckStride+1)
		}
		k := 0
		for i := range ix.text {
			if k%ckStride == 0 {
				ix.ck = append(ix.ck, i)
			}
			k++
		}
	})
	i := ix.ck[cp/ckStride]
	for k := cp % ckStride; k > 0; k-- {
		_, size := utf8.DecodeRuneInString(ix.text[i:])
		i += size
	}
	return i
}

// NewIndex returns an Index of text. It costs one pass over the text; the
// folded forms are built when a search first needs them.
func NewIndex(text string) *Index {
	n := utf8.RuneCountInString(text)
	valid := utf8.ValidString(text)
	return &Index{text: text, n: n, valid: valid, ascii: valid && n == len(text)}
}

// Len returns the length of the text in code points.
func (ix *Index) Len() int { return ix.n }

// Find locates quote in text: exactly, else after whitespace folding, else
// after normalized folding, else within a bounded edit distance. It is
// NewIndex(text).Find(quote, opts).
func Find(text, quote string, opts Options) Match {
	return NewIndex(text).Find(quote, opts)
}

// foldable reports whether the text is small enough for folded maps, whose
// entries are 32-bit code-point offsets.
func (ix *Index) foldable() bool { return len(ix.text) <= math.MaxInt32 }

func (ix *Index) wsLevel() *folded {
	ix.wsOnce.Do(func() {
		if ix.scratch != nil {
			ix.ws = ix.scratch.ws.fold(ix.text, false)
		} else {
			ix.ws = foldText(ix.text, false)
		}
	})
	return ix.ws
}

func (ix *Index) normLevel() *folded {
	ix.normOnce.Do(func() {
		if ix.scratch != nil {
			ix.norm = ix.scratch.norm.fold(ix.text, true)
		} else {
			ix.norm = foldText(ix.text, true)
		}
	})
	return ix.norm
}

// cps returns, for a text that is not valid UTF-8, the code-point offset of
// every byte that starts a code point as Go decodes it (an invalid byte is
// one), -1 for the others, and n at len(text).
func (ix *Index) cps() []int32 {
	ix.cpOnce.Do(func() {
		cp := make([]int32, len(ix.text)+1)
		n := int32(0)
		for i := 0; i < len(ix.text); {
			_, size := utf8.DecodeRuneInString(ix.text[i:])
			cp[i] = n
			for k := 1; k < size; k++ {
				cp[i+k] = -1
			}
			i += size
			n++
		}
		cp[len(ix.text)] = n
		ix.cpOf = cp
	})
	return ix.cpOf
}

var searchers = sync.Pool{New: func() any { return new(searcher) }}

// Find locates quote in the Index's text; see the package documentation for
// the levels and guarantees. It never panics and allocates little: the
// folded quotes, once the exact level has failed.
func (ix *Index) Find(quote string, opts Options) Match {
	if quote == "" {
		return Match{Level: LevelNone}
	}
	sr := searchers.Get().(*searcher)
	defer searchers.Put(sr)
	q := query{ix: ix, opts: opts, sr: sr, hint: NoHint}
	qcp := utf8.RuneCountInString(quote)
	if opts.Hint >= 0 {
		w := opts.Window
		if w <= 0 {
			w = 4*qcp + 2000
		}
		q.hint = opts.Hint
		q.lo = max(0, opts.Hint-w)
		q.hi = min(ix.n, satAdd(opts.Hint, satAdd(qcp, w)))
	}
	q.useCtx = opts.Prefix != "" || opts.Suffix != ""

	if m, ok := q.exact(quote, qcp); ok {
		return m
	}
	if !ix.foldable() {
		return Match{Level: LevelNone}
	}
	if wq := sr.fold(quote, false); wq != "" && ix.wsMayMatch(wq) {
		if m, ok := q.level(LevelWhitespace, ix.wsLevel(), wq); ok {
			return m
		}
	}
	nq := sr.fold(quote, true)
	if nq == "" {
		return Match{Level: LevelNone}
	}
	if m, ok := q.level(LevelNormalized, ix.normLevel(), nq); ok {
		return m
	}
	if m, ok := q.fuzzy(ix.normLevel(), nq); ok {
		return m
	}
	return Match{Level: LevelNone}
}

// wsMayMatch reports whether the quote folded at the whitespace level, wq,
// can occur in the text's whitespace folding, without folding the text:
// in a valid text with nothing to drop, the folding copies every other
// character and makes each run of white space one space, so wq occurs only
// where the text holds its words in order, each run of white space between
// them. The check looks for that around each occurrence of the longest
// word; true sends the quote to the level, which decides. A quote with
// OCR noise thus skips folding a large text twice.
func (ix *Index) wsMayMatch(wq string) bool {
	ix.plainOnce.Do(func() { ix.plain = ix.ascii || ix.valid && !hasDropped(ix.text) })
	if !ix.plain {
		return true
	}
	// The longest word, [ks, ke) in wq, is the rarest to look for.
	ks, ke := 0, 0
	for i := 0; i < len(wq); {
		j := strings.IndexByte(wq[i:], ' ')
		if j < 0 {
			j = len(wq) - i
		}
		if j > ke-ks {
			ks, ke = i, i+j
		}
		i += j + 1
	}
	s, w := ix.text, wq[ks:ke]
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		p := from + i
		if wordsAfter(s, p+len(w), wq[ke:]) && wordsBefore(s, p, wq[:ks]) {
			return true
		}
		from = p + 1
	}
}

// wordsAfter reports whether s from byte i holds the words of rest (" w1
// w2 …", single spaces), each after a run of white space.
func wordsAfter(s string, i int, rest string) bool {
	for rest != "" {
		rest = rest[1:] // the space
		w := rest
		if k := strings.IndexByte(rest, ' '); k >= 0 {
			w = rest[:k]
		}
		rest = rest[len(w):]
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += size
		}
		if j == i || !strings.HasPrefix(s[j:], w) {
			return false
		}
		i = j + len(w)
	}
	return true
}

// wordsBefore is wordsAfter backwards: s up to byte i ends with the words
// of head ("… w1 w2 "), each before a run of white space.
func wordsBefore(s string, i int, head string) bool {
	for head != "" {
		head = head[:len(head)-1] // the space
		w := head
		if k := strings.LastIndexByte(head, ' '); k >= 0 {
			w = head[k+1:]
		}
		head = head[:len(head)-len(w)]
		j := i
		for j > 0 {
			r, size := utf8.DecodeLastRuneInString(s[:j])
			if !unicode.IsSpace(r) {
				break
			}
			j -= size
		}
		if j == i || !strings.HasSuffix(s[:j], w) {
			return false
		}
		i = j - len(w)
	}
	return true
}

// hasDropped reports whether s holds a character the folded levels drop
// (soft hyphen, zero-width characters: dropped).
func hasDropped(s string) bool {
	for _, d := range [...]string{"\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"} {
		if strings.Contains(s, d) {
			return true
		}
	}
	return false
}

// satAdd adds non-negative ints without overflowing.
func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// fold folds a quote for the whitespace or normalized level, in the
// searcher's buffer.
//
// The result lives in the searcher's buffer for its level: it is valid
// until the searcher goes back to its pool, at the end of Find, and
// nothing keeps it beyond.
func (sr *searcher) fold(q string, normalized bool) string {
	buf := &sr.wsBuf
	if normalized {
		buf = &sr.buf
	}
	f := folder{norm: normalized, out: (*buf)[:0]}
	f.fold(q)
	*buf = f.out[:0]
	b := f.out
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	if string(b) == q {
		return q
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// query is the state of one Find call.
type query struct {
	ix     *Index
	opts   Options
	sr     *searcher
	hint   int // NoHint, or the window [lo, hi] in code points applies
	lo, hi int

	useCtx   bool // Prefix or Suffix given
	ctxReady bool
	pre, suf bool // the prefix and suffix patterns in sr are set
	revReady bool // sr.rev holds the reversed quote
}

// cand is one place a quote matched.
type cand struct {
	start, end int // code points of the original
	dist       int
	fs, fe     int // bytes of the normalized folded text, -1 until needed
	ctx        int // context distance, -1 until computed
}

func (q *query) inWindow(x *cand) bool {
	return q.hint >= 0 && x.start >= q.lo && x.end <= q.hi
}

// chooser keeps the best candidates of a level in one region: least
// distance, then least context distance; it counts the ties.
type chooser struct {
	q    *query
	n    int
	best cand
}

func (c *chooser) add(x *cand) {
	if c.n == 0 || x.dist < c.best.dist {
		c.best, c.n = *x, 1
		return
	}
	if x.dist > c.best.dist {
		return
	}
	if c.q.useCtx {
		a, b := c.q.context(&c.best), c.q.context(x)
		if b < a {
			c.best, c.n = *x, 1
			return
		}
		if b > a {
			return
		}
	}
	c.n++
	if h := c.q.hint; h >= 0 && abs(x.start-h) < abs(c.best.start-h) {
		c.best = *x
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// result picks the window's choice when it has one, else the whole text's.
func result(level Level, win, all *chooser) (Match, bool) {
	c := all
	if win.n > 0 {
		c = win
	}
	if c.n == 0 {
		return Match{}, false
	}
	return Match{Level: level, Start: c.best.start, End: c.best.end, Distance: c.best.dist, Count: c.n}, true
}

// exact finds the quote's bytes.
func (q *query) exact(quote string, qcp int) (Match, bool) {
	ix := q.ix
	if ix.valid && !utf8.ValidString(quote) {
		// An invalid quote could only match inside a code point.
		return Match{}, false
	}
	win, all := chooser{q: q}, chooser{q: q}
	if q.hint >= 0 && ix.valid && ix.n > q.hi-q.lo {
		// Search the window around the hint first: with a hint, a match
		// there wins, and the rest of a long text need not be read.
		bs, be := ix.byteOffset(q.lo), ix.byteOffset(q.hi)
		sc := newScanner(ix.text[bs:be], quote)
		pos, cp := 0, q.lo
		for {
			i := sc.next()
			if i < 0 {
				break
			}
			cp += utf8.RuneCountInString(ix.text[bs+pos : bs+i])
			pos = i
			x := cand{start: cp, end: cp + qcp, fs: -1, fe: -1, ctx: -1}
			win.add(&x)
		}
		if win.n > 0 {
			return result(LevelExact, &win, &all)
		}
	}
	sc := newScanner(ix.text, quote)
	pos, cp := 0, 0
	for {
		i := sc.next()
		if i < 0 {
			break
		}
		x := cand{fs: -1, fe: -1, ctx: -1}
		switch {
		case ix.ascii:
			x.start, x.end = i, i+len(quote)
		case ix.valid:
			cp += utf8.RuneCountInString(ix.text[pos:i])
			pos = i
			x.start, x.end = cp, cp+qcp
		case !ix.foldable():
			continue // a text this large and not UTF-8 has no code-point map
		default:
			cps := ix.cps()
			s, e := cps[i], cps[i+len(quote)]
			if s < 0 || e < 0 {
				continue // not on code-point boundaries
			}
			x.start, x.end = int(s), int(e)
		}
		all.add(&x)
		if q.inWindow(&x) {
			win.add(&x)
		}
	}
	return result(LevelExact, &win, &all)
}

// level finds the folded quote in a folded text.
func (q *query) level(level Level, f *folded, fq string) (Match, bool) {
	win, all := chooser{q: q}, chooser{q: q}
	if q.hint >= 0 && q.ix.n > q.hi-q.lo {
		// The window first, as for the exact level.
		lo, hi := f.lowerByte(q.lo), f.upperByte(q.hi)
		if lo < hi {
			sc := newScanner(f.s[lo:hi], fq)
			for {
				i := sc.next()
				if i < 0 {
					break
				}
				i += lo
				if !f.whole(i, i+len(fq)) {
					continue
				}
				x := cand{fs: -1, fe: -1, ctx: -1}
				x.start, x.end = f.span(i, i+len(fq))
				if level == LevelNormalized {
					x.fs, x.fe = i, i+len(fq)
				}
				if q.inWindow(&x) {
					win.add(&x)
				}
			}
			if win.n > 0 {
				return result(level, &win, &all)
			}
		}
	}
	sc := newScanner(f.s, fq)
	for {
		i := sc.next()
		if i < 0 {
			break
		}
		if !f.whole(i, i+len(fq)) {
			continue // part of a ligature or expansion: not a span of its own
		}
		x := cand{fs: -1, fe: -1, ctx: -1}
		x.start, x.end = f.span(i, i+len(fq))
		if level == LevelNormalized {
			x.fs, x.fe = i, i+len(fq)
		}
		all.add(&x)
		if q.inWindow(&x) {
			win.add(&x)
		}
	}
	return result(level, &win, &all)
}

// fuzzy searches the normalized folded text within the distance bound: the
// window around Hint first, then, if nothing there is within the bound, the
// whole text.
func (q *query) fuzzy(f *folded, fq string) (Match, bool) {
	sr := q.sr
	sr.runes = sr.runes[:0]
	for _, r := range fq {
		sr.runes = append(sr.runes, r)
	}
	m := len(sr.runes)
	if m == 0 || m > MaxFuzzyLen {
		return Match{}, false
	}
	k := q.opts.MaxDistance
	if k <= 0 {
		k = min(m/8, maxDefaultDistance)
	}
	k = min(k, m/2)
	if k <= 0 {
		return Match{}, false
	}
	sr.fwd.init(sr.runes, false)
	q.revReady = false
	if q.hint >= 0 {
		bs, be := f.lowerByte(q.lo), f.upperByte(q.hi)
		if bs < be {
			if m, ok := q.fuzzyRegion(f, fq, bs, be, k); ok {
				return m, true
			}
		}
		if bs <= 0 && be >= len(f.s) {
			return Match{}, false
		}
	}
	return q.fuzzyRegion(f, fq, 0, len(f.s), k)
}

func (q *query) fuzzyRegion(f *folded, fq string, bs, be, k int) (Match, bool) {
	sr := q.sr
	sr.search(f.s, fq, bs, be, k)
	d := sr.best
	if d < 0 {
		return Match{}, false
	}
	if !q.revReady {
		sr.rev.init(sr.runes, true)
		q.revReady = true
	}
	c := chooser{q: q}
	words := hasSeparator(fq)
	sr.snapped = sr.snapped[:0]
outer:
	for _, e := range sr.ends {
		s := sr.start(f.s, bs, e, d)
		x := cand{dist: d, fs: s, fe: e, ctx: -1}
		if words {
			q.snap(f.s, fq, &x, k)
			for _, r := range sr.snapped {
				if r.lo == x.fs && r.hi == x.fe {
					continue outer // two ends moved to one place
				}
			}
			sr.snapped = append(sr.snapped, region{x.fs, x.fe})
		}
		x.start, x.end = f.span(x.fs, x.fe)
		c.add(&x)
	}
	return result(LevelFuzzy, &chooser{}, &c)
}
