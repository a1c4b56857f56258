package ingest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// QuarantinedChunk is one quarantined (or re-anchored) chunk as `evidence
// quarantine list` and GET /v1/quarantine show it.
type QuarantinedChunk struct {
	ChunkID         string       `json:"chunk_id"`
	DocumentID      string       `json:"document_id"`
	DocumentVersion string       `json:"document_version"`
	VersionStatus   store.Status `json:"version_status"`
	ExternalID      string       `json:"external_id,omitempty"`
	store.Quarantine
	Repair *store.Repair `json:"repair,omitempty"`
	// Start and End are where a repaired chunk now resolves: half-open,
	// code points into the version's canonical text.
	Start int `json:"source_start,omitempty"`
	End   int `json:"source_end,omitempty"`
}

// QuarantineReasons are the reason codes a chunk is quarantined (or, for
// those validation can repair, re-anchored) with.
var QuarantineReasons = []string{resolve.ReasonOutOfRange, resolve.ReasonTextMismatch, resolve.ReasonPageMismatch,
	resolve.ReasonPageLabelMismatch, resolve.ReasonSectionMismatch, resolve.ReasonNotFound, resolve.ReasonAmbiguous, ReasonMalformed}

// QuarantineFilter selects quarantined chunks; zero fields select all.
type QuarantineFilter struct {
	Reason, Document, Version string
	All                       bool // include superseded versions (without Version: current ones only)
	Repaired                  bool // list re-anchored chunks instead
}

// Check refuses a filter that can select nothing for want of a valid
// value; the error names the field as a parameter (reason).
func (f *QuarantineFilter) Check() error {
	if f.Reason != "" && !slices.Contains(QuarantineReasons, f.Reason) {
		return fmt.Errorf("reason %q: want one of %s", f.Reason, strings.Join(QuarantineReasons, ", "))
	}
	return nil
}

// Walk calls fn for every quarantined (or re-anchored) chunk the filter
// selects, in key order, skipping the versions may refuses (nil: none).
func (f *QuarantineFilter) Walk(tx *store.Tx, may func(*store.Version) bool, fn func(QuarantinedChunk) error) error {
	walk := tx.ForEachQuarantined
	if f.Repaired {
		walk = tx.ForEachRepaired
	}
	return walk(func(v *store.Version, c *store.Chunk) error {
		reason := ""
		if c.Quarantine != nil {
			reason = c.Quarantine.Reason
		} else if c.Repair != nil {
			reason = c.Repair.Reason
		}
		switch {
		case may != nil && !may(v),
			f.Reason != "" && reason != f.Reason,
			f.Document != "" && v.DocumentID != f.Document,
			f.Version != "" && v.ID != f.Version,
			f.Version == "" && !f.All && v.Status != store.StatusCurrent:
			return nil
		}
		q := QuarantinedChunk{ChunkID: c.ID(), DocumentID: v.DocumentID, DocumentVersion: v.ID,
			VersionStatus: v.Status, ExternalID: c.ExternalID, Repair: c.Repair}
		if c.Quarantine != nil {
			q.Quarantine = *c.Quarantine
		} else {
			q.Reason = reason
			q.Start, q.End = c.Start, c.End
		}
		return fn(q)
	})
}
