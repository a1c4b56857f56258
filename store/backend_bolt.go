package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// boltBackend is the embedded Backend: one bbolt file. What only a file
// can do — the page walk of the audit, the hot-backup snapshot, the meta
// page preflight — reads the file or the *bolt.DB directly (db.bolt).
type boltBackend struct{ db *bolt.DB }

func (b boltBackend) Begin(writable bool) (BackendTx, error) {
	tx, err := b.db.Begin(writable)
	if err != nil {
		return nil, err
	}
	return boltTx{tx}, nil
}

func (b boltBackend) Batch(fn func(BackendTx) error) error {
	return b.db.Batch(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (b boltBackend) Close() error { return b.db.Close() }

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) Bucket(name []byte) Bucket {
	if b := t.tx.Bucket(name); b != nil {
		return boltBucket{b}
	}
	return nil // a nil interface, not a boltBucket holding nil
}

func (t boltTx) CreateBucketIfNotExists(name []byte) (Bucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	return boltBucket{b}, nil
}

// ForEachBucket refuses a top level that holds a value: bbolt keeps only
// buckets there, so a damaged element flag made it.
func (t boltTx) ForEachBucket(fn func(name []byte) error) error {
	c := t.tx.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			return fmt.Errorf("%w: the top level holds a value %q, not a bucket", ErrCorrupt, k)
		}
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}

func (t boltTx) ID() uint64 { return uint64(t.tx.ID()) }

func (t boltTx) Commit() error { return t.tx.Commit() }

func (t boltTx) Rollback() error {
	if t.tx.DB() == nil {
		return nil // committed or rolled back already
	}
	return t.tx.Rollback()
}

// boltBucket is one pointer, so that it goes into an interface without an
// allocation.
type boltBucket struct{ b *bolt.Bucket }

func (b boltBucket) Get(key []byte) []byte                    { return b.b.Get(key) }
func (b boltBucket) Cursor() Cursor                           { return b.b.Cursor() }
func (b boltBucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }
func (b boltBucket) Put(key, value []byte) error              { return b.b.Put(key, value) }
func (b boltBucket) Delete(key []byte) error                  { return b.b.Delete(key) }
func (b boltBucket) Sequence() uint64                         { return b.b.Sequence() }
func (b boltBucket) NextSequence() (uint64, error)            { return b.b.NextSequence() }
func (b boltBucket) SetSequence(v uint64) error               { return b.b.SetSequence(v) }
func (b boltBucket) fillPercent(f float64)                    { b.b.FillPercent = f }
