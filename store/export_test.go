package store

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Hooks for the external tests (package store_test), which cannot import
// storetest from an internal test without an import cycle.

// Bolt returns the underlying bbolt handle.
func (db *DB) Bolt() *bolt.DB { return db.bolt }

// RawView runs fn in a read transaction of the backend, whichever it is:
// raw buckets, for tests that look under the records.
func (db *DB) RawView(fn func(BackendTx) error) error {
	tx, err := db.kv.Begin(false)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// TxID returns the id of the last committed transaction (the backend's
// BackendTx.ID).
func (db *DB) TxID() (id int) {
	_ = db.RawView(func(tx BackendTx) error { id = int(tx.ID()); return nil })
	return id
}

// HighWaterMark returns the byte size a store file must have according to
// its newest valid meta page, and the page size; ok is false when neither
// meta page is valid.
func HighWaterMark(b []byte) (need int64, pageSize int, ok bool) {
	best, ok := parseBoltMeta(b)
	ps := int(best.pageSize)
	if !ok {
		ps = os.Getpagesize()
	}
	if len(b) > ps {
		if m, ok2 := parseBoltMeta(b[ps:]); ok2 && (!ok || m.txid > best.txid) {
			best, ok = m, true
		}
	}
	return int64(best.pgid) * int64(best.pageSize), int(best.pageSize), ok
}

// Unsealed lists the JSON records and text indexes of db stored without
// their seal (as format 1 stored them).
func Unsealed(db *DB) (out []string) {
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		for _, name := range jsonBuckets {
			if b := tx.Bucket(name); b != nil {
				_ = b.ForEach(func(k, v []byte) error {
					if !isSealed(k, v) {
						out = append(out, string(name)+" "+string(k))
					}
					return nil
				})
			}
		}
		for _, r := range binaryRecords {
			_ = tx.Bucket(r.bucket).ForEach(func(k, v []byte) error {
				if len(v) == 0 || v[0] == recordV1 {
					out = append(out, fmt.Sprintf("%s %x", r.bucket, k))
				}
				return nil
			})
		}
		t := newTx(boltTx{tx}, db)
		return t.ForEachVersion(func(v *Version) error {
			if v.Status == StatusDeleted {
				return nil
			}
			txt, err := t.Text(v)
			if err != nil || (txt.blocks == nil && len(txt.b) > 0) {
				out = append(out, fmt.Sprintf("text of %s (%v)", v.ID, err))
			}
			return nil
		})
	})
	return out
}
