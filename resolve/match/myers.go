package match

import (
	"slices"
	"unicode/utf8"
)

// The fuzzy level is Myers' bit-vector algorithm (G. Myers, "A fast
// bit-vector algorithm for approximate string matching based on dynamic
// programming", JACM 46(3), 1999) in Hyyrö's formulation, with patterns
// longer than 64 code points split into 64-row blocks and only the blocks
// that can still hold a value within the bound computed (Myers' Fig. 9, the
// algorithm approx-string-match implements with 32-bit words). One text code
// point costs one to ceil(m/64) word steps, so a search is O(n·⌈m/64⌉) at
// worst and close to O(n) for the bounds used here.

// rowNone is the peq row of every character absent from the pattern; rows
// below it are ASCII, rows above it the pattern's non-ASCII code points.
const rowNone = utf8.RuneSelf

// pattern holds the match vectors (Myers' Peq) of a pattern of m code
// points: bit i of block b of a character's row is set when the pattern's
// code point 64·b+i is that character.
type pattern struct {
	m, nb int
	peq   []uint64 // rows × nb
	wide  []rune   // sorted distinct non-ASCII code points; row rowNone+1+i
	last  uint64   // bit of the pattern's last row in the last block
	shift uint     // index of that bit
}

// init builds the vectors of p (or of p reversed), reusing the pattern's
// memory.
func (pt *pattern) init(p []rune, reverse bool) {
	m := len(p)
	pt.m, pt.nb = m, (m+63)/64
	pt.shift = uint((m - 1) % 64)
	pt.last = 1 << pt.shift
	pt.wide = pt.wide[:0]
	for _, r := range p {
		if r >= utf8.RuneSelf {
			pt.wide = append(pt.wide, r)
		}
	}
	slices.Sort(pt.wide)
	pt.wide = slices.Compact(pt.wide)
	n := (rowNone + 1 + len(pt.wide)) * pt.nb
	if cap(pt.peq) < n {
		pt.peq = make([]uint64, n)
	} else {
		pt.peq = pt.peq[:n]
		clear(pt.peq)
	}
	for i, r := range p {
		if reverse {
			i = m - 1 - i
		}
		pt.peq[pt.row(r)*pt.nb+i/64] |= 1 << uint(i%64)
	}
}

// row returns the peq row of r.
func (pt *pattern) row(r rune) int {
	if r < utf8.RuneSelf {
		return int(r)
	}
	lo, hi := 0, len(pt.wide)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if pt.wide[h] < r {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < len(pt.wide) && pt.wide[lo] == r {
		return rowNone + 1 + lo
	}
	return rowNone
}

// advance is one 64-row block of one text column: Hyyrö's step with the
// horizontal delta hin ∈ {-1, 0, +1} entering the block's top row. It
// returns the block's new vertical deltas and the horizontal delta leaving
// row shift of the block (63, or the pattern's last row in the last block).
// It is branch-free so that it inlines into the scan loops.
func advance(pv, mv, eq uint64, hin int, shift uint) (uint64, uint64, int) {
	neg := uint64(hin) >> 63  // 1 if hin < 0
	pos := uint64(-hin) >> 63 // 1 if hin > 0
	eq |= neg
	xv := eq | mv
	xh := (((eq & pv) + pv) ^ pv) | eq
	ph := mv | ^(xh | pv)
	mh := pv & xh
	hout := int(ph>>shift&1) - int(mh>>shift&1)
	ph = ph<<1 | pos
	mh = mh<<1 | neg
	return mh | ^(xv | ph), ph & xv, hout
}

// searcher holds the per-search state of the fuzzy level; it is pooled so a
// search allocates nothing once warm.
type searcher struct {
	runes    []rune
	fwd, rev pattern
	pv, mv   []uint64
	score    []int
	ends     []int // end byte offsets of the places tied at the best distance
	buf      []byte
	ctxRunes []rune
	pre, suf pattern
}

func (sr *searcher) blocks(nb int) {
	if cap(sr.pv) < nb {
		sr.pv = make([]uint64, nb)
		sr.mv = make([]uint64, nb)
		sr.score = make([]int, nb)
	}
	sr.pv, sr.mv, sr.score = sr.pv[:nb], sr.mv[:nb], sr.score[:nb]
}

// forward scans s[bs:be] for the pattern sr.fwd and leaves in sr.ends the
// end offsets of the places where it matches with the least distance, if
// that distance is at most k; it returns the distance, or -1.
//
// Ends at the best distance come in clusters around each place (a last
// character substituted or deleted ends the match one code point later or
// earlier). Ends less than m−d code points after the first end of a cluster
// belong to it, since matches of length at least m−d ending that close
// overlap; a cluster keeps its last end, the longest match. Places are thus
// at least m−d ≥ m/2 code points apart, which bounds the start recoveries
// that follow to O(n/m) and keeps the whole search linear.
func (sr *searcher) forward(s string, bs, be, k int) int {
	p := &sr.fwd
	m, nb := p.m, p.nb
	sr.ends = sr.ends[:0]
	best := -1
	first := 0 // code-point index of the current cluster's first end
	if nb == 1 {
		pv, mv, score := ^uint64(0), uint64(0), m
		last, peq := p.last, p.peq
		ri := 0
		for j := bs; j < be; {
			c := s[j]
			var eq uint64
			if c < utf8.RuneSelf {
				eq = peq[c]
				j++
			} else {
				r, size := utf8.DecodeRuneInString(s[j:])
				eq = peq[p.row(r)]
				j += size
			}
			xv := eq | mv
			xh := (((eq & pv) + pv) ^ pv) | eq
			ph := mv | ^(xh | pv)
			mh := pv & xh
			if ph&last != 0 {
				score++
			} else if mh&last != 0 {
				score--
			}
			ph <<= 1
			pv = (mh << 1) | ^(xv | ph)
			mv = ph & xv
			ri++
			if score <= k {
				if score < best || best < 0 {
					best, k = score, score
					sr.ends = sr.ends[:0]
				}
				if len(sr.ends) > 0 && ri-first < m-best {
					sr.ends[len(sr.ends)-1] = j
				} else {
					sr.ends = append(sr.ends, j)
					first = ri
				}
			}
		}
		return best
	}

	// Block 0 lives in registers (pv0, mv0, sc0): most columns compute it
	// alone. Blocks 1..y live in the slices.
	sr.blocks(nb)
	pv, mv, sc := sr.pv, sr.mv, sr.score
	peq, lastShift := p.peq, p.shift
	lastRows := m - 64*(nb-1)
	y := max(0, (k+63)/64-1)
	for b := 0; b <= y; b++ {
		pv[b], mv[b] = ^uint64(0), 0
		sc[b] = (b + 1) * 64
	}
	if y == nb-1 {
		sc[y] = m
	}
	pv0, mv0, sc0 := pv[0], mv[0], sc[0]
	ri := 0
	for j := bs; j < be; {
		c := s[j]
		var base int
		if c < utf8.RuneSelf {
			base = int(c) * nb
			j++
		} else {
			r, size := utf8.DecodeRuneInString(s[j:])
			base = p.row(r) * nb
			j += size
		}
		eq := peq[base]
		xv := eq | mv0
		xh := (((eq & pv0) + pv0) ^ pv0) | eq
		ph := mv0 | ^(xh | pv0)
		mh := pv0 & xh
		carry := int(ph>>63) - int(mh>>63)
		sc0 += carry
		ph <<= 1
		pv0 = (mh << 1) | ^(xv | ph)
		mv0 = ph & xv
		for b := 1; b <= y; b++ {
			shift := uint(63)
			if b == nb-1 {
				shift = lastShift
			}
			pv[b], mv[b], carry = advance(pv[b], mv[b], peq[base+b], carry, shift)
			sc[b] += carry
		}
		scy := sc0
		if y > 0 {
			scy = sc[y]
		}
		if scy-carry <= k && y < nb-1 && (peq[base+y+1]&1 != 0 || carry < 0) {
			// The block below may now hold values within the bound: start
			// it from the upper bound of a column that grows by one a row.
			if y == 0 {
				sc[0] = sc0
			}
			y++
			rows, shift := 64, uint(63)
			if y == nb-1 {
				rows, shift = lastRows, lastShift
			}
			var h int
			pv[y], mv[y], h = advance(^uint64(0), 0, peq[base+y], carry, shift)
			sc[y] = sc[y-1] + rows - carry + h
			scy = sc[y]
		} else {
			for y > 0 && sc[y] >= k+64 {
				y--
			}
			scy = sc0
			if y > 0 {
				scy = sc[y]
			}
		}
		ri++
		if y == nb-1 && scy <= k {
			if scy < best || best < 0 {
				best, k = scy, scy
				sr.ends = sr.ends[:0]
			}
			if len(sr.ends) > 0 && ri-first < m-best {
				sr.ends[len(sr.ends)-1] = j
			} else {
				sr.ends = append(sr.ends, j)
				first = ri
			}
		}
	}
	return best
}

// start returns where the match of distance d that ends at byte e begins:
// the smallest offset s ≥ lo with edit(pattern, s[s:e]) minimal, found by
// running the reversed pattern backwards from e, anchored there, over at
// most m+d code points (no match of distance d is longer).
func (sr *searcher) start(s string, lo, e, d int) int {
	p := &sr.rev
	m, nb := p.m, p.nb
	sr.blocks(nb)
	pv, mv := sr.pv, sr.mv
	for b := range nb {
		pv[b], mv[b] = ^uint64(0), 0
	}
	score, bestScore, best := m, m, e
	j := e
	for n := 0; j > lo && n < m+d; n++ {
		var row int
		if c := s[j-1]; c < utf8.RuneSelf {
			row = int(c)
			j--
		} else {
			r, size := utf8.DecodeLastRuneInString(s[lo:j])
			row = p.row(r)
			j -= size
		}
		eqs := p.peq[row*nb : row*nb+nb]
		carry := 1 // anchored: the top row grows by one a column
		for b := range nb {
			shift := uint(63)
			if b == nb-1 {
				shift = p.shift
			}
			pv[b], mv[b], carry = advance(pv[b], mv[b], eqs[b], carry, shift)
		}
		score += carry
		if score <= bestScore {
			bestScore, best = score, j
		}
	}
	return best
}

// anchored returns the least edit distance between the pattern p (at most
// 64 code points) and a prefix of the runes that next yields: the distance
// of p to the text right next to a candidate, free at the far end. It reads
// at most 2·m code points.
func anchored(p *pattern, next func() (rune, bool)) int {
	m := p.m
	pv, mv, score := ^uint64(0), uint64(0), m
	best := m
	for range 2 * m {
		r, ok := next()
		if !ok {
			break
		}
		eq := p.peq[p.row(r)]
		var h int
		pv, mv, h = advance(pv, mv, eq, 1, p.shift)
		score += h
		best = min(best, score)
	}
	return best
}
