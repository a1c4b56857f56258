package store

import (
	"hash/crc32"
	"sync"
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
// content, not place, so no write can make it stale. audit always hashes
// with BLAKE3.
//
// Like recordCache it keeps two generations, so spans read lately survive
// the turn of a full generation.
type spanChecks struct {
	mu       sync.RWMutex
	cur, old map[ID]spanSum
}

type spanSum struct {
	n   int
	crc uint32
}

// maxSpanChecks bounds a generation's memory: about 64 bytes an entry.
const maxSpanChecks = 1 << 18

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// passed reports whether b is the same as bytes that hashed to h before.
func (s *spanChecks) passed(h ID, b []byte) bool {
	s.mu.RLock()
	sum, ok := s.cur[h]
	inOld := false
	if !ok {
		sum, ok = s.old[h]
		inOld = ok
	}
	s.mu.RUnlock()
	if !ok || sum.n != len(b) || sum.crc != crc32.Checksum(b, castagnoli) {
		return false
	}
	if inOld {
		s.mu.Lock()
		s.putLocked(h, sum)
		s.mu.Unlock()
	}
	return true
}

// add remembers bytes that hashed to h.
func (s *spanChecks) add(h ID, b []byte) {
	sum := spanSum{n: len(b), crc: crc32.Checksum(b, castagnoli)}
	s.mu.Lock()
	s.putLocked(h, sum)
	s.mu.Unlock()
}

func (s *spanChecks) putLocked(h ID, sum spanSum) {
	if s.cur == nil || len(s.cur) >= maxSpanChecks {
		s.old, s.cur = s.cur, make(map[ID]spanSum, len(s.cur))
	}
	s.cur[h] = sum
}
