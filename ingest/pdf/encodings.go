package pdf

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/encoding/charmap"
)

// Simple-font encodings and glyph names.

var agl = sync.OnceValue(func() map[string]rune {
	m := make(map[string]rune, 4300)
	f := strings.Fields(aglData)
	for i := 0; i+1 < len(f); i += 2 {
		v, err := strconv.ParseUint(f[i+1], 16, 32)
		if err == nil {
			m[f[i]] = rune(v)
		}
	}
	return m
})

// glyphText maps a glyph name to its text: the Adobe Glyph List, then the
// uniXXXX / uXXXX[XX] conventions, then ligature names joined by "_", then
// the name without a ".suffix". Unknown names (g12, cid34) give "".
func glyphText(name string) string {
	if r, ok := agl()[name]; ok {
		return string(r)
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return glyphText(name[:i])
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for _, p := range strings.Split(name, "_") {
			b.WriteString(glyphText(p))
		}
		return b.String()
	}
	if rest, ok := strings.CutPrefix(name, "uni"); ok && len(rest) >= 4 && len(rest)%4 == 0 {
		var b strings.Builder
		for i := 0; i < len(rest); i += 4 {
			v, err := strconv.ParseUint(rest[i:i+4], 16, 32)
			if err != nil {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if rest, ok := strings.CutPrefix(name, "u"); ok && len(rest) >= 4 && len(rest) <= 6 {
		if v, err := strconv.ParseUint(rest, 16, 32); err == nil && v <= 0x10FFFF {
			return string(rune(v))
		}
	}
	return ""
}

// standardHigh lists StandardEncoding where it differs from ISO Latin-1.
var standardDiff = map[byte]rune{
	0x27: '’', 0x60: '‘',
	0xA1: '¡', 0xA2: '¢', 0xA3: '£', 0xA4: '⁄', 0xA5: '¥', 0xA6: 'ƒ', 0xA7: '§', 0xA8: '¤', 0xA9: '\'',
	0xAA: '“', 0xAB: '«', 0xAC: '‹', 0xAD: '›', 0xAE: 'ﬁ', 0xAF: 'ﬂ', 0xB1: '–', 0xB2: '†', 0xB3: '‡',
	0xB4: '·', 0xB6: '¶', 0xB7: '•', 0xB8: '‚', 0xB9: '„', 0xBA: '”', 0xBB: '»', 0xBC: '…', 0xBD: '‰',
	0xBF: '¿', 0xC1: '`', 0xC2: '´', 0xC3: 'ˆ', 0xC4: '˜', 0xC5: '¯', 0xC6: '˘', 0xC7: '˙', 0xC8: '¨',
	0xCA: '˚', 0xCB: '¸', 0xCD: '˝', 0xCE: '˛', 0xCF: 'ˇ', 0xD0: '—', 0xE1: 'Æ', 0xE3: 'ª', 0xE8: 'Ł',
	0xE9: 'Ø', 0xEA: 'Œ', 0xEB: 'º', 0xF1: 'æ', 0xF5: 'ı', 0xF8: 'ł', 0xF9: 'ø', 0xFA: 'œ', 0xFB: 'ß',
}

// baseEncoding returns the text of code c under a named base encoding.
func baseEncoding(name string, c byte) string {
	switch name {
	case "WinAnsiEncoding":
		switch {
		case c == 0x7F || c == 0x81 || c == 0x8D || c == 0x8F || c == 0x90 || c == 0x9D:
			return "•" // undefined codes print as bullets in WinAnsi
		case c == 0xA0:
			return " "
		case c == 0xAD:
			return "-"
		}
		if c < 0x20 {
			return ""
		}
		return string(charmap.Windows1252.DecodeByte(c))
	case "MacRomanEncoding":
		if c < 0x20 || c == 0x7F {
			return ""
		}
		return string(charmap.Macintosh.DecodeByte(c))
	case "PDFDocEncoding":
		if c < 0x20 {
			return ""
		}
		return string(charmap.ISO8859_1.DecodeByte(c))
	}
	// StandardEncoding
	if r, ok := standardDiff[c]; ok {
		return string(r)
	}
	if c < 0x20 || c >= 0x7F {
		return ""
	}
	return string(rune(c))
}
