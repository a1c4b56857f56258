package postgres

import (
	"container/list"
	"sync"
)

// valueCache keeps large values that read transactions fetched, each with
// the rev of its row: the commit that wrote it, which names one committed
// value of the key for good (a later write of the key is a later commit).
// A read asks the database for the row's rev and sends the value only
// when rev is not the cached one, so a text read again costs its round
// trip but not its bytes, and a value written since (by any process) is
// never served from the cache: its rev differs. Only read transactions
// use it; a write transaction reads rows it may still change under the
// rev they will commit with. Bounded in bytes, least recently used out
// first. Values are shared and must not be changed (the store's are
// read-only, as bbolt's mapped ones are).
type valueCache struct {
	mu    sync.Mutex
	size  int
	m     map[string]*list.Element
	order list.List // front: most recently used
}

type cachedValue struct {
	key string
	rev int64
	val []byte
}

const (
	// cacheMin is the smallest value kept: smaller ones cost little more
	// than the round trip that checks them.
	cacheMin = 2 << 10
	// cacheBytes bounds the values kept by a process.
	cacheBytes = 64 << 20
)

// cacheKey is bucket and key, the bucket's length first.
func cacheKey(bucket, key []byte) string {
	return string(rune(len(bucket))) + string(bucket) + string(key)
}

func (c *valueCache) get(k string) (rev int64, val []byte, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return 0, nil, false
	}
	c.order.MoveToFront(e)
	cv := e.Value.(*cachedValue)
	return cv.rev, cv.val, true
}

func (c *valueCache) put(k string, rev int64, val []byte) {
	if len(val) < cacheMin || len(val) > cacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*list.Element{}
	}
	if e, ok := c.m[k]; ok {
		c.size -= len(e.Value.(*cachedValue).val)
		c.order.Remove(e)
	}
	c.m[k] = c.order.PushFront(&cachedValue{key: k, rev: rev, val: val})
	c.size += len(val)
	for c.size > cacheBytes {
		e := c.order.Back()
		cv := e.Value.(*cachedValue)
		c.order.Remove(e)
		delete(c.m, cv.key)
		c.size -= len(cv.val)
	}
}
