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
// point costs one to ceil(m/64) word steps: O(n·⌈m/64⌉) at worst.
//
// When the bound is small against a word (k ≤ filterMaxK) a filter runs
// first: the pattern's first block alone, over four slices of the text at
// once. A match within k edits has its first min(m, 64) code points within k
// edits too, so only the regions around the filter's hits can hold a match,
// and the exact blocked scan runs on those alone. The filter is lossless; it
// only changes the speed.

// rowNone is the peq row of every character absent from the pattern; rows
// below it are ASCII, rows above it the pattern's non-ASCII code points.
const rowNone = utf8.RuneSelf

// filterMaxK is the largest bound the filter runs for: beyond half a word,
// natural text passes the first block's test too often to pay for it.
const filterMaxK = 32

// runGap merges filter hits this many bytes apart into one run.
const runGap = 64

// pattern holds the match vectors (Myers' Peq) of a pattern of m code
// points: bit i of block b of a character's row is set when the pattern's
// code point 64·b+i is that character.
type pattern struct {
	m, nb int
	peq   []uint64 // rows × nb
	wide  []rune   // sorted distinct non-ASCII code points; row rowNone+1+i
	dirty []int32  // rows set by the last init, cleared by the next
	last  uint64   // bit of the pattern's last row in the last block
	shift uint     // index of that bit
}

// init builds the vectors of p (or of p reversed), reusing the pattern's
// memory: only the rows the previous pattern set are cleared.
func (pt *pattern) init(p []rune, reverse bool) {
	for _, r := range pt.dirty {
		clear(pt.peq[int(r)*pt.nb : int(r)*pt.nb+pt.nb])
	}
	pt.dirty = pt.dirty[:0]
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
		// Rows past the old length may hold stale bits of an older, longer
		// pattern only if they were never cleared; dirty rows were, the rest
		// were never set.
		pt.peq = pt.peq[:n]
	}
	for i, r := range p {
		if reverse {
			i = m - 1 - i
		}
		row := pt.row(r)
		w := &pt.peq[row*pt.nb+i/64]
		if *w == 0 {
			pt.dirty = append(pt.dirty, int32(row))
		}
		*w |= 1 << uint(i%64)
	}
	pt.dirty = slices.Compact(pt.dirty)
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
// The hot loops spell out block 0 themselves; this serves the others.
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
	buf      []byte
	ctxRunes []rune
	pre, suf pattern

	// Results of a scan: the best distance so far (-1: none within the
	// bound) and the end offsets of the places tied at it.
	best int
	ends []int

	runs    [filterStreams][]run
	tbl     [utf8.RuneSelf]uint64 // the filter's first-block vectors of ASCII
	regions []region
}

type run struct{ first, last int } // filter hits, end byte offsets
type region struct{ lo, hi int }   // byte range to scan exactly

type stream struct {
	pv, mv          uint64
	sc              int
	start, from, to int // scan from start, report hits in (from, to]
}

func (sr *searcher) blocks(nb int) {
	if cap(sr.pv) < nb {
		sr.pv = make([]uint64, nb)
		sr.mv = make([]uint64, nb)
		sr.score = make([]int, nb)
	}
	sr.pv, sr.mv, sr.score = sr.pv[:nb], sr.mv[:nb], sr.score[:nb]
}

// back returns the offset n code points before byte i, not before lo.
func back(s string, lo, i, n int) int {
	for ; n > 0 && i > lo; n-- {
		if s[i-1] < utf8.RuneSelf {
			i--
			continue
		}
		_, size := utf8.DecodeLastRuneInString(s[lo:i])
		i -= size
	}
	return i
}

// forth returns the offset n code points after byte i, not after hi.
func forth(s string, hi, i, n int) int {
	for ; n > 0 && i < hi; n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:hi])
		i += size
	}
	return i
}

// search finds the places where sr.fwd matches s[bs:be] with the least
// distance, at most k: it sets sr.best (-1 if none) and sr.ends.
func (sr *searcher) search(s string, bs, be, k int) {
	sr.best = -1
	sr.ends = sr.ends[:0]
	if k > filterMaxK || be-bs < 8*(sr.fwd.m+k) {
		sr.scan(s, bs, be, k)
		return
	}
	sr.filter(s, bs, be, k)
	for _, r := range sr.regions {
		if sr.best >= 0 {
			k = sr.best
		}
		sr.scan(s, r.lo, r.hi, k)
	}
}

// filterStreams is how many independent columns of the first block the
// filter advances at once: one Myers step is a chain of dependent
// operations, and several chains keep the processor's units busy where one
// leaves them waiting.
const filterStreams = 3

// filter runs the pattern's first block over s[bs:be] and leaves in
// sr.regions the byte ranges that hold every match within k edits.
func (sr *searcher) filter(s string, bs, be, k int) {
	p := &sr.fwd
	m, nb := p.m, p.nb
	p0 := min(m, 64)
	shift := uint(63)
	if nb == 1 {
		shift = p.shift
	}
	tbl := &sr.tbl
	for c := range utf8.RuneSelf {
		tbl[c] = p.peq[c*nb]
	}
	var st [filterStreams]stream
	for i := range st {
		from := bs + (be-bs)*i/filterStreams
		for from < be && s[from]&0xC0 == 0x80 {
			from++ // a code point's first byte
		}
		st[i].from = from
		st[i].start = back(s, bs, from, p0+k)
		if i > 0 {
			st[i-1].to = from
		}
		sr.runs[i] = sr.runs[i][:0]
	}
	st[filterStreams-1].to = be
	pv0, mv0, sc0, j0 := ^uint64(0), uint64(0), p0, st[0].start
	pv1, mv1, sc1, j1 := ^uint64(0), uint64(0), p0, st[1].start
	pv2, mv2, sc2, j2 := ^uint64(0), uint64(0), p0, st[2].start
	// Lockstep in rounds of n steps, n small enough that no stream can
	// pass its end even if every code point takes four bytes: the loop
	// tests one counter instead of every stream's position.
	for {
		n := be
		n = min(n, (st[0].to-j0)/utf8.UTFMax)
		n = min(n, (st[1].to-j1)/utf8.UTFMax)
		n = min(n, (st[2].to-j2)/utf8.UTFMax)
		if n < 16 {
			break
		}
		for ; n > 0; n-- {
			{
				c := s[j0]
				var eq uint64
				if c < utf8.RuneSelf {
					eq = tbl[c]
					j0++
				} else {
					eq, j0 = sr.wideEq(s, j0)
				}
				xv := eq | mv0
				xh := (((eq & pv0) + pv0) ^ pv0) | eq
				ph := mv0 | ^(xh | pv0)
				mh := pv0 & xh
				sc0 += int(ph>>shift&1) - int(mh>>shift&1)
				ph <<= 1
				pv0 = (mh << 1) | ^(xv | ph)
				mv0 = ph & xv
				if sc0 <= k {
					sr.hit(&st[0], 0, j0)
				}
			}
			{
				c := s[j1]
				var eq uint64
				if c < utf8.RuneSelf {
					eq = tbl[c]
					j1++
				} else {
					eq, j1 = sr.wideEq(s, j1)
				}
				xv := eq | mv1
				xh := (((eq & pv1) + pv1) ^ pv1) | eq
				ph := mv1 | ^(xh | pv1)
				mh := pv1 & xh
				sc1 += int(ph>>shift&1) - int(mh>>shift&1)
				ph <<= 1
				pv1 = (mh << 1) | ^(xv | ph)
				mv1 = ph & xv
				if sc1 <= k {
					sr.hit(&st[1], 1, j1)
				}
			}
			{
				c := s[j2]
				var eq uint64
				if c < utf8.RuneSelf {
					eq = tbl[c]
					j2++
				} else {
					eq, j2 = sr.wideEq(s, j2)
				}
				xv := eq | mv2
				xh := (((eq & pv2) + pv2) ^ pv2) | eq
				ph := mv2 | ^(xh | pv2)
				mh := pv2 & xh
				sc2 += int(ph>>shift&1) - int(mh>>shift&1)
				ph <<= 1
				pv2 = (mh << 1) | ^(xv | ph)
				mv2 = ph & xv
				if sc2 <= k {
					sr.hit(&st[2], 2, j2)
				}
			}
		}
	}
	st[0].pv, st[0].mv, st[0].sc, st[0].start = pv0, mv0, sc0, j0
	st[1].pv, st[1].mv, st[1].sc, st[1].start = pv1, mv1, sc1, j1
	st[2].pv, st[2].mv, st[2].sc, st[2].start = pv2, mv2, sc2, j2
	// Finish each stream alone.
	for i := range st {
		t := &st[i]
		pv, mv, sc, j := t.pv, t.mv, t.sc, t.start
		for j < t.to {
			c := s[j]
			var eq uint64
			if c < utf8.RuneSelf {
				eq = tbl[c]
				j++
			} else {
				eq, j = sr.wideEq(s, j)
			}
			xv := eq | mv
			xh := (((eq & pv) + pv) ^ pv) | eq
			ph := mv | ^(xh | pv)
			mh := pv & xh
			sc += int(ph>>shift&1) - int(mh>>shift&1)
			ph <<= 1
			pv = (mh << 1) | ^(xv | ph)
			mv = ph & xv
			if sc <= k {
				sr.hit(t, i, j)
			}
		}
	}
	// Hits become regions that hold every match through them: the prefix
	// ends at a hit, so the match starts at most p0+k code points before
	// it and ends at most m-p0+k after.
	sr.regions = sr.regions[:0]
	for i := range st {
		for _, r := range sr.runs[i] {
			lo, hi := back(s, bs, r.first, p0+k), forth(s, be, r.last, m-p0+k)
			if n := len(sr.regions); n > 0 && lo <= sr.regions[n-1].hi {
				sr.regions[n-1].hi = max(sr.regions[n-1].hi, hi)
				continue
			}
			sr.regions = append(sr.regions, region{lo, hi})
		}
	}
}

// wideEq decodes the non-ASCII code point at s[j] and returns its first
// block match vector and the offset after it.
func (sr *searcher) wideEq(s string, j int) (uint64, int) {
	r, size := utf8.DecodeRuneInString(s[j:])
	return sr.fwd.peq[sr.fwd.row(r)*sr.fwd.nb], j + size
}

// hit records that the first block ends within the bound at byte j of
// stream i; hits in the stream's warm-up belong to the previous stream.
func (sr *searcher) hit(t *stream, i, j int) {
	if j <= t.from || j > t.to {
		return
	}
	rs := sr.runs[i]
	if n := len(rs); n > 0 && j-rs[n-1].last <= runGap {
		rs[n-1].last = j
		return
	}
	sr.runs[i] = append(rs, run{j, j})
}

// scan runs the exact blocked search over s[bs:be], continuing sr.best and
// sr.ends. A scan starts a new place: regions are far enough apart that no
// match ending in one overlaps a match ending in the next (each match is at
// least m−k long and starts inside its region).
//
// Ends at the best distance come in clusters around each place (a last
// character substituted or deleted ends the match one code point later or
// earlier). Ends less than m−d code points after the first end of a cluster
// belong to it, since matches of length at least m−d ending that close
// overlap; a cluster keeps its last end, the longest match. Places are thus
// at least m−d ≥ m/2 code points apart, which bounds the start recoveries
// that follow to O(n/m) and keeps the whole search linear.
func (sr *searcher) scan(s string, bs, be, k int) {
	p := &sr.fwd
	m, nb := p.m, p.nb
	if sr.best >= 0 {
		k = sr.best
	}
	best := sr.best
	first, open := 0, false // code-point index of the open cluster's first end
	report := func(j, ri, score int) {
		if score < best || best < 0 {
			best, k = score, score
			sr.ends = sr.ends[:0]
			open = false
		}
		if open && ri-first < m-best {
			sr.ends[len(sr.ends)-1] = j
		} else {
			sr.ends = append(sr.ends, j)
			first, open = ri, true
		}
	}
	defer func() { sr.best = best }()

	// Block 0 lives in registers (pv0, mv0, sc0): most columns compute it
	// alone. Blocks 1..y live in the slices.
	sr.blocks(nb)
	pv, mv, sc := sr.pv, sr.mv, sr.score
	peq, lastShift := p.peq, p.shift
	shift0 := uint(63)
	if nb == 1 {
		shift0 = lastShift
	}
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
		carry := int(ph>>shift0&1) - int(mh>>shift0&1)
		sc0 += carry
		ph <<= 1
		pv0 = (mh << 1) | ^(xv | ph)
		mv0 = ph & xv
		ri++
		if nb == 1 {
			if sc0 <= k {
				report(j, ri, sc0)
			}
			continue
		}
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
		if y == nb-1 && scy <= k {
			report(j, ri, scy)
		}
	}
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
		var base int
		if c := s[j-1]; c < utf8.RuneSelf {
			base = int(c) * nb
			j--
		} else {
			r, size := utf8.DecodeLastRuneInString(s[lo:j])
			base = p.row(r) * nb
			j -= size
		}
		carry := 1 // anchored: the top row grows by one a column
		for b := range nb {
			shift := uint(63)
			if b == nb-1 {
				shift = p.shift
			}
			// advance, spelled out with hin ≥ 0 for speed.
			eq := p.peq[base+b]
			pvb, mvb := pv[b], mv[b]
			xv := eq | mvb
			xh := (((eq & pvb) + pvb) ^ pvb) | eq
			ph := mvb | ^(xh | pvb)
			mh := pvb & xh
			hout := int(ph>>shift&1) - int(mh>>shift&1)
			if carry < 0 {
				// Rare: a negative delta enters; take the general step.
				pv[b], mv[b], carry = advance(pvb, mvb, eq, carry, shift)
				continue
			}
			ph = ph<<1 | uint64(carry)
			mh <<= 1
			pv[b], mv[b] = mh|^(xv|ph), ph&xv
			carry = hout
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
