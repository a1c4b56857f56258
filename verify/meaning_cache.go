package verify

import (
	"strings"
	"sync"
	"sync/atomic"
)

// The evidence side of the meaning checks is the same for every claim
// that cites a sentence: its tokens, phrases and clauses depend on the
// stored text alone. Answers cite the same passages again and again (the
// clause every question about a policy lands on), so the scans are kept,
// by sentence text, for the next claim that cites it; the claim's own
// words are scanned every time.

// scannedContext is one evidence sentence, scanned. It is read-only once
// in the cache: a checker reads it through view, which gives the slices
// the checks append to a capacity of their own.
// Each part is kept from its second use on (the first reads the
// sentence as if there were no cache, into reused buffers): most of a
// large store is cited once, and what is cited once should cost no more
// than without the cache. A restated claim needs the words only, a claim
// the full checks read needs the scan.
type scannedContext struct {
	s    string
	cost int // bytes it may hold, estimated

	scanUses, wordUses atomic.Int32

	textOnce sync.Once
	text     mtext

	wordsOnce sync.Once
	words     []sideWord // as the restated-claim shortcut splits them
	runs      [][2]int   // the run of word characters of each word

	figsOnce sync.Once
	figs     []placedFigure // read only by a claim that bounds a figure
}

// placedFigure is a figure of a sentence and the bytes it spans.
type placedFigure struct {
	Figure
	start, end int
}

// scan returns the sentence scanned.
func (e *scannedContext) scan() *mtext {
	e.textOnce.Do(func() {
		// Sized for the text, so the kept scan wastes little on growth.
		n := len(e.s)/5 + 4
		e.text.toks, e.text.matches, e.text.clauses = make([]mtok, 0, n), make([]pmatch, 0, n/8+2), make([]mclause, 0, n/6+2)
		e.text.sets, e.text.lower = make([]uint32, 0, n), make([]byte, 0, len(e.s)/4)
		e.text.scan(e.s)
	})
	return &e.text
}

// cachedScan returns the sentence scanned, or nil on its first use.
func (e *scannedContext) cachedScan() *mtext {
	if e.scanUses.Add(1) == 1 {
		return nil
	}
	return e.scan()
}

// wordList returns the sentence's words as the shortcut splits them, or
// nil on its first use.
func (e *scannedContext) wordList() ([]sideWord, [][2]int) {
	if e.wordUses.Add(1) == 1 {
		return nil, nil
	}
	e.wordsOnce.Do(func() { e.words, e.runs = contextWords(e.s) })
	return e.words, e.runs
}

// figures returns the sentence's figures with where each is, found on
// first use.
func (e *scannedContext) figures() []placedFigure {
	e.figsOnce.Do(func() {
		s := e.s
		pos := 0
		for _, g := range appendFigures(nil, s) {
			at := strings.Index(s[pos:], g.Text)
			if at < 0 {
				continue
			}
			e.figs = append(e.figs, placedFigure{g, pos + at, pos + at + len(g.Text)})
			pos += at + len(g.Text)
		}
	})
	return e.figs
}

// contextScans is the process's cache of evidence scans: two generations
// of at most scanCacheBytes/2 each. A full current generation becomes the
// old one, so what was read in the last generation survives one more, and
// a store larger than the cache costs scans, not thrashing of the whole.
var contextScans = scanCache{limit: scanCacheBytes / 2}

// scanCacheBytes bounds the memory the cache holds.
const scanCacheBytes = 32 << 20

type scanCache struct {
	mu        sync.Mutex
	cur, old  map[string]*scannedContext
	curBytes  int
	limit     int
	hits, all uint64
}

func (c *scanCache) get(s string) *scannedContext {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all++
	if e := c.cur[s]; e != nil {
		c.hits++
		return e
	}
	if e := c.old[s]; e != nil {
		c.hits++
		c.putLocked(s, e)
		return e
	}
	return nil
}

func (c *scanCache) put(s string, e *scannedContext) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(s, e)
}

func (c *scanCache) putLocked(s string, e *scannedContext) {
	if c.cur == nil || c.curBytes+e.cost > c.limit {
		c.old, c.cur, c.curBytes = c.cur, make(map[string]*scannedContext), 0
	}
	if c.cur[s] == nil {
		c.cur[s] = e
		c.curBytes += e.cost
	}
}

// reset empties the cache (benchmarks of the cold path, tests).
func (c *scanCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur, c.old, c.curBytes = nil, nil, 0
}

// scanContext returns the scan of an evidence sentence, from the cache or
// scanned now and kept. The text is copied first: the scan's words point
// into it, and the cache must not keep the whole chunk it was cut from.
func scanContext(s string) *scannedContext {
	if e := contextScans.get(s); e != nil {
		return e
	}
	e := &scannedContext{s: strings.Clone(s), cost: bytesPerByte * len(s)}
	contextScans.put(e.s, e)
	return e
}

// bytesPerByte estimates what a sentence's scan, words and figures hold per
// byte of its text (a token of some 6 bytes takes 112, its word 48, ...).
const bytesPerByte = 40

// view returns a copy of the scan that a checker may extend: the checks
// append clauses (widen, into the checker's clauses buffer), stem sets and
// lower-cased names, which then go to arrays of their own instead of the
// shared ones.
func view(scan *mtext, clauses []mclause, scope []int) mtext {
	t := *scan
	t.clauses = append(clauses[:0], t.clauses...)
	t.sets = t.sets[:len(t.sets):len(t.sets)]
	t.lower = t.lower[:len(t.lower):len(t.lower)]
	t.scopeBuf = scope[:0]
	return t
}
