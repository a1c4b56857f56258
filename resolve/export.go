package resolve

import (
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
	ACL             []string `json:"acl,omitempty"`
	LowConfidence   string   `json:"low_confidence,omitempty"`
	SpanHash        store.ID `json:"span_hash"`
	Text            string   `json:"text"`
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
		span, err := tx.Span(v, c)
		if err != nil {
			return err
		}
		section := c.SectionPath
		if section == nil {
			section = []string{}
		}
		return fn(&ChunkRecord{
			ChunkID: c.ID(), DocumentID: v.DocumentID, DocumentVersion: v.ID,
			Start: c.Start, End: c.End, Page: c.Page, PageEnd: c.PageEnd, PageLabel: c.PageLabel,
			SectionPath: section, SourceURL: v.SourceURL, MediaType: v.MediaType, ACL: doc.ACL,
			LowConfidence: lowConfidence(l, c.Page), SpanHash: c.SpanHash, Text: string(span),
		})
	})
}
