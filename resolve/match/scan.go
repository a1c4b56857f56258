package match

import "strings"

// scanner yields every byte offset where q occurs in s, overlapping
// occurrences included, in increasing order. It runs strings.Index from one
// occurrence to the next, which is linear while occurrences do not overlap;
// the first overlap proves q periodic, and from there on it switches to
// Knuth–Morris–Pratt so that a text like "aaaa…" cannot make it quadratic.
type scanner struct {
	s, q  string
	pos   int // next offset to search from
	prev  int // previous occurrence, -1 before the first
	fail  []int32
	state int // KMP: length of the prefix of q matched before s[pos]
}

func newScanner(s, q string) scanner {
	return scanner{s: s, q: q, prev: -1}
}

// next returns the next occurrence, or -1 when there is none. q must not be
// empty.
func (sc *scanner) next() int {
	if sc.fail != nil {
		return sc.kmp()
	}
	if sc.pos > len(sc.s) {
		return -1
	}
	j := strings.Index(sc.s[sc.pos:], sc.q)
	if j < 0 {
		sc.pos = len(sc.s) + 1
		return -1
	}
	i := sc.pos + j
	if sc.prev >= 0 && i < sc.prev+len(sc.q) {
		sc.fail = kmpTable(sc.q)
		sc.pos = i + len(sc.q)
		sc.state = int(sc.fail[len(sc.q)])
		return i
	}
	sc.prev = i
	sc.pos = i + 1
	return i
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
