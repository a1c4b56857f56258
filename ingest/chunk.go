package ingest

import (
	"slices"
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
	// An overlap of half a chunk or more could leave the chunker advancing by
	// a code point at a time; the largest overlap below Size/2 is the closest
	// sane reading of the request.
	o.Overlap = max(0, min(o.Overlap, (o.Size-1)/2))
	return o
}

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
// Chunk reads text once as UTF-8 without converting it; an invalid byte
// counts as one code point, as in []rune(text). It runs in time linear in
// len(text) for a fixed Size.
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
func cut(text string, sb, s, size int, breaks []int) (cb, e, class int, last bool) {
	lo := size - size/2 // earliest cut, relative to s: the window's last half

	// The latest layout break inside [s+lo, s+size], relative to s; -1 if none.
	// Offsets are compared relative to s so that a huge size cannot overflow.
	brk := -1
	for _, p := range breaks {
		if p-s > size {
			break
		}
		if p-s >= lo {
			brk = p - s
		}
	}

	// State about the code points before the current position.
	var (
		prevSpace bool // whitespace
		prevFF    bool // a form feed
		prevTerm  bool // . ! ?
		prevSent  bool // a sentence terminator, maybe followed by one closer
		prevCJK   bool // 。！？
		prevPara  bool // a \n that ends a blank line
		nlOpen    bool // a \n followed only by blanks: one more \n ends a blank line
	)
	best, bestB, bestE := cutNone, 0, 0
	i := sb
	for rel := 0; ; rel++ {
		if i >= len(text) {
			return i, s + rel, cutNone, true
		}
		c := text[i]
		cl := byteClass[c]
		n := 1
		var r rune
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		if rel >= lo {
			// Classify the position between the previous code point and c.
			k := cutNone
			switch {
			case rel == brk || prevFF:
				k = cutSection
			case prevPara:
				k = cutParagraph
			case prevSent && cl&bSpace != 0 || prevCJK:
				k = cutSentence
			case prevSpace || cl&bSpace != 0:
				k = cutWord
			}
			if k != cutNone && k >= best {
				best, bestB, bestE = k, i, s+rel
			}
			if rel == size {
				break
			}
		}
		prevSpace = cl&bSpace != 0
		prevFF = cl&bFF != 0
		prevSent = cl&bTerm != 0 || cl&bCloser != 0 && prevTerm
		prevTerm = cl&bTerm != 0
		prevCJK = r == '。' || r == '！' || r == '？'
		switch {
		case cl&bNL != 0:
			prevPara = nlOpen
			nlOpen = true
		case cl&bBlank != 0:
			prevPara = false
		default:
			prevPara = false
			nlOpen = false
		}
		i += n
	}
	if best == cutNone {
		return i, s + size, cutNone, false
	}
	return bestB, bestE, best, false
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
