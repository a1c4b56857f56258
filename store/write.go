package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// NewVersion is everything written for one version, in one transaction.
type NewVersion struct {
	// Version header. ID, DocumentID, hashes, Fingerprint, MediaType and the
	// sizes are set by the caller; Seq, Status and Created are set here.
	Version Version
	Text    Text
	Layout  Layout
	// Chunks in ordinal order; Ordinal must equal the index. Quarantined
	// chunks are stored too, so that resolving them answers "quarantined".
	Chunks []Chunk
	// ACL replaces the document's access list when non-nil.
	ACL []string
	// SetURL gives a version that is stored already (unchanged, or
	// restored) Version.SourceURL too, recording the time on the document:
	// the caller named the URL. Without it a stored version keeps its own.
	SetURL bool
	// Stored says the version is stored already (current or superseded):
	// only the header's ID, DocumentID, SourceHash and SourceURL are given,
	// no text, layout or chunks. Putting it updates the metadata or makes
	// it current again; should it no longer be stored by then, the put
	// fails and writes nothing.
	Stored bool
	// Undelete stores the version although it, its document, or a version
	// of the same source bytes was deleted (see DeletedReason). Without it
	// such a put answers PutDeleted and writes nothing.
	Undelete bool
}

// PutStatus says what PutVersions did with a version.
type PutStatus string

// Put outcomes.
const (
	PutIngested  PutStatus = "ingested"  // written as a new current version
	PutUnchanged PutStatus = "unchanged" // already current: nothing written but metadata
	PutRestored  PutStatus = "restored"  // already stored but superseded: made current again
	PutDeleted   PutStatus = "deleted"   // refused: deleted before (PutResult.Reason says what); nothing written
)

// Reasons of PutDeleted.
const (
	ReasonDocumentDeleted = "document_deleted" // the document was deleted as a whole
	ReasonVersionDeleted  = "version_deleted"  // this version, or one of the same source bytes, was deleted
)

// Metadata fields a put can change without a new version (PutResult.Updated).
const (
	UpdatedACL       = "acl"
	UpdatedSourceURL = "source_url"
)

// PutResult reports the outcome for one NewVersion.
type PutResult struct {
	Status     PutStatus
	Version    string
	Superseded string   // the version that was current before, if any
	Reason     string   // why a put was refused (PutDeleted)
	Updated    []string // metadata changed besides the version: UpdatedACL, UpdatedSourceURL
}

// PutVersion writes one version in its own transaction.
func (db *DB) PutVersion(nv *NewVersion) (PutResult, error) {
	res, err := db.PutVersions([]*NewVersion{nv})
	if err != nil {
		return PutResult{}, err
	}
	return res[0], nil
}

// PutVersions writes several versions in one transaction (a group commit):
// all of them are written, or none. A version already current is left
// untouched but for its metadata; changed bytes make the new version
// current and the old one superseded; a deleted document, version or
// source is not stored again unless NewVersion.Undelete says so.
func (db *DB) PutVersions(nvs []*NewVersion) ([]PutResult, error) {
	results := make([]PutResult, len(nvs))
	err := db.update(func(tx BackendTx) error {
		w := writer{tx: tx, now: time.Now().UTC()}
		prefetchPut(tx, nvs)
		for i, nv := range nvs {
			r, err := w.put(nv)
			if err != nil {
				return fmt.Errorf("%s: %w", nv.Version.SourcePath, err)
			}
			results[i] = r
		}
		if !w.dirty {
			return errNothingWritten // roll back: bbolt would commit a new meta page
		}
		if w.indexed {
			return markSourcesIndexed(tx)
		}
		return nil
	})
	if err != nil && err != errNothingWritten {
		return nil, err
	}
	return results, nil
}

// errNothingWritten rolls back a transaction that changed nothing, so that
// re-ingesting identical bytes leaves the file untouched.
var errNothingWritten = errors.New("store: nothing written")

type writer struct {
	tx      BackendTx
	now     time.Time
	dirty   bool // something was put or deleted
	indexed bool // a version was added to the source index
}

func (w *writer) getDoc(id string) (*Document, error) {
	b := w.tx.Bucket(bucketDocs).Get([]byte(id))
	if b == nil {
		return nil, nil
	}
	return decodeDocument(b)
}

func (w *writer) putDoc(doc *Document) error {
	w.dirty = true
	doc.Updated = w.now
	return w.tx.Bucket(bucketDocs).Put([]byte(doc.ID), encodeDocument(doc))
}

func (w *writer) getVersion(id string) (*Version, error) {
	b := w.tx.Bucket(bucketVersions).Get([]byte(id))
	if b == nil {
		return nil, nil
	}
	return decodeVersion(b)
}

func (w *writer) putVersion(v *Version) error {
	w.dirty = true
	return w.tx.Bucket(bucketVersions).Put([]byte(v.ID), encodeVersion(v))
}

// DeletedReason says why bytes with the given source hash must not be
// stored as version versionID of doc (nil when the document is new), or ""
// when nothing stands against it: the document was deleted as a whole
// (ReasonDocumentDeleted); the version is a tombstone; or a tombstone of
// the document holds the same source bytes while its current version does
// not (ReasonVersionDeleted). A rebuild of a current version whose bytes a
// deleted older version shared brings nothing back; a plain ingest that
// would make such bytes current again does. version reads a header, nil
// when it is not stored.
func DeletedReason(doc *Document, versionID string, source ID, version func(id string) (*Version, error)) (string, error) {
	if doc == nil {
		return "", nil
	}
	if doc.Deleted {
		return ReasonDocumentDeleted, nil
	}
	if target, err := version(versionID); err != nil || (target != nil && target.Status == StatusDeleted) {
		if err != nil {
			return "", err
		}
		return ReasonVersionDeleted, nil
	}
	if doc.Current != "" {
		current, err := version(doc.Current)
		if err != nil {
			return "", err
		}
		if current != nil && current.SourceHash == source {
			return "", nil // the bytes are current: another version of them hides nothing
		}
	}
	for _, id := range doc.Versions {
		v, err := version(id)
		if err != nil {
			return "", err
		}
		if v != nil && v.Status == StatusDeleted && v.SourceHash == source {
			return ReasonVersionDeleted, nil
		}
	}
	return "", nil
}

func (w *writer) put(nv *NewVersion) (PutResult, error) {
	v := nv.Version
	if !ValidVersionID(v.ID) || v.DocumentID == "" {
		return PutResult{}, fmt.Errorf("store: invalid version %q of document %q", v.ID, v.DocumentID)
	}
	if !nv.Stored {
		if v.TextBytes != len(nv.Text.Bytes()) || v.TextLen != nv.Text.Len() {
			return PutResult{}, fmt.Errorf("store: version %s: text sizes do not match its header", v.ID)
		}
		for i := range nv.Chunks {
			c := &nv.Chunks[i]
			if c.Ordinal != uint32(i) || c.Version != v.ID {
				return PutResult{}, fmt.Errorf("store: version %s: chunk %d is numbered %s", v.ID, i, c.ID())
			}
			// What the audit would report, refused before it is written: a
			// chunk outside its text, or whose byte offsets are not those
			// of its code points, would serve other coordinates than its
			// text's.
			if c.Start < 0 || c.End < c.Start || c.End > v.TextLen ||
				c.ByteStart != nv.Text.ByteOffset(c.Start) || c.ByteEnd != nv.Text.ByteOffset(c.End) {
				return PutResult{}, fmt.Errorf("store: version %s: chunk %d: range [%d, %d), bytes [%d, %d), is not a range of its text of %d code points", v.ID, i, c.Start, c.End, c.ByteStart, c.ByteEnd, v.TextLen)
			}
		}
	}
	doc, err := w.getDoc(v.DocumentID)
	if err != nil {
		return PutResult{}, err
	}
	res := PutResult{Version: v.ID}
	old, err := w.getVersion(v.ID)
	if err != nil {
		return PutResult{}, err
	}
	if old != nil && old.DocumentID != v.DocumentID {
		return PutResult{}, fmt.Errorf("%w: version %s belongs to %q, not %q", ErrCorrupt, v.ID, old.DocumentID, v.DocumentID)
	}
	if !nv.Undelete {
		reason, err := DeletedReason(doc, v.ID, v.SourceHash, w.getVersion)
		if err != nil {
			return PutResult{}, err
		}
		if reason != "" {
			res.Status, res.Reason = PutDeleted, reason
			return res, nil
		}
	}
	newDoc := doc == nil
	if newDoc {
		doc = &Document{ID: v.DocumentID}
	}
	aclChanged := nv.ACL != nil && !slices.Equal(nv.ACL, doc.ACL)
	if aclChanged {
		doc.ACL = slices.Clone(nv.ACL)
		if !newDoc { // a new document's list is its first, not an update
			doc.ACLUpdated = w.now
			res.Updated = append(res.Updated, UpdatedACL)
		}
	}
	// setURL gives a stored version the URL the caller named.
	setURL := func(sv *Version) bool {
		if !nv.SetURL || sv.SourceURL == v.SourceURL {
			return false
		}
		sv.SourceURL = v.SourceURL
		doc.URLUpdated = w.now
		res.Updated = append(res.Updated, UpdatedSourceURL)
		return true
	}
	switch {
	case old != nil && old.Status == StatusCurrent:
		res.Status = PutUnchanged
		if setURL(old) {
			old.ACL = doc.ACL
			if err := w.putVersion(old); err != nil {
				return PutResult{}, err
			}
		}
		if len(res.Updated) > 0 {
			if err := w.putDoc(doc); err != nil {
				return PutResult{}, err
			}
		}
		if aclChanged {
			if err := w.syncACL(doc); err != nil {
				return PutResult{}, err
			}
		}
		return res, w.clearFailure(v.DocumentID)
	case old != nil && old.Status == StatusSuperseded:
		// The source went back to older bytes or settings: that version is
		// current again.
		res.Status = PutRestored
		old.Status = StatusCurrent
		old.ACL = doc.ACL
		setURL(old)
		if err := w.putVersion(old); err != nil {
			return PutResult{}, err
		}
	case nv.Stored:
		return PutResult{}, fmt.Errorf("%w: version %s of %q is no longer stored", ErrNotFound, v.ID, v.DocumentID)
	default:
		// New, or a tombstone written again: store the content afresh.
		res.Status = PutIngested
		if old != nil {
			v.Seq = old.Seq
		} else if v.Seq, err = w.tx.Bucket(bucketVersions).NextSequence(); err != nil {
			return PutResult{}, err
		}
		v.Status = StatusCurrent
		v.Created = w.now
		v.Deleted = time.Time{}
		v.ACL = doc.ACL
		if err := w.putContent(&v, nv); err != nil {
			return PutResult{}, err
		}
		if err := w.indexSource(&v); err != nil {
			return PutResult{}, err
		}
	}
	if doc.Current != "" && doc.Current != v.ID {
		prev, err := w.getVersion(doc.Current)
		if err != nil {
			return PutResult{}, err
		}
		if prev != nil && prev.Status == StatusCurrent {
			prev.Status = StatusSuperseded
			if err := w.putVersion(prev); err != nil {
				return PutResult{}, err
			}
			res.Superseded = prev.ID
		}
	}
	doc.Current = v.ID
	doc.Deleted = false
	if !slices.Contains(doc.Versions, v.ID) {
		doc.Versions = append(doc.Versions, v.ID)
	}
	if err := w.putDoc(doc); err != nil {
		return PutResult{}, err
	}
	if aclChanged {
		if err := w.syncACL(doc); err != nil {
			return PutResult{}, err
		}
	}
	return res, w.clearFailure(v.DocumentID)
}

// clearFailure removes the failed-ingest record of a document that now
// ingests, writing only when there is one.
func (w *writer) clearFailure(documentID string) error {
	b := w.tx.Bucket(bucketFailures)
	if b.Get([]byte(documentID)) == nil {
		return nil
	}
	w.dirty = true
	return b.Delete([]byte(documentID))
}

// syncACL copies the document's access list into each of its versions.
func (w *writer) syncACL(doc *Document) error {
	for _, id := range doc.Versions {
		v, err := w.getVersion(id)
		if err != nil {
			return err
		}
		if v != nil && !slices.Equal(v.ACL, doc.ACL) {
			v.ACL = doc.ACL
			if err := w.putVersion(v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) putContent(v *Version, nv *NewVersion) error {
	k := seqKey(v.Seq)
	if err := w.tx.Bucket(bucketTexts).Put(k, append(slices.Clip(nv.Text.Bytes()), nv.Text.encodeIndex()...)); err != nil {
		return err
	}
	if err := w.tx.Bucket(bucketLayouts).Put(k, encodeLayout(&nv.Layout)); err != nil {
		return err
	}
	chunks := w.tx.Bucket(bucketChunks)
	quarantine := w.tx.Bucket(bucketQuarantine)
	repaired := w.tx.Bucket(bucketRepaired)
	// Keys ascend, so bbolt fills pages to the brim instead of splitting them.
	fillHint(chunks, 1.0)
	fillHint(quarantine, 1.0)
	fillHint(repaired, 1.0)
	v.Chunks, v.Quarantined, v.Repaired = len(nv.Chunks), 0, 0
	for i := range nv.Chunks {
		c := &nv.Chunks[i]
		ck := chunkKey(v.Seq, c.Ordinal)
		if err := chunks.Put(ck, encodeChunk(c)); err != nil {
			return err
		}
		if c.Quarantine != nil {
			v.Quarantined++
			if err := quarantine.Put(ck, nil); err != nil {
				return err
			}
		}
		if c.Repair != nil {
			v.Repaired++
			if err := repaired.Put(ck, nil); err != nil {
				return err
			}
		}
	}
	return w.putVersion(v)
}

// Delete tombstones a document (version "") or one version of it. Text,
// layout and chunks of the deleted versions are removed; their headers stay
// with status deleted, so resolving them answers "deleted". Deleting the
// current version leaves the document with no current version: an older
// version is never promoted silently.
func (db *DB) Delete(documentID, version string) (deleted []string, err error) {
	err = db.update(func(tx BackendTx) error {
		w := writer{tx: tx, now: time.Now().UTC()}
		doc, err := w.getDoc(documentID)
		if err != nil {
			return err
		}
		if doc == nil {
			return fmt.Errorf("%w: document %q", ErrNotFound, documentID)
		}
		targets := doc.Versions
		if version != "" {
			if !slices.Contains(doc.Versions, version) {
				return fmt.Errorf("%w: version %q of document %q", ErrNotFound, version, documentID)
			}
			targets = []string{version}
		}
		for _, id := range targets {
			v, err := w.getVersion(id)
			if err != nil {
				return err
			}
			if v == nil || v.Status == StatusDeleted {
				continue
			}
			if err := w.removeContent(v); err != nil {
				return err
			}
			v.Status = StatusDeleted
			v.Deleted = w.now
			if err := w.putVersion(v); err != nil {
				return err
			}
			deleted = append(deleted, id)
			if doc.Current == id {
				doc.Current = ""
			}
		}
		if version == "" {
			doc.Deleted = true
		}
		return w.putDoc(doc)
	})
	if err != nil {
		return nil, err // rolled back: nothing was deleted
	}
	return deleted, nil
}

func (w *writer) removeContent(v *Version) error {
	k := seqKey(v.Seq)
	for _, b := range [][]byte{bucketTexts, bucketLayouts} {
		if err := w.tx.Bucket(b).Delete(k); err != nil {
			return err
		}
	}
	for _, name := range [][]byte{bucketChunks, bucketQuarantine, bucketRepaired} {
		b := w.tx.Bucket(name)
		// A fresh cursor after each delete: a cursor may not outlive a
		// write to its bucket.
		for ck, _ := b.Cursor().Seek(k); len(ck) == 12 && string(ck[:8]) == string(k); ck, _ = b.Cursor().Seek(k) {
			if err := b.Delete(slices.Clone(ck)); err != nil {
				return err
			}
		}
	}
	return nil
}

// PutFailure records a source that could not be ingested. The record stays
// until a later ingest of the same document succeeds.
func (db *DB) PutFailure(f *Failure) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	key := f.DocumentID
	if key == "" {
		key = f.Path
	}
	return db.update(func(tx BackendTx) error { return tx.Bucket(bucketFailures).Put([]byte(key), sealJSON([]byte(key), b)) })
}

// PutTrace stores a verification trace under its id. Traces are written
// once and never changed. Concurrent calls share one commit (bbolt's
// Batch), so a server storing a trace per verification pays one fsync for
// many of them.
func (db *DB) PutTrace(id string, trace []byte) error {
	return db.PutTraceRecord(TraceRecord{ID: id, Trace: trace})
}

// PutTraceRecord is PutTrace with the trace's summary.
func (db *DB) PutTraceRecord(r TraceRecord) error {
	if db.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, db.path)
	}
	return db.guard(func() error {
		return db.kv.Batch(func(tx BackendTx) error { return putTrace(tx, &r) })
	})
}

// TraceRecord is a trace to store with PutTraces.
type TraceRecord struct {
	ID    string
	Trace []byte
	// Summary, when set, is stored beside the trace: a few hundred bytes
	// that scans of many traces read instead of it (ForEachTraceSummary).
	// Its form is the caller's.
	Summary []byte
}

// PutTraces stores traces in one transaction: one fsync for all, for a
// writer that queues them behind the responses. Either all are stored or
// none.
func (db *DB) PutTraces(traces []TraceRecord) error {
	return db.update(func(tx BackendTx) error {
		for i := range traces {
			if err := putTrace(tx, &traces[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func putTrace(tx BackendTx, r *TraceRecord) error {
	b := tx.Bucket(bucketTraces)
	fillHint(b, 0.95) // ids grow with time: pages fill and are rarely split again
	sealed := sealJSON([]byte(r.ID), r.Trace)
	if old := b.Get([]byte(r.ID)); old != nil {
		if string(old) == string(sealed) {
			return nil // Batch may run a function twice
		}
		return fmt.Errorf("store: trace %s already exists", r.ID)
	}
	if err := b.Put([]byte(r.ID), sealed); err != nil {
		return err
	}
	if r.Summary == nil {
		return nil
	}
	sb := tx.Bucket(bucketTraceSummaries)
	fillHint(sb, 0.95)
	return sb.Put([]byte(r.ID), sealJSON([]byte(r.ID), r.Summary))
}
