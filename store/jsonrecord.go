package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The JSON records (failed ingests, verification traces, reviews,
// evaluation runs) are sealed like the binary ones: the JSON text, a zero
// byte, then the big-endian CRC-32C of the record's key, a zero byte and
// everything before the CRC. The key is covered because, unlike the
// binary records, not every JSON record names its key (a trace is opaque
// to the store): a damaged key must not pass for another record's. JSON
// text never holds a zero byte, so a sealed record is told from one
// written before seals (plain JSON, read unchecked) by the fifth byte
// from its end, and no single flipped bit turns one into the other: a
// flip of the zero byte leaves a record that is neither (see openJSON).
//
// The seal sits after the JSON, not before it, so that a reader that
// parses the first JSON value of the bytes and ignores the rest still
// reads a sealed record; readers in this package always check the seal.

// sealJSON returns the stored form of the JSON record j stored under key.
func sealJSON(key, j []byte) []byte {
	b := make([]byte, 0, len(j)+5)
	b = append(b, j...)
	b = append(b, 0)
	return binary.BigEndian.AppendUint32(b, jsonCRC(key, b))
}

func jsonCRC(key, b []byte) uint32 {
	crc := crc32.Update(0, castagnoli, key)
	crc = crc32.Update(crc, castagnoli, []byte{0})
	return crc32.Update(crc, castagnoli, b)
}

// openJSON returns the JSON of the JSON record b stored under key, what
// naming it in an error. A sealed record must pass its checksum; an unsealed one, written
// before seals, must at least be a JSON object (its first byte "{", its
// last, trailing white space aside, "}"): it is decoded unchecked. The
// result points into b.
func openJSON(what string, key, b []byte) ([]byte, error) {
	n := len(b)
	if n >= 5 && b[n-5] == 0 {
		if jsonCRC(key, b[:n-4]) != binary.BigEndian.Uint32(b[n-4:]) {
			return nil, fmt.Errorf("%w (%s)", ErrChecksum, what)
		}
		return b[:n-5], nil
	}
	if t := bytes.TrimRight(b, " \t\r\n"); len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, fmt.Errorf("%w: %s: neither a sealed record nor a JSON object", ErrCorrupt, what)
	}
	return b, nil
}
