package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers match them with errors.Is.
var (
	// ErrNotFound is returned when a document, version or chunk is not stored.
	ErrNotFound = errors.New("store: not found")
	// ErrDeleted is returned when a version was deleted and only its tombstone remains.
	ErrDeleted = errors.New("store: deleted")
	// ErrNotStore is returned when the file is not an evidence store (not bbolt, or bbolt without our meta bucket).
	ErrNotStore = errors.New("store: not an evidence store")
	// ErrFormat is returned when the store was written in a format this build does not know.
	ErrFormat = errors.New("store: unsupported store format")
	// ErrCorrupt is returned when stored bytes fail a consistency check (truncated file, bad record, hash mismatch).
	ErrCorrupt = errors.New("store: corrupt")
	// ErrLocked is returned when another process holds the store open for writing.
	ErrLocked = errors.New("store: locked by another process")
	// ErrReadOnly is returned when a write is attempted on a store opened read-only.
	ErrReadOnly = errors.New("store: opened read-only")
	// ErrRange is returned when a code-point range falls outside a text.
	ErrRange = errors.New("store: range out of bounds")
)

// HashMismatchError reports stored bytes whose BLAKE3 is not the recorded one.
type HashMismatchError struct {
	What string // what was hashed: "text of version V" or "span of chunk C"
	Want ID     // recorded hash
	Got  ID     // hash of the bytes read
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("store: %s: hash mismatch: recorded %s, read %s", e.What, e.Want.Short(), e.Got.Short())
}

// Unwrap makes a hash mismatch match ErrCorrupt.
func (e *HashMismatchError) Unwrap() error { return ErrCorrupt }
