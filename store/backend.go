package store

// Backend is the engine a DB keeps its bytes in: named buckets of keys in
// byte order, read transactions that each see one committed state, and
// write transactions that commit whole or not at all. Everything the
// store promises — record encodings and their seals, a version in one
// transaction, idempotent puts, tombstones, the indexes, verify on read —
// is built above it, once, in this package; a backend keeps bytes and
// answers in key order.
//
// The embedded default is bbolt (boltBackend); newMemoryBackend holds a
// store in memory; store/postgres keeps one in PostgreSQL. All pass
// storetest.Conformance, which every backend must.
type Backend interface {
	// Begin starts a transaction: a read transaction, whose slices are
	// valid until it ends, or the one write transaction, which the others
	// wait for. Every transaction ends with Rollback, a write transaction
	// that is to stay with Commit first. Transactions, not functions, so
	// that a read allocates nothing to call it.
	Begin(writable bool) (BackendTx, error)
	// Batch runs fn in a write transaction that it may share with other
	// concurrent calls, for many small writes; fn may run more than once
	// and must be idempotent.
	Batch(fn func(BackendTx) error) error
	Close() error
}

// BackendTx is a transaction of a Backend.
type BackendTx interface {
	// Bucket returns the named top-level bucket, or nil when there is none.
	Bucket(name []byte) Bucket
	// CreateBucketIfNotExists returns the named bucket, creating it in a
	// write transaction.
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	// ForEachBucket calls fn with the name of every top-level bucket, in
	// byte order.
	ForEachBucket(fn func(name []byte) error) error
	// ID identifies the committed state the transaction reads (bbolt's
	// transaction id): equal ids, equal contents.
	ID() uint64
	// Commit makes a write transaction's changes the committed state.
	Commit() error
	// Rollback ends the transaction, dropping what a write transaction
	// changed and did not commit; after Commit it does nothing.
	Rollback() error
}

// Fault is what a backend whose reads can fail (a database over a
// network) panics with from a method that has no error to return — Get,
// a cursor's moves, Sequence —, so that a lost connection never reads as a
// missing key. The store's guard around every transaction recovers it and
// returns Err; any other panic is raised again.
type Fault struct{ Err error }

func (f *Fault) Error() string { return f.Err.Error() }
func (f *Fault) Unwrap() error { return f.Err }

// Bucket is an ordered map of byte keys to byte values. Writes fail in a
// read transaction.
type Bucket interface {
	Get(key []byte) []byte
	Cursor() Cursor
	ForEach(fn func(k, v []byte) error) error
	Put(key, value []byte) error
	Delete(key []byte) error
	// Sequence is the bucket's counter; NextSequence increments and
	// returns it; SetSequence sets it.
	Sequence() uint64
	NextSequence() (uint64, error)
	SetSequence(v uint64) error
}

// Cursor walks a bucket in key order; each method returns the key and
// value it lands on, nil and nil past either end.
type Cursor interface {
	First() (key, value []byte)
	Last() (key, value []byte)
	Seek(key []byte) (k, v []byte) // the first key >= key
	Next() (key, value []byte)
	Prev() (key, value []byte)
}

// fillHint tells a backend that keys of b arrive in ascending order, so
// that pages can be filled to fraction f rather than split in half. A
// backend without pages ignores it.
func fillHint(b Bucket, f float64) {
	if h, ok := b.(interface{ fillPercent(float64) }); ok {
		h.fillPercent(f)
	}
}
