package store

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"sync"
)

// NewMemory opens an empty store held in memory, for tests and for
// programs that verify against a store built at start. It is the second
// Backend that storetest.Conformance runs against, which keeps the seam
// between the store's rules and bbolt honest: a rule that only works on
// bbolt fails there. It has no file, so no page walk and no snapshot.
func NewMemory() (*DB, error) {
	return OpenBackend("memory", &memoryBackend{buckets: map[string]*memBucket{}}, nil)
}

// memoryBackend keeps each bucket as sorted keys and their values. Reads
// share the committed buckets under a read lock; a write transaction
// copies a bucket the first time it writes to it and, on commit, puts the
// copies in place, so a failed one leaves nothing behind. Values are
// copied in on Put and never changed after, so a slice a reader holds
// stays as it was.
type memoryBackend struct {
	mu      sync.RWMutex
	buckets map[string]*memBucket
	txid    uint64
	closed  bool
}

type memBucket struct {
	keys, vals [][]byte
	seq        uint64
}

var errMemoryClosed = errors.New("store: the memory store is closed")

func (m *memoryBackend) Begin(writable bool) (BackendTx, error) {
	if writable {
		m.mu.Lock()
	} else {
		m.mu.RLock()
	}
	tx := &memTx{m: m, writable: writable}
	if m.closed {
		tx.end()
		return nil, errMemoryClosed
	}
	if writable {
		tx.written = map[string]*memBucket{}
	}
	return tx, nil
}

// Batch runs fn in a transaction of its own.
func (m *memoryBackend) Batch(fn func(BackendTx) error) error {
	tx, err := m.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (m *memoryBackend) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

type memTx struct {
	m        *memoryBackend
	writable bool
	written  map[string]*memBucket // copies of the buckets this transaction changed
	done     bool
}

// end releases the transaction's lock, once.
func (t *memTx) end() {
	if t.done {
		return
	}
	t.done = true
	if t.writable {
		t.m.mu.Unlock()
	} else {
		t.m.mu.RUnlock()
	}
}

func (t *memTx) Commit() error {
	if t.done || !t.writable {
		return errMemoryReadOnly
	}
	for name, b := range t.written {
		t.m.buckets[name] = b
	}
	t.m.txid++
	t.end()
	return nil
}

func (t *memTx) Rollback() error {
	t.end()
	return nil
}

var errMemoryReadOnly = errors.New("store: write in a read transaction")

func (t *memTx) bucket(name string) *memBucket {
	if b, ok := t.written[name]; ok {
		return b
	}
	return t.m.buckets[name]
}

func (t *memTx) Bucket(name []byte) Bucket {
	if t.bucket(string(name)) == nil {
		return nil
	}
	return &memBucketTx{tx: t, name: string(name)}
}

func (t *memTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	if t.bucket(string(name)) == nil {
		if !t.writable {
			return nil, errMemoryReadOnly
		}
		t.written[string(name)] = &memBucket{}
	}
	return &memBucketTx{tx: t, name: string(name)}, nil
}

func (t *memTx) ForEachBucket(fn func(name []byte) error) error {
	names := map[string]bool{}
	for n := range t.m.buckets {
		names[n] = true
	}
	for n := range t.written {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if err := fn([]byte(n)); err != nil {
			return err
		}
	}
	return nil
}

func (t *memTx) ID() uint64 { return t.m.txid }

// memBucketTx is a bucket as one transaction sees it.
type memBucketTx struct {
	tx   *memTx
	name string
}

func (b *memBucketTx) read() *memBucket { return b.tx.bucket(b.name) }

// write returns the transaction's own copy of the bucket.
func (b *memBucketTx) write() (*memBucket, error) {
	if !b.tx.writable {
		return nil, errMemoryReadOnly
	}
	if w, ok := b.tx.written[b.name]; ok {
		return w, nil
	}
	c := b.tx.m.buckets[b.name]
	w := &memBucket{keys: slices.Clone(c.keys), vals: slices.Clone(c.vals), seq: c.seq}
	b.tx.written[b.name] = w
	return w, nil
}

func (mb *memBucket) find(key []byte) (int, bool) {
	return slices.BinarySearchFunc(mb.keys, key, bytes.Compare)
}

func (b *memBucketTx) Get(key []byte) []byte {
	mb := b.read()
	if i, ok := mb.find(key); ok {
		return mb.vals[i]
	}
	return nil
}

func (b *memBucketTx) Cursor() Cursor { return &memCursor{b: b.read(), i: -1} }

func (b *memBucketTx) ForEach(fn func(k, v []byte) error) error {
	mb := b.read()
	for i := range mb.keys {
		if err := fn(mb.keys[i], mb.vals[i]); err != nil {
			return err
		}
	}
	return nil
}

func (b *memBucketTx) Put(key, value []byte) error {
	if len(key) == 0 {
		return errors.New("store: empty key")
	}
	mb, err := b.write()
	if err != nil {
		return err
	}
	v := bytes.Clone(value)
	if v == nil {
		v = []byte{}
	}
	i, ok := mb.find(key)
	if ok {
		mb.vals[i] = v
		return nil
	}
	mb.keys = slices.Insert(mb.keys, i, bytes.Clone(key))
	mb.vals = slices.Insert(mb.vals, i, v)
	return nil
}

func (b *memBucketTx) Delete(key []byte) error {
	mb, err := b.write()
	if err != nil {
		return err
	}
	if i, ok := mb.find(key); ok {
		mb.keys = slices.Delete(mb.keys, i, i+1)
		mb.vals = slices.Delete(mb.vals, i, i+1)
	}
	return nil
}

func (b *memBucketTx) Sequence() uint64 { return b.read().seq }

func (b *memBucketTx) NextSequence() (uint64, error) {
	mb, err := b.write()
	if err != nil {
		return 0, err
	}
	mb.seq++
	return mb.seq, nil
}

func (b *memBucketTx) SetSequence(v uint64) error {
	mb, err := b.write()
	if err != nil {
		return err
	}
	mb.seq = v
	return nil
}

// memCursor walks one state of a bucket; like bbolt's, it is not to be
// used after a write to its bucket.
type memCursor struct {
	b *memBucket
	i int
}

func (c *memCursor) at() ([]byte, []byte) {
	if c.i < 0 || c.i >= len(c.b.keys) {
		c.i = max(-1, min(c.i, len(c.b.keys)))
		return nil, nil
	}
	return c.b.keys[c.i], c.b.vals[c.i]
}

func (c *memCursor) First() ([]byte, []byte) { c.i = 0; return c.at() }
func (c *memCursor) Last() ([]byte, []byte)  { c.i = len(c.b.keys) - 1; return c.at() }
func (c *memCursor) Next() ([]byte, []byte)  { c.i++; return c.at() }
func (c *memCursor) Prev() ([]byte, []byte) {
	if c.i >= len(c.b.keys) {
		c.i = len(c.b.keys)
	}
	c.i--
	return c.at()
}

func (c *memCursor) Seek(key []byte) ([]byte, []byte) {
	c.i, _ = c.b.find(key)
	return c.at()
}
