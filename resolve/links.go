package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/store"
)

// Link kinds: what DeepLink.Fragment addresses (docs/contract.md#deep-links).
const (
	LinkPDFPage      = "pdf_page"      // #page=N, the physical page (RFC 8118)
	LinkTextFragment = "text_fragment" // #:~:text=..., a URL text fragment (WICG Text Fragments)
	LinkHeading      = "heading"       // #slug, the heading anchor of the enclosing Markdown section
	LinkNone         = "none"          // no stable deep link: Fallback says why, the Excerpt stands in
)

// Selector types of the W3C Web Annotation Data Model.
const (
	TextPositionSelector = "TextPositionSelector"
	TextQuoteSelector    = "TextQuoteSelector"
	FragmentSelector     = "FragmentSelector"
)

// PDFFragmentSpec is the conformsTo of a FragmentSelector that names a PDF
// page: the PDF fragment identifiers of RFC 8118.
const PDFFragmentSpec = "http://tools.ietf.org/rfc/rfc8118"

// QuoteContext is how many code points of text before and after the span a
// TextQuoteSelector carries as prefix and suffix.
const QuoteContext = 32

// maxExactFragment is the longest span, in code points, that a text
// fragment names whole (textStart only); longer spans and spans over
// several blocks are named by their first and last words (textStart,textEnd).
const maxExactFragment = 300

// maxTrimmedBlocks bounds how many of a span's first and last blocks (lines)
// a text fragment may leave out when the whole span cannot be named once.
const maxTrimmedBlocks = 8

// DeepLink locates a served span for a reader: a link into the source where
// one exists, a W3C Web Annotation target that pins the exact version, and
// a verified excerpt for readers with no link. Everything in it comes from
// ingestion metadata and the stored text, never from a caller.
type DeepLink struct {
	Kind string `json:"kind"` // pdf_page, text_fragment, heading or none
	// URL is the version's source_url with Fragment; for kind none it is the
	// bare source_url. Empty when no source_url was recorded at ingest.
	URL string `json:"url,omitempty"`
	// Fragment is the fragment identifier, "#" included: "#page=4",
	// "#:~:text=...", "#heading-slug". Empty for kind none.
	Fragment string `json:"fragment,omitempty"`
	// PageNumber is the physical page the span starts on (from 1) and
	// PageLabel its printed label, for display next to a PDF link.
	PageNumber int    `json:"page_number,omitempty"`
	PageLabel  string `json:"page_label,omitempty"`
	// Highlight is the range a text fragment highlights: the span trimmed
	// of surrounding white space and of words it cuts through.
	Highlight *Span `json:"highlight,omitempty"`
	// Fallback says why there is no stable deep link (kind none) or no URL.
	Fallback string  `json:"fallback,omitempty"`
	Target   Target  `json:"target"`
	Excerpt  Excerpt `json:"excerpt"`
}

// Span is a half-open range of Unicode code points into a version's
// canonical text.
type Span struct {
	Start int `json:"source_start"`
	End   int `json:"source_end"`
}

// Target is a W3C Web Annotation target pinned to one version: the source,
// the version and the BLAKE3 of its canonical text, and a selector set
// (TextPositionSelector, TextQuoteSelector, and a FragmentSelector for PDF
// pages) that locates the span in that text.
type Target struct {
	Source          string     `json:"source,omitempty"` // source_url, without fragment
	DocumentVersion string     `json:"document_version"`
	TextHash        store.ID   `json:"text_hash"`
	Selector        []Selector `json:"selector"`
}

// Selector is one W3C Web Annotation selector; only the fields of its Type
// are set and serialized.
type Selector struct {
	Type string `json:"type"`
	// TextPositionSelector: half-open, Unicode code points into the canonical text.
	Start int `json:"start"`
	End   int `json:"end"`
	// TextQuoteSelector: the span and up to QuoteContext code points around it.
	Exact  string `json:"exact"`
	Prefix string `json:"prefix"`
	Suffix string `json:"suffix"`
	// FragmentSelector.
	ConformsTo string `json:"conformsTo"`
	Value      string `json:"value"`
}

// MarshalJSON writes the fields of the selector's type only, in the shape
// of the Web Annotation Data Model.
func (s Selector) MarshalJSON() ([]byte, error) {
	switch s.Type {
	case TextPositionSelector:
		return json.Marshal(struct {
			Type  string `json:"type"`
			Start int    `json:"start"`
			End   int    `json:"end"`
		}{s.Type, s.Start, s.End})
	case TextQuoteSelector:
		return json.Marshal(struct {
			Type   string `json:"type"`
			Exact  string `json:"exact"`
			Prefix string `json:"prefix,omitempty"`
			Suffix string `json:"suffix,omitempty"`
		}{s.Type, s.Exact, s.Prefix, s.Suffix})
	case FragmentSelector:
		return json.Marshal(struct {
			Type       string `json:"type"`
			ConformsTo string `json:"conformsTo"`
			Value      string `json:"value"`
		}{s.Type, s.ConformsTo, s.Value})
	}
	return nil, fmt.Errorf("resolve: unknown selector type %q", s.Type)
}

// Excerpt is the verified excerpt: what a reader without a deep link is
// shown, with the identity of the version it was read from.
type Excerpt struct {
	DocumentID      string   `json:"document_id"`
	DocumentVersion string   `json:"document_version"`
	PageNumber      int      `json:"page_number,omitempty"` // starting at 1
	PageLabel       string   `json:"page_label,omitempty"`
	SectionPath     []string `json:"section_path,omitempty"`
	Text            string   `json:"text"` // canonical_text[source_start:source_end]
}

// Cited is a resolution with its deep link, as the CLI and the service
// serve it. Link is nil unless the resolution is served (ok, superseded).
type Cited struct {
	*Resolution
	Link *DeepLink `json:"link,omitempty"`
}

// ChunkCited resolves a chunk id for a principal and links the span, in
// one read transaction.
func ChunkCited(db Viewer, chunkID, principal string) (*Cited, error) {
	var c *Cited
	err := db.View(func(tx *store.Tx) error {
		r, err := ChunkTx(tx, chunkID, principal)
		if err != nil {
			return err
		}
		c, err = Cite(tx, r)
		return err
	})
	return c, err
}

// RangeCited resolves a code-point range of a version (see Range) and
// links it. The link is read in a second transaction; a version deleted
// in between is served as read, without a link.
func RangeCited(db Viewer, versionID string, start, end int, principal string) (*Cited, error) {
	r, err := Range(db, versionID, start, end, principal)
	if err != nil {
		return nil, err
	}
	c := &Cited{Resolution: r}
	err = db.View(func(tx *store.Tx) error {
		c.Link, err = Links(tx, r)
		return err
	})
	if errors.Is(err, store.ErrDeleted) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Cite links a resolution read in tx.
func Cite(tx *store.Tx, r *Resolution) (*Cited, error) {
	l, err := Links(tx, r)
	if err != nil {
		return nil, err
	}
	return &Cited{Resolution: r, Link: l}, nil
}

// Sub narrows a served resolution to the code-point range [start, end)
// inside its span, with the page, label and section of the narrower span
// taken from the version's layout.
func Sub(tx *store.Tx, r *Resolution, start, end int) (*Resolution, error) {
	if !r.Served() {
		return nil, fmt.Errorf("resolve: narrowing a %s resolution", r.Status)
	}
	if start < r.Start || end < start || end > r.End {
		return nil, fmt.Errorf("%w: [%d, %d) is not inside the span [%d, %d)", ErrInvalidRange, start, end, r.Start, r.End)
	}
	v := r.version // read by the resolution, in this transaction or another
	if v == nil {
		var err error
		if v, err = tx.Version(r.DocumentVersion); err != nil {
			return nil, err
		}
	}
	l, err := tx.Layout(v)
	if err != nil {
		return nil, err
	}
	s := *r
	s.Start, s.End = start, end
	bs, be := match.ByteRange(r.Text, start-r.Start, end-r.Start)
	s.Text = r.Text[bs:be]
	s.place(l.Place(start, end))
	s.LowConfidence = lowConfidence(l, s.Page)
	return &s, nil
}

// Links renders the deep link of a served resolution read in tx (nil for
// any other status: nothing is revealed for forbidden, deleted,
// quarantined or unknown chunks):
//   - PDF (application/pdf): the source URL with #page=N, the physical page
//     the span starts on (RFC 8118), with the printed label for display;
//   - HTML (text/html): a text fragment #:~:text=[prefix-,]start[,end][,-suffix]
//     whose context is lengthened word by word until it matches exactly once
//     in the canonical text, else no link, with the reason;
//   - Markdown (text/markdown): the GitHub-style anchor of the heading of the
//     innermost section containing the span start;
//   - plain text and anything else: no stable deep link.
//
// Every link carries the selector set and the verified excerpt.
func Links(tx *store.Tx, r *Resolution) (*DeepLink, error) {
	if r == nil || !r.Served() {
		return nil, nil
	}
	v, err := tx.Version(r.DocumentVersion)
	if err != nil {
		return nil, err
	}
	txt, err := tx.Text(v)
	if err != nil {
		return nil, err
	}
	if r.Start < 0 || r.End < r.Start || r.End > txt.Len() {
		return nil, fmt.Errorf("%w: [%d, %d) of version %s with %d code points", ErrInvalidRange, r.Start, r.End, v.ID, txt.Len())
	}
	// The quote's context is text beside the span, which the span's hash
	// does not cover: it is checked on its own.
	before, err := store.VerifySlice(v, txt, max(0, r.Start-QuoteContext), r.Start)
	if err != nil {
		return nil, err
	}
	after, err := store.VerifySlice(v, txt, r.End, min(txt.Len(), r.End+QuoteContext))
	if err != nil {
		return nil, err
	}
	l := &DeepLink{
		Kind: LinkNone,
		Target: Target{Source: stripFragment(v.SourceURL), DocumentVersion: v.ID, TextHash: v.TextHash, Selector: []Selector{
			{Type: TextPositionSelector, Start: r.Start, End: r.End},
			{Type: TextQuoteSelector, Exact: r.Text, Prefix: string(before), Suffix: string(after)},
		}},
		Excerpt: Excerpt{DocumentID: v.DocumentID, DocumentVersion: v.ID, PageNumber: r.Page, PageLabel: r.PageLabel,
			SectionPath: r.SectionPath, Text: r.Text},
	}
	switch mediaType(v.MediaType) {
	case "application/pdf":
		page := max(r.Page, 1)
		l.Kind, l.Fragment = LinkPDFPage, "#page="+strconv.Itoa(page)
		l.PageNumber, l.PageLabel = page, r.PageLabel
		l.Target.Selector = append(l.Target.Selector, Selector{Type: FragmentSelector, ConformsTo: PDFFragmentSpec, Value: "page=" + strconv.Itoa(page)})
	case "text/html":
		vi, err := loadInfo(tx, v, txt)
		if err != nil {
			return nil, err
		}
		f := vi.textFragment(v.ID, r.Start, r.End)
		if f.reason != "" {
			l.Fallback = f.reason
			break
		}
		l.Kind, l.Fragment, l.Highlight = LinkTextFragment, f.fragment, &Span{f.start, f.end}
	case "text/markdown":
		vi, err := loadInfo(tx, v, txt)
		if err != nil {
			return nil, err
		}
		l.Fallback = "the span starts before the first heading"
		if i := vi.layout.SectionIndexAt(r.Start); i >= 0 {
			l.Fallback = "the enclosing heading has no anchor"
			if a := vi.anchors[i]; a != "" {
				l.Kind, l.Fragment, l.Fallback = LinkHeading, "#"+a, ""
			}
		}
	case "text/plain":
		l.Fallback = "plain text has no stable deep link"
	default:
		l.Fallback = "no deep link for media type " + strconv.Quote(v.MediaType)
	}
	switch {
	case v.SourceURL == "":
		if l.Fallback == "" {
			l.Fallback = "no source_url was recorded at ingest"
		}
	case !openable(v.SourceURL):
		if l.Fallback == "" {
			l.Fallback = "the source_url is not a location a reader can open"
		}
	case l.Kind == LinkNone:
		l.URL = v.SourceURL
	default:
		l.URL = withFragment(v.SourceURL, l.Fragment)
	}
	return l, nil
}

// openable reports whether a source URL is one a reader can follow: http,
// https, or file (a local ingest, read on the same machine). An upload's
// urn:evidence:upload: URN is not.
func openable(u string) bool {
	scheme, _, ok := strings.Cut(u, ":")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "file":
		return true
	}
	return false
}

func mediaType(mt string) string {
	mt, _, _ = strings.Cut(mt, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func stripFragment(u string) string {
	u, _, _ = strings.Cut(u, "#")
	return u
}

// withFragment puts a fragment on a source URL. A text directive goes after
// the URL's own fragment ("#intro:~:text=..."), as the fragment directive
// delimiter allows; any other fragment replaces it.
func withFragment(u, frag string) string {
	base, own, had := strings.Cut(u, "#")
	if had && own != "" && strings.HasPrefix(frag, "#:~:") {
		return base + "#" + own + frag[1:]
	}
	return base + frag
}

// versionInfo is what linking needs of one version beyond its records,
// computed once and cached: versions never change after they are written,
// and a version id names its bytes.
type versionInfo struct {
	layout *store.Layout
	// HTML: the canonical text, its folded form for matching text
	// fragments, and the byte offset in folded of each code point.
	runes  []rune
	folded string
	foldAt []int32
	// Markdown: the anchor of each section of layout ("" for none).
	anchors []string
	size    int // bytes held, for the cache bound
}

// infoCache holds versionInfo by version id, bounded by bytes: when full it
// starts over, which keeps memory bounded without bookkeeping on reads.
var infoCache = struct {
	sync.Mutex
	m    map[string]*versionInfo
	size int
}{}

const maxInfoBytes = 256 << 20

func loadInfo(tx *store.Tx, v *store.Version, txt store.Text) (*versionInfo, error) {
	infoCache.Lock()
	vi := infoCache.m[v.ID]
	infoCache.Unlock()
	if vi != nil {
		return vi, nil
	}
	// The whole text is read, so it is checked whole first (verify on read).
	if err := store.VerifyText(v, txt); err != nil {
		return nil, err
	}
	l, err := tx.Layout(v)
	if err != nil {
		return nil, err
	}
	vi = &versionInfo{layout: l}
	switch mediaType(v.MediaType) {
	case "text/html":
		vi.runes = []rune(string(txt.Bytes()))
		vi.folded, vi.foldAt = foldText(vi.runes)
		vi.size = 4*len(vi.runes) + len(vi.folded) + 4*len(vi.foldAt)
	case "text/markdown":
		vi.anchors = markdownAnchors(txt, l)
		for _, a := range vi.anchors {
			vi.size += len(a) + 16
		}
	}
	vi.size += 64 * (len(l.Sections) + len(l.PageStarts))
	infoCache.Lock()
	if infoCache.m == nil || infoCache.size+vi.size > maxInfoBytes {
		infoCache.m, infoCache.size = map[string]*versionInfo{}, 0
	}
	infoCache.m[v.ID] = vi
	infoCache.size += vi.size
	infoCache.Unlock()
	return vi, nil
}

// Markdown heading anchors.

// mdInline parses a heading title as one paragraph of inline Markdown: a
// title such as "1. Scope" must not become a list.
var mdInline = parser.NewParser(
	parser.WithBlockParsers(util.Prioritized(parser.NewParagraphParser(), 1000)),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
)

// explicitID finds a heading attribute block with an id, "## Intro {#intro}",
// which renderers that read attributes (goldmark, Pandoc, Hugo, go.dev)
// use as the anchor instead of a slug.
var explicitID = regexp.MustCompile(`\{[ \t]*#([^\s{}#]+)[^{}\n]*\}[ \t#]*$`)

// markdownAnchors returns the anchor of every section of l in the Markdown
// text: the heading's explicit {#id}, else its GitHub-style slug (see Slug),
// made unique in document order as GitHub does: the second "Usage" is
// "usage-1", the third "usage-2".
func markdownAnchors(txt store.Text, l *store.Layout) []string {
	out := make([]string, len(l.Sections))
	seen := map[string]int{}
	for i, s := range l.Sections {
		if len(s.Path) == 0 {
			continue
		}
		if b, err := txt.Slice(s.Start, min(txt.Len(), s.Start+4096)); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if m := explicitID.FindStringSubmatch(line); m != nil {
				out[i] = m[1]
				seen[m[1]] = 0
				continue
			}
		}
		base := Slug(headingText(s.Path[len(s.Path)-1]))
		if base == "" {
			continue
		}
		slug := base
		for {
			if _, dup := seen[slug]; !dup {
				break
			}
			seen[base]++
			slug = base + "-" + strconv.Itoa(seen[base])
		}
		seen[slug] = 0
		out[i] = slug
	}
	return out
}

// headingText renders a raw heading title to the text a reader sees:
// emphasis and code marks dropped, a link's text kept and its URL dropped,
// images and raw HTML dropped, entities decoded.
func headingText(title string) string {
	src := []byte(title)
	doc := mdInline.Parse(text.NewReader(src))
	var b strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			b.Write(n.Segment.Value(src))
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.AutoLink:
			b.Write(n.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML, *ast.Image:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return html.UnescapeString(b.String())
}

// Slug returns the GitHub-style anchor slug of a heading's text (the
// github-slugger rules): lower case, every character that is not a letter,
// mark, number, space, '-' or '_' dropped, each space turned into '-'.
func Slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Text fragments.

// fragResult is a text fragment for one span, or why there is none.
type fragResult struct {
	fragment   string // "#:~:text=..."
	start, end int    // the range it highlights, code points
	reason     string // set when there is no fragment
}

type fragKey struct {
	version    string
	start, end int
}

// fragCache keeps computed fragments: a span's fragment depends only on
// its immutable version and its offsets.
var fragCache = struct {
	sync.Mutex
	m map[fragKey]fragResult
}{}

const maxCachedFragments = 1 << 16

// term is a piece of a text directive: the canonical text [a, b).
type term struct{ a, b int }

// directive is a text directive in canonical code points; zero terms are absent.
type directive struct{ prefix, start, end, suffix term }

// A word is a run of code points other than white space; a block separator
// is white space that ends a block of text. A browser matches each term of
// a text directive within one block: HTML's canonical text puts a block
// element on lines of its own and a table cell after a tab.
func isSpace(r rune) bool { return unicode.IsSpace(r) }
func isBlockSep(r rune) bool {
	return r == '\n' || r == '\t' || r == '\f' || r == '\v' || r == '\r' || r == 0x2028 || r == 0x2029
}

// textFragment returns a text fragment that highlights the span [start,
// end) of the version's canonical text and matches exactly once in it.
//
// The highlighted range is the span without leading and trailing white
// space and without a word it cuts through at either end (a text fragment
// starts and ends on word boundaries). A span of one block and at most
// maxExactFragment code points is named whole; any other by its first and
// last words. Then, as browsers do when they build a link to a selection,
// the directive is lengthened a word at a time (prefix, suffix, and the
// start and end terms) until it matches exactly once.
//
// Matching follows the "find a range from a text directive" algorithm of
// the Text Fragments specification, with two changes that can only make
// it find more matches, so that a fragment unique here is unique in a
// browser: every position counts as a word boundary, and text is compared
// after NFKD, dropping combining marks and case folding (the specification
// compares at the primary collation strength, ignoring case and accents).
func (vi *versionInfo) textFragment(version string, start, end int) fragResult {
	key := fragKey{version, start, end}
	fragCache.Lock()
	f, ok := fragCache.m[key]
	fragCache.Unlock()
	if ok {
		return f
	}
	f = vi.makeFragment(start, end)
	fragCache.Lock()
	if fragCache.m == nil || len(fragCache.m) >= maxCachedFragments {
		fragCache.m = map[fragKey]fragResult{}
	}
	fragCache.m[key] = f
	fragCache.Unlock()
	return f
}

func (vi *versionInfo) makeFragment(start, end int) fragResult {
	rs := vi.runes
	start, end = max(0, min(start, len(rs))), max(0, min(end, len(rs)))
	hs, he := start, end
	for hs < he && isSpace(rs[hs]) {
		hs++
	}
	if hs > 0 && hs < he && !isSpace(rs[hs-1]) { // starts inside a word
		for hs < he && !isSpace(rs[hs]) {
			hs++
		}
		for hs < he && isSpace(rs[hs]) {
			hs++
		}
	}
	for he > hs && isSpace(rs[he-1]) {
		he--
	}
	if he < len(rs) && he > hs && !isSpace(rs[he]) { // ends inside a word
		for he > hs && !isSpace(rs[he-1]) {
			he--
		}
		for he > hs && isSpace(rs[he-1]) {
			he--
		}
	}
	if hs >= he {
		return fragResult{reason: "the span holds no whole word for a text fragment"}
	}
	// When no directive names the whole range once (its first or last
	// line repeats, as lines of code do, and a term cannot reach past its
	// block for context), a fragment for all but a few of the first or
	// last lines is still a useful link; Highlight reports what it covers.
	words := vi.words(hs, he)
	var starts, ends []int // block starts after hs, block ends before he
	for i := 1; i < len(words); i++ {
		if vi.crossesBlock(words[i-1].b, words[i].a) {
			starts = append(starts, words[i].a)
			ends = append(ends, words[i-1].b)
		}
	}
	for trim := 0; trim <= maxTrimmedBlocks && trim <= len(starts); trim++ {
		for front := trim; front >= 0; front-- {
			a, b := hs, he
			if front > 0 {
				a = starts[front-1]
			}
			if back := trim - front; back > 0 {
				b = ends[len(ends)-back]
			}
			if d, ok := vi.directiveFor(a, b); ok {
				return fragResult{fragment: vi.encode(d), start: a, end: b}
			}
		}
	}
	return fragResult{reason: "no text fragment matches the span exactly once: its words repeat in the document"}
}

// directiveFor searches for a directive that highlights exactly [hs, he),
// a range that starts and ends on a word, and matches once.
func (vi *versionInfo) directiveFor(hs, he int) (directive, bool) {
	words := vi.words(hs, he)
	exact := he-hs <= maxExactFragment && !vi.crossesBlock(hs, he) || len(words) == 1
	var first, last []term // the words of the first and the last block
	if !exact {
		first, last = words[:1], words[len(words)-1:]
		for i := 1; i < len(words) && !vi.crossesBlock(words[i-1].b, words[i].a); i++ {
			first = words[:i+1]
		}
		for i := len(words) - 2; i >= 0 && !vi.crossesBlock(words[i].b, words[i+1].a); i-- {
			last = words[i:]
		}
		if len(first) == len(words) { // one long block: its halves
			first, last = words[:len(words)/2], words[len(words)/2:]
		}
	}
	target := [2]int{int(vi.foldAt[hs]), int(vi.foldAt[he])}
	var prev directive
	for step := 0; step <= 24; step++ {
		var d directive
		if exact {
			d.start = term{hs, he}
		} else {
			k := 3 + step
			s, e := first[:min(k, len(first))], last[max(0, len(last)-k):]
			d.start, d.end = term{s[0].a, s[len(s)-1].b}, term{e[0].a, e[len(e)-1].b}
		}
		d.prefix = vi.context(hs, -step)
		d.suffix = vi.context(he, step)
		if vi.fold(d.prefix) == "" {
			d.prefix = term{}
		}
		if vi.fold(d.suffix) == "" {
			d.suffix = term{}
		}
		if step > 0 && d == prev {
			break // nothing left to lengthen
		}
		prev = d
		fd := vi.foldDirective(d)
		if fd.start == "" || (d.end != term{} && fd.end == "") {
			break
		}
		m := findTextDirective(vi.folded, fd, 2)
		if len(m) == 1 && m[0] == target {
			return d, true
		}
	}
	return directive{}, false
}

// words returns the words lying wholly in [a, b).
func (vi *versionInfo) words(a, b int) []term {
	var out []term
	for i := a; i < b; {
		for i < b && isSpace(vi.runes[i]) {
			i++
		}
		j := i
		for j < b && !isSpace(vi.runes[j]) {
			j++
		}
		if j > i {
			out = append(out, term{i, j})
		}
		i = j
	}
	return out
}

func (vi *versionInfo) crossesBlock(a, b int) bool {
	for _, r := range vi.runes[a:b] {
		if isBlockSep(r) {
			return true
		}
	}
	return false
}

// context returns n words of context before offset i (n < 0) or after it
// (n > 0): the nearest word, and the words next to it up to |n| while no
// block boundary comes between (a term matches within one block). The
// nearest word itself may be in the block before or after: the white space
// between context and match may cross blocks. Zero term when n is 0 or
// there is no word.
func (vi *versionInfo) context(i, n int) term {
	rs := vi.runes
	switch {
	case n < 0:
		b := i
		for b > 0 && isSpace(rs[b-1]) {
			b--
		}
		if b == 0 {
			return term{}
		}
		a := b
		for k := 0; k < -n; k++ {
			for a > 0 && !isSpace(rs[a-1]) {
				a--
			}
			if k+1 == -n {
				break
			}
			g := a
			for g > 0 && isSpace(rs[g-1]) && !isBlockSep(rs[g-1]) {
				g--
			}
			if g == 0 || isSpace(rs[g-1]) {
				break // start of text, or a block boundary
			}
			a = g
		}
		return term{a, b}
	case n > 0:
		a := i
		for a < len(rs) && isSpace(rs[a]) {
			a++
		}
		if a == len(rs) {
			return term{}
		}
		b := a
		for k := 0; k < n; k++ {
			for b < len(rs) && !isSpace(rs[b]) {
				b++
			}
			if k+1 == n {
				break
			}
			g := b
			for g < len(rs) && isSpace(rs[g]) && !isBlockSep(rs[g]) {
				g++
			}
			if g == len(rs) || isSpace(rs[g]) {
				break
			}
			b = g
		}
		return term{a, b}
	}
	return term{}
}

// foldedDirective is a directive in the folded text; "" terms are absent.
type foldedDirective struct{ prefix, start, end, suffix string }

func (vi *versionInfo) fold(t term) string {
	if t == (term{}) {
		return ""
	}
	return vi.folded[vi.foldAt[t.a]:vi.foldAt[t.b]]
}

func (vi *versionInfo) foldDirective(d directive) foldedDirective {
	return foldedDirective{vi.fold(d.prefix), vi.fold(d.start), vi.fold(d.end), vi.fold(d.suffix)}
}

// encode writes the directive as a fragment, each term percent-encoded.
func (vi *versionInfo) encode(d directive) string {
	var b strings.Builder
	b.WriteString("#:~:text=")
	if d.prefix != (term{}) {
		b.WriteString(EncodeTextDirectiveTerm(string(vi.runes[d.prefix.a:d.prefix.b])))
		b.WriteString("-,")
	}
	b.WriteString(EncodeTextDirectiveTerm(string(vi.runes[d.start.a:d.start.b])))
	if d.end != (term{}) {
		b.WriteByte(',')
		b.WriteString(EncodeTextDirectiveTerm(string(vi.runes[d.end.a:d.end.b])))
	}
	if d.suffix != (term{}) {
		b.WriteString(",-")
		b.WriteString(EncodeTextDirectiveTerm(string(vi.runes[d.suffix.a:d.suffix.b])))
	}
	return b.String()
}

// EncodeTextDirectiveTerm percent-encodes a term of a text directive: every
// byte of its UTF-8 except the TextDirectiveExplicitChar set of the Text
// Fragments grammar ([a-zA-Z0-9] and !$'()*+./:;=?@_~), so '&', '-' and ','
// are always encoded.
func EncodeTextDirectiveTerm(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!$'()*+./:;=?@_~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// findTextDirective returns up to limit matches of a directive in the
// folded text f, as half-open byte ranges of f, in the order of the
// specification's search: each is what "find a range from a text
// directive" would return were the text before it cut away. Word
// boundaries are not required (see textFragment).
func findTextDirective(f string, d foldedDirective, limit int) [][2]int {
	var out [][2]int
	if d.start == "" {
		return nil
	}
	from := 0
	for from < len(f) && len(out) < limit {
		var ms, me int
		if d.prefix != "" {
			i := strings.Index(f[from:], d.prefix)
			if i < 0 {
				break
			}
			p := from + i
			from = p + runeLen(f, p)
			ms = skipSpace(f, p+len(d.prefix))
			if ms >= len(f) {
				break
			}
			if !strings.HasPrefix(f[ms:], d.start) {
				continue
			}
		} else {
			i := strings.Index(f[from:], d.start)
			if i < 0 {
				break
			}
			ms = from + i
			from = ms + runeLen(f, ms)
		}
		me = ms + len(d.start)
		for endFrom := me; ; {
			e := me
			if d.end != "" {
				i := strings.Index(f[endFrom:], d.end)
				if i < 0 {
					return out // no end after this start, nor after any later one
				}
				e = endFrom + i + len(d.end)
			}
			if d.suffix == "" || strings.HasPrefix(f[skipSpace(f, e):], d.suffix) {
				out = append(out, [2]int{ms, e})
				break
			}
			if d.end == "" {
				break
			}
			endFrom = e
		}
	}
	return out
}

func runeLen(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// skipSpace returns the offset of the first code point at or after i that
// is not white space (the "next non-whitespace position").
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// foldText folds a text for text-fragment matching, code point by code
// point so that offsets map back: ASCII is lower-cased, white space kept as
// it is (block separators must stay), anything else decomposed (NFKD),
// stripped of nonspacing marks and case-folded. at[i] is the byte offset
// in the folded text where code point i's folding starts; at[len(rs)] is
// its length.
func foldText(rs []rune) (string, []int32) {
	var b strings.Builder
	b.Grow(len(rs) + len(rs)/8)
	at := make([]int32, len(rs)+1)
	var memo map[rune]string
	var caser cases.Caser
	for i, r := range rs {
		at[i] = int32(b.Len())
		switch {
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
		case isSpace(r):
			b.WriteRune(r)
		default:
			s, ok := memo[r]
			if !ok {
				if memo == nil {
					memo, caser = map[rune]string{}, cases.Fold()
				}
				s = strings.Map(func(r rune) rune {
					if unicode.Is(unicode.Mn, r) {
						return -1
					}
					return r
				}, norm.NFKD.String(string(r)))
				s = caser.String(s)
				memo[r] = s
			}
			b.WriteString(s)
		}
	}
	at[len(rs)] = int32(b.Len())
	return b.String(), at
}

// PageString renders a span's pages for a reader: "3", "3–4", with the
// printed label when the PDF defines one ("3 (printed "iii")").
func PageString(page, end int, label string) string {
	s := fmt.Sprint(page)
	if end != page {
		s += fmt.Sprintf("–%d", end)
	}
	if label != "" {
		s += fmt.Sprintf(" (printed %q)", label)
	}
	return s
}
