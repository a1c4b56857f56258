package providers

import (
	"fmt"
	"unicode/utf8"
)

// Unit is what an incoming offset counts. The contract's unit is
// CodePoint; the others are converted to it against the text the offsets
// index.
type Unit string

// The units an offset may be given in.
const (
	CodePoint Unit = "code_point" // Unicode code points (Python str, Go []rune)
	UTF16     Unit = "utf16"      // UTF-16 code units (JavaScript, Java, C#)
	Byte      Unit = "byte"       // bytes of the UTF-8 encoding (Gemini, Go string)
)

// Units lists every unit, in the order alternatives are tried.
var Units = []Unit{CodePoint, UTF16, Byte}

// ParseUnit reads a unit name; "" is the format's default (returned as "").
func ParseUnit(s string) (Unit, error) {
	switch u := Unit(s); u {
	case "", CodePoint, UTF16, Byte:
		return u, nil
	}
	return "", &InputError{Item: "offset_unit", Reason: fmt.Sprintf("%q: want code_point, utf16 or byte", s)}
}

// byteOffset returns the byte offset in s of offset off counted in unit u.
// ok is false when off is negative, past the end of s, or falls inside a
// character (a byte offset within a UTF-8 sequence, a UTF-16 offset between
// the two halves of a surrogate pair).
func byteOffset(s string, off int, u Unit) (b int, ok bool) {
	if off < 0 {
		return 0, false
	}
	switch u {
	case Byte:
		if off > len(s) || off < len(s) && !utf8.RuneStart(s[off]) {
			return 0, false
		}
		return off, true
	case UTF16:
		n := 0
		for i, r := range s {
			if n == off {
				return i, true
			}
			if n > off {
				return 0, false
			}
			n += utf16Len(r)
		}
		return len(s), n == off
	default:
		n := 0
		for i := range s {
			if n == off {
				return i, true
			}
			n++
		}
		return len(s), n == off
	}
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// span returns the byte range in s of the half-open range [start, end)
// counted in unit u, and false when either end does not convert or the
// range is inverted.
func span(s string, start, end int, u Unit) (bs, be int, ok bool) {
	if end < start {
		return 0, 0, false
	}
	bs, ok1 := byteOffset(s, start, u)
	be, ok2 := byteOffset(s, end, u)
	return bs, be, ok1 && ok2
}

// fitting returns the units other than u under which s[start:end] is want:
// what a quote that is not at its offsets tells about their unit.
func fitting(s string, start, end int, want string, u Unit) []Unit {
	var out []Unit
	for _, o := range Units {
		if o == u {
			continue
		}
		if bs, be, ok := span(s, start, end, o); ok && s[bs:be] == want {
			out = append(out, o)
		}
	}
	return out
}

// length returns the length of s counted in unit u.
func length(s string, u Unit) int {
	switch u {
	case Byte:
		return len(s)
	case UTF16:
		n := 0
		for _, r := range s {
			n += utf16Len(r)
		}
		return n
	}
	return utf8.RuneCountInString(s)
}
