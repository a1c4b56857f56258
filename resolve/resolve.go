package resolve

import (
	"errors"
	"fmt"

	"github.com/evidence-rag/evidence/store"
)

// Status of a resolution.
type Status string

// Resolution statuses.
const (
	StatusOK          Status = "ok"          // served from the current version
	StatusSuperseded  Status = "superseded"  // served from an older version that a newer one replaced
	StatusQuarantined Status = "quarantined" // the chunk failed validation; never served
	StatusDeleted     Status = "deleted"     // tombstoned; no text remains
	StatusForbidden   Status = "forbidden"   // the principal may not read the document; nothing revealed
	StatusNotFound    Status = "not_found"   // no such chunk or version
)

// Viewer is the part of *store.DB that resolving needs.
type Viewer interface {
	View(func(*store.Tx) error) error
}

// Resolution is a chunk or range resolved to its exact stored span. For
// forbidden and not_found only the request fields and Status are set.
type Resolution struct {
	ChunkID         string            `json:"chunk_id,omitempty"`
	Status          Status            `json:"status"`
	Reason          string            `json:"reason,omitempty"` // quarantine reason code, or why not found
	DocumentID      string            `json:"document_id,omitempty"`
	DocumentVersion string            `json:"document_version,omitempty"`
	VersionStatus   store.Status      `json:"version_status,omitempty"`
	CurrentVersion  string            `json:"current_version,omitempty"` // the document's current version, when it differs
	MediaType       string            `json:"media_type,omitempty"`
	SourceURL       string            `json:"source_url,omitempty"`
	TextHash        *store.ID         `json:"text_hash,omitempty"` // of the whole canonical text of the version
	Start           int               `json:"source_start"`        // half-open, code points into the canonical text
	End             int               `json:"source_end"`
	Page            int               `json:"page_number,omitempty"` // page containing Start, starting at 1
	PageEnd         int               `json:"page_end,omitempty"`
	PageLabel       string            `json:"page_label,omitempty"`
	SectionPath     []string          `json:"section_path,omitempty"`
	LowConfidence   string            `json:"low_confidence,omitempty"` // why the page's text is not trusted, if so
	Text            string            `json:"text,omitempty"`           // canonical_text[source_start:source_end]
	Quarantine      *store.Quarantine `json:"quarantine,omitempty"`
	// TextUnchanged is set on a superseded version whose canonical text is
	// byte-identical to the current version's (equal text hashes): a
	// rebuild, new chunk settings or a new manifest, not an edit, so its
	// spans are the current text at the same offsets.
	TextUnchanged bool `json:"text_unchanged,omitempty"`

	version *store.Version // the header read, for callers in the same transaction
}

// StoredVersion returns the version header the resolution was read from, or
// nil when none was (not found, forbidden). Callers resolving inside their
// own transaction use it instead of reading the header again.
func (r *Resolution) StoredVersion() *store.Version { return r.version }

// Served reports whether the resolution carries text that may be shown.
func (r *Resolution) Served() bool {
	return r.Status == StatusOK || r.Status == StatusSuperseded
}

// Chunk resolves a chunk id for a principal. Findings about the chunk
// (not found, deleted, forbidden, quarantined) are statuses, not errors;
// the error is set only when the store is damaged, for example when the
// span no longer hashes to the value recorded at ingest.
func Chunk(db Viewer, chunkID, principal string) (*Resolution, error) {
	r := &Resolution{ChunkID: chunkID}
	err := db.View(func(tx *store.Tx) error { return chunkTx(tx, r, principal) })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ChunkTx resolves within a caller's transaction, for batch resolution.
func ChunkTx(tx *store.Tx, chunkID, principal string) (*Resolution, error) {
	r := &Resolution{}
	if err := ChunkInto(tx, r, chunkID, principal); err != nil {
		return nil, err
	}
	return r, nil
}

// ChunkInto is ChunkTx filling a resolution the caller owns (reset first),
// so that a batch can reuse one.
func ChunkInto(tx *store.Tx, r *Resolution, chunkID, principal string) error {
	*r = Resolution{ChunkID: chunkID}
	return chunkTx(tx, r, principal)
}

func chunkTx(tx *store.Tx, r *Resolution, principal string) error {
	versionID, ordinal, err := store.ParseChunkID(r.ChunkID)
	if err != nil {
		r.Status, r.Reason = StatusNotFound, "invalid chunk id"
		return nil
	}
	tx.PrefetchChunk(versionID, ordinal) // one round trip for what follows, on a database server
	v, current, ok, err := loadVersion(tx, r, versionID, principal)
	if !ok || err != nil {
		return err
	}
	c, err := tx.Chunk(v, ordinal)
	if errors.Is(err, store.ErrNotFound) {
		r.Status, r.Reason = StatusNotFound, "no such chunk in version"
		return nil
	}
	if err != nil {
		return err
	}
	r.fillVersion(v, current)
	r.Start, r.End = c.Start, c.End
	if c.Quarantine != nil {
		r.Status, r.Reason, r.Quarantine = StatusQuarantined, c.Quarantine.Reason, c.Quarantine
		return nil
	}
	span, err := tx.Span(v, c)
	if err != nil {
		return err
	}
	r.Text = string(span)
	r.Page, r.PageEnd, r.PageLabel, r.SectionPath = c.Page, c.PageEnd, c.PageLabel, c.SectionPath
	if v.Pages > 1 || v.MediaType == "application/pdf" {
		l, err := tx.Layout(v)
		if err != nil {
			return err
		}
		r.LowConfidence = lowConfidence(l, c.Page)
	}
	return nil
}

// loadVersion reads a version and its document and applies, in order, the
// not-found, permission and tombstone checks, and returns the document's
// current version id. ok is false when r is final.
func loadVersion(tx *store.Tx, r *Resolution, versionID, principal string) (*store.Version, string, bool, error) {
	v, err := tx.Version(versionID)
	if errors.Is(err, store.ErrNotFound) {
		r.Status, r.Reason = StatusNotFound, "no such version"
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	// Permission first: a forbidden caller learns nothing, not even that
	// the version was deleted.
	if !v.Allows(principal) {
		r.Status = StatusForbidden
		return nil, "", false, nil
	}
	// The document is read only to name the current version of an old one.
	current := v.ID
	if v.Status != store.StatusCurrent {
		doc, err := tx.Document(v.DocumentID)
		if err != nil {
			return nil, "", false, err
		}
		current = doc.Current
	}
	if v.Status == store.StatusDeleted {
		r.fillVersion(v, current)
		r.Status = StatusDeleted
		return nil, "", false, nil
	}
	if v.Status == store.StatusSuperseded && current != "" {
		cur, err := tx.Version(current)
		if err != nil {
			return nil, "", false, err
		}
		r.TextUnchanged = cur.Status == store.StatusCurrent && cur.TextHash == v.TextHash
	}
	return v, current, true, nil
}

func (r *Resolution) fillVersion(v *store.Version, current string) {
	r.version = v
	r.DocumentID = v.DocumentID
	r.DocumentVersion = v.ID
	r.VersionStatus = v.Status
	r.MediaType = v.MediaType
	r.SourceURL = v.SourceURL
	r.TextHash = &v.TextHash // v is the caller's copy of the header, kept in r.version
	if current != v.ID {
		r.CurrentVersion = current
	}
	switch v.Status {
	case store.StatusCurrent:
		r.Status = StatusOK
	case store.StatusSuperseded:
		r.Status = StatusSuperseded
	case store.StatusDeleted:
		r.Status = StatusDeleted
	}
}

func (r *Resolution) place(p store.Place) {
	r.Page, r.PageEnd, r.PageLabel, r.SectionPath = p.Page, p.PageEnd, p.PageLabel, p.SectionPath
}

func lowConfidence(l *store.Layout, page int) string {
	for _, f := range l.LowConfidence {
		if f.Page == page {
			return f.Reason
		}
	}
	return ""
}

// Range resolves a half-open code-point range of a version's canonical
// text for a principal. The whole text is hashed and checked against the
// version's text hash before anything is served.
func Range(db Viewer, versionID string, start, end int, principal string) (*Resolution, error) {
	r := &Resolution{}
	err := db.View(func(tx *store.Tx) error {
		v, current, ok, err := loadVersion(tx, r, versionID, principal)
		if !ok || err != nil {
			return err
		}
		txt, err := tx.Text(v)
		if err != nil {
			return err
		}
		if start < 0 || end < start || end > txt.Len() {
			return fmt.Errorf("%w: [%d, %d) of version %s with %d code points", ErrInvalidRange, start, end, versionID, txt.Len())
		}
		if err := store.VerifyText(v, txt); err != nil {
			return err
		}
		span, _ := txt.Slice(start, end)
		r.fillVersion(v, current)
		r.Start, r.End, r.Text = start, end, string(span)
		l, err := tx.Layout(v)
		if err != nil {
			return err
		}
		r.place(l.Place(start, end))
		r.LowConfidence = lowConfidence(l, r.Page)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
