package ingest

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

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
func Normalize(src []byte) (string, error) { return normalize(src, false) }

// normalize is Normalize; with own set, src belongs to the caller's caller
// alone and is never written again (a file ingest read), so the text may
// share its bytes instead of copying them when nothing changes.
func normalize(src []byte, own bool) (string, error) {
	// Fast path: ASCII without CR or other controls is already canonical,
	// which is most Markdown and plain text.
	i := 0
	for i < len(src) && clean[src[i]] {
		i++
	}
	if i == len(src) {
		return bytesString(src, own), nil
	}
	keep := 0 // start of the bytes not yet copied to b
	if i == 0 {
		for len(src) >= i+3 && src[i] == 0xef && src[i+1] == 0xbb && src[i+2] == 0xbf {
			i += 3
		}
		keep = i
	}
	first := keep // where the text starts in src, after byte order marks
	var (
		b       strings.Builder // the text, once something is dropped or replaced
		changed bool            // b is in use
		extra   = 0             // UTF-8 continuation bytes, to count characters
		odd     = 0             // controls and invalid bytes
		badAt   = -1            // byte offset of the first invalid byte
		check   = -1            // offset in the text of the first character the NFC check must look at
	)
	for i < len(src) {
		c := src[i]
		if clean[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			if c == 0 {
				return "", fmt.Errorf("%w: NUL byte at byte offset %d", ErrBinary, i)
			}
			if !changed {
				b.Grow(len(src) - first)
				changed = true
			}
			b.Write(src[keep:i])
			if c == '\r' {
				b.WriteByte('\n')
				if i+1 < len(src) && src[i+1] == '\n' {
					i++
				}
			} else {
				odd++ // other C0 control or DEL: dropped
			}
			i++
			keep = i
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		extra += size - 1
		switch {
		case r == utf8.RuneError && size == 1:
			// Fails below; the text need not be built right.
			if badAt < 0 {
				badAt = i
			}
			odd++
		case r <= 0x9f:
			odd++ // C1 control: dropped
			if !changed {
				b.Grow(len(src) - first)
				changed = true
			}
			b.Write(src[keep:i])
			keep = i + size
		case check < 0 && !nfcSafe(r):
			check = i - keep
			if changed {
				check += b.Len()
			} else {
				check += keep - first
			}
		}
		i += size
	}
	if chars := len(src) - first - extra; odd*100 > chars*binaryShare {
		return "", fmt.Errorf("%w: %d of %d characters are control characters or invalid UTF-8", ErrBinary, odd, chars)
	}
	if badAt >= 0 {
		return "", fmt.Errorf("%w at byte offset %d", ErrInvalidUTF8, badAt)
	}
	var s string
	if changed {
		b.Write(src[keep:])
		s = b.String()
	} else {
		s = bytesString(src[first:], own)
	}
	if check < 0 {
		return s, nil
	}
	return nfc(s, check), nil
}

// bytesString returns b as a string: b itself when owned, else a copy.
func bytesString(b []byte, owned bool) string {
	if owned && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// nfcSafe reports whether r is a character that leaves a text in NFC
// wherever it stands: it is in NFC, is a starter (combining class 0), and
// combines with no character before it. Most letters, CJK ideographs and
// Hangul syllables are; combining marks and characters that NFC replaces
// are not. A text of such characters is in NFC, and there is a
// normalization boundary before each one.
func nfcSafe(r rune) bool {
	if r < 0x300 { // Latin-1 and Latin Extended: the fast case
		return true
	}
	if r > 0xffff {
		return false // astral: rare enough to leave to the full check
	}
	return nfcSafeBMP()[r>>6]&(1<<(r&63)) != 0
}

// nfcSafeBMP is the bit set of the characters of the Basic Multilingual
// Plane for which nfcSafe holds, computed from golang.org/x/text's tables
// on first use (a few milliseconds), so that it follows their Unicode
// version.
var nfcSafeBMP = sync.OnceValue(func() *[1 << 10]uint64 {
	var set [1 << 10]uint64
	var buf [utf8.UTFMax]byte
	for r := rune(0); r <= 0xffff; r++ {
		if utf8.ValidRune(r) {
			c := utf8.AppendRune(buf[:0], r)
			p := norm.NFC.Properties(c)
			if p.CCC() == 0 && p.BoundaryBefore() && norm.NFC.IsNormal(c) {
				set[r>>6] |= 1 << (r & 63)
			}
		}
	}
	return &set
})

// nfc returns s in NFC, given that s[:from] is made of nfcSafe characters.
// A text that is already NFC, which is nearly every text, costs one scan
// from from and no copy.
func nfc(s string, from int) string {
	n := nfcSpan(s, from)
	if n == len(s) {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/8)
	out = append(out, s[:n]...)
	out = norm.NFC.AppendString(out, s[n:])
	return string(out)
}

// nfcSpan returns len(s) when s is in NFC, else a normalization boundary n
// such that s[:n] is: s is NFC from there on only after normalizing s[n:].
// s[:from] must be made of nfcSafe characters. Only the runs of characters
// that are not nfcSafe, with the character before each, go through the
// full NFC check, which is slow (under 100 MB/s) even on ASCII.
func nfcSpan(s string, from int) int {
	bound := 0 // the start of the last safe character: a boundary
	if from > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:from])
		bound = from - size
	}
	i := from
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			bound = i
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if nfcSafe(r) {
			bound = i
			i += size
			continue
		}
		j := i + size
		for j < len(s) {
			r, size := rune(s[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[j:])
			}
			if nfcSafe(r) {
				break
			}
			j += size
		}
		if !norm.NFC.IsNormalString(s[bound:j]) {
			return bound
		}
		i = j
	}
	return len(s)
}
