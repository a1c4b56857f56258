package pdf

import (
	"unicode/utf16"
	"unicode/utf8"

	lpdf "github.com/ledongthuc/pdf"
	"golang.org/x/text/encoding/charmap"
)

// textString decodes a PDF text string (outline titles, label prefixes):
// decrypted with the object's key when the file is encrypted, then UTF-16BE
// with a BOM, UTF-8 with a BOM (PDF 2.0), or PDFDocEncoding.
func (x *extractor) textString(v lpdf.Value) string {
	return decodeTextString(x.rawString(v))
}

func (x *extractor) rawString(v lpdf.Value) []byte {
	raw := []byte(v.RawString())
	if x.doc.crypt != nil {
		raw = x.doc.crypt.string(idOf(v), raw)
	}
	return raw
}

func decodeTextString(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return string(utf16.Decode(utf16Units(b[2:])))
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE: // little-endian, seen in the wild
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		}
		return string(utf16.Decode(u))
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF && utf8.Valid(b[3:]):
		return string(b[3:])
	}
	r := make([]rune, 0, len(b))
	for _, c := range b {
		r = append(r, pdfDocRune(c))
	}
	return string(r)
}

// pdfDocRune maps PDFDocEncoding: Latin-1 except 0x18–0x1F and 0x80–0x9F.
func pdfDocRune(c byte) rune {
	switch {
	case c >= 0x18 && c <= 0x1F:
		return []rune("˘ˇˆ˙˝˛˚˜")[c-0x18]
	case c >= 0x80 && c <= 0x9E:
		return []rune("•†‡…—–ƒ⁄‹›−‰„“”‘’‚™ﬁﬂŁŒŠŸŽıłœšž")[c-0x80]
	case c == 0xA0:
		return '€'
	}
	return charmap.ISO8859_1.DecodeByte(c)
}
