package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// MigrateReport is what Migrate did.
type MigrateReport struct {
	From, To int
	// Sealed counts the records given their seal, by bucket; Texts the
	// code-point indexes given their block checksums and seal.
	Sealed map[string]int
	Texts  int
}

// jsonBuckets hold JSON records sealed since format 2 (jsonrecord.go),
// each keyed as the seal's key.
var jsonBuckets = [][]byte{bucketFailures, bucketTraces, bucketTraceSummaries, bucketReviews, bucketEvalRuns}

// Migrate upgrades the store at path to FormatVersion in place, in one
// transaction: a crash or a full disk leaves the store as it was. A store
// of this format already is left alone (From == To). The store must audit
// clean first (Check): migrating seals records, and sealing damage would
// pass it off as sound.
//
// From format 1: every JSON record is sealed, every binary record of
// record version 1 is written again as the current version (which has a
// seal), and every text's code-point index gets its block checksums and
// seal, after the text is checked against its recorded BLAKE3 and the
// index against one built afresh.
func Migrate(path string, opts *Options) (*MigrateReport, error) {
	return MigrateWith(path, func(o *Options) (*DB, error) { return Open(path, o) }, opts)
}

// MigrateWith is Migrate for a store that open opens, named name in
// messages: a backend other than a bbolt file. open must pass the options
// it is given on to Open or OpenBackend.
func MigrateWith(name string, open func(*Options) (*DB, error), opts *Options) (*MigrateReport, error) {
	path := name
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.ReadOnly {
		return nil, fmt.Errorf("%w: %s: a migration writes", ErrReadOnly, path)
	}
	// The audit runs on a read-only open, which writes nothing: a store
	// that fails it is left exactly as it was.
	ro := o
	ro.ReadOnly = true
	db, err := open(&ro)
	if err != nil {
		return nil, err
	}
	rep := &MigrateReport{From: db.format, To: FormatVersion, Sealed: map[string]int{}}
	if db.format == FormatVersion {
		return rep, db.Close()
	}
	findings, err := db.Check()
	db.Close()
	if err != nil {
		return nil, err
	}
	if len(findings) > 0 {
		return nil, fmt.Errorf("%w: %s: the audit has %d findings (the first: %s); a damaged store is not migrated: repair or rebuild it first", ErrCorrupt, path, len(findings), findings[0])
	}
	o.migrating = true
	if db, err = open(&o); err != nil {
		return nil, err
	}
	defer db.Close()
	err = db.update(func(tx BackendTx) error {
		for _, name := range jsonBuckets {
			n, err := resealBucket(tx.Bucket(name), sealJSONRecord)
			if err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
			rep.Sealed[string(name)] = n
		}
		for _, r := range binaryRecords {
			n, err := resealBucket(tx.Bucket(r.bucket), sealBinaryRecord(r.reseal))
			if err != nil {
				return fmt.Errorf("bucket %s: %w", r.bucket, err)
			}
			rep.Sealed[string(r.bucket)] = n
		}
		n, err := sealTexts(newTx(tx, db))
		if err != nil {
			return err
		}
		rep.Texts = n
		return tx.Bucket(bucketMeta).Put(keyFormat, binary.BigEndian.AppendUint32(nil, FormatVersion))
	})
	if err != nil {
		return nil, err
	}
	db.format = FormatVersion
	return rep, nil
}

// resealBucket stores reseal's form of every record of b that needs one
// (reseal returns nil for a record sealed already). bbolt's cursors may
// not outlive a Put, so it reads a batch of records, writes them, and
// seeks again to the first key it did not read.
func resealBucket(b Bucket, reseal func(k, v []byte) ([]byte, error)) (int, error) {
	if b == nil {
		return 0, nil
	}
	type record struct{ k, v []byte }
	sealed := 0
	var from []byte // nil: the first key
	for {
		var batch []record
		c := b.Cursor()
		k, v := c.First()
		if from != nil {
			k, v = c.Seek(from)
		}
		for ; k != nil && len(batch) < 1024; k, v = c.Next() {
			nv, err := reseal(k, v)
			if err != nil {
				return sealed, fmt.Errorf("record %q: %w", k, err)
			}
			if nv != nil {
				batch = append(batch, record{slices.Clone(k), nv})
			}
		}
		from = slices.Clone(k) // the first key not read; nil at the end
		for _, r := range batch {
			if err := b.Put(r.k, r.v); err != nil {
				return sealed, err
			}
		}
		sealed += len(batch)
		if from == nil {
			return sealed, nil
		}
	}
}

// sealJSONRecord is resealBucket's function for JSON records.
func sealJSONRecord(k, v []byte) ([]byte, error) {
	if isSealed(k, v) {
		return nil, nil
	}
	j, err := openJSON("JSON record", k, v)
	if err != nil {
		return nil, err
	}
	return sealJSON(k, j), nil
}

// binaryRecords are the buckets of binary records (record.go), each with
// what re-encodes a record of version 1, the one without a seal.
var binaryRecords = []struct {
	bucket []byte
	reseal func(v []byte) ([]byte, error)
}{
	{bucketDocs, func(v []byte) ([]byte, error) { d, err := decodeDocument(v); return encodeOr(err, d, encodeDocument) }},
	{bucketVersions, func(v []byte) ([]byte, error) { r, err := decodeVersion(v); return encodeOr(err, r, encodeVersion) }},
	{bucketLayouts, func(v []byte) ([]byte, error) { l, err := decodeLayout(v); return encodeOr(err, l, encodeLayout) }},
	{bucketChunks, func(v []byte) ([]byte, error) { c, err := decodeChunk(v); return encodeOr(err, c, encodeChunk) }},
}

func encodeOr[T any](err error, r *T, encode func(*T) []byte) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return encode(r), nil
}

// sealBinaryRecord is resealBucket's function for binary records.
func sealBinaryRecord(reseal func([]byte) ([]byte, error)) func(k, v []byte) ([]byte, error) {
	return func(_, v []byte) ([]byte, error) {
		if len(v) == 0 || v[0] != recordV1 {
			return nil, nil
		}
		return reseal(v)
	}
}

// isSealed reports whether v is a sealed JSON record of key k.
func isSealed(k, v []byte) bool {
	n := len(v)
	return n >= 5 && v[n-5] == 0 && jsonCRC(k, v[:n-4]) == binary.BigEndian.Uint32(v[n-4:])
}

// sealTexts gives every live version's text index its block checksums
// and seal, after checking the text against its recorded hash and the
// stored index against one built from the text.
func sealTexts(t *Tx) (int, error) {
	type text struct {
		key []byte
		v   *Version
	}
	var texts []text
	err := t.ForEachVersion(func(v *Version) error {
		if v.Status != StatusDeleted {
			texts = append(texts, text{seqKey(v.Seq), v})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	b := t.tx.Bucket(bucketTexts)
	n := 0
	for _, x := range texts {
		stored, err := t.Text(x.v)
		if err != nil {
			return n, err
		}
		if stored.blocks != nil || len(stored.b) == 0 {
			continue // sealed already, or nothing to seal
		}
		if err := VerifyText(x.v, stored); err != nil {
			return n, err
		}
		fresh := NewText(stored.b)
		if fresh.n != stored.n || !bytes.Equal(fresh.index, stored.index) {
			return n, fmt.Errorf("%w: text of version %s: its stored code-point index differs from the text's", ErrCorrupt, x.v.ID)
		}
		val := append(slices.Clone(stored.b), fresh.encodeIndex()...)
		if err := b.Put(x.key, val); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
