package resolve

import "github.com/evidence-rag/evidence/store"

// DocumentSummary is a document with its current version, as `evidence
// docs` and GET /v1/documents list it.
type DocumentSummary struct {
	DocumentID     string       `json:"document_id"`
	CurrentVersion string       `json:"current_version,omitempty"`
	Status         store.Status `json:"status"` // of the current version, or deleted
	Versions       int          `json:"versions"`
	MediaType      string       `json:"media_type,omitempty"`
	Pages          int          `json:"pages"`
	Chunks         int          `json:"chunks"` // servable: quarantined ones not counted
	Quarantined    int          `json:"quarantined"`
	ACL            []string     `json:"acl,omitempty"`
	SourceURL      string       `json:"source_url,omitempty"`
}

// Summarize summarizes d from its current version; a document without
// one (deleted) has status deleted.
func Summarize(tx *store.Tx, d *store.Document) (DocumentSummary, error) {
	s := DocumentSummary{DocumentID: d.ID, CurrentVersion: d.Current, Versions: len(d.Versions), ACL: d.ACL, Status: store.StatusDeleted}
	if d.Current == "" {
		return s, nil
	}
	v, err := tx.Version(d.Current)
	if err != nil {
		return s, err
	}
	s.Status, s.MediaType, s.Pages, s.SourceURL = v.Status, v.MediaType, v.Pages, v.SourceURL
	s.Chunks, s.Quarantined = v.Chunks-v.Quarantined, v.Quarantined
	return s, nil
}
