package store

import (
	"bytes"
	"fmt"
)

// Judgment returns a copy of the model judge verdict stored under key, and
// whether there is one. The key and the verdict's encoding are the
// verifier's (verify.CachedJudge); the store keeps them as opaque bytes.
// A store opened read-only that predates the judgments bucket has none.
func (db *DB) Judgment(key []byte) (verdict []byte, ok bool, err error) {
	err = db.view(func(tx BackendTx) error {
		b := tx.Bucket(bucketJudgments)
		if b == nil {
			return nil
		}
		if v := b.Get(key); v != nil {
			verdict, ok = bytes.Clone(v), true
		}
		return nil
	})
	return verdict, ok, err
}

// PutJudgment stores a model judge verdict under key, replacing any
// stored before. Concurrent calls share one commit (bbolt's Batch).
func (db *DB) PutJudgment(key, verdict []byte) error {
	if db.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, db.path)
	}
	return db.guard(func() error {
		return db.kv.Batch(func(tx BackendTx) error { return tx.Bucket(bucketJudgments).Put(key, verdict) })
	})
}
