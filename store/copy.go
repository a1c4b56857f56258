package store

import (
	"bytes"
	"fmt"
	"slices"
)

// keyCopying, in meta, marks a store that Copy is still writing: one
// left by a copy that stopped (a crash, a lost database) is refused on
// open, so that half a store is never taken for a whole one.
var keyCopying = []byte("copying")

// copyBatchBytes bounds the values one write transaction of a copy holds:
// a large store is copied in many transactions, not one held in memory.
const copyBatchBytes = 32 << 20

// CopyReport is what Copy did.
type CopyReport struct {
	Buckets int // buckets copied
	Keys    int // keys copied, in all buckets
	Bytes   int64
}

// Copy copies the store src into dst, a new store (nothing but its meta
// bucket written, as Open or OpenBackend leaves an empty one), usually of
// another backend: bbolt to PostgreSQL and back. Every bucket, key, value
// and bucket sequence is copied as it is, records and seals included,
// from one read transaction of src, so the copy is of one committed
// state; the store's rules above the backend make it the same store. dst
// is written in transactions of at most copyBatchBytes and marked as
// being copied until the last one: a copy that stops half way is refused
// on open (delete it and copy again). src must be of this build's format
// (migrate it first). Run Check on both after.
func Copy(src, dst *DB) (*CopyReport, error) {
	if src.format != FormatVersion {
		return nil, fmt.Errorf("%w: %s has format %d: run `evidence migrate` on it before copying it", ErrFormat, src.path, src.format)
	}
	if dst.readOnly {
		return nil, fmt.Errorf("%w: %s", ErrReadOnly, dst.path)
	}
	if err := dst.checkEmpty(); err != nil {
		return nil, err
	}
	if err := dst.update(func(tx BackendTx) error { return tx.Bucket(bucketMeta).Put(keyCopying, []byte{1}) }); err != nil {
		return nil, err
	}
	rep := &CopyReport{}
	err := src.view(func(stx BackendTx) error {
		var names [][]byte
		if err := stx.ForEachBucket(func(name []byte) error { names = append(names, slices.Clone(name)); return nil }); err != nil {
			return err
		}
		var dtx BackendTx
		held := 0
		commit := func() error {
			if dtx == nil {
				return nil
			}
			err := dtx.Commit()
			dtx, held = nil, 0
			return err
		}
		defer func() {
			if dtx != nil {
				dtx.Rollback()
			}
		}()
		begin := func() (err error) {
			if dtx == nil {
				dtx, err = dst.kv.Begin(true)
			}
			return err
		}
		for _, name := range names {
			sb := stx.Bucket(name)
			if err := begin(); err != nil {
				return err
			}
			db, err := dtx.CreateBucketIfNotExists(name)
			if err != nil {
				return fmt.Errorf("bucket %q: %w", name, err)
			}
			if err := db.SetSequence(sb.Sequence()); err != nil {
				return err
			}
			rep.Buckets++
			c := sb.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if bytes.Equal(name, bucketMeta) && (bytes.Equal(k, keyCopying) || bytes.Equal(k, keyFormat)) {
					continue // dst's own: its format is this build's as src's is, and it is being copied
				}
				if held >= copyBatchBytes {
					if err := commit(); err != nil {
						return err
					}
					if err := begin(); err != nil {
						return err
					}
					db = dtx.Bucket(name)
				}
				if err := db.Put(k, v); err != nil {
					return fmt.Errorf("bucket %q key %q: %w", name, k, err)
				}
				held += len(k) + len(v)
				rep.Keys++
				rep.Bytes += int64(len(v))
			}
		}
		return commit()
	})
	if err != nil {
		return nil, fmt.Errorf("store: copying %s to %s (left unfinished: delete it before copying again): %w", src.path, dst.path, err)
	}
	if err := dst.update(func(tx BackendTx) error { return tx.Bucket(bucketMeta).Delete(keyCopying) }); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkEmpty refuses a store that holds anything but its meta bucket's
// format: a copy goes into a new store only.
func (db *DB) checkEmpty() error {
	return db.view(func(tx BackendTx) error {
		return tx.ForEachBucket(func(name []byte) error {
			c := tx.Bucket(name).Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				if !bytes.Equal(name, bucketMeta) || !bytes.Equal(k, keyFormat) && !bytes.Equal(k, keySourcesSeq) {
					return fmt.Errorf("store: %s is not empty (bucket %s holds %q): copy into a new store", db.path, name, k)
				}
			}
			return nil
		})
	})
}
