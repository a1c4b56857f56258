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
// Two lossless filters keep the blocked scan to the regions that can hold a
// match (see search): exact pieces of the quote (pieces.go), and the
// pattern's first block alone, run over two slices of the text at once. A
// match within k edits has its first min(m, 64) code points within k edits
// too, so only the regions around that filter's hits can hold one. The
// filters change the speed, never the result.

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
	buf      []byte // the quote folded at the normalized level
	wsBuf    []byte // and at the whitespace level
	ctxRunes []rune
	pre, suf pattern

	// Results of a scan: the best distance so far (-1: none within the
	// bound) and the end offsets of the places tied at it.
	best  int
	ends  []int
	first int  // code point of the scan where the open place's first end is
	open  bool // the last place may still grow

	pieces  []piece
	words   []pword
	heads   [256]int32 // chains of words, by the bucket's top 8 bits
	pmask   [16]uint64 // buckets of the pieces' words
	runs    [filterStreams][]run
	tbl     [utf8.RuneSelf]uint64 // the filter's first-block vectors of ASCII
	tblWide []uint64              // and of rowNone and the wide rows
	regions []region

	snapStarts, snapEnds []int    // edges a fuzzy match's ends may move to (words.go)
	snapped              []region // fuzzy spans already chosen, to count each place once
}

type run struct{ first, last int } // filter hits, end byte offsets
type region struct{ lo, hi int }   // byte range to scan exactly

// stream is one of the filter's columns: its vertical deltas and score,
// where it stands, and the part of the text whose hits it reports.
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
// Stretches of ASCII go eight bytes a step.
func back(s string, lo, i, n int) int {
	for n > 0 && i > lo {
		if n >= 8 && i-8 >= lo && load64(s, i-8)&0x8080808080808080 == 0 {
			i -= 8
			n -= 8
			continue
		}
		_, size := utf8.DecodeLastRuneInString(s[lo:i])
		i -= size
		n--
	}
	return i
}

// forth returns the offset n code points after byte i, not after hi.
func forth(s string, hi, i, n int) int {
	for n > 0 && i < hi {
		if n >= 8 && i+8 <= hi && load64(s, i)&0x8080808080808080 == 0 {
			i += 8
			n -= 8
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:hi])
		i += size
		n--
	}
	return i
}

// search finds the places where sr.fwd (the folded quote fq) matches
// s[bs:be] with the least distance, at most k: it sets sr.best (-1 if none)
// and sr.ends.
//
// Three stages, each exact for the distances it covers. First, when the
// quote is long enough, sampled exact pieces (pieces.go) find every match
// within k1 < k edits, k1 = pieces−1; finding one ends the search, since
// nothing closer exists. Otherwise the streaming filter of the first block
// (k ≤ filterMaxK) or the plain blocked scan finds those within k.
func (sr *searcher) search(s, fq string, bs, be, k int) {
	sr.best = -1
	sr.ends = sr.ends[:0]
	m := sr.fwd.m
	if np := min(k+1, m/pieceRunes); np >= 2 {
		k1 := np - 1
		if sr.pieceFilter(s, fq, bs, be, np, k1) {
			for _, r := range sr.regions {
				sr.scan(s, r.lo, r.hi, k1)
			}
			if sr.best >= 0 || k1 >= k {
				return
			}
		}
	}
	if k > filterMaxK || be-bs < 8*(m+k) {
		sr.scan(s, bs, be, k)
		return
	}
	sr.filter(s, bs, be, k)
	for _, r := range sr.regions {
		sr.scan(s, r.lo, r.hi, k)
	}
}

// filterStreams is how many independent columns of the first block the
// filter advances at once: one Myers step is a chain of dependent
// operations, and several chains keep the processor's units busy where one
// leaves them waiting.
const filterStreams = 2

// filterChunk is how many steps the streams take between checks for hits.
const filterChunk = 32

// filter runs the pattern's first min(m, 64) code points over s[bs:be] and
// leaves in sr.regions the byte ranges that hold every match within k
// edits.
//
// The first block is laid out with its last row at bit 63 (the rows above
// it are wildcards, which keep the value 0 of the top row in a search), so
// the score moves with bit 63 whatever the length. The streams take
// filterChunk steps with no test but a running OR of the scores' signs; when
// a chunk saw a score within the bound, each stream replays it from the
// saved state and records where. Hits are rare, so the hot loop holds no
// call and no unpredictable branch.
func (sr *searcher) filter(s string, bs, be, k int) {
	p := &sr.fwd
	m := p.m
	p0 := min(m, 64)
	pad := uint(64 - p0)
	sr.filterTable(pad)
	tbl := &sr.tbl
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
	k1 := k + 1 // sc - k1 < 0 exactly when sc ≤ k
	pv0, mv0, sc0, j0 := ^uint64(0)<<pad, uint64(0), p0, st[0].start
	pv1, mv1, sc1, j1 := ^uint64(0)<<pad, uint64(0), p0, st[1].start
	for {
		// Chunks small enough that no stream can pass its end even if every
		// code point takes four bytes: the loop tests one counter.
		n := filterChunk
		n = min(n, (st[0].to-j0)/utf8.UTFMax)
		n = min(n, (st[1].to-j1)/utf8.UTFMax)
		if n < filterChunk {
			break
		}
		st[0].pv, st[0].mv, st[0].sc, st[0].start = pv0, mv0, sc0, j0
		st[1].pv, st[1].mv, st[1].sc, st[1].start = pv1, mv1, sc1, j1
		any := 0
		for range filterChunk {
			c0 := s[j0]
			var eq0 uint64
			if c0 < utf8.RuneSelf {
				eq0 = tbl[c0]
				j0++
			} else {
				eq0, j0 = sr.wideEq(s, j0)
			}
			xv0 := eq0 | mv0
			xh0 := (((eq0 & pv0) + pv0) ^ pv0) | eq0
			ph0 := mv0 | ^(xh0 | pv0)
			mh0 := pv0 & xh0
			sc0 += int(ph0>>63) - int(mh0>>63)
			any |= sc0 - k1
			ph0 <<= 1
			pv0 = (mh0 << 1) | ^(xv0 | ph0)
			mv0 = ph0 & xv0
			c1 := s[j1]
			var eq1 uint64
			if c1 < utf8.RuneSelf {
				eq1 = tbl[c1]
				j1++
			} else {
				eq1, j1 = sr.wideEq(s, j1)
			}
			xv1 := eq1 | mv1
			xh1 := (((eq1 & pv1) + pv1) ^ pv1) | eq1
			ph1 := mv1 | ^(xh1 | pv1)
			mh1 := pv1 & xh1
			sc1 += int(ph1>>63) - int(mh1>>63)
			any |= sc1 - k1
			ph1 <<= 1
			pv1 = (mh1 << 1) | ^(xv1 | ph1)
			mv1 = ph1 & xv1
		}
		if any < 0 {
			for i := range st {
				sr.walk(&st[i], i, s, filterChunk, k)
			}
			pv0, mv0, sc0, j0 = st[0].pv, st[0].mv, st[0].sc, st[0].start
			pv1, mv1, sc1, j1 = st[1].pv, st[1].mv, st[1].sc, st[1].start
		}
	}
	st[0].pv, st[0].mv, st[0].sc, st[0].start = pv0, mv0, sc0, j0
	st[1].pv, st[1].mv, st[1].sc, st[1].start = pv1, mv1, sc1, j1
	for i := range st {
		sr.walk(&st[i], i, s, -1, k)
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

// filterTable fills sr.tbl and sr.tblWide with the first block's vectors,
// shifted up by pad wildcard rows.
func (sr *searcher) filterTable(pad uint) {
	p := &sr.fwd
	wild := uint64(1)<<pad - 1
	for c := range sr.tbl {
		sr.tbl[c] = p.peq[c*p.nb]<<pad | wild
	}
	sr.tblWide = sr.tblWide[:0]
	for i := range len(p.wide) + 1 {
		sr.tblWide = append(sr.tblWide, p.peq[(rowNone+i)*p.nb]<<pad|wild)
	}
}

// wideEq decodes the non-ASCII code point at s[j] and returns its filter
// vector and the offset after it.
func (sr *searcher) wideEq(s string, j int) (uint64, int) {
	r, size := utf8.DecodeRuneInString(s[j:])
	return sr.tblWide[sr.fwd.row(r)-rowNone], j + size
}

// walk advances stream t by n steps (to its end if n < 0), recording hits:
// the slow twin of the filter's loop.
func (sr *searcher) walk(t *stream, i int, s string, n, k int) {
	pv, mv, sc, j := t.pv, t.mv, t.sc, t.start
	for ; n != 0 && j < t.to; n-- {
		c := s[j]
		var eq uint64
		if c < utf8.RuneSelf {
			eq = sr.tbl[c]
			j++
		} else {
			eq, j = sr.wideEq(s, j)
		}
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		sc += int(ph>>63) - int(mh>>63)
		ph <<= 1
		pv = (mh << 1) | ^(xv | ph)
		mv = ph & xv
		if sc <= k && j > t.from {
			// Hits in a stream's warm-up belong to the stream before.
			rs := sr.runs[i]
			if n := len(rs); n > 0 && j-rs[n-1].last <= runGap {
				rs[n-1].last = j
			} else {
				sr.runs[i] = append(rs, run{j, j})
			}
		}
	}
	t.pv, t.mv, t.sc, t.start = pv, mv, sc, j
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
		k = min(k, sr.best)
	}
	sr.open = false

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
				k = sr.report(j, ri, sc0)
			}
			continue
		}
		for b := 1; b <= y; b++ {
			shift := uint(63)
			if b == nb-1 {
				shift = lastShift
			}
			// advance, spelled out.
			eq := peq[base+b]
			pvb, mvb := pv[b], mv[b]
			neg := uint64(carry) >> 63
			eq |= neg
			xv := eq | mvb
			xh := (((eq & pvb) + pvb) ^ pvb) | eq
			ph := mvb | ^(xh | pvb)
			mh := pvb & xh
			pos := uint64(-carry) >> 63
			carry = int(ph>>shift&1) - int(mh>>shift&1)
			ph = ph<<1 | pos
			mh = mh<<1 | neg
			pv[b], mv[b] = mh|^(xv|ph), ph&xv
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
			k = sr.report(j, ri, scy)
		}
	}
}

// report records an end at byte j, code point ri of the scan, with the
// given score (at most the bound), and returns the new bound: the best
// distance so far, as only the best places are kept.
func (sr *searcher) report(j, ri, score int) int {
	if score < sr.best || sr.best < 0 {
		sr.best = score
		sr.ends = sr.ends[:0]
		sr.open = false
	}
	if sr.open && ri-sr.first < sr.fwd.m-sr.best {
		sr.ends[len(sr.ends)-1] = j
	} else {
		sr.ends = append(sr.ends, j)
		sr.first, sr.open = ri, true
	}
	return sr.best
}

// start returns where the match of distance d that ends at byte e begins:
// the smallest offset s ≥ lo with edit(pattern, s[s:e]) minimal, found by
// running the reversed pattern backwards from e (see back).
func (sr *searcher) start(s string, lo, e, d int) int {
	bestScore, best := sr.rev.m, e
	sr.back(s, lo, e, d, func(j, score int) {
		if score <= bestScore {
			bestScore, best = score, j
		}
	})
	return best
}

// back runs the reversed pattern backwards from byte e of s, anchored there,
// over at most m+band code points and not before lo, and calls visit(j,
// score) at each offset j it passes where the score is known: score is
// edit(pattern, s[j:e]) exactly when that is at most band, and more than
// band otherwise (no span of distance band is longer than m+band).
//
// After j code points, rows below j+band hold values above band (a row i
// costs at least i−j), so a block joins only when that band reaches it,
// started from the upper bound of a column growing by one a row as in the
// forward scan; values within band stay exact, and about half the block
// steps are saved.
func (sr *searcher) back(s string, lo, e, band int, visit func(j, score int)) {
	p := &sr.rev
	m, nb := p.m, p.nb
	sr.blocks(nb)
	pv, mv, sc := sr.pv, sr.mv, sr.score
	lastRows := m - 64*(nb-1)
	y := 0 // last active block
	pv[0], mv[0] = ^uint64(0), 0
	sc[0] = 64
	if nb == 1 {
		sc[0] = m
	}
	j := e
	for n := 1; j > lo && n <= m+band; n++ {
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
		for b := 0; b <= y; b++ {
			shift := uint(63)
			if b == nb-1 {
				shift = p.shift
			}
			// advance, spelled out.
			eq := p.peq[base+b]
			pvb, mvb := pv[b], mv[b]
			neg := uint64(carry) >> 63
			eq |= neg
			xv := eq | mvb
			xh := (((eq & pvb) + pvb) ^ pvb) | eq
			ph := mvb | ^(xh | pvb)
			mh := pvb & xh
			pos := uint64(-carry) >> 63
			carry = int(ph>>shift&1) - int(mh>>shift&1)
			ph = ph<<1 | pos
			mh = mh<<1 | neg
			pv[b], mv[b] = mh|^(xv|ph), ph&xv
			sc[b] += carry
		}
		if y < nb-1 && 64*(y+1) < n+band {
			y++
			rows, shift := 64, uint(63)
			if y == nb-1 {
				rows, shift = lastRows, p.shift
			}
			var h int
			pv[y], mv[y], h = advance(^uint64(0), 0, p.peq[base+y], carry, shift)
			sc[y] = sc[y-1] + rows - carry + h
		}
		if y == nb-1 {
			visit(j, sc[y])
		}
	}
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
