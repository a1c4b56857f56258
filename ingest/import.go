package ingest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
)

// Repair methods recorded on re-anchored chunks (store.Repair.Method).
const (
	RepairCoordinates = "coordinates" // the text was where claimed; page, label or section came from the layout
	RepairMoved       = "moved"       // the exact text, found once elsewhere (stale offsets)
)

// contextLen is how much of the neighbouring chunks' text the fuzzy
// re-anchoring uses to tell candidate places apart.
const contextLen = 64

// ImportOptions say how ImportChunks reads a manifest.
type ImportOptions struct {
	Format  string // the manifest's shape (ReadManifest's); decides the conventions tried
	Offsets string // OffsetsAuto ("") detects the offset origin; OffsetsDocument or OffsetsPage forces it
	Repair  bool   // re-anchor chunks whose claims do not resolve
}

// ImportChunks validates chunks imported from another pipeline against the
// canonical text and layout of the version about to be stored (docs/contract.md#validation-and-quarantine),
// and returns their records in manifest order, and the convention under
// which the manifest was read: of those its format allows (offsets from
// the document or from the page, pages from 0 or 1, page text stripped),
// the one under which most chunks validate, one for the whole manifest. A
// chunk whose claims resolve is accepted. Otherwise, without repair, it is
// quarantined with the reason; with repair it is re-anchored: when only
// its page, label or section claim was wrong the layout's are taken; when
// its text is not at its offsets the matcher looks for it (exact,
// whitespace, normalized, then bounded fuzzy near the claimed offset, with
// the neighbouring chunks as context). An anchor that fits several places
// equally well is quarantined as ambiguous, never guessed. Every repair
// keeps the original claims.
func ImportChunks(version string, text string, txt store.Text, layout *store.Layout, chunks []ImportedChunk, opts ImportOptions) ([]store.Chunk, Convention) {
	repair := opts.Repair
	lead := leadingSpace(txt, layout)
	conv := detect(candidates(opts.Format, opts.Offsets, chunks, lead), chunks, txt, layout, lead)
	out := make([]store.Chunk, len(chunks))
	var ix *match.Index // built on the first re-anchoring: folding the text costs a pass over it
	for i := range chunks {
		ic := &chunks[i]
		ord := uint32(i)
		if ic.Err != "" {
			out[i] = quarantined(version, ord, ic, resolve.Claim{}, &resolve.QuarantineError{Reason: ReasonMalformed, Want: ic.Err, Got: "no chunk"})
			continue
		}
		claim, q := conv.claim(ic, txt, layout, lead)
		located := q == nil // the claimed offsets mean something
		if q == nil {
			q = resolve.Validate(txt, layout, claim)
		}
		if q == nil {
			out[i] = record(txt, layout, version, ord, ic, claim.Start, claim.End, nil)
			continue
		}
		if !repair {
			out[i] = quarantined(version, ord, ic, claim, q)
			continue
		}
		rep := &store.Repair{Reason: q.Reason, ClaimedStart: claim.Start, ClaimedEnd: claim.End,
			ClaimedPage: claim.Page, ClaimedPageLabel: ic.PageLabel, ClaimedSection: ic.Section}
		switch q.Reason {
		case resolve.ReasonPageMismatch, resolve.ReasonPageLabelMismatch, resolve.ReasonSectionMismatch:
			if !located {
				break // page-relative offsets on a page that does not exist: search the text
			}
			rep.Method = RepairCoordinates
			out[i] = record(txt, layout, version, ord, ic, claim.Start, claim.End, rep)
			continue
		}
		if ix == nil {
			ix = match.NewIndex(text)
		}
		opts := match.Options{Hint: match.NoHint, Prefix: neighbour(chunks, i-1, true), Suffix: neighbour(chunks, i+1, false)}
		if ic.HasStart && located {
			opts.Hint = claim.Start
		}
		m := ix.Find(ic.Text, opts)
		switch {
		case m.Level == match.LevelNone:
			out[i] = quarantined(version, ord, ic, claim, &resolve.QuarantineError{Reason: resolve.ReasonNotFound, Want: q.Want, Got: "no place in the text within the fuzzy bound"})
		case m.Count > 1:
			out[i] = quarantined(version, ord, ic, claim, &resolve.QuarantineError{Reason: resolve.ReasonAmbiguous, Want: q.Want,
				Got: strconv.Itoa(m.Count) + " equally good places (" + string(m.Level) + ")"})
		default:
			rep.Method, rep.Distance = string(m.Level), m.Distance
			if m.Level == match.LevelExact {
				rep.Method = RepairMoved
			}
			out[i] = record(txt, layout, version, ord, ic, m.Start, m.End, rep)
		}
	}
	return out, conv
}

// pageOfLabel finds the one physical page with a printed label; where the
// source defines no labels, a label is taken as the page number. 0 when
// none or several match.
func pageOfLabel(layout *store.Layout, label string) int {
	if len(layout.PageLabels) == 0 {
		n, err := strconv.Atoi(label)
		if err != nil {
			return 0
		}
		return n
	}
	found := 0
	for i, l := range layout.PageLabels {
		if l == label {
			if found != 0 {
				return 0
			}
			found = i + 1
		}
	}
	return found
}

// neighbour returns up to contextLen code points of chunk i's text: its
// tail for the previous chunk, its head for the next.
func neighbour(chunks []ImportedChunk, i int, tail bool) string {
	if i < 0 || i >= len(chunks) || !chunks[i].HasText {
		return ""
	}
	s := chunks[i].Text
	if utf8.RuneCountInString(s) <= contextLen {
		return s
	}
	r := []rune(s)
	if tail {
		return string(r[len(r)-contextLen:])
	}
	return string(r[:contextLen])
}

func record(txt store.Text, layout *store.Layout, version string, ord uint32, ic *ImportedChunk, start, end int, rep *store.Repair) store.Chunk {
	c, err := resolve.Record(txt, layout, version, ord, start, end)
	if err != nil { // the matcher's coordinates are in range; defend anyway
		return quarantined(version, ord, ic, resolve.Claim{Start: start, End: end}, &resolve.QuarantineError{Reason: resolve.ReasonOutOfRange, Want: fmt.Sprintf("[%d, %d)", start, end), Got: err.Error()})
	}
	c.ExternalID, c.Repair = ic.ExternalID, rep
	return c
}

func quarantined(version string, ord uint32, ic *ImportedChunk, claim resolve.Claim, q *resolve.QuarantineError) store.Chunk {
	// The page stays as the convention read it (from 1); the label and
	// section as the manifest wrote them.
	claim.Text, claim.HasText = ic.Text, ic.HasText
	claim.PageLabel, claim.Section = ic.PageLabel, ic.Section
	c := quarantineRecord(version, ord, claim, q)
	c.ExternalID = ic.ExternalID
	return c
}

// quarantineRecord is the record of a chunk that failed validation: what it
// claimed and the finding; no coordinates of its own, since it resolves to
// nothing.
func quarantineRecord(version string, ord uint32, c resolve.Claim, q *resolve.QuarantineError) store.Chunk {
	ch := store.Chunk{Version: version, Ordinal: ord, Page: c.Page, PageEnd: c.Page, PageLabel: c.PageLabel, SectionPath: c.Section,
		Quarantine: &store.Quarantine{Reason: q.Reason, Want: q.Want, Got: q.Got, ClaimedStart: c.Start, ClaimedEnd: c.End}}
	if c.HasText {
		ch.Quarantine.ClaimedText = clip(c.Text, maxClaimedText)
	}
	return ch
}

// importInput is what an import brings besides the source: the manifest's
// chunks and, with --text, the canonical text to check them against.
type importInput struct {
	chunks       []ImportedChunk
	format       string
	offsets      string // --offsets: "" or OffsetsAuto detects
	manifestHash store.ID
	text         *Extracted // nil: extract the source as usual
}

// readImport reads an import's manifest and text: from memory (a
// RunSource's Source, named "manifest" and "text" in errors), else from the
// files opts.Chunks and opts.TextFile name.
func readImport(path string, opts Options) (*importInput, error) {
	manifestName, textName := opts.Chunks, opts.TextFile
	var mb, tb []byte
	if p := opts.parts; p != nil {
		manifestName, textName, mb, tb = "manifest", "text", p.manifest, p.text
	} else {
		var err error
		if mb, err = os.ReadFile(opts.Chunks); err != nil {
			return nil, &ExtractError{Path: manifestName, Reason: ReasonUnreadable, Err: err}
		}
		if opts.TextFile != "" {
			if tb, err = os.ReadFile(opts.TextFile); err != nil {
				return nil, &ExtractError{Path: textName, Reason: ReasonUnreadable, Err: err}
			}
		}
	}
	chunks, format, err := ReadManifest(bytes.NewReader(mb), opts.ChunksFormat)
	if err != nil {
		return nil, &ExtractError{Path: manifestName, Reason: ReasonMalformed, Err: err}
	}
	in := &importInput{chunks: chunks, format: format, offsets: opts.Offsets, manifestHash: store.Hash(mb)}
	if tb != nil {
		if in.text, err = externalText(path, tb); err != nil {
			return nil, &ExtractError{Path: textName, Reason: reasonOf(err), Err: err}
		}
	}
	return in, nil
}

// externalText takes a pipeline's own canonical text as is, so its offsets
// can be checked exactly: only valid UTF-8 without NUL bytes is required.
// Form feeds are page breaks; a Markdown source's headings give sections
// when the text is already in our normal form.
func externalText(sourcePath string, b []byte) (*Extracted, error) {
	if !utf8.Valid(b) {
		return nil, ErrInvalidUTF8
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, ErrBinary
	}
	s := string(b)
	ex, err := ExtractText(b)
	if err != nil || ex.Text != s {
		// Not in normal form: keep the text exactly, pages only.
		ex = &Extracted{Text: s, Layout: store.Layout{PageStarts: pageStarts(s)}, MediaType: "text/plain"}
	}
	ex.Extractor = "external/1:" + store.Hash(b).String()[:32]
	if k, ok := kindOf(sourcePath); ok && k.mediaType == "text/markdown" {
		if md, err := ExtractMarkdown(b); err == nil && md.Text == s {
			ex.Layout.Sections = md.Layout.Sections
		}
	}
	if k, ok := kindOf(sourcePath); ok {
		ex.MediaType = k.mediaType
	}
	return ex, nil
}

// checkImportOptions refuses import settings without an import, and an
// unknown offset origin.
func checkImportOptions(importing bool, offsets string, limit *QuarantineLimit) error {
	if !ValidOffsets(offsets) {
		return fmt.Errorf("%w: --offsets %q (want auto, document or page)", ErrOptions, offsets)
	}
	if !importing && (offsets != "" && offsets != OffsetsAuto || limit != nil) {
		return fmt.Errorf("%w: --offsets and --max-quarantined read an imported manifest: they need --chunks", ErrOptions)
	}
	return nil
}

// gateImport reports the convention an import was read under and holds
// the version back when its quarantined chunks exceed the limit (nil: the
// import default, none allowed). It reports whether it held it back.
func (r *Result) gateImport(db Store, nv *store.NewVersion, conv Convention, limit *QuarantineLimit, text textSource, repair bool) bool {
	r.Offsets, r.PageStripped, r.PageBase = conv.Offsets, conv.Stripped, nil
	if conv.Paged {
		b := conv.PageBase
		r.PageBase = &b
	}
	r.QuarantineReasons = nil
	for i := range nv.Chunks {
		if q := nv.Chunks[i].Quarantine; q != nil {
			if r.QuarantineReasons == nil {
				r.QuarantineReasons = map[string]int{}
			}
			r.QuarantineReasons[q.Reason]++
		}
	}
	var l QuarantineLimit
	if limit != nil {
		l = *limit
	}
	if !gate(r, nv, l, text, repair) {
		return false
	}
	_ = db.View(func(tx *store.Tx) error {
		if doc, err := tx.Document(nv.Version.DocumentID); err == nil && doc.Current != "" {
			r.Error += "; the current version " + doc.Current + " stays current"
		}
		return nil
	})
	return true
}

// ImportConvention is the convention an import was read under, as the
// report prints it ("offsets: page, pages from 0"); "" when the result is
// not of an import read now.
func (r *Result) ImportConvention() string {
	if r.Offsets == "" {
		return ""
	}
	cv := Convention{Offsets: r.Offsets, Stripped: r.PageStripped}
	if r.PageBase != nil {
		cv.Paged, cv.PageBase = true, *r.PageBase
	}
	return cv.String()
}

// predict fills in what writing a prepared version would do, reading the
// store only: the status a dry run reports.
func predict(db Store, r *Result, nv *store.NewVersion) {
	r.Status = Ingested
	_ = db.View(func(tx *store.Tx) error {
		if v, err := tx.Version(nv.Version.ID); err == nil {
			switch v.Status {
			case store.StatusCurrent:
				r.Status = Unchanged
			case store.StatusSuperseded:
				r.Restored = true
			}
		}
		if doc, err := tx.Document(nv.Version.DocumentID); err == nil && doc.Current != "" && doc.Current != nv.Version.ID {
			r.Superseded = doc.Current
		}
		return nil
	})
}
