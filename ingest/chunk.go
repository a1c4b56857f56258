package ingest

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/store"
)

// ChunkOptions sets the chunker's target size and overlap, in code points.
type ChunkOptions struct {
	Size    int // maximum chunk length; Size <= 0 selects DefaultChunkOptions
	Overlap int // code points shared by consecutive chunks, clamped to [0, (Size-1)/2]
}

// DefaultChunkOptions are used when the caller sets none.
var DefaultChunkOptions = ChunkOptions{Size: 1000, Overlap: 100}

// normalized returns the options Chunk actually uses.
func (o ChunkOptions) normalized() ChunkOptions {
	if o.Size <= 0 {
		o = DefaultChunkOptions
	}
	o.Overlap = max(0, min(o.Overlap, MaxOverlap(o.Size)))
	return o
}

// MaxOverlap is the largest overlap the chunker honours for a chunk size;
// a larger one is reduced to it. A chunk may end as early as ⌈Size/2⌉ code
// points in, so an overlap of half a chunk or more could stop the chunker
// from advancing; the largest overlap below that is the closest reading of
// the request.
func MaxOverlap(size int) int { return max(0, (size-1)/2) }

// Span is a half-open code-point range [Start, End) of a canonical text.
type Span struct{ Start, End int }

// Cut classes, weakest first: a chunk ends at the strongest class found in
// the last half of its window, at that class's latest position.
const (
	cutNone      = iota // hard cut at Size
	cutWord             // whitespace on either side
	cutSentence         // after . ! ? followed by whitespace, or after 。！？
	cutParagraph        // after a blank line
	cutSection          // a section or page start, or after a form feed
)

// Byte classes of the ASCII characters the chunker looks at.
const (
	bSpace  = 1 << iota // space, \t, \n, \f, \r: the whitespace Chunk trims
	bNL                 // \n
	bBlank              // space, \t, \r, \f: may sit on a blank line
	bFF                 // \f, a page break
	bTerm               // . ! ?
	bCloser             // " ' ) ]: may follow a sentence terminator
)

var byteClass = [256]uint8{
	' ':  bSpace | bBlank,
	'\t': bSpace | bBlank,
	'\r': bSpace | bBlank,
	'\f': bSpace | bBlank | bFF,
	'\n': bSpace | bNL,
	'.':  bTerm,
	'!':  bTerm,
	'?':  bTerm,
	'"':  bCloser,
	'\'': bCloser,
	')':  bCloser,
	']':  bCloser,
}

func isSpace(c byte) bool { return byteClass[c]&bSpace != 0 }

// Chunk splits text into overlapping spans of at most opts.Size code points.
// Spans are half-open [Start, End) offsets in Unicode code points into text,
// in order, with Start strictly increasing; each is trimmed of leading and
// trailing whitespace (space, \t, \n, \f, \r), and together they cover every
// other code point. A whitespace-only text has no spans.
//
// A chunk ends at the best boundary in the last half of its window of
// opts.Size code points: a section or page start of layout (or a form feed),
// else a blank line, else a sentence end, else whitespace, else a hard cut at
// Size. The next chunk starts opts.Overlap code points before that end,
// moved forward to the next word start, and always after the previous start;
// after a section or page break it starts at the break, without overlap, so
// that its section path and page are those of its text.
// layout may be nil. The same input always gives the same spans.
//
// Chunk works on the UTF-8 bytes of text without converting them; an
// invalid byte counts as one code point, as in []rune(text). Its running time
// is linear in len(text): a chunk costs O(Size) and the next one starts at
// least ⌈Size/2⌉ − Overlap code points further on.
func Chunk(text string, layout *store.Layout, opts ChunkOptions) []Span {
	opts = opts.normalized()
	// end is the byte after the last non-whitespace byte: once a chunk reaches
	// it, all content is covered.
	end := len(text)
	for end > 0 && isSpace(text[end-1]) {
		end--
	}
	if end == 0 {
		return nil
	}
	breaks := breakPoints(layout)
	spans := make([]Span, 0, len(text)/(opts.Size-opts.Overlap)+1)

	sb, s := 0, 0 // chunk start: byte offset, code point offset
	for isSpace(text[sb]) {
		sb++
		s++
	}
	prevEnd := -1
	for {
		for len(breaks) > 0 && breaks[0] <= s {
			breaks = breaks[1:]
		}
		cb, e, class, last := cut(text, sb, s, opts.Size, breaks)

		tb, te := cb, e
		for isSpace(text[tb-1]) { // stops at sb at the latest: text[sb] is not whitespace
			tb--
			te--
		}
		// A chunk whose content ends where the previous one's did adds
		// nothing (only possible after a long run of whitespace); skip it.
		if te > prevEnd {
			spans = append(spans, Span{s, te})
			prevEnd = te
		}
		if last || tb >= end {
			return spans
		}
		overlap := opts.Overlap
		if class == cutSection {
			// Overlap would carry the end of one section or page into the
			// chunk of the next, whose section path and page number are
			// those of its start.
			overlap = 0
		}
		sb, s = nextStart(text, sb, s, cb, e, overlap)
	}
}

// breakPoints returns the sorted, distinct code-point offsets of layout's
// page and section starts.
func breakPoints(l *store.Layout) []int {
	if l == nil || len(l.PageStarts)+len(l.Sections) == 0 {
		return nil
	}
	pts := make([]int, 0, len(l.PageStarts)+len(l.Sections))
	pts = append(pts, l.PageStarts...)
	for i := range l.Sections {
		pts = append(pts, l.Sections[i].Start)
	}
	slices.Sort(pts)
	return slices.Compact(pts)
}

// cut finds the end of the chunk that starts at byte sb, code point s: its
// byte offset cb and code point offset e, and whether it is the last chunk
// (the window reaches the end of text), else the class of the cut. breaks
// holds the layout's break points after s, in order.
//
// It counts code points forward to the window's last half, then searches
// that half backwards, strongest class first, so that each class costs a
// short scan from the window's end in the usual case.
func cut(text string, sb, s, size int, breaks []int) (cb, e, class int, last bool) {
	lo := size - size/2 // earliest cut, relative to s: the window's last half
	lob, n := advance(text, sb, lo)
	if n < lo {
		return len(text), s + n, cutNone, true
	}
	hib, m := advance(text, lob, size-lo)
	if m < size-lo || hib == len(text) {
		return len(text), s + lo + m, cutNone, true
	}
	// From here on, every cut position p satisfies sb < lob <= p <= hib <
	// len(text), and the code point that ends at p lies in the chunk.
	cp := func(p int) int { return s + size - utf8.RuneCountInString(text[p:hib]) }

	// Section and page starts, and form feeds. Offsets are compared relative
	// to s so that a huge size cannot overflow.
	brk := -1
	for _, p := range breaks {
		if p-s > size {
			break
		}
		if p-s >= lo {
			brk = p - s
		}
	}
	best := -1
	if brk >= 0 {
		best, _ = advance(text, lob, brk-lo)
	}
	if k := strings.LastIndexByte(text[lob-1:hib], '\f'); k >= 0 && lob+k > best {
		best = lob + k
	}
	if best >= 0 {
		return best, cp(best), cutSection, false
	}

	// A blank line: a \n, then only blanks up to another \n. The chunk's own
	// text decides, so the search back stops at sb.
	for j := hib; ; {
		k := strings.LastIndexByte(text[lob-1:j], '\n')
		if k < 0 {
			break
		}
		nl := lob - 1 + k
		q := nl - 1
		for q >= sb && byteClass[text[q]]&bBlank != 0 {
			q--
		}
		if q >= sb && text[q] == '\n' {
			return nl + 1, cp(nl + 1), cutParagraph, false
		}
		j = nl
	}

	// A sentence end: . ! ? (maybe followed by one closer) then whitespace,
	// or after 。！？ (three bytes each in UTF-8).
	for p := hib; p >= lob; p-- {
		c := text[p-1]
		switch {
		case byteClass[c]&bTerm != 0:
			if isSpace(text[p]) {
				return p, cp(p), cutSentence, false
			}
		case byteClass[c]&bCloser != 0:
			if p-2 >= sb && byteClass[text[p-2]]&bTerm != 0 && isSpace(text[p]) {
				return p, cp(p), cutSentence, false
			}
		case c == 0x82 || c == 0x81 || c == 0x9f:
			if p-3 >= sb {
				if t := text[p-3 : p]; t == "。" || t == "！" || t == "？" {
					return p, cp(p), cutSentence, false
				}
			}
		}
	}

	// A word boundary: whitespace on either side.
	for p := hib; p >= lob; p-- {
		if isSpace(text[p]) || isSpace(text[p-1]) {
			return p, cp(p), cutWord, false
		}
	}
	return hib, s + size, cutNone, false
}

// advance moves forward up to n code points from byte offset i, and returns
// the new byte offset and the number of code points passed (less than n
// only at the end of text). An invalid byte is one code point.
func advance(text string, i, n int) (int, int) {
	k := 0
	for k < n && i < len(text) {
		// Eight ASCII bytes at a time: the common case in any text.
		if n-k >= 8 && len(text)-i >= 8 {
			w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
				uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
			if w&0x8080808080808080 == 0 {
				i += 8
				k += 8
				continue
			}
		}
		if text[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
		}
		k++
	}
	return i, k
}

// nextStart returns the start (byte, code point) of the chunk after the one
// that runs from (sb, s) to (cb, e): overlap code points before e, but after
// s, moved forward to the next word start unless that word runs past e.
func nextStart(text string, sb, s, cb, e, overlap int) (nb, n int) {
	nb, n = cb, e
	for back := min(overlap, e-s-1); back > 0; back-- {
		if text[nb-1] < utf8.RuneSelf {
			nb--
		} else {
			_, size := utf8.DecodeLastRuneInString(text[sb:nb])
			nb -= size
		}
		n--
	}
	if nb < len(text) && !isSpace(text[nb]) && !isSpace(text[nb-1]) {
		// Mid-word: skip to the word's end if it lies within the chunk.
		wb, w := nb, n
		for wb < cb && !isSpace(text[wb]) {
			if text[wb] < utf8.RuneSelf {
				wb++
			} else {
				_, size := utf8.DecodeRuneInString(text[wb:])
				wb += size
			}
			w++
		}
		if wb == len(text) || isSpace(text[wb]) {
			nb, n = wb, w
		}
		// Otherwise one word spans the cut: starting inside it is unavoidable.
	}
	for nb < len(text) && isSpace(text[nb]) {
		nb++
		n++
	}
	return nb, n
}
