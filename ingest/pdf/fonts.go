package pdf

import (
	"bytes"
	"strings"
	"unicode/utf16"

	lpdf "github.com/ledongthuc/pdf"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// A font decoded once per document: how to split a string into codes, the
// text and the advance width of each code. Widths are in text space units
// per unit of font size (glyph units / 1000, or through a Type 3 FontMatrix).

type font struct {
	name     string
	simple   bool
	vertical bool
	// noWidths is set when the font carries no widths and we estimate them;
	// layout then trusts gaps less.
	noWidths bool

	// simple fonts: one byte a code
	text  [256]string
	width [256]float64

	// composite (Type 0) fonts
	space    []codeRange // codespace; nil means two-byte codes
	encMap   *cmap       // embedded encoding CMap (code → CID), or nil for identity
	identity bool        // CID = code
	toUni    *cmap
	uniCode  bool              // predefined UCS-2/UTF-16 CMap: the code is the text
	charset  encoding.Encoding // predefined legacy CJK CMap: decode the code bytes
	cidW     map[uint32]float64
	dw       float64
	texts    map[uint32]string // per-code text cache
}

const maxCIDWidths = 1 << 16

// fallbackFont stands in for a font that is missing from the resources or
// cannot be read, as pdf.js does: Helvetica widths, standard encoding. If
// the codes were not Latin text, the quality gate flags the page.
func (x *extractor) fallbackFont() *font {
	if x.fallback == nil {
		f := &font{name: "Helvetica", simple: true}
		standardWidths(f.name, &f.width)
		for c := range f.text {
			f.text[c] = baseEncoding("", byte(c))
		}
		x.fallback = f
	}
	return x.fallback
}

// loadFont decodes a font dictionary.
func (x *extractor) loadFont(v lpdf.Value) *font {
	if v.Key("Subtype").Name() == "Type0" {
		return x.loadType0(v)
	}
	return x.loadSimple(v)
}

func (x *extractor) loadSimple(v lpdf.Value) *font {
	f := &font{name: v.Key("BaseFont").Name(), simple: true}
	subtype := v.Key("Subtype").Name()
	scale := 0.001
	if subtype == "Type3" {
		if fm := v.Key("FontMatrix"); fm.Len() >= 4 {
			if s := fm.Index(0).Float64(); s != 0 {
				scale = s
				if scale < 0 {
					scale = -scale
				}
			}
		}
	}
	// Widths.
	lf := lpdf.Font{V: v}
	ws := v.Key("Widths")
	desc := v.Key("FontDescriptor")
	missing := desc.Key("MissingWidth").Float64()
	if ws.Kind() == lpdf.Array && ws.Len() > 0 {
		first := lf.FirstChar()
		for c := 0; c < 256; c++ {
			f.width[c] = missing * scale
		}
		n := min(ws.Len(), 256)
		for i := 0; i < n; i++ {
			c := first + i
			if c >= 0 && c < 256 {
				f.width[c] = ws.Index(i).Float64() * scale
			}
		}
	} else {
		f.noWidths = !standardWidths(f.name, &f.width)
	}

	// Encoding: base plus differences.
	base := ""
	var diffs [256]string
	enc := v.Key("Encoding")
	switch enc.Kind() {
	case lpdf.Name:
		base = enc.Name()
	case lpdf.Dict:
		base = enc.Key("BaseEncoding").Name()
		d := enc.Key("Differences")
		code := -1
		for i := 0; i < d.Len() && i < 4096; i++ {
			e := d.Index(i)
			switch e.Kind() {
			case lpdf.Integer, lpdf.Real:
				code = int(e.Float64())
			case lpdf.Name:
				if code >= 0 && code < 256 {
					diffs[code] = e.Name()
				}
				code++
			}
		}
	}
	var builtin [256]string
	if base == "" && subtype != "Type3" {
		if ff := desc.Key("FontFile"); ff.Kind() == lpdf.Stream {
			if b, err := x.streamBytes(ff, 4<<20); err == nil {
				builtin = type1Encoding(b)
			}
		}
	}
	var tu *cmap
	if t := v.Key("ToUnicode"); t.Kind() == lpdf.Stream {
		if b, err := x.streamBytes(t, x.lim.MaxStreamBytes); err == nil {
			tu = parseCMap(b)
		}
	}
	for c := 0; c < 256; c++ {
		if tu != nil {
			if s, ok := tu.lookup(uint32(c)); ok {
				f.text[c] = s
				continue
			}
		}
		if n := diffs[c]; n != "" {
			if s := glyphText(n); s != "" {
				f.text[c] = s
				continue
			}
		}
		if n := builtin[c]; n != "" {
			if s := glyphText(n); s != "" {
				f.text[c] = s
				continue
			}
		}
		f.text[c] = baseEncoding(base, byte(c))
	}
	return f
}

// type1Encoding reads "dup CODE /name put" from the clear-text part of a
// Type 1 font program: the built-in encoding TeX fonts rely on.
func type1Encoding(prog []byte) (names [256]string) {
	if i := bytes.Index(prog, []byte("eexec")); i >= 0 {
		prog = prog[:i]
	}
	i := bytes.Index(prog, []byte("/Encoding"))
	if i < 0 {
		return names
	}
	l := lexer{src: prog, pos: i}
	var prev [3]token
	for k := 0; k < 1<<14; k++ {
		t := l.next()
		if t.kind == tEOF {
			break
		}
		if t.kind == tOp && string(t.b) == "put" && prev[0].kind == tOp && string(prev[0].b) == "dup" &&
			prev[1].kind == tNum && prev[2].kind == tName && prev[1].num >= 0 && prev[1].num < 256 {
			names[int(prev[1].num)] = string(prev[2].b)
		}
		if t.kind == tOp && (string(t.b) == "readonly" || string(t.b) == "def") && k > 3 && names != [256]string{} {
			break
		}
		prev[0], prev[1], prev[2] = prev[1], prev[2], t
	}
	return names
}

func (x *extractor) loadType0(v lpdf.Value) *font {
	f := &font{name: v.Key("BaseFont").Name(), texts: map[uint32]string{}, dw: 1}
	desc := v.Key("DescendantFonts").Index(0)
	enc := v.Key("Encoding")
	switch enc.Kind() {
	case lpdf.Name:
		f.predefined(enc.Name())
	case lpdf.Stream:
		if b, err := x.streamBytes(enc, x.lim.MaxStreamBytes); err == nil {
			m := parseCMap(b)
			f.vertical = m.vertical
			if len(m.cids) == 0 && m.useName != "" {
				f.predefined(m.useName)
			} else {
				f.encMap = m
			}
			if len(m.space) > 0 {
				f.space = m.space
			}
		}
	default:
		f.identity = true
	}
	switch t := v.Key("ToUnicode"); t.Kind() {
	case lpdf.Stream:
		if b, err := x.streamBytes(t, x.lim.MaxStreamBytes); err == nil {
			f.toUni = parseCMap(b)
		}
	case lpdf.Name:
		// "/ToUnicode /Identity-H" (iText): the two-byte code is the
		// character, as pdf.js reads it.
		if n := t.Name(); n == "Identity-H" || n == "Identity-V" {
			f.uniCode = true
		}
	}
	// Widths: /DW default, /W runs "c [w1 w2 ...]" and "c1 c2 w".
	if dw := desc.Key("DW"); dw.Kind() == lpdf.Integer || dw.Kind() == lpdf.Real {
		f.dw = dw.Float64() / 1000
	}
	f.cidW = map[uint32]float64{}
	w := desc.Key("W")
	for i := 0; i < w.Len() && len(f.cidW) < maxCIDWidths; {
		c := w.Index(i)
		next := w.Index(i + 1)
		if c.Kind() != lpdf.Integer {
			break
		}
		start := c.Int64()
		if next.Kind() == lpdf.Array {
			for k := 0; k < next.Len() && len(f.cidW) < maxCIDWidths; k++ {
				f.cidW[uint32(start+int64(k))] = next.Index(k).Float64() / 1000
			}
			i += 2
			continue
		}
		end := next.Int64()
		wv := w.Index(i+2).Float64() / 1000
		if start >= 0 && end >= start && end-start < maxCIDWidths {
			for c := start; c <= end && len(f.cidW) < maxCIDWidths; c++ {
				f.cidW[uint32(c)] = wv
			}
		}
		i += 3
	}
	return f
}

// predefined sets up a named CMap: Identity, the UCS-2/UTF-16 ones (codes
// are Unicode) and the legacy CJK byte encodings.
func (f *font) predefined(name string) {
	f.vertical = strings.HasSuffix(name, "-V")
	switch {
	case strings.HasPrefix(name, "Identity"):
		f.identity = true
	case strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16"):
		f.uniCode = true
	case strings.Contains(name, "RKSJ"):
		f.charset = japanese.ShiftJIS
		f.space = []codeRange{{1, 0, 0x80}, {1, 0xA0, 0xDF}, {2, 0x8140, 0x9FFC}, {2, 0xE040, 0xFCFC}}
	case strings.Contains(name, "EUC") && (strings.HasPrefix(name, "GB") || strings.HasPrefix(name, "UniGB")):
		f.charset = simplifiedchinese.GBK
		f.space = []codeRange{{1, 0, 0x80}, {2, 0x8140, 0xFEFE}}
	case strings.HasPrefix(name, "GBK"):
		f.charset = simplifiedchinese.GBK
		f.space = []codeRange{{1, 0, 0x80}, {2, 0x8140, 0xFEFE}}
	case strings.Contains(name, "B5"):
		f.charset = traditionalchinese.Big5
		f.space = []codeRange{{1, 0, 0x80}, {2, 0x8140, 0xFEFE}}
	case strings.HasPrefix(name, "KSC"):
		f.charset = korean.EUCKR
		f.space = []codeRange{{1, 0, 0x80}, {2, 0x8141, 0xFEFE}}
	default:
		f.identity = true
	}
}

// codeLen returns the byte length of the code at the start of s.
func (f *font) codeLen(s []byte) int {
	if f.simple {
		return 1
	}
	if f.space == nil {
		if len(s) < 2 {
			return len(s)
		}
		return 2
	}
	return splitCode(f.space, s)
}

// cid maps a composite font's code to its CID.
func (f *font) cid(code uint32) uint32 {
	if f.encMap != nil {
		if c, ok := f.encMap.cid(code); ok {
			return c
		}
		return 0
	}
	return code
}

// glyphWidth returns the advance of code in text space units per unit of
// font size.
func (f *font) glyphWidth(code uint32) float64 {
	if f.simple {
		return f.width[code&0xff]
	}
	if f.uniCode || f.charset != nil {
		// No CID is known for these predefined CMaps: full-width for
		// two-byte codes, half-width for one-byte ones.
		if code > 0xff {
			return f.dw
		}
		return f.dw / 2
	}
	if w, ok := f.cidW[f.cid(code)]; ok {
		return w
	}
	return f.dw
}

// glyphText returns the text of a code given its bytes.
func (f *font) glyphText(code uint32, raw []byte) string {
	if f.simple {
		return f.text[code&0xff]
	}
	if s, ok := f.texts[code]; ok {
		return s
	}
	s, ok := "", false
	if f.toUni != nil {
		s, ok = f.toUni.lookup(code)
	}
	if !ok {
		switch {
		case f.uniCode:
			s = string(utf16.Decode(utf16Units(raw)))
		case f.charset != nil:
			d, err := f.charset.NewDecoder().Bytes(raw)
			if err == nil {
				s = string(d)
			}
		default:
			s = "\uFFFD"
		}
	}
	if len(f.texts) < 1<<16 {
		f.texts[code] = s
	}
	return s
}
