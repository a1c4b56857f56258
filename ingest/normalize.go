package ingest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NormalizeFingerprint names the canonical-text normalization of Normalize:
// Unicode NFC, line endings to LF, control characters removed, leading byte
// order mark stripped. It is part of the pipeline fingerprint: change it
// whenever Normalize's output changes, so that versions change with it.
const NormalizeFingerprint = "norm/1:nfc,lf,ctl,bom"

// binaryShare is the share of control characters and invalid bytes, in
// percent of all characters, above which a source counts as binary (the
// rule of Perl's -B file test).
const binaryShare = 30

// clean[b] is true for the ASCII bytes that Normalize keeps as they are:
// printable characters, \t, \n and \f. A source made only of these is
// already canonical.
var clean = func() (t [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		t[b] = true
	}
	t['\t'], t['\n'], t['\f'] = true, true, true
	return t
}()

// Normalize returns the canonical text of a text source:
//
//   - leading byte order marks (U+FEFF) are stripped;
//   - CRLF and lone CR become LF;
//   - control characters other than \n, \t and \f (C0, DEL and C1) are
//     removed;
//   - the result is in Unicode NFC.
//
// It fails with ErrInvalidUTF8 (naming the byte offset of the first bad
// byte) when src is not UTF-8, and with ErrBinary when src holds a NUL
// byte or when more than 30% of its characters are control characters or
// invalid bytes. Binary wins over invalid UTF-8: a binary file is reported
// as binary wherever its first invalid byte is.
//
// Normalize is idempotent. Controls are removed before composing, so a
// combining mark separated from its base by a control still composes.
func Normalize(src []byte) (string, error) {
	// Fast path: ASCII without CR or other controls is already canonical,
	// which is most Markdown and plain text.
	i := 0
	for i < len(src) && clean[src[i]] {
		i++
	}
	if i == len(src) {
		return string(src), nil
	}
	var b strings.Builder
	b.Grow(len(src))
	b.Write(src[:i])
	if i == 0 {
		for len(src) > i+2 && src[i] == 0xef && src[i+1] == 0xbb && src[i+2] == 0xbf {
			i += 3
		}
	}
	var (
		chars    = i // characters seen, invalid bytes counted one each
		odd      = 0 // controls and invalid bytes
		badAt    = -1
		nonASCII = -1 // byte offset in b of the first non-ASCII character
	)
	for i < len(src) {
		j := i
		for j < len(src) && clean[src[j]] {
			j++
		}
		b.Write(src[i:j])
		chars += j - i
		i = j
		if i == len(src) {
			break
		}
		c := src[i]
		chars++
		if c < utf8.RuneSelf {
			switch c {
			case 0:
				return "", fmt.Errorf("%w: NUL byte at byte offset %d", ErrBinary, i)
			case '\r':
				b.WriteByte('\n')
				if i+1 < len(src) && src[i+1] == '\n' {
					i++
				}
			default:
				odd++ // other C0 control or DEL: dropped
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if badAt < 0 {
				badAt = i
			}
			odd++
		case r <= 0x9f:
			odd++ // C1 control: dropped
		default:
			if nonASCII < 0 {
				nonASCII = b.Len()
			}
			b.Write(src[i : i+size])
		}
		i += size
	}
	if odd*100 > chars*binaryShare {
		return "", fmt.Errorf("%w: %d of %d characters are control characters or invalid UTF-8", ErrBinary, odd, chars)
	}
	if badAt >= 0 {
		return "", fmt.Errorf("%w at byte offset %d", ErrInvalidUTF8, badAt)
	}
	s := b.String()
	if nonASCII < 0 {
		return s, nil
	}
	return nfc(s, nonASCII), nil
}

// nfc returns s in NFC. Bytes before from are ASCII, so only the rest needs
// checking; the quick check makes text that is already NFC (nearly all
// text) cost one scan and no copy.
func nfc(s string, from int) string {
	// There is a normalization boundary before every ASCII character (none
	// composes with the character before it), but the last ASCII character
	// may take a combining mark that follows: start the check there.
	if from > 0 {
		from--
	}
	n := from + norm.NFC.QuickSpanString(s[from:])
	if n == len(s) {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/16)
	out = append(out, s[:n]...)
	out = norm.NFC.AppendString(out, s[n:])
	return string(out)
}
