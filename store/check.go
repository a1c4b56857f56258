package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Finding is one problem found by Check.
type Finding struct {
	// Kind names what is wrong: bbolt (page structure), checksum (a sealed
	// record fails its CRC-32C), record (a record that does not decode, or
	// documents and versions that disagree), key (a record under the key
	// of another), orphan (text, layout or chunks of no live version),
	// text_hash, text_missing, layout, chunk, count, acl,
	// quarantine_index, repair_index, source_index; resolve's audit adds
	// the reason codes of chunks that no longer validate.
	Kind     string `json:"kind"`
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

// CheckOptions configure CheckWith.
type CheckOptions struct {
	// Subset, when set, limits the reading of data (hashing each live
	// version's text) to the versions it selects. Records, seals and
	// cross-references are always checked in full: they are small.
	Subset *Subset
}

// CheckReport is what CheckWith found.
type CheckReport struct {
	Findings []Finding
	Versions int // live (not deleted) versions
	// Read lists the live versions whose data was read, in id order: all
	// of them without a subset.
	Read []string
}

// Check is CheckWith without options: everything is read.
func (db *DB) Check() ([]Finding, error) {
	rep, err := db.CheckWith(CheckOptions{})
	if err != nil {
		return nil, err
	}
	return rep.Findings, nil
}

// CheckWith verifies the store, like restic check:
//
//   - the bbolt file's structure, by a page walk that a damaged file cannot
//     fault or loop (pagecheck.go); when it finds anything, the records
//     are not read, since pages that fail it cannot be trusted to decode;
//   - every record of every bucket: that it decodes and passes its seal,
//     and that it is stored under its own key (a document under its id, a
//     version under its id, a chunk under its version's sequence and its
//     ordinal, a failure under its document id);
//   - the cross-references: every version has its document, which lists
//     it, and every listed version exists; only the current version is
//     current; a live version has its text (whose BLAKE3 is its recorded
//     hash, and whose code-point index is sound), its layout (page starts
//     for its pages, sections inside its text) and chunks 0 to n-1 as its
//     header counts them; a deleted one has none of them; no text, layout
//     or chunk belongs to no live version; the quarantine, repair and
//     source indexes agree with the records both ways.
//
// It does not judge chunk coordinates against the text: that is resolve's
// audit. err is set only when the check could not run. No write may run
// beside it.
func (db *DB) CheckWith(opts CheckOptions) (*CheckReport, error) {
	rep := &CheckReport{}
	err := db.view(func(tx BackendTx) error {
		fs, err := db.checkPages(uint64(tx.ID()))
		if err != nil {
			return err
		}
		if len(fs) > 0 {
			rep.Findings = fs
			return nil
		}
		c := &checker{t: newTx(tx, db), rep: rep}
		c.run(opts.Subset)
		return nil
	})
	if errors.Is(err, ErrCorrupt) {
		rep.Findings = append(rep.Findings, Finding{Kind: "record", Detail: err.Error()})
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}

type checker struct {
	t   *Tx
	rep *CheckReport
}

func (c *checker) add(f Finding) { c.rep.Findings = append(c.rep.Findings, f) }

// bad reports a record of a bucket that failed to decode: a checksum
// finding when its seal failed, else a finding of kind.
func (c *checker) bad(kind string, err error, f Finding) {
	f.Kind, f.Detail = decodeKind(kind, err), err.Error()
	c.add(f)
}

// decodeKind is the kind of the finding for a record that failed to
// decode with err: checksum when its seal failed, else kind.
func decodeKind(kind string, err error) string {
	if errors.Is(err, ErrChecksum) {
		return "checksum"
	}
	return kind
}

func (c *checker) run(subset *Subset) {
	tx := c.t.tx
	docs := c.documents()
	versions, bySeq := c.versions(docs)
	c.documentVersions(docs, versions)

	var live []*Version
	for _, v := range versions {
		if v.Status != StatusDeleted {
			live = append(live, v)
		}
	}
	c.rep.Versions = len(live)
	read := subset.pick(live)
	for _, v := range live {
		if read[v.ID] {
			c.rep.Read = append(c.rep.Read, v.ID)
		}
		c.content(v, read[v.ID])
	}
	c.orphans(bucketTexts, "text", bySeq)
	c.orphans(bucketLayouts, "layout", bySeq)
	c.chunks(bySeq)
	checkSourceIndex(c.t, versions, c.add)
	checkIndex(tx, bucketQuarantine, "quarantine", func(ch *Chunk) bool { return ch.Quarantine != nil }, c.add)
	checkIndex(tx, bucketRepaired, "repair", func(ch *Chunk) bool { return ch.Repair != nil }, c.add)
	c.jsonRecords()
	checkTraceSummaries(tx, c.add)
	if covered, seq := sourcesIndexed(tx), tx.Bucket(bucketVersions).Sequence(); covered > seq {
		c.add(Finding{Kind: "record", Detail: fmt.Sprintf("the source index covers versions up to %d, past the last one, %d", covered, seq)})
	}
}

func (c *checker) documents() map[string]*Document {
	docs := map[string]*Document{}
	_ = c.t.tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
		doc, err := decodeDocument(v)
		switch {
		case err != nil:
			c.bad("record", fmt.Errorf("document %q: %w", k, err), Finding{Document: string(k)})
		case doc.ID != string(k):
			c.add(Finding{Kind: "key", Document: string(k), Detail: fmt.Sprintf("document key %q holds the record of %q", k, doc.ID)})
		default:
			docs[doc.ID] = doc
		}
		return nil
	})
	return docs
}

// versions decodes every version header, checks it against its key and
// its document, and returns the good ones in id order and the live ones
// by sequence number.
func (c *checker) versions(docs map[string]*Document) ([]*Version, map[uint64]*Version) {
	var out []*Version
	bySeq := map[uint64]*Version{}
	seqs := map[uint64]string{}
	last := c.t.tx.Bucket(bucketVersions).Sequence()
	_ = c.t.tx.Bucket(bucketVersions).ForEach(func(k, b []byte) error {
		v, err := decodeVersion(b)
		if err != nil {
			c.bad("record", fmt.Errorf("version %s: %w", k, err), Finding{Version: string(k)})
			return nil
		}
		f := func(kind, format string, args ...any) {
			c.add(Finding{Kind: kind, Document: v.DocumentID, Version: string(k), Detail: fmt.Sprintf(format, args...)})
		}
		switch {
		case v.ID != string(k):
			f("key", "version key %q holds the header of %q", k, v.ID)
			return nil
		case v.Seq == 0 || v.Seq > last:
			f("record", "sequence number %d outside [1, %d]", v.Seq, last)
			return nil
		case seqs[v.Seq] != "":
			f("record", "sequence number %d is also version %s's", v.Seq, seqs[v.Seq])
			return nil
		}
		seqs[v.Seq] = v.ID
		switch v.Status {
		case StatusCurrent, StatusSuperseded:
			bySeq[v.Seq] = v
		case StatusDeleted:
		default:
			f("record", "unknown status %q", v.Status)
		}
		doc := docs[v.DocumentID]
		if doc == nil {
			f("record", "version has no document record")
		} else {
			if !slices.Contains(doc.Versions, v.ID) {
				f("record", "document %q does not list the version", v.DocumentID)
			}
			if (v.Status == StatusCurrent) != (doc.Current == v.ID) {
				f("record", "status %s but the document's current version is %q", v.Status, doc.Current)
			}
			if !slices.Equal(v.ACL, doc.ACL) {
				f("acl", "version access list %q differs from the document's %q", v.ACL, doc.ACL)
			}
		}
		out = append(out, v)
		return nil
	})
	return out, bySeq
}

// documentVersions checks that every version a document lists is stored
// as a version of that document.
func (c *checker) documentVersions(docs map[string]*Document, versions []*Version) {
	byID := make(map[string]*Version, len(versions))
	for _, v := range versions {
		byID[v.ID] = v
	}
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		doc := docs[id]
		for _, vid := range doc.Versions {
			v := byID[vid]
			switch {
			case v == nil && c.t.tx.Bucket(bucketVersions).Get([]byte(vid)) == nil:
				c.add(Finding{Kind: "record", Document: id, Version: vid, Detail: "the document lists a version that is not stored"})
			case v != nil && v.DocumentID != id:
				c.add(Finding{Kind: "record", Document: id, Version: vid, Detail: fmt.Sprintf("the document lists a version of %q", v.DocumentID)})
			}
		}
		if doc.Current != "" && !slices.Contains(doc.Versions, doc.Current) {
			c.add(Finding{Kind: "record", Document: id, Version: doc.Current, Detail: "the current version is not in the document's version list"})
		}
	}
}

// content checks the text and layout of a live version; read says whether
// its text is hashed and its index rebuilt (the data of an audit).
func (c *checker) content(v *Version, read bool) {
	f := func(kind, format string, args ...any) {
		c.add(Finding{Kind: kind, Document: v.DocumentID, Version: v.ID, Detail: fmt.Sprintf(format, args...)})
	}
	txt, err := c.t.Text(v)
	if err != nil {
		f(decodeKind("text_missing", err), "%v", err)
	} else if read {
		if err := VerifyText(v, txt); err != nil {
			f("text_hash", "%v", err)
		} else if want := NewText(txt.Bytes()); want.n != txt.n || !bytes.Equal(want.index, txt.index) {
			f("text_index", "the code-point index does not map the text")
		}
	}
	l, err := c.t.Layout(v)
	if err != nil {
		f(decodeKind("layout", err), "%v", err)
		return
	}
	if msg := layoutProblem(l, v); msg != "" {
		f("layout", "%s", msg)
	}
}

// layoutProblem says what is wrong with a layout for a version, or "".
func layoutProblem(l *Layout, v *Version) string {
	if len(l.PageStarts) != v.Pages {
		return fmt.Sprintf("%d page starts for %d pages", len(l.PageStarts), v.Pages)
	}
	for i, s := range l.PageStarts {
		if i == 0 && s != 0 || i > 0 && s < l.PageStarts[i-1] || s > v.TextLen {
			return fmt.Sprintf("page %d starts at %d", i+1, s)
		}
	}
	if len(l.PageLabels) != 0 && len(l.PageLabels) != v.Pages {
		return fmt.Sprintf("%d page labels for %d pages", len(l.PageLabels), v.Pages)
	}
	for i, s := range l.Sections {
		if s.Start < 0 || s.End < s.Start || s.End > v.TextLen || i > 0 && s.Start < l.Sections[i-1].Start {
			return fmt.Sprintf("section %d spans [%d, %d) of a %d-code-point text", i, s.Start, s.End, v.TextLen)
		}
	}
	for _, p := range l.LowConfidence {
		if p.Page < 1 || p.Page > v.Pages {
			return fmt.Sprintf("low-confidence page %d of %d", p.Page, v.Pages)
		}
	}
	return ""
}

// orphans reports entries of a bucket keyed by sequence number that belong
// to no live version.
func (c *checker) orphans(bucket []byte, what string, live map[uint64]*Version) {
	_ = c.t.tx.Bucket(bucket).ForEach(func(k, _ []byte) error {
		if len(k) != 8 {
			c.add(Finding{Kind: "orphan", Detail: fmt.Sprintf("%s key %x of %d bytes", what, k, len(k))})
		} else if live[binary.BigEndian.Uint64(k)] == nil {
			c.add(Finding{Kind: "orphan", Detail: fmt.Sprintf("%s under sequence number %d, which no live version has", what, binary.BigEndian.Uint64(k))})
		}
		return nil
	})
}

// chunks checks every chunk record in one pass over the bucket: its key,
// its seal, that it is its version's and has the ordinal of its key, that
// each version has chunks 0 to n-1 with the counts of its header, and that
// the quarantine and repair indexes hold the chunks that have such records.
func (c *checker) chunks(live map[uint64]*Version) {
	type tally struct {
		next    uint32 // the ordinal expected next
		n, q, r int    // good records, quarantined, repaired
	}
	counts := map[uint64]*tally{}
	index := c.t.tx.Bucket(bucketQuarantine)
	repairs := c.t.tx.Bucket(bucketRepaired)
	_ = c.t.tx.Bucket(bucketChunks).ForEach(func(k, b []byte) error {
		if len(k) != 12 {
			c.add(Finding{Kind: "orphan", Detail: fmt.Sprintf("chunk key %x of %d bytes", k, len(k))})
			return nil
		}
		seq, ord := binary.BigEndian.Uint64(k), binary.BigEndian.Uint32(k[8:])
		v := live[seq]
		if v == nil {
			c.add(Finding{Kind: "orphan", Detail: fmt.Sprintf("chunk %d under sequence number %d, which no live version has", ord, seq)})
			return nil
		}
		id := ChunkID(v.ID, ord)
		f := func(kind, format string, args ...any) {
			c.add(Finding{Kind: kind, Document: v.DocumentID, Version: v.ID, Chunk: id, Detail: fmt.Sprintf(format, args...)})
		}
		t := counts[seq]
		if t == nil {
			t = &tally{}
			counts[seq] = t
		}
		if ord != t.next {
			f("chunk", "ordinal %d where %d was expected", ord, t.next)
		}
		t.next = ord + 1
		ch, err := decodeChunk(b)
		if err != nil {
			c.bad("chunk", err, Finding{Document: v.DocumentID, Version: v.ID, Chunk: id})
			return nil
		}
		if ch.Version != v.ID || ch.Ordinal != ord {
			f("key", "chunk key %s holds the record of %s", id, ch.ID())
			return nil
		}
		t.n++
		if ch.Start < 0 || ch.End < ch.Start || ch.End > v.TextLen || ch.ByteStart < 0 || ch.ByteEnd < ch.ByteStart || ch.ByteEnd > v.TextBytes {
			f("chunk", "range [%d, %d), bytes [%d, %d), outside a text of %d code points, %d bytes", ch.Start, ch.End, ch.ByteStart, ch.ByteEnd, v.TextLen, v.TextBytes)
		}
		if ch.Quarantine != nil {
			t.q++
			if index.Get(k) == nil {
				f("quarantine_index", "quarantined chunk missing from the quarantine index")
			}
		}
		if ch.Repair != nil {
			t.r++
			if repairs.Get(k) == nil {
				f("repair_index", "repaired chunk missing from the repair index")
			}
		}
		return nil
	})
	for _, seq := range slices.Sorted(maps.Keys(live)) {
		v, t := live[seq], cmp.Or(counts[seq], &tally{})
		switch {
		case t.n != v.Chunks || t.q != v.Quarantined || t.r != v.Repaired:
			c.add(Finding{Kind: "count", Document: v.DocumentID, Version: v.ID,
				Detail: fmt.Sprintf("%d good chunk records (%d quarantined, %d repaired), header says %d (%d, %d)", t.n, t.q, t.r, v.Chunks, v.Quarantined, v.Repaired)})
		case int(t.next) != v.Chunks:
			c.add(Finding{Kind: "count", Document: v.DocumentID, Version: v.ID,
				Detail: fmt.Sprintf("chunk keys up to ordinal %d, header says %d chunks", int(t.next)-1, v.Chunks)})
		}
	}
}

// checkTraceSummaries reports trace summaries that belong to no trace.
func checkTraceSummaries(tx BackendTx, add func(Finding)) {
	b := tx.Bucket(bucketTraceSummaries)
	if b == nil {
		return
	}
	traces := tx.Bucket(bucketTraces)
	_ = b.ForEach(func(k, v []byte) error {
		if traces.Get(k) == nil {
			add(Finding{Kind: "trace_summary", Detail: fmt.Sprintf("summary of trace %q, which is not stored", k)})
			return nil
		}
		j, err := openTraceSummary(k, v)
		switch {
		case err != nil:
			add(Finding{Kind: decodeKind("record", err), Detail: err.Error()})
		case !json.Valid(j):
			add(Finding{Kind: "record", Detail: fmt.Sprintf("summary of trace %q is not JSON", k)})
		}
		return nil
	})
}

// checkIndex reports index entries that name no chunk, or a chunk without
// the record the index is about.
func checkIndex(tx BackendTx, index []byte, what string, has func(*Chunk) bool, add func(Finding)) {
	chunks := tx.Bucket(bucketChunks)
	_ = tx.Bucket(index).ForEach(func(k, v []byte) error {
		b := chunks.Get(k)
		switch {
		case len(v) != 0:
			add(Finding{Kind: what + "_index", Detail: fmt.Sprintf("index entry %x holds %d bytes, want none", k, len(v))})
		case b == nil:
			add(Finding{Kind: what + "_index", Detail: fmt.Sprintf("index entry %x names no chunk", k)})
		default:
			if c, err := decodeChunk(b); err == nil && !has(c) {
				add(Finding{Kind: what + "_index", Version: c.Version, Chunk: c.ID(), Detail: "index names a chunk without a " + what + " record"})
			}
		}
		return nil
	})
}

// jsonRecords checks the seal, the JSON and the key of every failure,
// trace, review and evaluation run record.
func (c *checker) jsonRecords() {
	tx := c.t.tx
	bad := func(err error) { c.bad("record", err, Finding{}) }
	_ = tx.Bucket(bucketFailures).ForEach(func(k, v []byte) error {
		if _, err := decodeFailure(k, v); err != nil {
			bad(err)
		}
		return nil
	})
	_ = tx.Bucket(bucketTraces).ForEach(func(k, v []byte) error {
		j, err := openTrace(k, v)
		switch {
		case err != nil:
			bad(err)
		case !json.Valid(j):
			c.add(Finding{Kind: "record", Detail: fmt.Sprintf("trace %q is not JSON", k)})
		}
		return nil
	})
	if b := tx.Bucket(bucketReviews); b != nil {
		_ = b.ForEach(func(k, v []byte) error {
			if _, err := decodeReview(k, v); err != nil {
				bad(err)
			}
			return nil
		})
	}
	checkEvalRuns(c.t, c.add)
}
