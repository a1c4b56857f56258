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
	raw []byte
	val *T
}

// maxCached bounds each cache; when full it starts over, which is cheap and
// keeps memory bounded without bookkeeping on the read path.
const maxCached = 8192

// get returns a copy of the decoded record for key whose stored bytes are raw.
func (c *recordCache[T]) get(key, raw []byte, decode func([]byte) (*T, error)) (*T, error) {
	c.mu.RLock()
	e, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok && bytes.Equal(e.raw, raw) {
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
	c.m[string(key)] = cached[T]{raw: bytes.Clone(raw), val: val}
	c.mu.Unlock()
	v := *val
	return &v, nil
}
