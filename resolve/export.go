package resolve

import (
	"errors"
	"fmt"

	"github.com/evidence-rag/evidence/store"
)

// ChunkRecord is a servable chunk as a vector index should embed it: the fields
// of docs/contract.md#identifiers, the access list to filter by, and the span's hash.
type ChunkRecord struct {
	ChunkID         string   `json:"chunk_id"`
	DocumentID      string   `json:"document_id"`
	DocumentVersion string   `json:"document_version"`
	Start           int      `json:"source_start"` // half-open, code points into the canonical text
	End             int      `json:"source_end"`
	Page            int      `json:"page_number"` // starting at 1
	PageEnd         int      `json:"page_end"`
	PageLabel       string   `json:"page_label,omitempty"`
	SectionPath     []string `json:"section_path"`
	SourceURL       string   `json:"source_url,omitempty"`
	MediaType       string   `json:"media_type"`
	// ExternalID is the id the chunk had in the pipeline it was imported
	// from (empty for chunks we cut), so that a vector store can map its
	// own ids to ours.
	ExternalID string `json:"external_id,omitempty"`
	// ACL is the document's access list, [] when everyone may read it; a
	// nil ACL (left out) is a record shown to a caller who may not see the
	// list (docs/service.md).
	ACL           []string `json:"acl,omitzero"`
	LowConfidence string   `json:"low_confidence,omitempty"`
	SpanHash      store.ID `json:"span_hash"`
	Text          string   `json:"text"`
}

// Export calls fn for every servable chunk of a version, in ordinal order,
// after checking each span against its recorded hash. Quarantined chunks
// are skipped: they are never evidence.
func Export(tx *store.Tx, v *store.Version, doc *store.Document, fn func(*ChunkRecord) error) error {
	l, err := tx.Layout(v)
	if err != nil {
		return err
	}
	return tx.ForEachChunk(v, func(c *store.Chunk) error {
		if c.Quarantine != nil {
			return nil
		}
		r, err := record(tx, v, doc, l, c)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

// ExportPage is Export for one page of at most limit records, starting at
// chunk ordinal from: it returns the ordinal the next page starts at, or
// -1 when no servable chunk is left. Quarantined chunks are skipped, so a
// page may hold fewer records than limit only when it is the last.
func ExportPage(tx *store.Tx, v *store.Version, doc *store.Document, from uint32, limit int, fn func(*ChunkRecord) error) (next int64, err error) {
	l, err := tx.Layout(v)
	if err != nil {
		return 0, err
	}
	n := 0
	for o := int64(from); o < int64(v.Chunks); o++ {
		c, err := tx.Chunk(v, uint32(o))
		if errors.Is(err, store.ErrNotFound) {
			return 0, fmt.Errorf("%w: version %s counts %d chunks, chunk %d is missing", store.ErrCorrupt, v.ID, v.Chunks, o)
		}
		if err != nil {
			return 0, err
		}
		if c.Quarantine != nil {
			continue
		}
		if n == limit {
			return o, nil
		}
		r, err := record(tx, v, doc, l, c)
		if err != nil {
			return 0, err
		}
		if err := fn(r); err != nil {
			return 0, err
		}
		n++
	}
	return -1, nil
}

func record(tx *store.Tx, v *store.Version, doc *store.Document, l *store.Layout, c *store.Chunk) (*ChunkRecord, error) {
	span, err := tx.Span(v, c)
	if err != nil {
		return nil, err
	}
	section := c.SectionPath
	if section == nil {
		section = []string{}
	}
	acl := doc.ACL
	if acl == nil {
		acl = []string{}
	}
	return &ChunkRecord{
		ChunkID: c.ID(), DocumentID: v.DocumentID, DocumentVersion: v.ID,
		Start: c.Start, End: c.End, Page: c.Page, PageEnd: c.PageEnd, PageLabel: c.PageLabel,
		SectionPath: section, SourceURL: v.SourceURL, MediaType: v.MediaType, ExternalID: c.ExternalID, ACL: acl,
		LowConfidence: lowConfidence(l, c.Page), SpanHash: c.SpanHash, Text: string(span),
	}, nil
}
