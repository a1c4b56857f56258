package store

import (
	"os"

	bolt "go.etcd.io/bbolt"
)

// Hooks for the external tests (package store_test), which cannot import
// storetest from an internal test without an import cycle.

// Bolt returns the underlying bbolt handle.
func (db *DB) Bolt() *bolt.DB { return db.bolt }

// TxID returns the id of the last committed bbolt transaction.
func (db *DB) TxID() (id int) {
	_ = db.bolt.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
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
