package ingest

import "math/bits"

// countRunes returns the number of code points in s, which must be valid
// UTF-8 (a canonical text is): the bytes that are not continuation bytes
// (10xxxxxx), counted eight at a time. utf8.RuneCountInString decodes rune
// by rune and was a tenth of Markdown ingest's CPU, converting section
// starts from bytes to code points.
func countRunes(s string) int {
	n := len(s)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A continuation byte has bit 7 set and bit 6 clear.
		cont := w & ^(w << 1) & 0x8080808080808080
		n -= bits.OnesCount64(cont)
	}
	for ; i < len(s); i++ {
		if s[i]&0xc0 == 0x80 {
			n--
		}
	}
	return n
}
