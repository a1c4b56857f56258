package store

import (
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Finding is one problem found by Check.
type Finding struct {
	Kind     string `json:"kind"` // bbolt, record, text_hash, text_missing, layout, chunk, count
	Document string `json:"document_id,omitempty"`
	Version  string `json:"document_version,omitempty"`
	Chunk    string `json:"chunk_id,omitempty"`
	Detail   string `json:"detail"`
}

func (f Finding) String() string {
	where := f.Chunk
	if where == "" {
		where = f.Version
	}
	if where == "" {
		where = f.Document
	}
	if where == "" {
		return f.Kind + ": " + f.Detail
	}
	return fmt.Sprintf("%s: %s: %s", f.Kind, where, f.Detail)
}

// Check verifies the store's structure: bbolt's page consistency, that every
// record decodes, that every stored text hashes to its recorded hash, and
// that chunk and quarantine counts agree with the version headers and the
// source index with the versions. It does
// not judge chunk coordinates against the text; that is resolve's audit.
// It returns the findings; err is set only when the check could not run.
func (db *DB) Check() (findings []Finding, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			findings = append(findings, Finding{Kind: "bbolt", Detail: e.Error()})
		}
		if len(findings) > 0 {
			return nil // records on damaged pages cannot be trusted to decode
		}
		t := &Tx{tx: tx, db: db}
		add := func(f Finding) { findings = append(findings, f) }
		docs := map[string]*Document{}
		if err := t.ForEachDocument(func(d *Document) error { docs[d.ID] = d; return nil }); err != nil {
			add(Finding{Kind: "record", Detail: err.Error()})
		}
		var versions []*Version
		if err := t.ForEachVersion(func(v *Version) error {
			checkVersion(t, v, docs[v.DocumentID], add)
			versions = append(versions, v)
			return nil
		}); err != nil {
			return err
		}
		checkSourceIndex(t, versions, add)
		checkIndex(tx, bucketQuarantine, "quarantine", func(c *Chunk) bool { return c.Quarantine != nil }, add)
		checkIndex(tx, bucketRepaired, "repair", func(c *Chunk) bool { return c.Repair != nil }, add)
		checkReviews(t, add)
		checkEvalRuns(t, add)
		checkTraceSummaries(tx, add)
		return nil
	})
	if errors.Is(err, ErrCorrupt) {
		findings = append(findings, Finding{Kind: "record", Detail: err.Error()})
		err = nil
	}
	return findings, err
}

func checkVersion(t *Tx, v *Version, doc *Document, add func(Finding)) {
	f := func(kind, format string, args ...any) {
		add(Finding{Kind: kind, Document: v.DocumentID, Version: v.ID, Detail: fmt.Sprintf(format, args...)})
	}
	if doc == nil {
		f("record", "version has no document record")
	} else {
		if (v.Status == StatusCurrent) != (doc.Current == v.ID) {
			f("record", "status %s but the document's current version is %q", v.Status, doc.Current)
		}
		if !slices.Equal(v.ACL, doc.ACL) {
			f("acl", "version access list %q differs from the document's %q", v.ACL, doc.ACL)
		}
	}
	if v.Status == StatusDeleted {
		return
	}
	txt, err := t.Text(v)
	if err != nil {
		f("text_missing", "%v", err)
		return
	}
	if err := VerifyText(v, txt); err != nil {
		f("text_hash", "%v", err)
	}
	l, err := t.Layout(v)
	if err != nil {
		f("layout", "%v", err)
	} else if len(l.PageStarts) != v.Pages {
		f("layout", "%d page starts for %d pages", len(l.PageStarts), v.Pages)
	}
	n, q, r := 0, 0, 0
	index := t.tx.Bucket(bucketQuarantine)
	repairs := t.tx.Bucket(bucketRepaired)
	err = t.ForEachChunk(v, func(c *Chunk) error {
		if c.Ordinal != uint32(n) {
			add(Finding{Kind: "chunk", Document: v.DocumentID, Version: v.ID, Chunk: c.ID(),
				Detail: fmt.Sprintf("ordinal %d where %d was expected", c.Ordinal, n)})
		}
		n++
		if c.Quarantine != nil {
			q++
			if index.Get(chunkKey(v.Seq, c.Ordinal)) == nil {
				add(Finding{Kind: "quarantine_index", Document: v.DocumentID, Version: v.ID, Chunk: c.ID(),
					Detail: "quarantined chunk missing from the quarantine index"})
			}
		}
		if c.Repair != nil {
			r++
			if repairs.Get(chunkKey(v.Seq, c.Ordinal)) == nil {
				add(Finding{Kind: "repair_index", Document: v.DocumentID, Version: v.ID, Chunk: c.ID(),
					Detail: "repaired chunk missing from the repair index"})
			}
		}
		return nil
	})
	if err != nil {
		f("chunk", "%v", err)
	}
	if n != v.Chunks || q != v.Quarantined || r != v.Repaired {
		f("count", "%d chunks (%d quarantined, %d repaired) stored, header says %d (%d, %d)", n, q, r, v.Chunks, v.Quarantined, v.Repaired)
	}
}

// checkTraceSummaries reports trace summaries that belong to no trace.
func checkTraceSummaries(tx *bolt.Tx, add func(Finding)) {
	b := tx.Bucket(bucketTraceSummaries)
	if b == nil {
		return
	}
	traces := tx.Bucket(bucketTraces)
	_ = b.ForEach(func(k, _ []byte) error {
		if traces.Get(k) == nil {
			add(Finding{Kind: "trace_summary", Detail: fmt.Sprintf("summary of trace %q, which is not stored", k)})
		}
		return nil
	})
}

// checkIndex reports index entries that name no chunk, or a chunk without
// the record the index is about.
func checkIndex(tx *bolt.Tx, index []byte, what string, has func(*Chunk) bool, add func(Finding)) {
	chunks := tx.Bucket(bucketChunks)
	_ = tx.Bucket(index).ForEach(func(k, _ []byte) error {
		b := chunks.Get(k)
		if b == nil {
			add(Finding{Kind: what + "_index", Detail: fmt.Sprintf("index entry %x names no chunk", k)})
			return nil
		}
		c, err := decodeChunk(b)
		if err == nil && !has(c) {
			add(Finding{Kind: what + "_index", Version: c.Version, Chunk: c.ID(), Detail: "index names a chunk without a " + what + " record"})
		}
		return nil
	})
}
