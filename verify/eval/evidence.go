package eval

import (
	"errors"
	"fmt"

	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// ResolvedEvidence is an expected passage found in the current version of
// its document: where, how its quote matched, and the servable chunks that
// hold it. A retrieved chunk among them is a hit.
type ResolvedEvidence struct {
	DocumentID      string `json:"document_id"`
	Quote           string `json:"quote"`
	DocumentVersion string `json:"document_version"`
	SourceStart     int    `json:"source_start"` // half-open, code points into the canonical text
	SourceEnd       int    `json:"source_end"`
	Match           string `json:"match"` // exact, whitespace, normalized or fuzzy
	// ChunkIDs are the servable chunks that hold the whole passage, in
	// ordinal order; when none does (it crosses a chunk boundary), those
	// that overlap it.
	ChunkIDs []string `json:"chunk_ids"`
}

// Viewer is the part of *store.DB a run reads through.
type Viewer interface {
	View(func(*store.Tx) error) error
}

// resolver resolves the expected evidence of a golden set in one read
// transaction, each version's text read, checked and indexed once.
type resolver struct {
	tx      *store.Tx
	indexes map[string]*match.Index
	texts   map[string]string
	chunks  map[string][]store.Chunk
}

// ResolveEvidence resolves q's expected evidence in tx. problem says why a
// passage does not resolve, for the question's record (the question is not
// run); err is set only when the store cannot be read.
func ResolveEvidence(tx *store.Tx, q *Question) (ev []ResolvedEvidence, problem string, err error) {
	return newResolver(tx).question(q)
}

func newResolver(tx *store.Tx) *resolver {
	return &resolver{tx: tx, indexes: map[string]*match.Index{}, texts: map[string]string{}, chunks: map[string][]store.Chunk{}}
}

func (r *resolver) question(q *Question) ([]ResolvedEvidence, string, error) {
	out := make([]ResolvedEvidence, 0, len(q.ExpectedEvidence))
	for i, e := range q.ExpectedEvidence {
		re, problem, err := r.passage(e, q.Principal)
		if err != nil {
			return nil, "", err
		}
		if problem != "" {
			return nil, fmt.Sprintf("expected_evidence[%d] (%s): %s", i, e.DocumentID, problem), nil
		}
		out = append(out, re)
	}
	return out, "", nil
}

func (r *resolver) passage(e ExpectedEvidence, principal string) (ResolvedEvidence, string, error) {
	re := ResolvedEvidence{DocumentID: e.DocumentID, Quote: e.Quote}
	doc, err := r.tx.Document(e.DocumentID)
	if errors.Is(err, store.ErrNotFound) {
		return re, "no such document in the store", nil
	}
	if err != nil {
		return re, "", err
	}
	if doc.Deleted || doc.Current == "" {
		return re, "the document has no current version (deleted)", nil
	}
	if !doc.Allows(principal) {
		return re, fmt.Sprintf("principal %q may not read the document", principal), nil
	}
	v, err := r.tx.Version(doc.Current)
	if err != nil {
		return re, "", err
	}
	re.DocumentVersion = v.ID
	ix, err := r.index(v)
	if err != nil {
		return re, "", err
	}
	m := ix.Find(e.Quote, match.Options{Hint: match.NoHint})
	switch {
	case !m.Found():
		return re, fmt.Sprintf("the quote is not in its current version %s", v.ID), nil
	case m.Count > 1:
		return re, fmt.Sprintf("the quote matches %d places of version %s: quote enough words to name one", m.Count, v.ID), nil
	case m.Level == match.LevelFuzzy:
		// As in verification, a fuzzy match never excuses a changed figure.
		bs, be := match.ByteRange(r.texts[v.ID], m.Start, m.End)
		if span := r.texts[v.ID][bs:be]; !sameFigures(e.Quote, span) {
			return re, fmt.Sprintf("the quote matches only fuzzily, with other figures: %q in version %s", clip(span, 200), v.ID), nil
		}
	}
	re.SourceStart, re.SourceEnd, re.Match = m.Start, m.End, string(m.Level)
	chunks, err := r.servable(v)
	if err != nil {
		return re, "", err
	}
	for _, c := range chunks {
		if c.Start <= m.Start && m.End <= c.End {
			re.ChunkIDs = append(re.ChunkIDs, c.ID())
		}
	}
	if len(re.ChunkIDs) == 0 {
		for _, c := range chunks {
			if c.Start < m.End && m.Start < c.End {
				re.ChunkIDs = append(re.ChunkIDs, c.ID())
			}
		}
	}
	if len(re.ChunkIDs) == 0 {
		return re, fmt.Sprintf("the quote is in no servable chunk of version %s (quarantined?)", v.ID), nil
	}
	return re, "", nil
}

func (r *resolver) index(v *store.Version) (*match.Index, error) {
	if ix, ok := r.indexes[v.ID]; ok {
		return ix, nil
	}
	txt, err := r.tx.Text(v)
	if err != nil {
		return nil, err
	}
	if err := store.VerifyText(v, txt); err != nil {
		return nil, err
	}
	text := string(txt.Bytes()) // a copy: the mapped bytes live only as long as the transaction
	ix := match.NewIndex(text)
	r.indexes[v.ID], r.texts[v.ID] = ix, text
	return ix, nil
}

// sameFigures reports whether a and b hold the same figures, in order.
func sameFigures(a, b string) bool {
	fa, fb := verify.Figures(a), verify.Figures(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i].Kind != fb[i].Kind || fa[i].Value != fb[i].Value {
			return false
		}
	}
	return true
}

func (r *resolver) servable(v *store.Version) ([]store.Chunk, error) {
	if cs, ok := r.chunks[v.ID]; ok {
		return cs, nil
	}
	var cs []store.Chunk
	err := r.tx.ForEachChunk(v, func(c *store.Chunk) error {
		if c.Quarantine == nil {
			cs = append(cs, *c)
		}
		return nil
	})
	r.chunks[v.ID] = cs
	return cs, err
}
