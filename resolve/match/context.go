package match

import "unicode/utf8"

// Ties between places that match equally well are broken by how closely
// the text around each place matches Options.Prefix and Options.Suffix. Each
// side is the edit distance between the ctxLen code points of the context
// nearest the quote and the text next to the place, anchored at the place
// and free at the far end, computed with one 64-bit Myers word per text code
// point. Lower is better; both sides add up.

// context returns the context distance of x, computing it once.
func (q *query) context(x *cand) int {
	if x.ctx >= 0 {
		return x.ctx
	}
	if !q.ix.foldable() {
		x.ctx = 0
		return 0
	}
	if !q.ctxReady {
		q.initContext()
	}
	f := q.ix.normLevel()
	if x.fs < 0 {
		x.fs, x.fe = f.lowerByte(x.start), f.lowerByte(x.end)
	}
	d := 0
	if q.pre {
		j := x.fs
		d += anchored(&q.sr.pre, func() (rune, bool) {
			if j <= 0 {
				return 0, false
			}
			r, size := utf8.DecodeLastRuneInString(f.s[:j])
			j -= size
			return r, true
		})
	}
	if q.suf {
		j := x.fe
		d += anchored(&q.sr.suf, func() (rune, bool) {
			if j >= len(f.s) {
				return 0, false
			}
			r, size := utf8.DecodeRuneInString(f.s[j:])
			j += size
			return r, true
		})
	}
	x.ctx = d
	return d
}

// initContext folds the ends of Prefix and Suffix that touch the quote and
// builds their patterns; the prefix pattern is reversed, as it is matched
// backwards from the place.
func (q *query) initContext() {
	q.ctxReady = true
	sr := q.sr
	if p := lastRunes(q.opts.Prefix, 4*ctxLen); p != "" {
		rs := sr.ctxRunes[:0]
		for _, r := range sr.fold(p, true) {
			rs = append(rs, r)
		}
		if len(rs) > ctxLen {
			rs = rs[len(rs)-ctxLen:]
		}
		if len(rs) > 0 {
			sr.pre.init(rs, true)
			q.pre = true
		}
		sr.ctxRunes = rs[:0]
	}
	if s := firstRunes(q.opts.Suffix, 4*ctxLen); s != "" {
		rs := sr.ctxRunes[:0]
		for _, r := range sr.fold(s, true) {
			if len(rs) == ctxLen {
				break
			}
			rs = append(rs, r)
		}
		if len(rs) > 0 {
			sr.suf.init(rs, false)
			q.suf = true
		}
		sr.ctxRunes = rs[:0]
	}
}

// lastRunes returns the last n code points of s; folding only them keeps
// the cost of a long Prefix (a whole neighbouring chunk) bounded.
func lastRunes(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// firstRunes returns the first n code points of s.
func firstRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
