package store

import (
	"bytes"
	"sync"
	"sync/atomic"
	"unsafe"
)

// recordCache keeps decoded records keyed by their exact stored bytes:
// when the bytes read in a transaction equal the cached ones, the decoded
// value is the same, so a hot resolve path decodes each version and
// document header once instead of on every call. A record that changed
// (a version superseded or deleted, an access list edited) has other bytes
// and is decoded afresh, its seal checked, and replaces the entry, so the
// cache can never serve a stale value, and a hit is as trustworthy as a
// read: the bytes compared are those of the record as it is stored now,
// and the value is what their checked decode gave.
//
// The cache is bounded in bytes (maxBytes, defaultCacheBytes when zero),
// each entry counted at an estimate of what it holds (entryBytes), and
// evicts by CLOCK: a hit sets the entry's reference bit under the read
// lock; an insert that would pass the bound sweeps the entries from the
// hand, clearing set bits and evicting the first entry whose bit is clear,
// until the new one fits. A working set that fits survives any number of
// records read once passing through, where a cache that started over when
// full would drop the hot records with the cold ones.
type recordCache[T any] struct {
	maxBytes int // zero means defaultCacheBytes

	mu      sync.RWMutex
	index   map[string]int32 // key -> entries index
	entries []cacheEntry[T]  // the clock; an entry with a nil val is free
	free    []int32          // free entries
	hand    int
	bytes   int // sum of the entries' sizes
}

type cacheEntry[T any] struct {
	key  string
	raw  []byte // the stored bytes decoded; nil for an immutable record
	n    int    // len of the stored bytes
	val  *T
	size int // entryBytes
	ref  atomic.Bool
}

// defaultCacheBytes bounds each record cache: 16 MiB holds the headers of
// some 16,000 versions.
const defaultCacheBytes = 16 << 20

// entryBytes estimates the memory an entry holds: its key, the kept copy
// of the stored bytes, the decoded value (its struct, and its strings and
// slices at up to three times the stored bytes: a varint of one byte
// decodes to an int of eight) and the bookkeeping of the map and clock.
func entryBytes[T any](key, raw []byte, immutable bool) int {
	n := len(key) + int(unsafe.Sizeof(*new(T))) + 3*len(raw) + 96
	if !immutable {
		n += len(raw)
	}
	return n
}

func (c *recordCache[T]) limit() int {
	if c.maxBytes > 0 {
		return c.maxBytes
	}
	return defaultCacheBytes
}

// get returns a copy of the decoded record for key whose stored bytes are raw.
func (c *recordCache[T]) get(key, raw []byte, decode func([]byte) (*T, error)) (*T, error) {
	return c.lookup(key, raw, decode, false)
}

// getImmutable is get for a record written once under a key never reused
// (a version's layout, keyed by its sequence number and creation time): the
// stored bytes are not compared, which for the layout of a long document
// costs more than the lookup itself (only a change of length is caught),
// and the cached value itself is returned, not a copy: callers must not
// change it.
func (c *recordCache[T]) getImmutable(key, raw []byte, decode func([]byte) (*T, error)) (*T, error) {
	return c.lookup(key, raw, decode, true)
}

func (c *recordCache[T]) lookup(key, raw []byte, decode func([]byte) (*T, error), immutable bool) (*T, error) {
	c.mu.RLock()
	if i, ok := c.index[string(key)]; ok {
		e := &c.entries[i]
		if e.n == len(raw) && (immutable || bytes.Equal(e.raw, raw)) {
			if !e.ref.Load() {
				e.ref.Store(true)
			}
			val := e.val
			if !immutable {
				v := *val // callers own the struct; its strings and slices are shared and read-only
				val = &v
			}
			c.mu.RUnlock()
			return val, nil
		}
	}
	c.mu.RUnlock()
	val, err := decode(raw)
	if err != nil {
		return nil, err
	}
	var kept []byte
	if !immutable {
		kept = bytes.Clone(raw)
	}
	c.put(key, kept, len(raw), val, entryBytes[T](key, raw, immutable))
	if immutable {
		return val, nil
	}
	v := *val
	return &v, nil
}

// put stores a decoded record under key, replacing the entry of the key
// if there is one (the record changed), evicting by CLOCK until it fits.
// A record larger than the whole bound is not kept.
func (c *recordCache[T]) put(key, raw []byte, n int, val *T, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.index[string(key)]; ok {
		c.remove(i)
	}
	if size > c.limit() {
		return
	}
	for c.bytes+size > c.limit() {
		c.evict()
	}
	var i int32
	if k := len(c.free); k > 0 {
		i, c.free = c.free[k-1], c.free[:k-1]
	} else {
		c.entries = append(c.entries, cacheEntry[T]{})
		i = int32(len(c.entries) - 1)
	}
	e := &c.entries[i]
	e.key, e.raw, e.n, e.val, e.size = string(key), raw, n, val, size
	e.ref.Store(false)
	if c.index == nil {
		c.index = make(map[string]int32)
	}
	c.index[e.key] = i
	c.bytes += size
}

// evict advances the hand to the first entry whose reference bit is clear,
// clearing the bits it passes, and removes it. Callers hold mu and know
// the cache is not empty.
func (c *recordCache[T]) evict() {
	for {
		if c.hand >= len(c.entries) {
			c.hand = 0
		}
		e := &c.entries[c.hand]
		c.hand++
		if e.val == nil {
			continue
		}
		if e.ref.Load() {
			e.ref.Store(false)
			continue
		}
		c.remove(int32(c.hand - 1))
		return
	}
}

// remove frees entry i. Callers hold mu.
func (c *recordCache[T]) remove(i int32) {
	e := &c.entries[i]
	delete(c.index, e.key)
	c.bytes -= e.size
	*e = cacheEntry[T]{}
	c.free = append(c.free, i)
}

// stats returns the number of entries and the bytes they are counted at.
func (c *recordCache[T]) stats() (entries, bytes int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.index), c.bytes
}

// peek returns the record last decoded under key, without the stored
// bytes to compare: a guess at what the key holds now, good for choosing
// what to read (Tx.PrefetchChunk), never for serving. The value is shared
// and must not be changed.
func (c *recordCache[T]) peek(key []byte) *T {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if i, ok := c.index[string(key)]; ok {
		return c.entries[i].val
	}
	return nil
}
