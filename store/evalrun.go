package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Evaluation runs (`evidence eval run`, docs/eval.md) are kept in the
// evalruns bucket, one JSON run record under its run id. The record's
// encoding is the evaluation harness's (verify/eval); the store keeps it as
// opaque bytes and checks only that it is JSON. Run ids begin with their
// time in milliseconds, as trace ids do, so records sit in time order.

// PutEvalRun stores an evaluation run record under its id. A record is
// written once: storing another record under a stored id is an error, the
// same record again changes nothing.
func (db *DB) PutEvalRun(id string, record []byte) error {
	switch {
	case db.readOnly:
		return fmt.Errorf("%w: %s", ErrReadOnly, db.path)
	case id == "":
		return fmt.Errorf("store: evaluation run with an empty id")
	case !json.Valid(record):
		return fmt.Errorf("store: evaluation run %s: the record is not JSON", id)
	}
	return db.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvalRuns)
		b.FillPercent = 0.95 // ids grow with time, as traces'
		if old := b.Get([]byte(id)); old != nil {
			if bytes.Equal(old, record) {
				return nil
			}
			return fmt.Errorf("store: evaluation run %s is already stored, with another record", id)
		}
		return b.Put([]byte(id), record)
	})
}

// EvalRun returns a copy of a stored evaluation run record. A store opened
// read-only that predates the evalruns bucket has none.
func (t *Tx) EvalRun(id string) ([]byte, error) {
	var v []byte
	if b := t.tx.Bucket(bucketEvalRuns); b != nil {
		v = b.Get([]byte(id))
	}
	if v == nil {
		return nil, fmt.Errorf("%w: evaluation run %q", ErrNotFound, id)
	}
	return bytes.Clone(v), nil
}

// ForEachEvalRun calls fn with every stored evaluation run, oldest first
// (id order). The id and record point into the mapped file and are valid
// only during fn; an error from fn stops the scan and is returned.
func (t *Tx) ForEachEvalRun(fn func(id, record []byte) error) error {
	b := t.tx.Bucket(bucketEvalRuns)
	if b == nil {
		return nil
	}
	return b.ForEach(fn)
}

// checkEvalRuns reports run records that are not JSON.
func checkEvalRuns(t *Tx, add func(Finding)) {
	_ = t.ForEachEvalRun(func(id, rec []byte) error {
		if !json.Valid(rec) {
			add(Finding{Kind: "record", Detail: fmt.Sprintf("evaluation run %q: the record is not JSON", id)})
		}
		return nil
	})
}
