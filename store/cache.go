package store

import (
	"bytes"
	"sync"
)

// recordCache keeps decoded records keyed by their exact stored bytes:
// when the bytes read in a transaction equal the cached ones, the decoded
// value is the same, so a hot resolve path decodes each version and
// document header once instead of on every call. A record that changed
// (a version superseded, an access list edited) has other bytes and is
// decoded afresh, so the cache can never serve a stale value.
type recordCache[T any] struct {
	mu       sync.RWMutex
	cur, old map[string]cached[T]
}

type cached[T any] struct {
	raw []byte // nil for an immutable record
	n   int    // len(raw)
	val *T
}

// maxCached bounds each generation of a cache. When the current one is
// full it becomes the old one and a new one starts: what was read in the
// last generation is found in the old one and moved forward, so a working
// set up to maxCached survives a store far larger than the cache, with no
// bookkeeping on the read path (a cache that started over would drop the
// hot records with the cold ones).
const maxCached = 8192

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
	e, ok := c.cur[string(key)]
	if !ok {
		e, ok = c.old[string(key)]
		if ok {
			c.mu.RUnlock()
			c.mu.Lock()
			c.putLocked(key, e)
			c.mu.Unlock()
			c.mu.RLock()
		}
	}
	c.mu.RUnlock()
	if ok && e.n == len(raw) && (immutable || bytes.Equal(e.raw, raw)) {
		if immutable {
			return e.val, nil
		}
		v := *e.val // callers own the struct; its strings and slices are shared and read-only
		return &v, nil
	}
	val, err := decode(raw)
	if err != nil {
		return nil, err
	}
	e = cached[T]{n: len(raw), val: val}
	if !immutable {
		e.raw = bytes.Clone(raw)
	}
	c.mu.Lock()
	c.putLocked(key, e)
	c.mu.Unlock()
	if immutable {
		return val, nil
	}
	v := *val
	return &v, nil
}

// putLocked stores e under key in the current generation, turning a full
// one into the old one first.
func (c *recordCache[T]) putLocked(key []byte, e cached[T]) {
	if c.cur == nil || len(c.cur) >= maxCached {
		c.old, c.cur = c.cur, make(map[string]cached[T], len(c.cur))
	}
	c.cur[string(key)] = e
}
