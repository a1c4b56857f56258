package store

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// spanChecks makes verify-on-read cheap for spans read before. The first
// read of a span in a process hashes it with BLAKE3 and compares the result
// with the chunk's recorded span hash, about a nanosecond a byte; the
// CRC-32C and length of the bytes that passed are remembered under that
// hash. A later read of a span recorded with the same hash compares the
// bytes' CRC-32C instead, which the CPU computes about twenty times faster.
// Every read is still checked: a damaged page read later (a bit flip, a
// torn write, another program writing the file) fails the check the way
// storage systems detect damage with block checksums. The entry is keyed by
// content, not place, so no write can make it stale: a deleted or replaced
// version's spans are only ever confirmed as the bytes they were. audit
// always hashes with BLAKE3.
//
// The memo is a set-associative table of 16-byte slots bounded in bytes
// (maxBytes, defaultSpanCheckBytes when zero), evicting by CLOCK within a
// set: a hit sets the slot's reference bit, and an insert into a full set
// takes the first slot, from the set's hand on, whose bit is clear,
// clearing those it passes. A span read once is the first to go, a span
// read again survives a sweep, and a store with more spans than slots keeps
// the spans read more than once rather than starting over. The table starts
// small (128 KiB) and doubles when an insert finds its set full, up to the
// bound, so nothing is evicted below it and a process that reads a few
// spans holds little.
//
// A slot is identified by the first 64 bits of the span hash (the top bit
// forced on to mark it used, the low bits choosing the set): two recorded
// hashes sharing 63 bits by chance, and a span of one of them whose bytes
// have the CRC-32C and length of the other's, is as likely as a BLAKE3
// collision of that width, and changes nothing for someone able to write
// the file, who can rewrite the recorded hash as well.
type spanChecks struct {
	maxBytes int // the table's bound in bytes; zero means defaultSpanCheckBytes

	// mu guards the table's shape and every field but a slot's reference
	// bit, which hits set under the read lock with an atomic OR.
	mu    sync.RWMutex
	sets  []spanSet
	hands []uint8 // CLOCK hand of each set
	used  int     // slots in use
}

// spanWays is the number of slots a set holds: 128 bytes, two cache lines.
const spanWays = 8

type spanSet [spanWays]spanSlot

type spanSlot struct {
	tag uint64        // the span hash's first 64 bits with the top one set; 0 is a free slot
	n   atomic.Uint32 // length of the span in bytes, and spanRef
	crc uint32        // CRC-32C of the span
}

// spanRef is the CLOCK reference bit in spanSlot.n: spans of 2 GiB and
// more are not remembered (they are hashed on every read).
const spanRef = 1 << 31

// spanSetBytes is what a set costs: its slots and its hand.
const spanSetBytes = int(unsafe.Sizeof(spanSet{})) + 1

// defaultSpanCheckBytes bounds the memo at 2^18 sets, about 32 MiB: two
// million slots, which hold all but some 0.7% of a million spans (those
// of the sets drawn more than eight times; BenchmarkSpanCheckHit).
const defaultSpanCheckBytes = 1 << 18 * spanSetBytes

// minSpanSets is the table's first size: 1024 sets, 128 KiB.
const minSpanSets = 1024

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func spanTag(h ID) uint64 { return binary.LittleEndian.Uint64(h[:8]) | 1<<63 }

// passed reports whether b is the same as bytes that hashed to h before.
func (s *spanChecks) passed(h ID, b []byte) bool {
	if len(b) >= spanRef {
		return false
	}
	crc := crc32.Checksum(b, castagnoli)
	tag := spanTag(h)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.sets) == 0 {
		return false
	}
	set := &s.sets[tag&uint64(len(s.sets)-1)]
	for i := range set {
		sl := &set[i]
		if sl.tag != tag {
			continue
		}
		n := sl.n.Load()
		if n&^spanRef != uint32(len(b)) || sl.crc != crc {
			return false
		}
		if n&spanRef == 0 {
			sl.n.Or(spanRef)
		}
		return true
	}
	return false
}

// add remembers bytes that hashed to h.
func (s *spanChecks) add(h ID, b []byte) {
	if len(b) >= spanRef {
		return
	}
	crc := crc32.Checksum(b, castagnoli)
	tag := spanTag(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sets) == 0 {
		s.resize(min(minSpanSets, s.maxSets()))
	}
	// Below the bound, a full set doubles the table rather than evict.
	for s.full(tag) && 2*len(s.sets) <= s.maxSets() {
		s.resize(2 * len(s.sets))
	}
	s.put(tag, uint32(len(b)), crc)
}

// full reports whether a slot for tag would evict another. Callers hold mu.
func (s *spanChecks) full(tag uint64) bool {
	set := &s.sets[tag&uint64(len(s.sets)-1)]
	for i := range set {
		if t := set[i].tag; t == 0 || t == tag {
			return false
		}
	}
	return true
}

// maxSets is the number of sets the bound allows, a power of two, at least one.
func (s *spanChecks) maxSets() int {
	limit := s.maxBytes
	if limit <= 0 {
		limit = defaultSpanCheckBytes
	}
	n := 1
	for 2*n*spanSetBytes <= limit && n < math.MaxInt32 {
		n *= 2
	}
	return n
}

// put stores a slot, replacing the one of the same tag, else taking a free
// one, else evicting by CLOCK. Callers hold mu.
func (s *spanChecks) put(tag uint64, n, crc uint32) {
	si := tag & uint64(len(s.sets)-1)
	set := &s.sets[si]
	free := -1
	for i := range set {
		switch set[i].tag {
		case tag:
			set[i].n.Store(n)
			set[i].crc = crc
			return
		case 0:
			if free < 0 {
				free = i
			}
		}
	}
	if free < 0 {
		// CLOCK: at most one sweep clears every bit, so the second finds one.
		h := int(s.hands[si])
		for set[h].n.Load()&spanRef != 0 {
			set[h].n.And(^uint32(spanRef))
			h = (h + 1) % spanWays
		}
		free = h
		s.hands[si] = uint8((h + 1) % spanWays)
		s.used--
	}
	set[free].tag = tag
	set[free].n.Store(n)
	set[free].crc = crc
	s.used++
}

// resize moves the slots into a table of n sets. Growing only splits a
// set in two, so no slot is lost. Callers hold mu.
func (s *spanChecks) resize(n int) {
	old := s.sets
	s.sets, s.hands, s.used = make([]spanSet, n), make([]uint8, n), 0
	for i := range old {
		for j := range old[i] {
			if sl := &old[i][j]; sl.tag != 0 {
				s.put(sl.tag, sl.n.Load(), sl.crc)
			}
		}
	}
}

// bytes returns the memory the table holds.
func (s *spanChecks) bytes() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.sets) * spanSetBytes
}
