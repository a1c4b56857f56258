package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Manifest formats: the chunk shapes of other pipelines that `ingest
// --chunks` reads. Offsets of every shape are Python str indices, that is
// Unicode code points, the unit of docs/contract.md#units.
const (
	FormatAuto       = "auto"       // detect from the first chunk's keys
	FormatGeneric    = "generic"    // text, source_start, source_end, page_number, page_label, section_path, chunk_id
	FormatLangChain  = "langchain"  // page_content, metadata.start_index, metadata.page (from 0 or 1), metadata.page_label, id
	FormatLlamaIndex = "llamaindex" // text, start_char_idx, end_char_idx, metadata.page_label, id_ / node_id
	FormatHaystack   = "haystack"   // content, meta.split_idx_start, meta.page_number (1-based), id
)

// ChunksFormats are the manifest formats Options.ChunksFormat takes.
var ChunksFormats = []string{FormatAuto, FormatGeneric, FormatLangChain, FormatLlamaIndex, FormatHaystack}

// ReasonMalformed quarantines a manifest line that could not be read as a chunk.
const ReasonMalformed = "malformed"

// ErrManifest is returned when a chunk manifest cannot be used at all
// (unknown shape, unreadable); single bad lines are quarantined instead.
var ErrManifest = errors.New("ingest: bad chunk manifest")

// maxManifestLine bounds one manifest line: a longer one is quarantined as
// malformed without being held in memory.
const maxManifestLine = 16 << 20

// ImportedChunk is one chunk of a manifest with its claims as the manifest
// states them: offsets in code points, but relative to the document or to
// a page, and pages numbered from 0 or 1, as the manifest's Convention says
// (ImportChunks detects it per manifest).
type ImportedChunk struct {
	Line       int    // 1-based line of the manifest
	ExternalID string // the chunk's id in its pipeline, if any
	Text       string
	HasText    bool
	Start, End int  // half-open, code points; from the document or the page start, per Convention
	HasStart   bool // Start was given and is an offset (not -1)
	HasEnd     bool
	// StartNotFound says the manifest gave start -1, LangChain's "the
	// splitter did not find the chunk": a claim of no offset at all, never
	// offset -1.
	StartNotFound bool
	Page          int // page number as the manifest writes it (from Convention.PageBase), when HasPage
	HasPage       bool
	PageLabel     string // printed page label; "" when not claimed
	Section       []string
	HasSection    bool
	// Err is set for a line that could not be read; it is quarantined.
	Err string
}

// manifestLine is the union of the keys the supported shapes use.
type manifestLine struct {
	// generic
	Text        *string   `json:"text"`
	SourceStart *int      `json:"source_start"`
	SourceEnd   *int      `json:"source_end"`
	PageNumber  *int      `json:"page_number"`
	PageLabel   *string   `json:"page_label"`
	SectionPath *[]string `json:"section_path"`
	ChunkID     *string   `json:"chunk_id"`
	// langchain
	PageContent  *string `json:"page_content"`
	PageContentJ *string `json:"pageContent"`
	// llamaindex
	StartCharIdx *int    `json:"start_char_idx"`
	EndCharIdx   *int    `json:"end_char_idx"`
	IDUnderscore *string `json:"id_"`
	NodeID       *string `json:"node_id"`
	// haystack
	Content *string `json:"content"`
	// shared
	ID       *string       `json:"id"`
	Metadata *manifestMeta `json:"metadata"`
	Meta     *manifestMeta `json:"meta"`
}

type manifestMeta struct {
	StartIndex    *int      `json:"start_index"`
	Page          *int      `json:"page"`
	PageLabel     *string   `json:"page_label"`
	PageNumber    *int      `json:"page_number"`
	SplitIdxStart *int      `json:"split_idx_start"`
	SectionPath   *[]string `json:"section_path"`
}

func detectFormat(l *manifestLine) string {
	switch {
	case l.PageContent != nil || l.PageContentJ != nil:
		return FormatLangChain
	case l.StartCharIdx != nil || l.EndCharIdx != nil || l.IDUnderscore != nil || l.NodeID != nil:
		return FormatLlamaIndex
	case l.Content != nil && l.Meta != nil:
		return FormatHaystack
	case l.Text != nil && l.Metadata != nil && l.SourceStart == nil:
		return FormatLlamaIndex
	case l.Text != nil || l.SourceStart != nil:
		return FormatGeneric
	}
	return ""
}

// ReadManifest reads a JSON Lines chunk manifest in the given format (or
// FormatAuto). Lines that are not valid JSON, or lack what the shape needs,
// come back with Err set, naming the line, so that they are quarantined and
// the rest kept. Blank lines are skipped. The error is set only when no
// line can be read or the shape is unknown.
func ReadManifest(r io.Reader, format string) ([]ImportedChunk, string, error) {
	switch format {
	case "", FormatAuto:
		format = ""
	case FormatGeneric, FormatLangChain, FormatLlamaIndex, FormatHaystack:
	default:
		return nil, "", fmt.Errorf("%w: unknown format %q (want auto, generic, langchain, llamaindex or haystack)", ErrManifest, format)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var out []ImportedChunk
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br)
		if err != nil && err != io.EOF {
			return nil, "", fmt.Errorf("%w: line %d: %v", ErrManifest, n, err)
		}
		if tooLong {
			out = append(out, ImportedChunk{Line: n, Err: fmt.Sprintf("line %d: longer than %d bytes", n, maxManifestLine)})
		} else if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, parseManifestLine(n, line, &format))
		}
		if err == io.EOF {
			break
		}
	}
	if format == "" {
		if len(out) == 0 {
			return nil, "", fmt.Errorf("%w: no chunks", ErrManifest)
		}
		return nil, "", fmt.Errorf("%w: unknown shape (no line has the keys of the generic, langchain, llamaindex or haystack form)", ErrManifest)
	}
	return out, format, nil
}

// readLine returns the next line without its newline; a line over the
// limit is skipped and reported.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > maxManifestLine {
				tooLong, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

func parseManifestLine(n int, b []byte, format *string) ImportedChunk {
	c := ImportedChunk{Line: n}
	bad := func(format string, args ...any) ImportedChunk {
		c.Err = fmt.Sprintf("line %d: ", n) + fmt.Sprintf(format, args...)
		return c
	}
	if !utf8.Valid(b) {
		return bad("invalid UTF-8")
	}
	var l manifestLine
	if err := json.Unmarshal(b, &l); err != nil {
		return bad("%v", err)
	}
	f := detectFormat(&l)
	if *format == "" {
		*format = f
	}
	if f == "" {
		return bad("no chunk text (none of text, page_content, content)")
	}
	if f != *format && !(*format == FormatGeneric && f == FormatLlamaIndex) && !(*format == FormatLlamaIndex && f == FormatGeneric) {
		return bad("a %s chunk in a %s manifest", f, *format)
	}
	setText := func(s *string) {
		if s != nil {
			c.Text, c.HasText = *s, true
		}
	}
	setStart := func(p *int) {
		switch {
		case p == nil:
		case *p >= 0:
			c.Start, c.HasStart = *p, true
		case *p == -1:
			c.StartNotFound = true // the pipeline could not find the chunk itself
		}
	}
	switch *format {
	case FormatGeneric, FormatLlamaIndex:
		setText(l.Text)
		if l.SourceStart != nil || l.SourceEnd != nil {
			setStart(l.SourceStart)
			if l.SourceEnd != nil {
				c.End, c.HasEnd = *l.SourceEnd, true
			}
		} else {
			setStart(l.StartCharIdx)
			if l.EndCharIdx != nil {
				c.End, c.HasEnd = *l.EndCharIdx, true
			}
		}
		if l.PageNumber != nil {
			c.Page, c.HasPage = *l.PageNumber, true
		}
		if l.PageLabel != nil {
			c.PageLabel = *l.PageLabel
		}
		if l.SectionPath != nil {
			c.Section, c.HasSection = *l.SectionPath, true
		}
		c.ExternalID = first(l.ChunkID, l.IDUnderscore, l.NodeID, l.ID)
		if m := l.Metadata; m != nil {
			if m.PageLabel != nil && c.PageLabel == "" {
				c.PageLabel = *m.PageLabel
			}
			if m.PageNumber != nil && !c.HasPage {
				c.Page, c.HasPage = *m.PageNumber, true
			}
			if m.SectionPath != nil && !c.HasSection {
				c.Section, c.HasSection = *m.SectionPath, true
			}
		}
	case FormatLangChain:
		setText(l.PageContent)
		if !c.HasText {
			setText(l.PageContentJ)
		}
		c.ExternalID = first(l.ID)
		if m := l.Metadata; m != nil {
			setStart(m.StartIndex)
			if m.Page != nil {
				c.Page, c.HasPage = *m.Page, true // PyPDFLoader counts from 0; the convention says
			}
			if m.PageLabel != nil {
				c.PageLabel = *m.PageLabel
			}
		}
	case FormatHaystack:
		setText(l.Content)
		c.ExternalID = first(l.ID)
		if m := l.Meta; m != nil {
			setStart(m.SplitIdxStart)
			if m.PageNumber != nil {
				c.Page, c.HasPage = *m.PageNumber, true
			}
		}
	}
	if !c.HasText {
		return bad("no chunk text")
	}
	if c.HasStart && !c.HasEnd {
		c.End, c.HasEnd = c.Start+utf8.RuneCountInString(c.Text), true
	}
	if c.Page < 0 {
		return bad("page %s is negative", strconv.Itoa(c.Page))
	}
	return c
}

func first(ss ...*string) string {
	for _, s := range ss {
		if s != nil && *s != "" {
			return *s
		}
	}
	return ""
}
