package resolve

import (
	"fmt"
	"strconv"

	"github.com/evidence-rag/evidence/store"
)

// Checker is the part of *store.DB that Audit needs.
type Checker interface {
	Viewer
	CheckWith(store.CheckOptions) (*store.CheckReport, error)
}

// AuditReport is what AuditWith found.
type AuditReport struct {
	Findings []store.Finding
	Chunks   int // chunk records of the versions read
	Versions int // live versions
	Read     int // live versions whose data (text and spans) was read
}

// Audit re-checks a whole store: AuditWith, reading everything.
func Audit(db Checker) (findings []store.Finding, chunks int, err error) {
	rep, err := AuditWith(db, store.CheckOptions{})
	if err != nil {
		return nil, 0, err
	}
	return rep.Findings, rep.Chunks, nil
}

// AuditWith re-checks a store, like `restic check`: the store's own check
// (bbolt pages, every record's seal, key and cross-references, every
// text's hash; store.DB.CheckWith), then every servable chunk of every
// version read is resolved again against the stored text and layout:
// range, span hash, byte offsets, page, page end, page label and section.
// opts.Subset limits the versions whose data is read. err is set only
// when the audit could not run.
func AuditWith(db Checker, opts store.CheckOptions) (*AuditReport, error) {
	check, err := db.CheckWith(opts)
	if err != nil {
		return nil, err
	}
	rep := &AuditReport{Findings: check.Findings, Versions: check.Versions, Read: len(check.Read)}
	err = db.View(func(tx *store.Tx) error {
		for _, id := range check.Read {
			v, err := tx.Version(id)
			if err != nil {
				continue // reported by the check
			}
			n, fs := auditVersion(tx, v)
			rep.Chunks += n
			rep.Findings = append(rep.Findings, fs...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func auditVersion(tx *store.Tx, v *store.Version) (n int, findings []store.Finding) {
	add := func(chunk, kind, detail string) {
		findings = append(findings, store.Finding{Kind: kind, Document: v.DocumentID, Version: v.ID, Chunk: chunk, Detail: detail})
	}
	txt, err := tx.Text(v)
	if err != nil {
		return 0, nil // reported by the check
	}
	l, err := tx.Layout(v)
	if err != nil {
		return 0, nil // reported by the check
	}
	// Chunk by chunk, so that a record the check found damaged leaves the
	// others checked; chunks past the header's count are the check's.
	for ord := range uint32(max(v.Chunks, 0)) {
		c, err := tx.Chunk(v, ord)
		if err != nil {
			continue // reported by the check
		}
		n++
		if c.Quarantine != nil {
			continue // known bad, never served
		}
		id := c.ID()
		if q := Validate(txt, l, Claim{Start: c.Start, End: c.End, Page: c.Page, HasPage: true, PageLabel: c.PageLabel,
			Section: c.SectionPath, HasSection: true}); q != nil {
			add(id, q.Reason, fmt.Sprintf("claimed %s, found %s", q.Want, q.Got))
			continue
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
	}
	return n, findings
}
