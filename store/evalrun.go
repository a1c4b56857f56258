package store

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	return db.update(func(tx BackendTx) error {
		b := tx.Bucket(bucketEvalRuns)
		fillHint(b, 0.95) // ids grow with time, as traces'
		if old := b.Get([]byte(id)); old != nil {
			if j, err := openEvalRun([]byte(id), old); err == nil && bytes.Equal(j, record) {
				return nil
			}
			return fmt.Errorf("store: evaluation run %s is already stored, with another record", id)
		}
		return b.Put([]byte(id), sealJSON([]byte(id), record))
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
	j, err := openEvalRun([]byte(id), v)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(j), nil
}

// openEvalRun returns the JSON of the run record v stored under id, its
// seal checked.
func openEvalRun(id, v []byte) ([]byte, error) {
	return openJSON(fmt.Sprintf("evaluation run %q", id), id, v)
}

// ForEachEvalRun calls fn with every stored evaluation run, oldest first
// (id order). The id and record point into the mapped file and are valid
// only during fn; an error from fn stops the scan and is returned.
func (t *Tx) ForEachEvalRun(fn func(id, record []byte) error) error {
	b := t.tx.Bucket(bucketEvalRuns)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		j, err := openEvalRun(k, v)
		if err != nil {
			return err
		}
		return fn(k, j)
	})
}

// checkEvalRuns reports run records that fail their seal or are not JSON.
func checkEvalRuns(t *Tx, add func(Finding)) {
	b := t.tx.Bucket(bucketEvalRuns)
	if b == nil {
		return
	}
	_ = b.ForEach(func(id, v []byte) error {
		j, err := openEvalRun(id, v)
		switch {
		case err != nil:
			add(Finding{Kind: decodeKind("record", err), Detail: err.Error()})
		case !json.Valid(j):
			add(Finding{Kind: "record", Detail: fmt.Sprintf("evaluation run %q: the record is not JSON", id)})
		}
		return nil
	})
}
