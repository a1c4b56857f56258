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
	// ErrUnavailable is returned when the database a backend keeps the
	// store in cannot be reached: down, refusing connections, lost during
	// a transaction, or every pooled connection busy past the wait.
	ErrUnavailable = errors.New("store: database unavailable")
	// ErrNoSnapshot is returned by Snapshot when the store is not a bbolt
	// file (a PostgreSQL database: back that up with its own tools).
	ErrNoSnapshot = errors.New("store: no snapshot on this backend")
	// ErrReadOnly is returned when a write is attempted on a store opened read-only.
	ErrReadOnly = errors.New("store: opened read-only")
	// ErrRange is returned when a code-point range falls outside a text.
	ErrRange = errors.New("store: range out of bounds")
	// ErrChecksum is returned when a sealed record fails its CRC-32C. It
	// matches ErrCorrupt too.
	ErrChecksum = fmt.Errorf("%w: record checksum mismatch", ErrCorrupt)
	// errFault marks a panic or memory fault inside bbolt, recovered by
	// guard. It matches ErrCorrupt.
	errFault = fmt.Errorf("%w: fault reading the file", ErrCorrupt)
)

// Reasons a read was refused as corrupt, by CorruptReason: the label of the
// service's corrupt-read metric and the reason of its 500 answer.
const (
	CorruptChecksum     = "checksum"      // a sealed record failed its CRC-32C
	CorruptHashMismatch = "hash_mismatch" // a text or span failed its BLAKE3
	CorruptFault        = "fault"         // bbolt panicked or faulted on a damaged page
	CorruptMalformed    = "malformed"     // anything else: a record that does not decode, a key that names another record, a missing part
)

// CorruptReason classifies an error that matches ErrCorrupt; it returns ""
// for any other error.
func CorruptReason(err error) string {
	var hm *HashMismatchError
	switch {
	case !errors.Is(err, ErrCorrupt):
		return ""
	case errors.Is(err, ErrChecksum):
		return CorruptChecksum
	case errors.As(err, &hm):
		return CorruptHashMismatch
	case errors.Is(err, errFault):
		return CorruptFault
	}
	return CorruptMalformed
}

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
