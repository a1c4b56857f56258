package match

import "strings"

// scanner yields every byte offset where q occurs in s, overlapping
// occurrences included, in increasing order, in time linear in len(s) +
// len(q) whatever the input.
//
// A needle of 16 bytes or more is found by sampling: with step the largest
// power of two up to 64 such that step+7 ≤ len(q), every occurrence of q
// covers one of the words s[g:g+8], g a multiple of step, inside a chosen
// window of q of step+7 bytes. Only one text word in step is read and tested
// against a 1024-bit mask of the window's words; a full compare runs where
// one fits. A 200-byte quote thus reads one word in 64 bytes of text. (For
// such needles strings.Index falls back to Rabin–Karp, which reads every
// byte.) Shorter needles use strings.Index.
//
// Two inputs could make either quadratic: occurrences that overlap (q
// periodic, as in "aaaa…"), and, for sampling, window words that keep
// fitting where q does not. The first overlap, or failed compares costing
// more than the text read, switches the scanner to Knuth–Morris–Pratt.
type scanner struct {
	s, q string
	pos  int // next offset to search from; next sampled word in sampled mode
	prev int // previous occurrence, -1 before the first

	sampled bool
	step    int
	wo      int        // window offset in q
	words   [64]uint64 // q's words at wo, wo+1, …, wo+step-1
	next8   [64]int8   // chains of words by bucket: word index + 1, 0 ends
	heads   [256]int8  // chain heads, by the bucket's top 8 bits: word index + 1, 0 for none
	mask    [64]uint64 // 4096-bit mask of the words' buckets
	pend    [64]int    // candidates of the current word, in increasing order
	npend   int
	ipend   int
	work    int // bytes compared by failed candidates
	start   int // where sampling began, to bound work against text read

	fail  []int32 // KMP failure function, once in KMP mode
	state int     // KMP: length of the prefix of q matched before s[pos]
}

const sampleMin = 16 // shortest needle that sampling serves

func newScanner(s, q string) scanner {
	sc := scanner{s: s, q: q, prev: -1}
	if len(q) < sampleMin {
		return sc
	}
	sc.sampled = true
	sc.step = 8
	for sc.step < 64 && 2*sc.step+7 <= len(q) {
		sc.step *= 2
	}
	// The window sits in the middle of q, away from the ends where
	// quotes most often differ from the text.
	sc.wo = (len(q) - sc.step - 7) / 2
	for i := range sc.step {
		w := load64(q, sc.wo+i)
		b := bucket(w)
		sc.words[i] = w
		sc.mask[b>>6] |= 1 << (b & 63)
		sc.next8[i] = sc.heads[b>>4]
		sc.heads[b>>4] = int8(i + 1)
	}
	sc.pos = sc.wo // first word that can lie in a window
	sc.start = sc.pos
	return sc
}

// bucket hashes a word to 10 bits.
func bucket(w uint64) uint { return uint((w * 0x9E3779B97F4A7C15) >> 54) }

// next returns the next occurrence, or -1 when there is none. q must not be
// empty.
func (sc *scanner) next() int {
	if sc.fail != nil {
		return sc.kmp()
	}
	if sc.sampled {
		return sc.sample()
	}
	if sc.pos > len(sc.s) {
		return -1
	}
	j := strings.Index(sc.s[sc.pos:], sc.q)
	if j < 0 {
		sc.pos = len(sc.s) + 1
		return -1
	}
	return sc.found(sc.pos + j)
}

// found reports occurrence i, switching to KMP if it overlaps the previous.
func (sc *scanner) found(i int) int {
	if sc.prev >= 0 && i < sc.prev+len(sc.q) {
		sc.toKMP(i+len(sc.q), len(sc.q))
		return i
	}
	sc.prev = i
	sc.pos = i + 1
	return i
}

// toKMP continues the search at s[pos] with st bytes of q matched.
func (sc *scanner) toKMP(pos, st int) {
	sc.fail = kmpTable(sc.q)
	sc.pos = pos
	if st == len(sc.q) {
		st = int(sc.fail[st])
	}
	sc.state = st
}

func (sc *scanner) sample() int {
	s, q := sc.s, sc.q
	for {
		for sc.ipend < sc.npend {
			p := sc.pend[sc.ipend]
			sc.ipend++
			if s[p:p+len(q)] == q {
				if sc.prev >= 0 && p < sc.prev+len(q) {
					sc.toKMP(p+len(q), len(q))
					return p
				}
				sc.prev = p
				return p
			}
			sc.work += len(q)
			if sc.work > 4*(sc.pos-sc.start)+8*len(q) {
				// Too many near misses: go on with KMP from the first
				// offset not yet decided.
				sc.toKMP(p+1, 0)
				return sc.kmp()
			}
		}
		// The hot loop: one word in step, one mask test.
		g, step, last := sc.pos, sc.step, len(s)-8
		var w uint64
		var b uint
		for ; g <= last; g += step {
			w = load64(s, g)
			b = bucket(w)
			if sc.mask[b>>6]&(1<<(b&63)) != 0 {
				break
			}
		}
		if g > last {
			sc.pos = g
			return -1
		}
		sc.pos = g + step
		// Candidates in increasing order: a later word offset means an
		// earlier start.
		sc.npend, sc.ipend = 0, 0
		for e1 := sc.heads[b>>4]; e1 > 0; e1 = sc.next8[e1-1] {
			e := e1 - 1
			if sc.words[e] != w {
				continue
			}
			p := g - sc.wo - int(e)
			if p < 0 || p+len(q) > len(s) || p <= sc.prev {
				continue
			}
			if sc.npend == len(sc.pend) {
				// A window word repeated more than eight times in its
				// window: q is nearly periodic; KMP from the earliest
				// offset not yet decided.
				sc.toKMP(max(g-sc.wo-sc.step+1, sc.prev+1, 0), 0)
				return sc.kmp()
			}
			i := sc.npend
			for i > 0 && sc.pend[i-1] > p {
				sc.pend[i] = sc.pend[i-1]
				i--
			}
			sc.pend[i] = p
			sc.npend++
		}
	}
}

func (sc *scanner) kmp() int {
	q, s, st := sc.q, sc.s, sc.state
	for sc.pos < len(s) {
		c := s[sc.pos]
		for st > 0 && q[st] != c {
			st = int(sc.fail[st])
		}
		if q[st] == c {
			st++
		}
		sc.pos++
		if st == len(q) {
			sc.state = int(sc.fail[st])
			return sc.pos - len(q)
		}
	}
	sc.state = st
	return -1
}

// kmpTable returns the KMP failure function of q: fail[j] is the length of
// the longest proper border of q[:j], for j in [0, len(q)].
func kmpTable(q string) []int32 {
	fail := make([]int32, len(q)+1)
	k := 0
	for j := 1; j < len(q); j++ {
		for k > 0 && q[j] != q[k] {
			k = int(fail[k])
		}
		if q[j] == q[k] {
			k++
		}
		fail[j+1] = int32(k)
	}
	return fail
}

// occurs returns the byte offset of the first occurrence of q in s, or -1,
// and whether q occurs again after it. For a quote of 16 bytes or more it
// reads one word in up to 64 bytes of s, where strings.Index reads them
// all; time stays linear in len(s) + len(q) whatever the input.
//
// Below indexCutover bytes of s it asks strings.Index instead: on a chunk
// the scanner's setup costs more than reading every byte (BenchmarkOccurs).
func occurs(s, q string) (first int, again bool) {
	if len(s) < indexCutover {
		return indexOccurs(s, q)
	}
	return scanOccurs(s, q)
}

// indexCutover is the text size in bytes from which the sampling scanner
// beats strings.Index for a quote of a sentence or two (BenchmarkOccurs).
// Below it strings.Index's worst case, which is not linear, is bounded by
// the size.
const indexCutover = 2 << 10

// indexOccurs is occurs by strings.Index.
func indexOccurs(s, q string) (first int, again bool) {
	if q == "" {
		return 0, len(s) > 0
	}
	if first = strings.Index(s, q); first < 0 {
		return -1, false
	}
	return first, strings.Contains(s[first+1:], q)
}

// scanOccurs is occurs by the sampling scanner.
func scanOccurs(s, q string) (first int, again bool) {
	if q == "" {
		return 0, len(s) > 0
	}
	sc := newScanner(s, q)
	if first = sc.next(); first < 0 {
		return -1, false
	}
	return first, sc.next() >= 0
}
