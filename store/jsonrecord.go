package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The JSON records (failed ingests, verification traces, reviews,
// evaluation runs) are sealed like the binary ones: the JSON text, a zero
// byte, then the big-endian CRC-32C of everything before the CRC. JSON
// text never holds a zero byte, so a sealed record is told from one
// written before seals (plain JSON, read unchecked) by the fifth byte from
// its end, and no single flipped bit turns one into the other: a flip of
// the zero byte leaves a record that is neither (see openJSON).
//
// The seal sits after the JSON, not before it, so that a reader that
// parses the first JSON value of the bytes and ignores the rest still
// reads a sealed record; readers in this package always check the seal.

// sealJSON returns the stored form of the JSON record j.
func sealJSON(j []byte) []byte {
	b := make([]byte, 0, len(j)+5)
	b = append(b, j...)
	b = append(b, 0)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// openJSON returns the JSON of a stored JSON record, what names it in an
// error. A sealed record must pass its checksum; an unsealed one, written
// before seals, must at least be a JSON object (its first byte "{", its
// last, trailing white space aside, "}"): it is decoded unchecked. The
// result points into b.
func openJSON(what string, b []byte) ([]byte, error) {
	n := len(b)
	if n >= 5 && b[n-5] == 0 {
		if crc32.Checksum(b[:n-4], castagnoli) != binary.BigEndian.Uint32(b[n-4:]) {
			return nil, fmt.Errorf("%w (%s)", ErrChecksum, what)
		}
		return b[:n-5], nil
	}
	if t := bytes.TrimRight(b, " \t\r\n"); len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, fmt.Errorf("%w: %s: neither a sealed record nor a JSON object", ErrCorrupt, what)
	}
	return b, nil
}
