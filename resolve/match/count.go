package match

import "math/bits"

// CodePoints counts the code points of s, eight bytes at a time: it counts
// the bytes that do not continue a sequence (10xxxxxx). For valid UTF-8 it
// equals utf8.RuneCountInString, several times faster; on invalid input it
// may count fewer. Code-point coordinates of stored text, which is valid,
// are what it is for.
func CodePoints(s string) int {
	const hi, lo = 0x8080808080808080, 0x0101010101010101
	n, cont := len(s), 0
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		if w&hi == 0 {
			continue // ASCII
		}
		// Bit 7 set and bit 6 clear: a continuation byte.
		cont += bits.OnesCount64((w & hi) >> 7 & ^(w >> 6) & lo)
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			cont++
		}
	}
	return n - cont
}

// ByteRange converts a half-open code-point range of s to a byte range,
// clamped to s: the one conversion the matcher's callers need to slice what
// a Match names.
func ByteRange(s string, start, end int) (bs, be int) {
	bs, be = len(s), len(s)
	cp := 0
	for i := range s {
		if cp == start {
			bs = i
		}
		if cp == end {
			be = i
			break
		}
		cp++
	}
	return bs, max(bs, be)
}
