package providers

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Viewer is the part of *store.DB that Convert reads through.
type Viewer interface {
	View(func(*store.Tx) error) error
}

// Options is what the caller knows of the request beyond the answer.
type Options struct {
	RequestID string // "" means the provider's response id
	Principal string // whom the answer is for: access is checked for them
}

// Convert builds the verifier's request for an answer: one claim per cited
// part (claim_id is the part's place in the provider's JSON), its
// citations' evidence in the chunks of the mapped versions that hold what
// each cites, as retrieved every chunk of the mapped documents' versions
// and the mapped chunks, and the answer's text for the coverage check. It reads the store in one
// transaction and writes nothing. Errors in the input are *InputError;
// other errors come from the store.
func Convert(db Viewer, a *Answer, m Map, opts Options) (*verify.Request, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	req := &verify.Request{RequestID: firstOf(opts.RequestID, a.ID), Principal: opts.Principal, Answer: a.Text,
		Retrieved: []string{}, Claims: []verify.Claim{}}
	err := db.View(func(tx *store.Tx) error {
		c := &converter{tx: tx, f: a.Format, m: m, principal: opts.Principal, sources: map[string]*source{}, versions: map[string]*version{}}
		seen := map[string]bool{}
		retrieve := func(id string) {
			if !seen[id] {
				seen[id] = true
				req.Retrieved = append(req.Retrieved, id)
			}
		}
		for _, k := range m.keys() {
			s, err := c.source(k)
			if err != nil {
				return err
			}
			if s.id != "" {
				retrieve(s.id) // the provider was given that chunk only
				continue
			}
			if s.ver.listed {
				continue
			}
			s.ver.listed = true
			ids, err := c.chunkIDs(s.ver)
			if err != nil {
				return err
			}
			for _, id := range ids {
				retrieve(id)
			}
		}
		for _, cl := range a.Claims {
			vc := verify.Claim{ClaimID: cl.Item, Text: cl.Text, Evidence: []verify.Evidence{}}
			for i := range cl.Citations {
				ci := &cl.Citations[i]
				k, ok := m.lookup(ci.Keys)
				if !ok {
					return c.errorf(ci.Item, "%s not in the map%s", quoteKeys(ci.Keys), m.holds())
				}
				evs, err := c.evidence(c.sources[k], ci)
				if err != nil {
					return err
				}
				for _, e := range evs {
					retrieve(e.ChunkID)
				}
				vc.Evidence = append(vc.Evidence, evs...)
			}
			req.Claims = append(req.Claims, vc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, &InputError{Format: a.Format, Reason: strings.TrimPrefix(err.Error(), verify.ErrRequest.Error()+": ")}
	}
	return req, nil
}

func quoteKeys(ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = strconv.Quote(k)
	}
	if len(q) == 1 {
		return "key " + q[0] + " is"
	}
	return "none of the keys " + strings.Join(q, ", ") + " is"
}

// holds lists some of the map's keys for a message.
func (m Map) holds() string {
	ks := m.keys()
	if len(ks) == 0 {
		return " (the map is empty)"
	}
	q := make([]string, 0, 5)
	for _, k := range ks[:min(5, len(ks))] {
		q = append(q, strconv.Quote(k))
	}
	more := ""
	if len(ks) > 5 {
		more = fmt.Sprintf(" and %d more", len(ks)-5)
	}
	return " (it holds " + strings.Join(q, ", ") + more + ")"
}

type converter struct {
	tx        *store.Tx
	f         Format
	m         Map
	principal string
	sources   map[string]*source  // by map key
	versions  map[string]*version // by version id
}

func (c *converter) errorf(item, format string, args ...any) error {
	return inputf(c.f, item, format, args...)
}

// version is a mapped version and, once needed, what it holds. Text and
// chunks are read only when the principal may read the version and it is
// not deleted.
type version struct {
	v       *store.Version
	allowed bool
	listed  bool // its chunks are in retrieved
	loaded  bool
	txt     store.Text
	text    string // txt's bytes; valid for the transaction
	layout  *store.Layout
	chunks  []*store.Chunk // in ordinal order
}

// source is what one map key names: a version, or one chunk of it.
type source struct {
	key   string
	ver   *version
	chunk *store.Chunk // nil for a document entry, and for a chunk of a deleted version
	id    string       // the chunk id of a chunk entry
}

func (c *converter) source(k string) (*source, error) {
	if s := c.sources[k]; s != nil {
		return s, nil
	}
	e := c.m[k]
	item := fmt.Sprintf("map %q", k)
	bad := func(format string, args ...any) error {
		return &InputError{Item: item, Reason: fmt.Sprintf(format, args...)}
	}
	s := &source{key: k}
	versionID := e.DocumentVersion
	if e.ChunkID != "" {
		versionID, _, _ = store.ParseChunkID(e.ChunkID) // checked by Validate
		s.id = e.ChunkID
	} else if versionID == "" {
		doc, err := c.tx.Document(e.DocumentID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, bad("no document %q in the store", e.DocumentID)
		} else if err != nil {
			return nil, err
		}
		versionID = doc.Current
		if versionID == "" && len(doc.Versions) > 0 {
			versionID = doc.Versions[len(doc.Versions)-1] // deleted: its tombstone answers
		}
		if versionID == "" {
			return nil, bad("document %q has no version", e.DocumentID)
		}
	}
	ver := c.versions[versionID]
	if ver == nil {
		v, err := c.tx.Version(versionID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, bad("no version %s in the store", versionID)
		} else if err != nil {
			return nil, err
		}
		ver = &version{v: v, allowed: v.Allows(c.principal)}
		c.versions[versionID] = ver
	}
	if e.DocumentID != "" && ver.v.DocumentID != e.DocumentID {
		return nil, bad("version %s is not of document %q", versionID, e.DocumentID) // naming its own could tell an outsider
	}
	s.ver = ver
	if s.id != "" && ver.v.Status != store.StatusDeleted {
		_, ord, _ := store.ParseChunkID(s.id)
		ch, err := c.tx.Chunk(ver.v, ord)
		if errors.Is(err, store.ErrNotFound) {
			return nil, bad("no chunk %s in the store", s.id)
		} else if err != nil {
			return nil, err
		}
		s.chunk = ch
	}
	c.sources[k] = s
	return s, nil
}

// chunkIDs lists a version's chunks for retrieved.
func (c *converter) chunkIDs(ver *version) ([]string, error) {
	if ver.v.Status == store.StatusDeleted {
		return nil, nil
	}
	var ids []string
	err := c.tx.ForEachChunk(ver.v, func(ch *store.Chunk) error { ids = append(ids, ch.ID()); return nil })
	return ids, err
}

// load reads a readable version's text, layout and chunks, checking the
// text against its hash.
func (c *converter) load(ver *version) error {
	if ver.loaded {
		return nil
	}
	txt, err := c.tx.Text(ver.v)
	if err != nil {
		return err
	}
	if err := store.VerifyText(ver.v, txt); err != nil {
		return err
	}
	if ver.layout, err = c.tx.Layout(ver.v); err != nil {
		return err
	}
	err = c.tx.ForEachChunk(ver.v, func(ch *store.Chunk) error { ver.chunks = append(ver.chunks, ch); return nil })
	if err != nil {
		return err
	}
	ver.txt, ver.text, ver.loaded = txt, string(txt.Bytes()), true
	return nil
}

// normQuote brings a provider's quote to the form of canonical text: line
// endings to \n, Unicode NFC.
func normQuote(q string) string {
	q = strings.ReplaceAll(strings.ReplaceAll(q, "\r\n", "\n"), "\r", "\n")
	return norm.NFC.String(q)
}

// evidence turns one citation into evidence items: the chunk(s) of the
// source that hold what it cites.
func (c *converter) evidence(s *source, ci *Citation) ([]verify.Evidence, error) {
	ver := s.ver
	if !ver.allowed || ver.v.Status == store.StatusDeleted {
		// Nothing of the text is read: the verifier answers forbidden or
		// deleted for a chunk chosen without it.
		id := s.id
		if id == "" {
			id = store.ChunkID(ver.v.ID, 0)
		}
		return []verify.Evidence{{ChunkID: id}}, nil
	}
	if err := c.load(ver); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("%q version %s", ver.v.DocumentID, ver.v.ID)
	// The text the provider saw: the version's, or the mapped chunk's.
	doc, base, lo, hi := ver.text, 0, 0, ver.txt.Len()
	if s.chunk != nil {
		span, err := c.tx.Span(ver.v, s.chunk)
		if err != nil {
			return nil, err
		}
		doc, base, lo, hi = string(span), s.chunk.Start, s.chunk.Start, s.chunk.End
		what = "chunk " + s.id
	}
	if p := ci.Pages; p != nil {
		starts := ver.layout.PageStarts
		n := max(len(starts), 1)
		if p.First > n {
			return nil, c.errorf(ci.Item, "pages [%d, %d) but %s has %d page%s", p.First, p.End, what, n, plural(n))
		}
		plo, phi := 0, ver.txt.Len()
		if len(starts) > 0 {
			plo = starts[p.First-1]
			if p.End-1 < len(starts) {
				phi = starts[p.End-1]
			}
		}
		lo, hi = max(lo, plo), min(hi, phi)
		if lo >= hi {
			return nil, c.errorf(ci.Item, "pages [%d, %d) hold none of %s", p.First, p.End, what)
		}
	}
	quote := normQuote(ci.Quote)
	if strings.TrimSpace(quote) == "" {
		quote = ""
	}
	if r := ci.Range; r != nil {
		bs, be, ok := span(doc, r.Start, r.End, r.Unit)
		if !ok || quote != "" && doc[bs:be] != quote {
			if quote != "" {
				if us := fitting(doc, r.Start, r.End, quote, r.Unit); len(us) > 0 {
					return nil, c.errorf(ci.Item, "offsets [%d, %d) hold the cited text in %s counted in %s, not in %s: set offset_unit %s", r.Start, r.End, what, us[0], r.Unit, us[0])
				}
			}
			if !ok {
				return nil, c.errorf(ci.Item, "offsets [%d, %d) do not fall on characters of the %d-%s text of %s (offset_unit %s)", r.Start, r.End, length(doc, r.Unit), unitNoun(r.Unit), what, r.Unit)
			}
		}
		if bs == be {
			return nil, c.errorf(ci.Item, "offsets [%d, %d) cite nothing", r.Start, r.End)
		}
		cs := base + utf8.RuneCountInString(doc[:bs])
		ce := cs + utf8.RuneCountInString(doc[bs:be])
		exact := quote == "" || doc[bs:be] == quote
		return c.pieces(ver, s, cs, ce, quote, exact, true), nil
	}
	if quote != "" {
		rs, re := ver.txt.ByteOffset(lo), ver.txt.ByteOffset(hi)
		region := ver.text[rs:re]
		if i := strings.Index(region, quote); i >= 0 {
			cs := ver.txt.CodePoint(rs + i)
			return c.pieces(ver, s, cs, cs+utf8.RuneCountInString(quote), quote, true, true), nil
		}
		if m, _, _ := match.Locate(region, quote, match.Options{Hint: match.NoHint}); m.Found() {
			at := ver.txt.CodePoint(rs)
			return c.pieces(ver, s, at+m.Start, at+m.End, quote, false, false), nil
		}
		// Not in what was cited: the verifier reports it (quote_not_found,
		// or the chunk that holds it), on the chunk where the cited region
		// starts.
		id := s.id
		if s.chunk == nil {
			ps := cover(ver.chunks, lo, lo+1)
			if len(ps) == 0 {
				return nil, c.errorf(ci.Item, "%s has no chunks", what)
			}
			id = ps[0].ch.ID()
		}
		return []verify.Evidence{{ChunkID: id, Quote: quote}}, nil
	}
	// Neither range nor quote: only a single chunk can be meant.
	if s.chunk != nil {
		return []verify.Evidence{{ChunkID: s.id}}, nil
	}
	var servable []*store.Chunk
	for _, ch := range ver.chunks {
		if ch.Quarantine == nil && ch.Start < hi && ch.End > lo {
			servable = append(servable, ch)
		}
	}
	if len(servable) == 1 {
		return []verify.Evidence{{ChunkID: servable[0].ID()}}, nil
	}
	hint := ""
	if c.f == OpenAI {
		hint = `, or ask for the file search results (include: ["file_search_call.results"])`
	}
	return nil, c.errorf(ci.Item, "cites %s with no range and no quote, and it has %d chunks: map %q to one chunk_id%s", what, len(servable), s.key, hint)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// piece is the part [start, end) of a cited span that one chunk holds,
// or, for a gap, that no chunk holds and ch is nearest to.
type piece struct {
	ch         *store.Chunk
	start, end int // code points of the canonical text
	gap        bool
}

// pieces makes the evidence for the cited span [cs, ce): one item per
// chunk it falls in. An exact quote is split at the chunks' edges; an
// inexact one goes whole to a single chunk, or is split where each
// chunk's part of the span is found in it. Offsets are given where the
// provider gave them or the quote is exactly there.
func (c *converter) pieces(ver *version, s *source, cs, ce int, quote string, exact, offsets bool) []verify.Evidence {
	ps := []piece{{s.chunk, cs, ce, false}}
	if s.chunk == nil {
		ps = cover(ver.chunks, cs, ce)
	}
	var out []verify.Evidence
	for i, p := range ps {
		part, _ := ver.txt.Slice(p.start, p.end)
		if len(ps) > 1 && strings.TrimSpace(string(part)) == "" && !(i == len(ps)-1 && len(out) == 0) {
			continue // only the white space between two chunks, or two paragraphs
		}
		e := verify.Evidence{ChunkID: p.ch.ID()}
		switch {
		case quote == "":
		case exact:
			e.Quote = string(part)
		case len(ps) == 1:
			e.Quote = quote
		default:
			e.Quote = quote
			if m, bs, be := match.Locate(quote, strings.TrimSpace(string(part)), match.Options{Hint: match.NoHint}); m.Found() {
				e.Quote = quote[bs:be]
			}
		}
		if offsets && !p.gap {
			// A gap's part goes without: the verifier looks for it in the
			// chunk, does not find it, and removes the claim.
			start, end := p.start, p.end
			e.SourceStart, e.SourceEnd = &start, &end
		}
		out = append(out, e)
	}
	return out
}

// cover returns the chunks that hold [cs, ce): one servable chunk holding
// it all when there is one (chunks overlap), else, from left to right, the
// servable chunk reaching furthest, a quarantined one where no servable
// chunk holds a part (the verifier blocks it), and the nearest chunk for a
// part no chunk holds (a gap). It is empty only for a version without
// chunks.
func cover(chunks []*store.Chunk, cs, ce int) []piece {
	if len(chunks) == 0 {
		return nil
	}
	for _, ch := range chunks {
		if ch.Quarantine == nil && ch.Start <= cs && ce <= ch.End {
			return []piece{{ch, cs, ce, false}}
		}
	}
	furthest := func(pos int, servable bool) *store.Chunk {
		var best *store.Chunk
		for _, ch := range chunks {
			if (ch.Quarantine == nil) == servable && ch.Start <= pos && pos < ch.End && (best == nil || ch.End > best.End) {
				best = ch
			}
		}
		return best
	}
	var out []piece
	for pos := cs; pos < ce; {
		ch := furthest(pos, true)
		if ch == nil {
			ch = furthest(pos, false)
		}
		if ch != nil {
			end := min(ce, ch.End)
			out = append(out, piece{ch, pos, end, false})
			pos = end
			continue
		}
		// No chunk holds pos: up to the next chunk's start, cited on the
		// chunk before the gap, else the one after it.
		next, after := ce, (*store.Chunk)(nil)
		for _, ch := range chunks {
			if ch.Start > pos && ch.Start < next {
				next, after = ch.Start, ch
			}
		}
		near := after
		if len(out) > 0 {
			near = out[len(out)-1].ch
		} else {
			for _, ch := range chunks {
				if ch.End <= pos && (near == nil || near.Start > pos || ch.End > near.End) {
					near = ch
				}
			}
		}
		if near == nil {
			near = chunks[0]
		}
		out = append(out, piece{near, pos, next, true})
		pos = next
	}
	return out
}
