package resolve

import (
	"fmt"
	"strconv"

	"github.com/evidence-rag/evidence/store"
)

// Checker is the part of *store.DB that Audit needs.
type Checker interface {
	Viewer
	Check() ([]store.Finding, error)
}

// Audit re-checks a whole store, like `restic check`: the store's own
// structural check (bbolt pages, records, every text's hash), then every
// servable chunk of every version is resolved again against the stored text
// and layout: range, span hash, page, page end, page label and section.
// It returns the findings; err is set only when the audit could not run.
func Audit(db Checker) (findings []store.Finding, chunks int, err error) {
	findings, err = db.Check()
	if err != nil {
		return nil, 0, err
	}
	err = db.View(func(tx *store.Tx) error {
		return tx.ForEachVersion(func(v *store.Version) error {
			if v.Status == store.StatusDeleted {
				return nil
			}
			n, fs := auditVersion(tx, v)
			chunks += n
			findings = append(findings, fs...)
			return nil
		})
	})
	return findings, chunks, err
}

func auditVersion(tx *store.Tx, v *store.Version) (n int, findings []store.Finding) {
	add := func(chunk, kind, detail string) {
		findings = append(findings, store.Finding{Kind: kind, Document: v.DocumentID, Version: v.ID, Chunk: chunk, Detail: detail})
	}
	txt, err := tx.Text(v)
	if err != nil {
		return 0, nil // reported by Check
	}
	l, err := tx.Layout(v)
	if err != nil {
		return 0, nil // reported by Check
	}
	err = tx.ForEachChunk(v, func(c *store.Chunk) error {
		n++
		if c.Quarantine != nil {
			return nil // known bad, never served
		}
		id := c.ID()
		if q := Validate(txt, l, Claim{Start: c.Start, End: c.End, Page: c.Page, HasPage: true, PageLabel: c.PageLabel,
			Section: c.SectionPath, HasSection: true}); q != nil {
			add(id, q.Reason, fmt.Sprintf("claimed %s, found %s", q.Want, q.Got))
			return nil
		}
		span, _ := txt.Slice(c.Start, c.End)
		if got := store.Hash(span); got != c.SpanHash {
			add(id, "span_hash", fmt.Sprintf("recorded %s, read %s", c.SpanHash.Short(), got.Short()))
		}
		if bs := txt.ByteOffset(c.Start); c.ByteStart != bs || c.ByteEnd != bs+len(span) {
			add(id, "byte_offsets", fmt.Sprintf("bytes [%d, %d) recorded, code points map to [%d, %d)", c.ByteStart, c.ByteEnd, bs, bs+len(span)))
		}
		if want := l.Place(c.Start, c.End).PageEnd; c.PageEnd != want {
			add(id, ReasonPageMismatch, "page_end "+strconv.Itoa(c.PageEnd)+", text ends on page "+strconv.Itoa(want))
		}
		return nil
	})
	if err != nil {
		add("", "chunk", err.Error())
	}
	return n, findings
}
