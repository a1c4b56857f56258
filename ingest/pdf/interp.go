package pdf

import (
	"bytes"
	"math"

	lpdf "github.com/ledongthuc/pdf"
)

// The content-stream interpreter: the text state (text and line matrices,
// CTM with a q/Q stack, font and size, Tc, Tw, Tz, TL, Ts) and the
// operators that place text, feeding each glyph to the layout. It reads our
// own tokens (lex.go) so inline images are skipped and work is counted:
// every operator costs one unit of Limits.MaxOps.

const (
	maxFormDepth  = 8   // nested Form XObjects
	maxStackDepth = 256 // q nesting kept; deeper q's are counted but not saved
	maxOperands   = 64  // operands kept before an operator
)

type gstate struct {
	ctm                  matrix
	font                 *font
	fontSize             float64
	tc, tw, th, tl, rise float64
}

type operand struct {
	kind   tokKind
	num    float64
	b      []byte
	lo, hi int // array elements in interp.items
}

type interp struct {
	x       *extractor
	lay     *layout
	g       gstate
	stack   []gstate
	tm, tlm matrix
	ops     int // operators run on this page
	args    []operand
	items   []operand
	forms   []objID // Form XObjects being run, for cycle detection
	err     error
}

func newInterp(x *extractor, lay *layout) *interp {
	return &interp{x: x, lay: lay, g: gstate{ctm: identity, th: 1}, tm: identity, tlm: identity}
}

func (in *interp) num(i int) float64 {
	if i < len(in.args) && in.args[i].kind == tNum {
		return in.args[i].num
	}
	return 0
}

// run interprets one content stream with the given resources.
func (in *interp) run(src []byte, res *resources) {
	l := lexer{src: src}
	in.args = in.args[:0]
	for in.err == nil {
		t := l.next()
		switch t.kind {
		case tEOF:
			return
		case tNum, tName, tString:
			in.push(operand{kind: t.kind, num: t.num, b: t.b})
		case tArrOpen:
			in.readArray(&l)
		case tDictOpen:
			skipDict(&l)
			in.push(operand{kind: tDictOpen})
		case tOp:
			in.ops++
			if in.ops > in.x.lim.MaxOps {
				in.err = ErrTooManyOps
				return
			}
			if string(t.b) == "BI" {
				skipInlineImage(&l)
			} else {
				in.op(t.b, res)
			}
			in.args = in.args[:0]
			in.items = in.items[:0]
			l.arena = l.arena[:0]
		default:
			// stray ], >>, { or }: ignored
		}
	}
}

func (in *interp) push(o operand) {
	if len(in.args) >= maxOperands {
		copy(in.args, in.args[1:])
		in.args = in.args[:len(in.args)-1]
	}
	in.args = append(in.args, o)
}

// readArray reads an array's elements into items; nested arrays and dicts
// are skipped (no text operator takes them).
func (in *interp) readArray(l *lexer) {
	lo := len(in.items)
	depth := 0
	for {
		t := l.next()
		switch t.kind {
		case tEOF:
			in.push(operand{kind: tArrOpen, lo: lo, hi: len(in.items)})
			return
		case tArrClose:
			if depth == 0 {
				in.push(operand{kind: tArrOpen, lo: lo, hi: len(in.items)})
				return
			}
			depth--
		case tArrOpen:
			depth++
		case tDictOpen:
			skipDict(l)
		case tNum, tString:
			if depth == 0 && len(in.items)-lo < 1<<16 {
				in.items = append(in.items, operand{kind: t.kind, num: t.num, b: t.b})
			}
		case tOp:
			// An operator inside an array means the array was never
			// closed: stop here and let the operator run.
			l.pos = t.pos
			in.push(operand{kind: tArrOpen, lo: lo, hi: len(in.items)})
			return
		}
	}
}

func skipDict(l *lexer) {
	depth := 1
	for depth > 0 {
		t := l.next()
		switch t.kind {
		case tEOF:
			return
		case tDictOpen:
			depth++
		case tDictClose:
			depth--
		}
	}
}

// skipInlineImage skips "BI <dict> ID <data> EI". The data is binary, so
// the end is the first "EI" between white space that is followed by
// something that reads like content-stream text.
func skipInlineImage(l *lexer) {
	length := -1
	for {
		t := l.next()
		if t.kind == tEOF {
			return
		}
		if t.kind == tName && (string(t.b) == "L" || string(t.b) == "Length") {
			if v := l.next(); v.kind == tNum {
				length = int(v.num)
			}
			continue
		}
		if t.kind == tOp && string(t.b) == "ID" {
			break
		}
	}
	if l.pos < len(l.src) && isWhite(l.src[l.pos]) {
		l.pos++
	}
	if length >= 0 && l.pos+length <= len(l.src) {
		end := l.pos + length
		rest := l.src[end:]
		if i := bytes.Index(rest[:min(len(rest), 64)], []byte("EI")); i >= 0 {
			l.pos = end + i + 2
			return
		}
	}
	for p := l.pos; ; {
		i := bytes.Index(l.src[p:], []byte("EI"))
		if i < 0 {
			l.pos = len(l.src)
			return
		}
		e := p + i
		p = e + 2
		if e > 0 && !isWhite(l.src[e-1]) {
			continue
		}
		if e+2 < len(l.src) && !isWhite(l.src[e+2]) {
			continue
		}
		if !looksLikeContent(l.src[e+2 : min(len(l.src), e+2+48)]) {
			continue
		}
		l.pos = e + 2
		return
	}
}

func looksLikeContent(b []byte) bool {
	for _, c := range b {
		if c >= 0x7f || (c < 0x20 && !isWhite(c)) {
			return false
		}
	}
	return true
}

func (in *interp) setMatrixFromArgs() (matrix, bool) {
	if len(in.args) < 6 {
		return matrix{}, false
	}
	var m matrix
	for i := 0; i < 6; i++ {
		m[i] = in.num(len(in.args) - 6 + i)
	}
	return m, finite(m)
}

func (in *interp) op(op []byte, res *resources) {
	switch string(op) {
	case "q":
		if len(in.stack) < maxStackDepth {
			in.stack = append(in.stack, in.g)
		}
	case "Q":
		if n := len(in.stack); n > 0 {
			in.g = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "cm":
		if m, ok := in.setMatrixFromArgs(); ok {
			if c := m.mul(in.g.ctm); finite(c) {
				in.g.ctm = c
			}
		}
	case "BT":
		in.tm, in.tlm = identity, identity
	case "ET":
	case "Tf":
		if len(in.args) >= 2 {
			a := in.args[len(in.args)-2]
			if a.kind == tName {
				in.g.font = res.font(in.x, a.b)
				if in.g.font == nil {
					in.g.font = in.x.fallbackFont()
				}
			}
			in.g.fontSize = in.num(len(in.args) - 1)
		}
	case "Td":
		in.moveLine(in.num(0), in.num(1))
	case "TD":
		in.g.tl = -in.num(1)
		in.moveLine(in.num(0), in.num(1))
	case "Tm":
		if m, ok := in.setMatrixFromArgs(); ok {
			in.tm, in.tlm = m, m
		}
	case "T*":
		in.moveLine(0, -in.g.tl)
	case "Tc":
		in.g.tc = in.num(0)
	case "Tw":
		in.g.tw = in.num(0)
	case "Tz":
		in.g.th = in.num(0) / 100
	case "TL":
		in.g.tl = in.num(0)
	case "Ts":
		in.g.rise = in.num(0)
	case "Tj":
		if n := len(in.args); n > 0 && in.args[n-1].kind == tString {
			in.show(in.args[n-1].b)
		}
	case "'":
		in.moveLine(0, -in.g.tl)
		if n := len(in.args); n > 0 && in.args[n-1].kind == tString {
			in.show(in.args[n-1].b)
		}
	case "\"":
		if n := len(in.args); n >= 3 {
			in.g.tw = in.num(n - 3)
			in.g.tc = in.num(n - 2)
		}
		in.moveLine(0, -in.g.tl)
		if n := len(in.args); n > 0 && in.args[n-1].kind == tString {
			in.show(in.args[n-1].b)
		}
	case "TJ":
		n := len(in.args)
		if n == 0 || in.args[n-1].kind != tArrOpen {
			return
		}
		a := in.args[n-1]
		for _, e := range in.items[a.lo:a.hi] {
			if e.kind == tString {
				in.show(e.b)
			} else if e.kind == tNum {
				in.adjust(e.num)
			}
		}
	case "Do":
		if n := len(in.args); n > 0 && in.args[n-1].kind == tName {
			in.doXObject(in.args[n-1].b, res)
		}
	}
}

func (in *interp) moveLine(tx, ty float64) {
	m := matrix{1, 0, 0, 1, tx, ty}.mul(in.tlm)
	if finite(m) {
		in.tlm = m
		in.tm = m
	}
}

// adjust applies a TJ number: thousandths of text space, subtracted from
// the pen position (so negative numbers move right).
func (in *interp) adjust(n float64) {
	d := -n / 1000 * in.g.fontSize
	if in.g.font != nil && in.g.font.vertical {
		in.tm = matrix{1, 0, 0, 1, 0, d}.mul(in.tm)
		return
	}
	in.tm = matrix{1, 0, 0, 1, d * in.g.th, 0}.mul(in.tm)
}

// show draws a string: one glyph per code, each handed to the layout with
// its start and end points in device space.
func (in *interp) show(s []byte) {
	f := in.g.font
	if f == nil {
		return
	}
	b := in.tm.mul(in.g.ctm)
	fs := in.g.fontSize
	size := math.Abs(fs) * math.Hypot(b[2], b[3])
	if f.vertical {
		size = math.Abs(fs) * math.Hypot(b[0], b[1])
	}
	var adv float64 // pen position along the text line, in text space
	for len(s) > 0 {
		n := f.codeLen(s)
		if n <= 0 || n > len(s) {
			n = len(s)
		}
		raw := s[:n]
		s = s[n:]
		code := bytesCode(raw)
		w := f.glyphWidth(code)
		text := f.glyphText(code, raw)
		var step, glyph float64
		if f.vertical {
			glyph = fs // vertical advance is one em by default
			step = fs + in.g.tc
		} else {
			glyph = w * fs * in.g.th
			step = (w*fs + in.g.tc) * in.g.th
		}
		if n == 1 && code == 32 {
			step += in.g.tw * in.g.th
		}
		var x0, y0, x1, y1 float64
		if f.vertical {
			x0, y0 = b.apply(0, -adv+in.g.rise*0)
			x1, y1 = b.apply(0, -adv-glyph)
			adv += step
		} else {
			x0, y0 = b.apply(adv, in.g.rise)
			x1, y1 = b.apply(adv+glyph, in.g.rise)
			adv += step
		}
		dx, dy := b[0], b[1]
		if f.vertical {
			dx, dy = -b[2], -b[3]
		}
		in.lay.add(x0, y0, x1, y1, dx, dy, size, text, f.noWidths)
	}
	if f.vertical {
		in.tm = matrix{1, 0, 0, 1, 0, -adv}.mul(in.tm)
	} else {
		in.tm = matrix{1, 0, 0, 1, adv, 0}.mul(in.tm)
	}
}

// doXObject runs a Form XObject; images and unknown kinds are skipped.
func (in *interp) doXObject(name []byte, res *resources) {
	if len(in.forms) >= maxFormDepth {
		return
	}
	form := res.form(in.x, name)
	if form == nil {
		return
	}
	for _, id := range in.forms {
		if id == form.id {
			return // a form that draws itself
		}
	}
	data, err := in.x.formBytes(form)
	if err != nil {
		return
	}
	saved, savedTm, savedTlm, depth := in.g, in.tm, in.tlm, len(in.stack)
	if c := form.matrix.mul(in.g.ctm); finite(c) {
		in.g.ctm = c
	}
	sub := res
	if form.res != nil {
		sub = form.res
	}
	in.forms = append(in.forms, form.id)
	savedArgs, savedItems := in.args, in.items
	in.args, in.items = nil, nil
	in.run(data, sub)
	in.args, in.items = savedArgs, savedItems
	in.forms = in.forms[:len(in.forms)-1]
	in.g, in.tm, in.tlm = saved, savedTm, savedTlm
	if len(in.stack) > depth {
		in.stack = in.stack[:depth]
	}
}

// formInfo is a Form XObject decoded once per document.
type formInfo struct {
	id     objID
	v      lpdf.Value
	matrix matrix
	res    *resources
	data   []byte
	err    error
	loaded bool
}
