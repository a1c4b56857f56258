package match

import (
	"encoding/binary"
	"slices"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// caseFold is Unicode full case folding (ß → ss). The x/text Fold caser is
// stateless, so one value serves every goroutine.
var caseFold = cases.Fold()

// dropped reports whether r is an invisible formatting character that PDF
// and HTML extractors leave inside words: the soft hyphen and the zero-width
// characters. Both matching levels above exact remove them.
func dropped(r rune) bool {
	switch r {
	case 0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF:
		return true
	}
	return false
}

// lineBreak reports whether r ends a line; only a hyphen followed by one of
// these joins the word halves around it.
func lineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\f', '\v', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// hyphen reports whether r is a hyphen that may split a word at a line end.
// Dashes (– —) are not: "2010–\n2015" is a range, not a broken word.
func hyphen(r rune) bool {
	return r == '-' || r == 0x2010 || r == 0x2011 || r == 0x00AD
}

// typographic maps typographic quotes and dashes to their ASCII forms. It runs
// before NFKC, which would otherwise turn ″ into two primes.
func typographic(r rune) rune {
	switch r {
	case 0x2018, 0x2019, 0x201A, 0x201B, 0x2032:
		return '\''
	case 0x201C, 0x201D, 0x201E, 0x201F, 0x2033:
		return '"'
	case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212:
		return '-'
	}
	return r
}

// folded is a text folded for one matching level, with a map from every byte
// of the folded text back to the code points of the original that produced
// it, so a match found in the folded text is reported in original
// coordinates.
type folded struct {
	s string
	// Byte i of s was produced by the half-open code-point range
	// [fromAt(i), toAt(i)) of the original text. A collapsed whitespace
	// run, a ligature or a base letter with its combining marks is one
	// range; characters the level drops belong to no byte, so a match
	// never starts or ends on them. The map is kept as runs of bytes with
	// one rule each (segs): most of a text is bytes copied one for one,
	// which need no entry of their own (a from and a to per byte were 8
	// bytes written per byte folded, most of the cost of folding).
	segs []fseg
}

// fseg is a run of folded bytes, from byte at to the next run's: linear
// (to < 0), byte at+k came from code point from+k alone; else every byte
// of the run came from [from, to).
type fseg struct{ at, from, to int32 }

// seg returns the run holding byte i.
func (f *folded) seg(i int) *fseg {
	lo, hi := 0, len(f.segs)
	for lo < hi { // the last run starting at or before i
		m := int(uint(lo+hi) >> 1)
		if int(f.segs[m].at) <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return &f.segs[lo-1]
}

// fromAt and toAt are the code points of the original that produced byte i.
func (f *folded) fromAt(i int) int32 {
	g := f.seg(i)
	if g.to < 0 {
		return g.from + int32(i) - g.at
	}
	return g.from
}

func (f *folded) toAt(i int) int32 {
	g := f.seg(i)
	if g.to < 0 {
		return g.from + int32(i) - g.at + 1
	}
	return g.to
}

// span returns the original code-point range of the folded bytes [fs, fe).
func (f *folded) span(fs, fe int) (start, end int) {
	return int(f.fromAt(fs)), int(f.toAt(fe - 1))
}

// whole reports whether the folded bytes [fs, fe) are made of whole source
// units: a quote "f" may not match half of the ligature "ﬁ". Bytes of one
// unit share their source start.
func (f *folded) whole(fs, fe int) bool {
	return (fs == 0 || f.fromAt(fs-1) != f.fromAt(fs)) && (fe == len(f.s) || f.fromAt(fe) != f.fromAt(fe-1))
}

// lowerByte returns the first folded byte whose source starts at or after
// code point cp.
func (f *folded) lowerByte(cp int) int {
	return sort.Search(len(f.s), func(i int) bool { return int(f.fromAt(i)) >= cp })
}

// upperByte returns the end of the longest prefix of folded bytes whose
// sources end at or before code point cp.
func (f *folded) upperByte(cp int) int {
	return sort.Search(len(f.s), func(i int) bool { return int(f.toAt(i)) > cp })
}

// linear records that the folded bytes from at on came from code points
// cp, cp+1, … one each, until the next run.
func linear(segs []fseg, at int, cp int32) []fseg {
	if n := len(segs); n > 0 {
		if g := &segs[n-1]; g.to < 0 && g.from+int32(at)-g.at == cp {
			return segs // the run goes on
		}
	}
	return append(segs, fseg{at: int32(at), from: cp, to: -1})
}

// block records that the folded bytes from at on (n of them) came from
// code points [from, to) together.
func block(segs []fseg, at, n int, from, to int32) []fseg {
	if n == 1 && to == from+1 {
		return linear(segs, at, from)
	}
	if k := len(segs); k > 0 {
		if g := &segs[k-1]; g.to == to && g.from == from {
			return segs
		}
	}
	return append(segs, fseg{at: int32(at), from: from, to: to})
}

// widen makes the last folded byte, last, come from code points up to to:
// a space standing for a whole run of white space.
func widen(segs []fseg, last int, to int32) []fseg {
	g := &segs[len(segs)-1]
	if int(g.at) == last {
		g.to = to // a linear run of one byte becomes a block
		return segs
	}
	from := g.from
	if g.to < 0 {
		from += int32(last) - g.at
	}
	return append(segs, fseg{at: int32(last), from: from, to: to})
}

// folder folds a string for the whitespace level or, with norm set, for the
// normalized level. With track set it records the byte-to-code-point map.
type folder struct {
	norm  bool
	track bool
	out   []byte
	segs  []fseg // the map, when tracked
	space bool   // the last rune emitted is a (collapsed) space
	last  rune   // the last rune emitted
	memo  *foldMemo
}

// emit appends r, which came from original code points [from, to).
func (f *folder) emit(r rune, from, to int32) {
	switch {
	case unicode.IsSpace(r):
		if f.space {
			// One space stands for the whole run: widen its source range.
			if f.track {
				f.segs = widen(f.segs, len(f.out)-1, to)
			}
			return
		}
		r = ' '
		f.space = true
	case dropped(r):
		return
	default:
		f.space = false
	}
	f.last = r
	n := len(f.out)
	if r < utf8.RuneSelf {
		f.out = append(f.out, byte(r))
	} else {
		f.out = utf8.AppendRune(f.out, r)
	}
	if f.track {
		f.segs = block(f.segs, n, len(f.out)-n, from, to)
	}
}

// ASCII classes for the folding fast path.
const (
	asciiPlain  = iota // kept as is
	asciiUpper         // lowercased at the normalized level
	asciiSpace         // white space: collapsed
	asciiHyphen        // may join a word broken across a line
)

// asciiSame and asciiLower map ASCII bytes to themselves and to lower case.
var asciiSame, asciiLower = func() (same, lower [utf8.RuneSelf]byte) {
	for c := range same {
		same[c], lower[c] = byte(c), byte(c)
		if 'A' <= c && c <= 'Z' {
			lower[c] += 'a' - 'A'
		}
	}
	return
}()

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case unicode.IsSpace(rune(c)):
			t[c] = asciiSpace
		case 'A' <= c && c <= 'Z':
			t[c] = asciiUpper
		case c == '-':
			t[c] = asciiHyphen
		}
	}
	return t
}()

// fold folds s and appends the result to f.out.
//
// The ASCII path keeps the output and the folder's state in locals, and
// syncs them with f only around the rare calls that need f: folding a
// 200 KB text is a few milliseconds, once per Index.
func (f *folder) fold(s string) {
	out, segs := f.out, f.segs
	space, last := f.space, f.last
	norm, track := f.norm, f.track
	cp := int32(0)
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are plain: printable ASCII with
		// single spaces and no hyphen, the bulk of prose.
		if i+8 <= len(s) {
			if w, ok := plain8(s, i, norm, space); ok {
				if track {
					segs = linear(segs, len(out), cp)
				}
				out = binary.LittleEndian.AppendUint64(out, w)
				space = w>>56 == ' '
				last = rune(w >> 56)
				i += 8
				cp += 8
				continue
			}
		}
		// A run of ASCII letters, digits and punctuation, the bulk of most
		// texts, is copied (lowercased at the normalized level) without the
		// per-byte decisions below.
		if j := i; s[j] < utf8.RuneSelf && asciiClass[s[j]] <= asciiUpper {
			lower := &asciiSame
			if norm {
				lower = &asciiLower
			}
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] <= asciiUpper {
				j++
			}
			if norm && j < len(s) && mayCombine(s[j]) {
				j-- // the last letter may take a combining mark
			}
			if n := j - i; n > 0 {
				o := len(out)
				out = slices.Grow(out, n)[:o+n]
				for k, c := range []byte(s[i:j]) {
					out[o+k] = lower[c&0x7f]
				}
				if track {
					segs = linear(segs, o, cp)
				}
				cp += int32(n)
				space = false
				last = rune(out[len(out)-1])
				i = j
				continue
			}
		}
		c := s[i]
		// At the normalized level an ASCII letter followed by a combining
		// mark must go through NFKC with it, hence the look at the next
		// byte.
		if c < utf8.RuneSelf && (!norm || i+1 == len(s) || !mayCombine(s[i+1])) {
			switch asciiClass[c] {
			case asciiSpace:
				if space {
					// One space stands for the whole run: widen its source.
					if track {
						segs = widen(segs, len(out)-1, cp+1)
					}
					i++
					cp++
					continue
				}
				c = ' '
			case asciiUpper:
				if norm {
					c += 'a' - 'A'
				}
			case asciiHyphen:
				if norm {
					f.last = last
					if j, n, ok := f.join(s, i+1); ok {
						i, cp = j, cp+1+n
						continue
					}
				}
			}
			if track {
				segs = linear(segs, len(out), cp)
			}
			out = append(out, c)
			space = c == ' '
			last = rune(c)
			i++
			cp++
			continue
		}
		f.out, f.segs, f.space, f.last = out, segs, space, last
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !norm || (r == utf8.RuneError && size == 1):
			// An invalid byte is one code point, folded to U+FFFD, the way
			// Go's range loop and utf8.RuneCount count it.
			f.emit(r, cp, cp+1)
			i += size
			cp++
		default:
			if hyphen(r) {
				if j, n, ok := f.join(s, i+size); ok {
					i, cp = j, cp+1+n
					break
				}
			}
			seg := s[i : i+size]
			if i+size < len(s) && s[i+size] >= utf8.RuneSelf {
				// A non-ASCII rune may be followed by combining marks;
				// before an ASCII byte a segment always ends.
				seg = s[i : i+segmentLen(s[i:], size)]
			}
			n := int32(utf8.RuneCountInString(seg))
			for _, o := range f.foldSegment(seg, size) {
				f.emit(o, cp, cp+n)
			}
			i += len(seg)
			cp += n
		}
		out, segs, space, last = f.out, f.segs, f.space, f.last
	}
	f.out, f.segs, f.space, f.last = out, segs, space, last
}

// mayCombine reports whether the character that starts with byte b may
// join the one before it in a normalization segment: one at U+0300 or
// above (a combining mark, or one that composes with what precedes). The
// characters below (ASCII, and U+0080 to U+02FF, lead bytes up to 0xCB)
// are starters that compose with nothing before them, and so is a byte
// that starts no valid character (0x80 to 0xC1): an ASCII letter before
// any of them folds alone (FuzzFoldMaps checks the result against the
// folding that sent every ASCII byte before a non-ASCII one through NFKC).
func mayCombine(b byte) bool { return b >= 0xCC }

// SWAR constants: a byte value repeated in every byte of a word.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// zeroBytes returns a word with the top bit set in exactly the bytes of x
// that are zero.
func zeroBytes(x uint64) uint64 {
	y := (x & (0x7f * lsb)) + 0x7f*lsb
	return ^(y | x | 0x7f*lsb)
}

// plain8 reports whether the eight bytes at s[i] fold to themselves (or, at
// the normalized level, to their lower case, which it returns): ASCII, no
// control character (white space other than a space is one), no space after
// a space (space tells whether the byte before was one), and at the
// normalized level no hyphen and no non-ASCII byte next, which could be a
// combining mark for the last letter.
func plain8(s string, i int, norm, space bool) (uint64, bool) {
	w := load64(s, i)
	// Non-ASCII, or a byte below 0x20 (x+0x60 keeps its top bit clear).
	if w&msb != 0 || ^(w+0x60*lsb)&msb != 0 {
		return 0, false
	}
	sp := zeroBytes(w ^ ' '*lsb)
	if sp&(sp<<8) != 0 || (space && sp&0x80 != 0) {
		return 0, false
	}
	if norm {
		if zeroBytes(w^'-'*lsb) != 0 || (i+8 < len(s) && s[i+8] >= utf8.RuneSelf) {
			return 0, false
		}
		// Bytes in 'A'..'Z': at least 0x41 (x+0x3f sets the top bit) and
		// at most 0x5a (x+0x25 leaves it clear); adding 0x20 lowers them.
		upper := (w + 0x3f*lsb) &^ (w + 0x25*lsb) & msb
		w |= upper >> 2
	}
	return w, true
}

// segmentLen returns the byte length of the normalization segment (a starter
// and the non-starters that follow it) at the start of s, whose first rune is
// valid and size bytes long. The segment stops before any invalid byte.
func segmentLen(s string, size int) int {
	n := norm.NFKC.NextBoundaryInString(s, true)
	if n < size || n > len(s) {
		n = size
	}
	if !utf8.ValidString(s[:n]) {
		k := size
		for k < n {
			r, sz := utf8.DecodeRuneInString(s[k:])
			if r == utf8.RuneError && sz == 1 {
				break
			}
			k += sz
		}
		n = k
	}
	return n
}

// join reports whether the hyphen just before s[j] splits a word across a
// line break: a letter before it, then white space holding a line break,
// then a letter. It returns where the second half starts and how many code
// points lie between the hyphen and it.
func (f *folder) join(s string, j int) (next int, skipped int32, ok bool) {
	if !unicode.IsLetter(f.last) {
		return 0, 0, false
	}
	brk := false
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case lineBreak(r):
			brk = true
		case unicode.IsSpace(r) || dropped(r):
		default:
			if brk && unicode.IsLetter(r) {
				return j, skipped, true
			}
			return 0, 0, false
		}
		j += size
		skipped++
	}
	return 0, 0, false
}

// foldSegment returns the normalized-level folding of one segment: quotes and
// dashes to ASCII, NFKC, full case folding, NFKC again (folding can undo a
// normal form). Single-rune segments, nearly all of them, are cached: in the
// folder while a text is folded, and process-wide for quotes, so a text in
// a non-Latin script pays for each distinct character once and a quote
// allocates nothing for them.
func (f *folder) foldSegment(seg string, size int) string {
	if size != len(seg) {
		return foldSlow(seg)
	}
	r, _ := utf8.DecodeRuneInString(seg)
	slot := uint32(r) % memoSlots
	if f.memo != nil && f.memo.r[slot] == r+1 {
		return f.memo.v[slot]
	}
	var v string
	if c, ok := runeFolds.Load(r); ok {
		v = c.(string)
	} else {
		v = foldSlow(seg)
		runeFolds.Store(r, v)
	}
	if f.track {
		if f.memo == nil {
			f.memo = new(foldMemo)
		}
		f.memo.r[slot], f.memo.v[slot] = r+1, v
	}
	return v
}

// foldMemo is a folder's cache of single-rune foldings, direct-mapped by
// code point: a text repeats its few non-ASCII letters, and a map lookup
// per letter was a tenth of folding one.
type foldMemo struct {
	r [memoSlots]rune // the code point + 1 in each slot, 0 for none
	v [memoSlots]string
}

const memoSlots = 256

// runeFolds caches foldSlow of single code points. It holds at most one
// entry per code point ever folded, a bounded set.
var runeFolds sync.Map

func foldSlow(seg string) string {
	b := make([]byte, 0, len(seg)+8)
	for _, r := range seg {
		b = utf8.AppendRune(b, typographic(r))
	}
	b = norm.NFKC.Bytes(b)
	b = caseFold.Bytes(b)
	b = norm.NFKC.Bytes(b)
	out := b[:0:0]
	for _, r := range string(b) {
		out = utf8.AppendRune(out, typographic(r))
	}
	return string(out)
}

// foldText folds a whole text for a level, with its map.
func foldText(s string, normalized bool) *folded {
	f := folder{norm: normalized, track: true, out: make([]byte, 0, len(s)+len(s)/32+8), segs: make([]fseg, 0, 16)}
	f.fold(s)
	return &folded{s: string(f.out), segs: slices.Clip(f.segs)}
}

// foldBuf is a folded text built in buffers that the next fold reuses.
type foldBuf struct {
	f    folded
	out  []byte
	segs []fseg
}

// fold folds s for a level into the buffers, as foldText does; the result
// is valid until the next fold.
func (b *foldBuf) fold(s string, normalized bool) *folded {
	f := folder{norm: normalized, track: true, out: slices.Grow(b.out[:0], len(s)+len(s)/32+8), segs: b.segs[:0]}
	f.fold(s)
	b.out, b.segs = f.out, f.segs
	b.f = folded{s: unsafe.String(unsafe.SliceData(f.out), len(f.out)), segs: f.segs}
	return &b.f
}

// scratch is the buffers of a short-lived Index: Locate folds each chunk
// it cannot place exactly into the same few arrays instead of new ones
// (issue 14: the folded levels were 77% of a verification's bytes).
type scratch struct {
	ix       Index
	ws, norm foldBuf
	ck       []int
}

// maxScratch is the largest text whose folded buffers go back to the
// pool: a rare huge chunk must not pin its buffers.
const maxScratch = 1 << 20

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// scratchIndex returns an Index of text whose folded forms live in pooled
// buffers; release it once no Match or folded text of it is in use.
func scratchIndex(text string) *scratch {
	sc := scratches.Get().(*scratch)
	sc.reset(text)
	return sc
}

// reset makes the scratch's Index one of text, with nothing folded yet.
func (sc *scratch) reset(text string) {
	n := utf8.RuneCountInString(text)
	valid := utf8.ValidString(text)
	sc.ix = Index{text: text, n: n, valid: valid, ascii: valid && n == len(text), scratch: sc}
}

func (sc *scratch) release() {
	sc.ix = Index{}
	if cap(sc.ws.out) > maxScratch || cap(sc.norm.out) > maxScratch {
		return
	}
	sc.ws.f, sc.norm.f = folded{}, folded{}
	scratches.Put(sc)
}

// foldQuote folds a quote for a level into buf and trims the spaces at its
// ends: white space around a quote is never part of what it quotes.
func foldQuote(buf []byte, q string, normalized bool) []byte {
	f := folder{norm: normalized, out: buf[:0]}
	f.fold(q)
	b := f.out
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return b[i:]
}

// Fold returns s folded as the given level compares text: LevelWhitespace
// collapses white space and drops soft hyphens and zero-width characters;
// LevelNormalized also applies NFKC, case folding, ASCII quotes and dashes,
// and joins words hyphenated across a line break. Spaces at either end are
// trimmed, as they are from quotes. Any other level returns s unchanged.
func Fold(s string, level Level) string {
	switch level {
	case LevelWhitespace:
		return string(foldQuote(nil, s, false))
	case LevelNormalized, LevelFuzzy:
		return string(foldQuote(nil, s, true))
	}
	return s
}
