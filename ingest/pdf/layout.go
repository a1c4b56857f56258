package pdf

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// Layout turns glyphs, in content-stream order, into text: a space where
// the gap between one glyph's end and the next one's start is wide for the
// font size (or the font drew a space), a line break where the baseline
// moves, a blank line where it moves by more than a line. Positions are in
// device space (PDF points after the CTM); sizes are the font's height in
// the same units.

const (
	// wordGap is the gap, in font sizes, from which two glyphs on one line
	// are separate words. Kerning and italic corrections stay below it,
	// TeX's shrunk inter-word space above.
	wordGap = 0.15
	// wordGapNoWidths is used when the font's widths are estimated.
	wordGapNoWidths = 0.6
	// sameLine is the largest baseline shift, in font sizes, that keeps two
	// glyphs on one line (sub- and superscripts).
	sameLine = 0.5
	// paraGap is the baseline drop, in font sizes, from which a line break
	// is also a paragraph break.
	paraGap = 1.9
)

type lineInfo struct {
	start, end int     // byte offsets of the line in the page text
	size       float64 // largest glyph size on the line
	chars      int
}

type layout struct {
	b         []byte
	has       bool
	px, py    float64 // previous glyph's origin
	ex, ey    float64 // previous glyph's end
	ux, uy    float64 // previous glyph's direction (unit)
	psize     float64
	pendSpace bool
	line      lineInfo
	lines     []lineInfo
	maxBytes  int
	full      bool
}

func isSpaceText(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// add places one glyph: start (x0, y0), end (x1, y1), direction (dx, dy),
// font size, text. estimated is set when the font's widths are guesses.
func (l *layout) add(x0, y0, x1, y1, dx, dy, size float64, text string, estimated bool) {
	if text == "" || l.full {
		return
	}
	if !(size > 0.01) || math.IsInf(size, 0) {
		size = 0.01
	}
	n := math.Hypot(dx, dy)
	if n > 0 && !math.IsInf(n, 0) {
		dx, dy = dx/n, dy/n
	} else {
		dx, dy = 1, 0
	}
	space := isSpaceText(text)
	if !l.has {
		if space {
			return
		}
		l.has = true
		l.line = lineInfo{start: len(l.b)}
		l.write(text, size)
		l.px, l.py, l.ex, l.ey, l.ux, l.uy, l.psize = x0, y0, x1, y1, dx, dy, size
		return
	}
	sz := math.Max(size, l.psize)
	gx, gy := x0-l.ex, y0-l.ey
	along := gx*l.ux + gy*l.uy
	bx, by := x0-l.px, y0-l.py
	perp := -bx*l.uy + by*l.ux // baseline shift, positive upwards
	sameDir := dx*l.ux+dy*l.uy > 0.9
	same := sameDir && math.Abs(perp) < sameLine*sz && along > -4*sz
	if space {
		if same {
			l.pendSpace = true
			l.ex, l.ey = x1, y1
		}
		return
	}
	if same {
		gap := wordGap
		if estimated {
			gap = wordGapNoWidths
		}
		if l.pendSpace || along > gap*sz {
			l.b = append(l.b, ' ')
		}
	} else {
		l.endLine()
		down := -perp
		if sameDir && down > 0 && down < paraGap*sz {
			l.b = append(l.b, '\n')
		} else {
			l.b = append(l.b, '\n', '\n')
		}
		l.line = lineInfo{start: len(l.b)}
	}
	l.pendSpace = false
	l.write(text, size)
	l.px, l.py, l.ex, l.ey, l.ux, l.uy, l.psize = x0, y0, x1, y1, dx, dy, size
}

// write appends glyph text; line breaks, tabs and form feeds inside a
// glyph's text become spaces (\f separates pages in the canonical text).
func (l *layout) write(text string, size float64) {
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '\n', '\r', '\t', '\f', '\v':
			l.b = append(l.b, ' ')
		default:
			l.b = append(l.b, text[i:i+w]...)
		}
		i += w
	}
	l.line.chars++
	if size > l.line.size {
		l.line.size = size
	}
	if l.maxBytes > 0 && len(l.b) > l.maxBytes {
		l.full = true
	}
}

func (l *layout) endLine() {
	for len(l.b) > l.line.start && l.b[len(l.b)-1] == ' ' {
		l.b = l.b[:len(l.b)-1]
	}
	l.line.end = len(l.b)
	if l.line.end > l.line.start {
		l.lines = append(l.lines, l.line)
	}
}

// finish returns the page text.
func (l *layout) finish() string {
	if l.has {
		l.endLine()
	}
	return string(l.b)
}
