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
	mu sync.RWMutex
	m  map[string]cached[T]
}

type cached[T any] struct {
	raw []byte // nil for an immutable record
	n   int    // len(raw)
	val *T
}

// maxCached bounds each cache; when full it starts over, which is cheap and
// keeps memory bounded without bookkeeping on the read path.
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
	e, ok := c.m[string(key)]
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
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[string]cached[T])
	}
	e = cached[T]{n: len(raw), val: val}
	if !immutable {
		e.raw = bytes.Clone(raw)
	}
	c.m[string(key)] = e
	c.mu.Unlock()
	if immutable {
		return val, nil
	}
	v := *val
	return &v, nil
}
