package store

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zeebo/blake3"
)

// Status is the lifecycle state of a version.
type Status string

// Version statuses.
const (
	StatusCurrent    Status = "current"    // the document's newest version
	StatusSuperseded Status = "superseded" // an older version; still resolvable
	StatusDeleted    Status = "deleted"    // a tombstone: text and chunks are gone
)

// VersionIDLen is the number of hex digits of a version id (128 bits).
const VersionIDLen = 32

// VersionID derives the immutable version id from the document id, the BLAKE3
// of the source bytes and the pipeline fingerprint. Same inputs, same id.
func VersionID(documentID string, source ID, fingerprint string) string {
	h := blake3.New()
	_, _ = h.WriteString("evidence/version\x00")
	_, _ = h.WriteString(documentID)
	_, _ = h.Write([]byte{0})
	_, _ = h.Write(source[:])
	_, _ = h.WriteString(fingerprint)
	var sum [32]byte
	h.Sum(sum[:0])
	return hex.EncodeToString(sum[:VersionIDLen/2])
}

// ValidVersionID reports whether s has the form of a version id.
func ValidVersionID(s string) bool {
	if len(s) != VersionIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ChunkID returns the id of the chunk with the given ordinal in a version:
// "<version>-<ordinal>". The version is part of the id so that a chunk id
// resolves to its version with one point read.
func ChunkID(version string, ordinal uint32) string {
	return version + "-" + strconv.FormatUint(uint64(ordinal), 10)
}

// ParseChunkID splits a chunk id into its version and ordinal.
func ParseChunkID(id string) (version string, ordinal uint32, err error) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 || !ValidVersionID(id[:i]) {
		return "", 0, fmt.Errorf("store: invalid chunk id %q: want <version>-<ordinal>", id)
	}
	// Decimal without sign or leading zeros, so each chunk has one id.
	digits := id[i+1:]
	if digits == "" || len(digits) > 10 || (digits[0] == '0' && len(digits) > 1) {
		return "", 0, fmt.Errorf("store: invalid chunk id %q: bad ordinal", id)
	}
	var n uint64
	for j := 0; j < len(digits); j++ {
		c := digits[j]
		if c < '0' || c > '9' {
			return "", 0, fmt.Errorf("store: invalid chunk id %q: bad ordinal", id)
		}
		n = n*10 + uint64(c-'0')
	}
	if n > 1<<32-1 {
		return "", 0, fmt.Errorf("store: invalid chunk id %q: bad ordinal", id)
	}
	return id[:i], uint32(n), nil
}

// Document is the stable identity of a source document and its version list.
type Document struct {
	ID       string    `json:"document_id"`
	Current  string    `json:"current_version,omitempty"` // "" when no version is current (deleted)
	Versions []string  `json:"versions"`                  // oldest first
	ACL      []string  `json:"acl,omitempty"`             // principals allowed to read; empty means everyone
	Deleted  bool      `json:"deleted,omitempty"`         // tombstoned as a whole
	Updated  time.Time `json:"updated"`
	// ACLUpdated is when the access list last changed, with a new version
	// or without; URLUpdated when the source URL of a stored version was
	// last changed without a new version (ingest --url of unchanged bytes).
	// Zero when never.
	ACLUpdated time.Time `json:"acl_updated,omitzero"`
	URLUpdated time.Time `json:"source_url_updated,omitzero"`
}

// Allows reports whether principal may read the document. An empty access
// list allows everyone; a non-empty one allows only its members, and never
// the empty principal.
func (d *Document) Allows(principal string) bool { return allows(d.ACL, principal) }

func allows(acl []string, principal string) bool {
	if len(acl) == 0 {
		return true
	}
	for _, p := range acl {
		if p == principal {
			return true
		}
	}
	return false
}

// Version is the header of one immutable document version. Its text, layout
// and chunks are stored under its sequence number.
type Version struct {
	ID          string    `json:"document_version"`
	Seq         uint64    `json:"seq"` // store-local sequence, the key prefix of its chunks
	DocumentID  string    `json:"document_id"`
	SourceHash  ID        `json:"source_hash"`
	TextHash    ID        `json:"text_hash"`
	Fingerprint string    `json:"pipeline_fingerprint"`
	Extractor   string    `json:"extractor"` // what made the canonical text (part of Fingerprint); rebuilds reuse it
	MediaType   string    `json:"media_type"`
	SourceURL   string    `json:"source_url,omitempty"`
	SourcePath  string    `json:"source_path,omitempty"` // path as given at ingest, for messages
	SourceBytes int64     `json:"source_bytes"`
	TextLen     int       `json:"text_length"` // code points of canonical text
	TextBytes   int       `json:"text_bytes"`  // UTF-8 bytes of canonical text
	Pages       int       `json:"pages"`
	Chunks      int       `json:"chunks"`      // all chunk records, quarantined included
	Quarantined int       `json:"quarantined"` // chunks that failed validation
	Repaired    int       `json:"repaired"`    // imported chunks re-anchored on request
	Created     time.Time `json:"created"`
	Status      Status    `json:"status"`
	Deleted     time.Time `json:"deleted,omitzero"`
	// ACL is a copy of the document's access list, kept equal by every
	// write, so that resolving a chunk of a current version needs no
	// document read.
	ACL []string `json:"acl,omitempty"`
}

// Allows reports whether principal may read the version (see Document.Allows).
func (v *Version) Allows(principal string) bool { return allows(v.ACL, principal) }

// Layout holds a version's page map and section spans.
type Layout struct {
	// PageStarts[i] is the code-point offset at which page i+1 starts.
	// PageStarts[0] is 0. A text with no page breaks has one page.
	PageStarts []int `json:"page_starts"`
	// PageLabels[i] is the printed label of page i+1, or "" where the source
	// defines none. Either empty or as long as PageStarts.
	PageLabels []string `json:"page_labels,omitempty"`
	// Sections in order of Start. A section runs from its heading to the next
	// heading of the same or a higher level.
	Sections []Section `json:"sections,omitempty"`
	// LowConfidence lists pages whose text failed the quality gate.
	LowConfidence []PageFlag `json:"low_confidence,omitempty"`
}

// PageFlag marks a page whose extracted text should not be trusted.
type PageFlag struct {
	Page   int    `json:"page_number"` // starting at 1
	Reason string `json:"reason"`
}

// Section is a heading's span in the canonical text.
type Section struct {
	Start int      `json:"start"` // code-point offset of the heading
	End   int      `json:"end"`   // code-point offset where the section ends (exclusive)
	Path  []string `json:"path"`  // headings from the outermost to this one
}

// Place is where a span of a version lies, from its layout.
type Place struct {
	Page        int      // page holding the span's start, from 1
	PageEnd     int      // page holding its last code point
	PageLabel   string   // printed label of Page, or ""
	SectionPath []string // innermost section holding its start
}

// Place returns where the half-open code-point range [start, end) lies: the
// one definition that ingest records chunks with and that resolving and
// verifying report, so that they agree.
func (l *Layout) Place(start, end int) Place {
	p := Place{Page: l.PageAt(start), PageEnd: l.PageAt(max(start, end-1)), SectionPath: l.SectionAt(start)}
	p.PageLabel = l.PageLabel(p.Page)
	return p
}

// PageAt returns the 1-based page that contains code-point offset off.
func (l *Layout) PageAt(off int) int {
	if len(l.PageStarts) == 0 {
		return 1
	}
	// Binary search for the last start <= off.
	lo, hi := 0, len(l.PageStarts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.PageStarts[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 1
	}
	return lo
}

// PageLabel returns the printed label of a 1-based page, or "".
func (l *Layout) PageLabel(page int) string {
	if page < 1 || page > len(l.PageLabels) {
		return ""
	}
	return l.PageLabels[page-1]
}

// SectionAt returns the path of the innermost section containing offset off,
// or nil before the first heading.
func (l *Layout) SectionAt(off int) []string {
	if i := l.SectionIndexAt(off); i >= 0 {
		return l.Sections[i].Path
	}
	return nil
}

// SectionIndexAt returns the index in Sections of the innermost section
// containing offset off, or -1 before the first heading.
func (l *Layout) SectionIndexAt(off int) int {
	// Sections are ordered by Start and nest; the innermost one that contains
	// off is the last one starting at or before off whose End is after off.
	lo, hi := 0, len(l.Sections)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.Sections[m].Start <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo - 1; i >= 0; i-- {
		s := &l.Sections[i]
		if off < s.End || (s.End == s.Start && off == s.Start) {
			return i
		}
	}
	return -1
}

// Chunk is the record of one chunk: its coordinates in the canonical text of
// its version, and the finding when it failed validation.
type Chunk struct {
	Version     string   `json:"document_version"`
	Ordinal     uint32   `json:"ordinal"`
	Start       int      `json:"source_start"` // half-open, code points into the canonical text
	End         int      `json:"source_end"`
	Page        int      `json:"page_number"`          // page containing Start, starting at 1
	PageEnd     int      `json:"page_end"`             // page containing the last code point
	PageLabel   string   `json:"page_label,omitempty"` // printed label of Page, where defined
	SectionPath []string `json:"section_path"`
	SpanHash    ID       `json:"span_hash"` // BLAKE3-256 of the span's UTF-8 bytes
	// ByteStart and ByteEnd locate the span in the UTF-8 bytes of the
	// text, computed once at ingest so resolving needs no code-point
	// conversion; the span hash proves them right on every read.
	ByteStart int `json:"-"`
	ByteEnd   int `json:"-"`
	// ExternalID is the id a chunk had in the pipeline it was imported from.
	ExternalID string `json:"external_id,omitempty"`
	// Quarantine is set when the chunk did not resolve; such a chunk is never
	// served as evidence.
	Quarantine *Quarantine `json:"quarantine,omitempty"`
	// Repair is set when an imported chunk's claim failed and the chunk was
	// re-anchored on request; it keeps what the chunk originally claimed.
	Repair *Repair `json:"repair,omitempty"`
}

// Repair records how an imported chunk whose coordinates did not resolve
// was re-anchored, and what it claimed before.
type Repair struct {
	Reason   string `json:"reason"`             // why the claim failed: text_mismatch, out_of_range, page_mismatch, ...
	Method   string `json:"method"`             // exact_elsewhere, whitespace, normalized, fuzzy, page_corrected, ...
	Distance int    `json:"distance,omitempty"` // edit distance of a fuzzy anchor
	// What the chunk claimed: offsets in code points, page from 1.
	ClaimedStart     int      `json:"claimed_start"`
	ClaimedEnd       int      `json:"claimed_end"`
	ClaimedPage      int      `json:"claimed_page,omitempty"`
	ClaimedPageLabel string   `json:"claimed_page_label,omitempty"`
	ClaimedSection   []string `json:"claimed_section_path,omitempty"`
}

// ID returns the chunk id.
func (c *Chunk) ID() string { return ChunkID(c.Version, c.Ordinal) }

// Quarantine is the finding recorded for a chunk that failed validation:
// the reason code, what the chunk claimed and what the text holds there.
type Quarantine struct {
	Reason string `json:"reason"` // out_of_range, text_mismatch, page_mismatch, section_mismatch, ...
	Want   string `json:"claimed"`
	Got    string `json:"found"`
	// Claimed coordinates as the chunk gave them, before any repair.
	ClaimedStart int    `json:"claimed_start"`
	ClaimedEnd   int    `json:"claimed_end"`
	ClaimedText  string `json:"claimed_text,omitempty"`
}

// Failure records a source that could not be ingested at all.
type Failure struct {
	Path       string    `json:"path"`
	DocumentID string    `json:"document_id"`
	Reason     string    `json:"reason"` // short code: unreadable, binary, invalid_utf8, empty, ...
	Error      string    `json:"error"`
	Time       time.Time `json:"time"`
}
