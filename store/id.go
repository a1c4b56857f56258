package store

import (
	"encoding/hex"
	"fmt"

	"github.com/zeebo/blake3"
)

// ID is a BLAKE3-256 content hash.
type ID [32]byte

// Hash returns the BLAKE3-256 of b.
func Hash(b []byte) ID { return ID(blake3.Sum256(b)) }

// HashString returns the BLAKE3-256 of s without copying it.
func HashString(s string) ID {
	h := blake3.New()
	_, _ = h.WriteString(s)
	var id ID
	h.Sum(id[:0])
	return id
}

// ParseID parses the 64-digit hex form of an ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("store: invalid id %q: want %d hex digits", s, 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("store: invalid id %q: %w", s, err)
	}
	return id, nil
}

// String returns the 64-digit hex form.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first 8 hex digits, for messages.
func (id ID) Short() string { return hex.EncodeToString(id[:4]) }

// IsZero reports whether id is all zero (not set).
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText encodes id as hex, so JSON carries the hex form.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, 2*len(id))
	hex.Encode(b, id[:])
	return b, nil
}

// UnmarshalText decodes the hex form.
func (id *ID) UnmarshalText(b []byte) error {
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}
