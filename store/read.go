package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	bolt "go.etcd.io/bbolt"
	"strconv"
)

// Tx is a read transaction. Values it returns that are byte slices or Texts
// point into the mapped file and are valid only until the transaction ends.
//
// Records returned by Tx share their strings and slices with a cache of
// decoded records: treat them as read-only.
type Tx struct {
	tx BackendTx
	db *DB
	// bolt is tx's bbolt transaction when the backend is bbolt: the point
	// lookups of the hot path go to it directly, since a key handed to an
	// interface method escapes to the heap (two allocations a resolve).
	bolt *bolt.Tx
	// The hot buckets, opened once per transaction, and a cursor for each
	// bucket read more than once: bbolt's Bucket.Get opens the bucket and
	// grows a new cursor stack on every call, which was a third of a
	// verification's allocations. A single read (one resolve) goes through
	// Get, which allocates less than a cursor kept for reuse.
	buckets [numHot]*bolt.Bucket
	cursors [numHot]*bolt.Cursor
	// The same for another backend, whose point reads go through Get:
	// a database server answers a point query more cheaply than a
	// cursor's range, and a key a Prefetcher found absent without one.
	kvBuckets [numHot]Bucket
}

// newTx wraps a backend transaction.
func newTx(tx BackendTx, db *DB) *Tx {
	t := &Tx{tx: tx, db: db}
	if b, ok := tx.(boltTx); ok {
		t.bolt = b.tx
	}
	return t
}

// The buckets point lookups read, indexes into Tx.buckets.
const (
	hotDocs = iota
	hotVersions
	hotTexts
	hotLayouts
	hotChunks
	numHot
)

var hotBuckets = [numHot][]byte{hotDocs: bucketDocs, hotVersions: bucketVersions, hotTexts: bucketTexts,
	hotLayouts: bucketLayouts, hotChunks: bucketChunks}

// get returns the value stored under key in a hot bucket, or nil.
func (t *Tx) get(bucket int, key []byte) []byte {
	if t.bolt == nil {
		return t.getKV(bucket, bytes.Clone(key)) // the clone escapes, not key
	}
	if c := t.cursors[bucket]; c != nil {
		k, v := c.Seek(key)
		if !bytes.Equal(k, key) {
			return nil
		}
		return v
	}
	if b := t.buckets[bucket]; b != nil {
		t.cursors[bucket] = b.Cursor() // the second read: keep a cursor
		return t.get(bucket, key)
	}
	b := t.bolt.Bucket(hotBuckets[bucket])
	t.buckets[bucket] = b
	return b.Get(key)
}

// getKV is get through the Backend interface.
func (t *Tx) getKV(bucket int, key []byte) []byte {
	if b := t.kvBuckets[bucket]; b != nil {
		return b.Get(key)
	}
	b := t.tx.Bucket(hotBuckets[bucket])
	if b == nil {
		return nil // no bucket yet (a read replica that has not replayed the store's making): nothing stored
	}
	t.kvBuckets[bucket] = b
	return b.Get(key)
}

// Document returns the document record.
func (t *Tx) Document(id string) (*Document, error) {
	v := t.get(hotDocs, []byte(id))
	if v == nil {
		return nil, fmt.Errorf("%w: document %q", ErrNotFound, id)
	}
	doc, err := t.db.docs.get([]byte(id), v, decodeDocument)
	if err != nil {
		return nil, fmt.Errorf("document %q: %w", id, err)
	}
	if doc.ID != id {
		return nil, keyErr("document", []byte(id), doc.ID)
	}
	return doc, nil
}

// Version returns the version header, tombstones included.
func (t *Tx) Version(id string) (*Version, error) {
	v := t.get(hotVersions, []byte(id))
	if v == nil {
		return nil, fmt.Errorf("%w: version %q", ErrNotFound, id)
	}
	ver, err := t.db.versions.get([]byte(id), v, decodeVersion)
	if err != nil {
		return nil, fmt.Errorf("version %s: %w", id, err)
	}
	if ver.ID != id {
		return nil, keyErr("version", []byte(id), ver.ID)
	}
	return ver, nil
}

// keyErr reports a record stored under the key of another: the record is
// sealed, so its key was damaged, or the record was written there by
// mistake; either way it is not the one asked for.
func keyErr(what string, key []byte, holds string) error {
	return fmt.Errorf("%w: %s key %q holds the record of %q", ErrCorrupt, what, key, holds)
}

func deletedErr(v *Version) error {
	return fmt.Errorf("%w: version %s of %q", ErrDeleted, v.ID, v.DocumentID)
}

// Layout returns a version's page map and sections. The layout is shared
// with a cache: read it, never change it.
func (t *Tx) Layout(v *Version) (*Layout, error) {
	if v.Status == StatusDeleted {
		return nil, deletedErr(v)
	}
	k := seqKey(v.Seq)
	b := t.get(hotLayouts, k)
	if b == nil {
		return nil, fmt.Errorf("%w: layout of version %s is missing", ErrCorrupt, v.ID)
	}
	// A layout is written once with its version's content; a tombstoned
	// version stored again reuses its sequence number with a new creation
	// time, so the cache key holds both.
	var ck [16]byte
	copy(ck[:8], k)
	binary.BigEndian.PutUint64(ck[8:], uint64(v.Created.UnixNano()))
	l, err := t.db.layouts.getImmutable(ck[:], b, decodeLayout)
	if err != nil {
		return nil, fmt.Errorf("layout of version %s: %w", v.ID, err)
	}
	return l, nil
}

// Text returns a version's canonical text with its code-point index, without
// reading it whole or verifying its hash (see VerifyText). Valid for the
// life of the transaction.
func (t *Tx) Text(v *Version) (Text, error) {
	if v.Status == StatusDeleted {
		return Text{}, deletedErr(v)
	}
	// One value holds the text and, after it, its code-point index: one
	// read instead of two on the resolve path.
	b := t.get(hotTexts, seqKey(v.Seq))
	if b == nil {
		return Text{}, fmt.Errorf("%w: text of version %s is missing", ErrCorrupt, v.ID)
	}
	if len(b) < v.TextBytes+8 {
		return Text{}, fmt.Errorf("%w: text of version %s has %d bytes with its index, recorded %d without", ErrCorrupt, v.ID, len(b), v.TextBytes)
	}
	txt, err := loadText(b[:v.TextBytes:v.TextBytes], b[v.TextBytes:])
	if err != nil {
		return Text{}, fmt.Errorf("text of version %s: %w", v.ID, err)
	}
	if txt.Len() != v.TextLen {
		return Text{}, fmt.Errorf("%w: text of version %s has %d code points, recorded %d", ErrCorrupt, v.ID, txt.Len(), v.TextLen)
	}
	return txt, nil
}

// Span returns the bytes of a servable chunk's span after checking them
// against the chunk's recorded hash (verify on read): a mismatch is an
// error, never served. Valid for the life of the transaction.
func (t *Tx) Span(v *Version, c *Chunk) ([]byte, error) {
	if v.Status == StatusDeleted {
		return nil, deletedErr(v)
	}
	b := t.get(hotTexts, seqKey(v.Seq))
	if len(b) < v.TextBytes {
		return nil, fmt.Errorf("%w: text of version %s is missing or short", ErrCorrupt, v.ID)
	}
	if c.ByteStart < 0 || c.ByteEnd < c.ByteStart || c.ByteEnd > v.TextBytes {
		return nil, fmt.Errorf("%w: chunk %s: byte range [%d, %d) outside a %d-byte text", ErrCorrupt, c.ID(), c.ByteStart, c.ByteEnd, v.TextBytes)
	}
	span := b[c.ByteStart:c.ByteEnd:c.ByteEnd]
	if t.db.spans.passed(c.SpanHash, span) {
		return span, nil
	}
	if got := Hash(span); got != c.SpanHash {
		return nil, &HashMismatchError{What: "span of chunk " + c.ID(), Want: c.SpanHash, Got: got}
	}
	t.db.spans.add(c.SpanHash, span)
	return span, nil
}

// VerifyText hashes the whole text and compares it with the recorded hash.
func VerifyText(v *Version, txt Text) error {
	if got := Hash(txt.Bytes()); got != v.TextHash {
		return &HashMismatchError{What: "text of version " + v.ID, Want: v.TextHash, Got: got}
	}
	return nil
}

// Chunk returns the record of one chunk of a version.
func (t *Tx) Chunk(v *Version, ordinal uint32) (*Chunk, error) {
	if v.Status == StatusDeleted {
		return nil, deletedErr(v)
	}
	b := t.get(hotChunks, chunkKey(v.Seq, ordinal))
	if b == nil {
		return nil, fmt.Errorf("%w: chunk %s", ErrNotFound, ChunkID(v.ID, ordinal))
	}
	c, err := decodeChunk(b)
	if err != nil {
		return nil, fmt.Errorf("chunk %s: %w", ChunkID(v.ID, ordinal), err)
	}
	if c.Version != v.ID || c.Ordinal != ordinal {
		return nil, fmt.Errorf("%w: chunk key %s holds chunk %s", ErrCorrupt, ChunkID(v.ID, ordinal), c.ID())
	}
	return c, nil
}

// ForEachDocument calls fn for every document in id order.
func (t *Tx) ForEachDocument(fn func(*Document) error) error {
	return t.tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		doc, err := decodeDocument(v)
		if err != nil {
			return fmt.Errorf("document %q: %w", k, err)
		}
		if doc.ID != string(k) {
			return keyErr("document", k, doc.ID)
		}
		return fn(doc)
	})
}

// ForEachVersion calls fn for every version header, tombstones included, in id order.
func (t *Tx) ForEachVersion(fn func(*Version) error) error {
	return t.tx.Bucket(bucketVersions).ForEach(func(k, v []byte) error {
		ver, err := decodeVersion(v)
		if err != nil {
			return fmt.Errorf("version %s: %w", k, err)
		}
		if ver.ID != string(k) {
			return keyErr("version", k, ver.ID)
		}
		return fn(ver)
	})
}

// ForEachChunk calls fn for every chunk of a version in ordinal order:
// ordinals 0 to the header's count less one, each once, or an error that
// matches ErrCorrupt, so that a damaged key cannot leave a chunk out of an
// export unnoticed.
func (t *Tx) ForEachChunk(v *Version, fn func(*Chunk) error) error {
	if v.Status == StatusDeleted {
		return deletedErr(v)
	}
	prefix := seqKey(v.Seq)
	c := t.tx.Bucket(bucketChunks).Cursor()
	next := uint32(0)
	for k, b := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, b = c.Next() {
		if len(k) != 12 {
			return fmt.Errorf("%w: chunk key %x of %d bytes", ErrCorrupt, k, len(k))
		}
		ord := binary.BigEndian.Uint32(k[8:])
		if ord != next || int(ord) >= v.Chunks {
			return fmt.Errorf("%w: chunk %s where chunk %d of %d was expected", ErrCorrupt, ChunkID(v.ID, ord), next, v.Chunks)
		}
		next++
		ch, err := decodeChunk(b)
		if err != nil {
			return fmt.Errorf("chunk %s: %w", ChunkID(v.ID, ord), err)
		}
		if ch.Version != v.ID || ch.Ordinal != ord {
			return keyErr("chunk", []byte(ChunkID(v.ID, ord)), ch.ID())
		}
		if err := fn(ch); err != nil {
			return err
		}
	}
	if int(next) != v.Chunks {
		return fmt.Errorf("%w: version %s has %d chunk records, its header says %d", ErrCorrupt, v.ID, next, v.Chunks)
	}
	return nil
}

// ForEachQuarantined calls fn for every quarantined chunk of the store, in
// version-sequence then ordinal order, with the chunk's version.
func (t *Tx) ForEachQuarantined(fn func(*Version, *Chunk) error) error {
	return t.forEachIndexed(bucketQuarantine, "quarantine", func(c *Chunk) bool { return c.Quarantine != nil }, fn)
}

// ForEachRepaired calls fn for every re-anchored chunk of the store, in
// version-sequence then ordinal order, with the chunk's version.
func (t *Tx) ForEachRepaired(fn func(*Version, *Chunk) error) error {
	return t.forEachIndexed(bucketRepaired, "repair", func(c *Chunk) bool { return c.Repair != nil }, fn)
}

// forEachIndexed walks an index bucket of chunk keys; every chunk it names
// must exist and satisfy has, or the index is corrupt.
func (t *Tx) forEachIndexed(index []byte, what string, has func(*Chunk) bool, fn func(*Version, *Chunk) error) error {
	var ver *Version
	var seq uint64
	chunks := t.tx.Bucket(bucketChunks)
	return t.tx.Bucket(index).ForEach(func(k, _ []byte) error {
		if len(k) != 12 {
			return fmt.Errorf("%w: %s index key of %d bytes", ErrCorrupt, what, len(k))
		}
		b := chunks.Get(k)
		if b == nil {
			return fmt.Errorf("%w: %s index names a missing chunk", ErrCorrupt, what)
		}
		ch, err := decodeChunk(b)
		if err != nil {
			return err
		}
		if !has(ch) {
			return fmt.Errorf("%w: %s index names chunk %s, which has no %s record", ErrCorrupt, what, ch.ID(), what)
		}
		if s := binary.BigEndian.Uint64(k); ver == nil || s != seq {
			if ver, err = t.Version(ch.Version); err != nil {
				return err
			}
			seq = s
		}
		if ver.Seq != seq || ch.Ordinal != binary.BigEndian.Uint32(k[8:]) {
			return fmt.Errorf("%w: chunk key %x holds chunk %s of sequence %d", ErrCorrupt, k, ch.ID(), ver.Seq)
		}
		return fn(ver, ch)
	})
}

// ForEachFailure calls fn for every recorded failed ingest.
func (t *Tx) ForEachFailure(fn func(*Failure) error) error {
	return t.tx.Bucket(bucketFailures).ForEach(func(k, v []byte) error {
		f, err := decodeFailure(k, v)
		if err != nil {
			return err
		}
		return fn(f)
	})
}

// decodeFailure decodes the failure record v stored under key k, which
// must be its document id (its path when it has none).
func decodeFailure(k, v []byte) (*Failure, error) {
	j, err := openJSON("failure record "+strconv.Quote(string(k)), k, v)
	if err != nil {
		return nil, err
	}
	var f Failure
	if err := json.Unmarshal(j, &f); err != nil {
		return nil, fmt.Errorf("%w: failure record %q: %v", ErrCorrupt, k, err)
	}
	if key := cmp.Or(f.DocumentID, f.Path); key != string(k) {
		return nil, fmt.Errorf("%w: failure key %q holds the failure of %q", ErrCorrupt, k, key)
	}
	return &f, nil
}

// Trace returns a copy of a stored verification trace.
func (t *Tx) Trace(id string) ([]byte, error) {
	b := t.tx.Bucket(bucketTraces).Get([]byte(id))
	if b == nil {
		return nil, fmt.Errorf("%w: trace %q", ErrNotFound, id)
	}
	j, err := openTrace([]byte(id), b)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(j), nil
}

// openTrace returns the JSON of the trace b stored under id, its seal
// checked.
func openTrace(id, b []byte) ([]byte, error) {
	return openJSON("trace "+strconv.Quote(string(id)), id, b)
}

func openTraceSummary(id, b []byte) ([]byte, error) {
	return openJSON("summary of trace "+strconv.Quote(string(id)), id, b)
}

// ForEachTrace calls fn with every stored trace whose id is from or after
// from, in id order: trace ids begin with their time in milliseconds, so a
// scan of recent traces seeks rather than reads them all. The id and trace
// point into the mapped file and are valid only during fn; an error from fn
// stops the scan and is returned.
func (t *Tx) ForEachTrace(from string, fn func(id, trace []byte) error) error {
	c := t.tx.Bucket(bucketTraces).Cursor()
	for k, v := c.Seek([]byte(from)); k != nil; k, v = c.Next() {
		j, err := openTrace(k, v)
		if err != nil {
			return err
		}
		if err := fn(k, j); err != nil {
			return err
		}
	}
	return nil
}

// ForEachTraceSummary calls fn with every stored trace whose id is from or
// after from, in id order, with its summary (nil when it was stored
// without one, or before summaries were). The trace is read, and its seal
// checked, only when fn calls trace: a summary leaves its pages alone.
// What ForEachTrace says of the bytes and of fn's error holds.
func (t *Tx) ForEachTraceSummary(from string, fn func(id, summary []byte, trace func() ([]byte, error)) error) error {
	return t.traceSummaries(from, false, fn)
}

// ForEachTraceSummaryBefore is ForEachTraceSummary backwards: every trace
// whose id is before before, newest (greatest id) first.
func (t *Tx) ForEachTraceSummaryBefore(before string, fn func(id, summary []byte, trace func() ([]byte, error)) error) error {
	return t.traceSummaries(before, true, fn)
}

// traceSummaries walks the traces and their summaries side by side, each
// with its own cursor: one seek each, then steps.
func (t *Tx) traceSummaries(bound string, backward bool, fn func(id, summary []byte, trace func() ([]byte, error)) error) error {
	c := t.tx.Bucket(bucketTraces).Cursor()
	var sc Cursor
	if b := t.tx.Bucket(bucketTraceSummaries); b != nil { // absent in a store opened read-only before it existed
		sc = b.Cursor()
	}
	seek := func(c Cursor) ([]byte, []byte) {
		k, v := c.Seek([]byte(bound))
		if !backward {
			return k, v
		}
		if k == nil {
			return c.Last()
		}
		return c.Prev()
	}
	step, ahead := Cursor.Next, func(a, b []byte) bool { return bytes.Compare(a, b) < 0 }
	if backward {
		step, ahead = Cursor.Prev, func(a, b []byte) bool { return bytes.Compare(a, b) > 0 }
	}
	var sk, sv []byte
	if sc != nil {
		sk, sv = seek(sc)
	}
	for k, v := seek(c); k != nil; k, v = step(c) {
		for sk != nil && ahead(sk, k) { // a summary without its trace: skipped
			sk, sv = step(sc)
		}
		var summary []byte
		if sk != nil && bytes.Equal(sk, k) {
			var err error
			if summary, err = openTraceSummary(sk, sv); err != nil {
				return err
			}
		}
		k, v := k, v
		if err := fn(k, summary, func() ([]byte, error) { return openTrace(k, v) }); err != nil {
			return err
		}
	}
	return nil
}

// Sequence returns the store's version sequence: how many versions were
// ever written. A trace records it as the store state it saw.
func (t *Tx) Sequence() uint64 { return t.tx.Bucket(bucketVersions).Sequence() }
