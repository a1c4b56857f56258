package store

import (
	"encoding/binary"
	"fmt"
)

// The source index maps the BLAKE3 of a version's source bytes to the
// version, so that ingest can tell that a file's bytes are stored already
// under another document id, or were deleted under one, without reading
// every version header. Keys are the 32-byte hash followed by the version
// id; values are empty. Entries are never removed: a tombstone keeps its
// header and hash, and a deleted version is what the index must still find.
//
// Stores written before the index existed, or by an older build after it,
// are caught up on a writable open: meta "sources_seq" holds the versions
// bucket sequence the index covers, and the versions with a higher sequence
// are added (syncSourceIndex).

var keySourcesSeq = []byte("sources_seq")

func sourceKey(source ID, version string) []byte {
	return append(append(make([]byte, 0, len(source)+len(version)), source[:]...), version...)
}

// indexSource records v in the source index.
func (w *writer) indexSource(v *Version) error {
	w.indexed = true
	return w.tx.Bucket(bucketSources).Put(sourceKey(v.SourceHash, v.ID), nil)
}

// markSourcesIndexed records that the index covers every version written so far.
func markSourcesIndexed(tx BackendTx) error {
	seq := tx.Bucket(bucketVersions).Sequence()
	return tx.Bucket(bucketMeta).Put(keySourcesSeq, binary.BigEndian.AppendUint64(nil, seq))
}

// sourcesIndexed returns the versions sequence the index covers.
func sourcesIndexed(tx BackendTx) uint64 {
	b := tx.Bucket(bucketMeta).Get(keySourcesSeq)
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// syncSourceIndex adds the versions the index does not cover yet, on a
// writable open. A store it covers pays one read.
func (db *DB) syncSourceIndex() error {
	if db.readOnly {
		return nil
	}
	behind := false
	if err := db.view(func(tx BackendTx) error {
		behind = tx.Bucket(bucketSources) == nil || sourcesIndexed(tx) < tx.Bucket(bucketVersions).Sequence()
		return nil
	}); err != nil || !behind {
		return err
	}
	return db.update(func(tx BackendTx) error {
		idx, err := tx.CreateBucketIfNotExists(bucketSources)
		if err != nil {
			return fmt.Errorf("store: creating bucket %q: %w", bucketSources, err)
		}
		from := sourcesIndexed(tx)
		if err := tx.Bucket(bucketVersions).ForEach(func(k, b []byte) error {
			v, err := decodeVersion(b)
			if err != nil {
				return fmt.Errorf("version %s: %w", k, err)
			}
			if v.Seq <= from {
				return nil
			}
			return idx.Put(sourceKey(v.SourceHash, v.ID), nil)
		}); err != nil {
			return err
		}
		return markSourcesIndexed(tx)
	})
}

// VersionsOfSource returns the headers of every version, of any document
// and status (tombstones included), whose source bytes hash to source, in
// version id order. A store opened read-only that has no index yet is
// scanned instead.
func (t *Tx) VersionsOfSource(source ID) ([]*Version, error) {
	idx := t.tx.Bucket(bucketSources)
	var out []*Version
	if idx == nil || sourcesIndexed(t.tx) < t.tx.Bucket(bucketVersions).Sequence() {
		err := t.ForEachVersion(func(v *Version) error {
			if v.SourceHash == source {
				out = append(out, v)
			}
			return nil
		})
		return out, err
	}
	c := idx.Cursor()
	for k, _ := c.Seek(source[:]); len(k) > len(source) && string(k[:len(source)]) == string(source[:]); k, _ = c.Next() {
		v, err := t.Version(string(k[len(source):]))
		if err != nil {
			return nil, fmt.Errorf("source index: %w", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// checkSourceIndex reports index entries that name no version or a version
// of other bytes, and indexed versions without their entry.
func checkSourceIndex(t *Tx, versions []*Version, add func(Finding)) {
	idx := t.tx.Bucket(bucketSources)
	if idx == nil {
		return // caught up on the next writable open
	}
	covered := sourcesIndexed(t.tx)
	byID := make(map[string]*Version, len(versions))
	for _, v := range versions {
		byID[v.ID] = v
		if v.Seq <= covered && idx.Get(sourceKey(v.SourceHash, v.ID)) == nil {
			add(Finding{Kind: "source_index", Document: v.DocumentID, Version: v.ID, Detail: "version missing from the source index"})
		}
	}
	_ = idx.ForEach(func(k, _ []byte) error {
		if len(k) != len(ID{})+VersionIDLen {
			add(Finding{Kind: "source_index", Detail: fmt.Sprintf("malformed index key %x", k)})
			return nil
		}
		v := byID[string(k[len(ID{}):])]
		switch {
		case v == nil:
			add(Finding{Kind: "source_index", Detail: fmt.Sprintf("index entry names no version: %x", k)})
		case string(v.SourceHash[:]) != string(k[:len(ID{})]):
			add(Finding{Kind: "source_index", Document: v.DocumentID, Version: v.ID, Detail: "index entry holds another source hash"})
		}
		return nil
	})
}
