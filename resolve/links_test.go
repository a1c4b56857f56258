package resolve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestTextFragmentsMatchOnce: for every chunk of every HTML document of the
// sample corpus and of ../shared/corpus/text, at two chunk sizes, the text
// fragment of its link matches exactly once in the canonical text, at the
// range the link says it highlights, by two oracles written apart from the
// generator: the specification's "find a range from a text directive" with
// word boundaries, and a regular expression of the decoded terms in order
// with no word boundaries at all.
func TestTextFragmentsMatchOnce(t *testing.T) {
	sample, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(sample, "security-faq.html")}
	if dir, ok := corpus.Shared("text"); ok {
		shared, _ := filepath.Glob(filepath.Join(dir, "*.html"))
		paths = append(paths, shared...)
	} else {
		t.Logf("../shared/corpus/text is absent: checking the sample corpus only")
	}
	for _, chunk := range []ingest.ChunkOptions{ingest.DefaultChunkOptions, {Size: 240, Overlap: 60}} {
		t.Run(fmt.Sprintf("size%d", chunk.Size), func(t *testing.T) {
			db := storetest.Open(t)
			if _, err := ingest.Run(context.Background(), db, paths, ingest.Options{URL: "https://docs.example/page.html", Chunk: chunk}); err != nil {
				t.Fatal(err)
			}
			checked := 0
			err := db.View(func(tx *store.Tx) error {
				return tx.ForEachVersion(func(v *store.Version) error {
					if v.MediaType != "text/html" {
						return nil
					}
					txt, err := tx.Text(v)
					if err != nil {
						return err
					}
					canon := string(txt.Bytes())
					lower := []rune(canon)
					for i, r := range lower {
						lower[i] = unicode.ToLower(r)
					}
					lowerText := string(lower)
					return tx.ForEachChunk(v, func(c *store.Chunk) error {
						r, err := resolve.ChunkTx(tx, c.ID(), "")
						if err != nil {
							return err
						}
						cited, err := resolve.Cite(tx, r)
						if err != nil {
							return err
						}
						checkFragment(t, lowerText, lower, cited)
						checked++
						return nil
					})
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			if checked == 0 {
				t.Fatal("no HTML chunk checked")
			}
			t.Logf("%d HTML chunks: every fragment matches exactly once", checked)
		})
	}
}

func checkFragment(t *testing.T, lowerText string, lower []rune, c *resolve.Cited) {
	t.Helper()
	l := c.Link
	if l == nil || l.Kind != resolve.LinkTextFragment || l.Highlight == nil {
		t.Errorf("%s: got link %+v, want a text fragment", c.ChunkID, l)
		return
	}
	h := *l.Highlight
	if h.Start < c.Start || h.End > c.End || h.Start >= h.End {
		t.Errorf("%s: highlight [%d, %d) is not a non-empty part of the span [%d, %d)", c.ChunkID, h.Start, h.End, c.Start, c.End)
	}
	if !strings.HasPrefix(l.URL, "https://docs.example/page.html#:~:text=") || !strings.HasSuffix(l.URL, l.Fragment) {
		t.Errorf("%s: URL %q does not carry fragment %q", c.ChunkID, l.URL, l.Fragment)
	}
	prefix, start, end, suffix, err := parseTextDirective(l.Fragment)
	if err != nil {
		t.Errorf("%s: %v", c.ChunkID, err)
		return
	}
	got := specMatches(lower, prefix, start, end, suffix)
	if want := [][2]int{{h.Start, h.End}}; !cmp.Equal(got, want) {
		t.Errorf("%s: fragment %s: spec matches %v, want exactly %v\nspan %q", c.ChunkID, l.Fragment, got, want, c.Text)
	}
	if got := regexpMatches(lowerText, prefix, start, end, suffix); !cmp.Equal(got, [][2]int{{h.Start, h.End}}) {
		t.Errorf("%s: fragment %s: regexp matches %v, want exactly [[%d %d]]", c.ChunkID, l.Fragment, got, h.Start, h.End)
	}
}

// parseTextDirective parses "#:~:text=[prefix-,]start[,end][,-suffix]" as
// the specification does, and percent-decodes each term. It fails on a
// character a term must encode.
func parseTextDirective(frag string) (prefix, start, end, suffix string, err error) {
	v, ok := strings.CutPrefix(frag, "#:~:text=")
	if !ok {
		return "", "", "", "", fmt.Errorf("fragment %q is not a text directive", frag)
	}
	if i := strings.IndexFunc(v, func(r rune) bool {
		return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("!$'()*+./:;=?@_~%,-", r)))
	}); i >= 0 {
		return "", "", "", "", fmt.Errorf("fragment %q holds %q unencoded", frag, v[i:i+1])
	}
	tokens := strings.Split(v, ",")
	if t := tokens[0]; strings.HasSuffix(t, "-") && len(tokens) > 1 {
		prefix, tokens = strings.TrimSuffix(t, "-"), tokens[1:]
	}
	if t := tokens[len(tokens)-1]; strings.HasPrefix(t, "-") && len(tokens) > 1 {
		suffix, tokens = strings.TrimPrefix(t, "-"), tokens[:len(tokens)-1]
	}
	switch len(tokens) {
	case 1:
		start = tokens[0]
	case 2:
		start, end = tokens[0], tokens[1]
	default:
		return "", "", "", "", fmt.Errorf("fragment %q: %d terms between prefix and suffix", frag, len(tokens))
	}
	for _, p := range []*string{&prefix, &start, &end, &suffix} {
		if strings.Contains(*p, "-") {
			return "", "", "", "", fmt.Errorf("fragment %q: unencoded '-' inside a term", frag)
		}
		if *p, err = url.PathUnescape(*p); err != nil {
			return "", "", "", "", err
		}
	}
	return prefix, start, end, suffix, nil
}

// specMatches runs "find a range from a text directive" over the canonical
// text in lower case, one block a line (or table cell), comparing
// case-insensitively, and
// returns up to three matches, each found as the search would find it were
// the text before it cut away. Word boundaries: between two code points
// that are not both letters, digits, marks or '_', and at the text's ends.
func specMatches(lower []rune, prefix, start, end, suffix string) [][2]int {
	low := func(s string) []rune {
		rs := []rune(s)
		for i, r := range rs {
			rs[i] = unicode.ToLower(r)
		}
		return rs
	}
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	boundary := func(p int) bool {
		return p <= 0 || p >= len(lower) || !isWord(lower[p-1]) || !isWord(lower[p])
	}
	at := func(q []rune, p int) bool {
		if p+len(q) > len(lower) {
			return false
		}
		for i, r := range q {
			if lower[p+i] != r {
				return false
			}
		}
		return true
	}
	find := func(q []rune, from int, wordStart, wordEnd bool) int {
		for p := from; p+len(q) <= len(lower); p++ {
			if at(q, p) && (!wordStart || boundary(p)) && (!wordEnd || boundary(p+len(q))) {
				return p
			}
		}
		return -1
	}
	skip := func(p int) int {
		for p < len(lower) && unicode.IsSpace(lower[p]) {
			p++
		}
		return p
	}
	pre, st, en, su := low(prefix), low(start), low(end), low(suffix)
	var out [][2]int
	for from := 0; from < len(lower) && len(out) < 3; {
		var ms int
		mustEnd := len(en) > 0 || len(su) == 0
		if len(pre) > 0 {
			p := find(pre, from, true, false)
			if p < 0 {
				break
			}
			from = p + 1
			ms = skip(p + len(pre))
			if ms >= len(lower) {
				break
			}
			if !at(st, ms) || mustEnd && !boundary(ms+len(st)) {
				continue
			}
		} else {
			if ms = find(st, from, true, mustEnd); ms < 0 {
				break
			}
			from = ms + 1
		}
		me := ms + len(st)
		for endFrom := me; ; {
			e := me
			if len(en) > 0 {
				q := find(en, endFrom, true, len(su) == 0)
				if q < 0 {
					return out
				}
				e = q + len(en)
			}
			if s := skip(e); len(su) == 0 || at(su, s) && boundary(s+len(su)) {
				out = append(out, [2]int{ms, e})
				break
			}
			if len(en) == 0 {
				break
			}
			endFrom = e
		}
	}
	return out
}

// regexpMatches counts, with no regard for words or blocks, the
// non-overlapping places where the decoded terms stand in order in the
// lower-cased text: prefix, white space, start, anything, end, white space,
// suffix. (Lower-casing the text and the terms instead of matching with
// (?i) keeps a literal prefix, which the regexp package searches fast.)
func regexpMatches(text, prefix, start, end, suffix string) [][2]int {
	const ws = `[\s\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*`
	lower := func(s string) string { return strings.Map(unicode.ToLower, s) }
	prefix, start, end, suffix = lower(prefix), lower(start), lower(end), lower(suffix)
	expr := ``
	if prefix != "" {
		expr += regexp.QuoteMeta(prefix) + ws
	}
	expr += "(" + regexp.QuoteMeta(start)
	if end != "" {
		expr += `(?s:.*?)` + regexp.QuoteMeta(end)
	}
	expr += ")"
	if suffix != "" {
		expr += ws + regexp.QuoteMeta(suffix)
	}
	var out [][2]int
	for _, m := range regexp.MustCompile(expr).FindAllStringSubmatchIndex(text, -1) {
		out = append(out, [2]int{utf8.RuneCountInString(text[:m[2]]), utf8.RuneCountInString(text[:m[3]])})
	}
	return out
}

func TestEncodeTextDirectiveTerm(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain words", "plain%20words"},
		{"a-b,c&d", "a%2Db%2Cc%26d"},
		{"keep !$'()*+./:;=?@_~", "keep%20!$'()*+./:;=?@_~"},
		{"café 東", "caf%C3%A9%20%E6%9D%B1"},
		{"100% #1", "100%25%20%231"},
	} {
		if got := resolve.EncodeTextDirectiveTerm(tt.in); got != tt.want {
			t.Errorf("EncodeTextDirectiveTerm(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Hello World", "hello-world"},
		{"foo  bar", "foo--bar"},
		{"C++ & Go", "c--go"},
		{"Ünïcödé Straße", "ünïcödé-straße"},
		{"under_score-dash", "under_score-dash"},
		{"Emoji 🎉 party", "emoji--party"},
		{"v1.2.3: What's new?", "v123-whats-new"},
		{"東京 café", "東京-café"},
	} {
		if got := resolve.Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMarkdownAnchors ingests a Markdown document and checks the anchor of
// the section each chunk starts in: GitHub's slugs over the rendered heading
// text, numbered in document order when they repeat, or an explicit {#id}.
func TestMarkdownAnchors(t *testing.T) {
	sections := []struct{ heading, anchor string }{
		{"# Intro", "intro"},
		{"## Usage", "usage"},
		{"## Usage", "usage-1"},
		{"### `fmt.Println` & *friends*", "fmtprintln--friends"},
		{"## [Link text](https://example.com/x) here", "link-text-here"},
		{"## Settings {#custom-id}", "custom-id"},
		{"## Café au lait!", "café-au-lait"},
		{"## 1. Scope", "1-scope"},
		{"## Usage", "usage-2"},
		{"## Usage 1", "usage-1-1"},
	}
	var b strings.Builder
	b.WriteString("Preface before any heading, long enough that the chunker cuts at the first heading.\n\n")
	for i, s := range sections {
		fmt.Fprintf(&b, "%s\n\nBody of section marker%d, long enough to be a chunk of its own here.\n\n", s.heading, i)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "guide.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t)
	if _, err := ingest.Run(context.Background(), db, []string{path}, ingest.Options{URL: "https://git.example/guide.md", Chunk: ingest.ChunkOptions{Size: 120}}); err != nil {
		t.Fatal(err)
	}
	found := map[int]bool{}
	for _, c := range chunksOf(t, db, "guide.md") {
		if strings.HasPrefix(c.Text, "Preface") {
			if c.Link.Kind != resolve.LinkNone || c.Link.URL != "https://git.example/guide.md" || c.Link.Fallback == "" {
				t.Errorf("preface: got %+v, want no deep link, the bare URL and a reason", c.Link)
			}
			continue
		}
		var i int
		if _, err := fmt.Sscanf(c.Text[strings.Index(c.Text, "marker"):], "marker%d", &i); err != nil {
			t.Fatalf("chunk %q: %v", c.Text, err)
		}
		found[i] = true
		want := "#" + sections[i].anchor
		if c.Link.Kind != resolve.LinkHeading || c.Link.Fragment != want || c.Link.URL != "https://git.example/guide.md"+want {
			t.Errorf("section %q: got %s %q %q, want heading %q", sections[i].heading, c.Link.Kind, c.Link.Fragment, c.Link.URL, want)
		}
	}
	if len(found) != len(sections) {
		t.Errorf("chunks found for %d sections, want %d", len(found), len(sections))
	}
}

func chunksOf(t *testing.T, db *store.DB, docID string) []*resolve.Cited {
	t.Helper()
	var out []*resolve.Cited
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(docID)
		if err != nil {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		return tx.ForEachChunk(v, func(c *store.Chunk) error {
			r, err := resolve.ChunkTx(tx, c.ID(), "")
			if err != nil {
				return err
			}
			cited, err := resolve.Cite(tx, r)
			out = append(out, cited)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPDFLink: a PDF span links to its physical page (RFC 8118) and shows the
// printed label; the selector set pins the version and its text hash.
func TestPDFLink(t *testing.T) {
	db := storetest.Open(t)
	text := "Cover\fPreface text on page ii.\fChapter one starts: the covenant is 3.25x."
	nv := storetest.NewVersion("report.pdf", text, 0)
	nv.Version.MediaType = "application/pdf"
	nv.Version.SourceURL = "https://files.example/report.pdf#view=FitH"
	nv.Layout.PageLabels = []string{"i", "ii", "1"}
	// One chunk per page, with the labels the layout gives.
	nv.Chunks = nil
	txt := nv.Text
	for p := range 3 {
		start := nv.Layout.PageStarts[p]
		end := txt.Len()
		if p+1 < len(nv.Layout.PageStarts) {
			end = nv.Layout.PageStarts[p+1] - 1
		}
		span, _ := txt.Slice(start, end)
		nv.Chunks = append(nv.Chunks, store.Chunk{Version: nv.Version.ID, Ordinal: uint32(p), Start: start, End: end,
			Page: p + 1, PageEnd: p + 1, PageLabel: nv.Layout.PageLabels[p], SpanHash: store.Hash(span),
			ByteStart: txt.ByteOffset(start), ByteEnd: txt.ByteOffset(start) + len(span)})
	}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	c, err := resolve.ChunkCited(db, store.ChunkID(nv.Version.ID, 2), "")
	if err != nil {
		t.Fatal(err)
	}
	l := c.Link
	if l.Kind != resolve.LinkPDFPage || l.Fragment != "#page=3" || l.URL != "https://files.example/report.pdf#page=3" || l.PageNumber != 3 || l.PageLabel != "1" {
		t.Errorf("got %s %q %q page %d label %q, want pdf_page #page=3, printed label 1", l.Kind, l.Fragment, l.URL, l.PageNumber, l.PageLabel)
	}
	b, err := json.Marshal(l.Target)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"source":"https://files.example/report.pdf","document_version":%q,"text_hash":%q,"selector":[`+
		`{"type":"TextPositionSelector","start":31,"end":73},`+
		`{"type":"TextQuoteSelector","exact":"Chapter one starts: the covenant is 3.25x.","prefix":"Cover\fPreface text on page ii.\f"},`+
		`{"type":"FragmentSelector","conformsTo":"http://tools.ietf.org/rfc/rfc8118","value":"page=3"}]}`,
		nv.Version.ID, nv.Version.TextHash)
	var gotJSON, wantJSON any
	_ = json.Unmarshal(b, &gotJSON)
	if err := json.Unmarshal([]byte(want), &wantJSON); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
		t.Errorf("target (-want +got):\n%s", diff)
	}
	if e := l.Excerpt; e.DocumentID != "report.pdf" || e.DocumentVersion != nv.Version.ID || e.PageNumber != 3 || e.PageLabel != "1" || e.Text != c.Text {
		t.Errorf("excerpt %+v does not name the document, version, page and text", e)
	}
}

// TestLinkStatuses: only served resolutions get links; a superseded one is
// pinned to the version it was read from; plain text has no deep link but
// its selectors and excerpt.
func TestLinkStatuses(t *testing.T) {
	db := storetest.Open(t)
	text := strings.Repeat("Alpha beta gamma delta. ", 8)
	v1 := storetest.NewVersion("notes.txt", text, 50)
	v1.ACL = []string{"analyst@example.com"}
	v1.Version.SourceURL = "https://notes.example/notes.txt"
	v1.Chunks[2].Quarantine = &store.Quarantine{Reason: resolve.ReasonTextMismatch}
	v1.Chunks[2].SpanHash = store.ID{}
	if _, err := db.PutVersion(v1); err != nil {
		t.Fatal(err)
	}
	c, err := resolve.ChunkCited(db, store.ChunkID(v1.Version.ID, 1), "analyst@example.com")
	if err != nil {
		t.Fatal(err)
	}
	l := c.Link
	if l == nil || l.Kind != resolve.LinkNone || l.URL != "https://notes.example/notes.txt" || l.Fallback != "plain text has no stable deep link" {
		t.Fatalf("plain text: got %+v, want kind none with the bare URL and a reason", l)
	}
	q := l.Target.Selector[1]
	runes := []rune(text)
	if q.Type != resolve.TextQuoteSelector || q.Exact != string(runes[50:100]) || q.Prefix != string(runes[18:50]) || q.Suffix != string(runes[100:132]) {
		t.Errorf("quote selector %+v: want the span with 32 code points on each side", q)
	}
	if p := l.Target.Selector[0]; p.Start != 50 || p.End != 100 || l.Target.TextHash != v1.Version.TextHash {
		t.Errorf("position selector %+v, hash %s: want [50, 100) and the version's text hash", p, l.Target.TextHash.Short())
	}
	for _, tt := range []struct {
		name, chunk, principal string
	}{
		{"forbidden", store.ChunkID(v1.Version.ID, 1), "intern@example.com"},
		{"quarantined", store.ChunkID(v1.Version.ID, 2), "analyst@example.com"},
		{"not found", store.ChunkID(v1.Version.ID, 99), "analyst@example.com"},
	} {
		c, err := resolve.ChunkCited(db, tt.chunk, tt.principal)
		if err != nil {
			t.Fatal(err)
		}
		if c.Link != nil {
			t.Errorf("%s: got a link %+v, want none", tt.name, c.Link)
		}
		if b, _ := json.Marshal(c); strings.Contains(string(b), "Alpha") {
			t.Errorf("%s: JSON reveals text: %s", tt.name, b)
		}
	}
	v2 := storetest.NewVersion("notes.txt", strings.ToUpper(text), 50)
	if _, err := db.PutVersion(v2); err != nil {
		t.Fatal(err)
	}
	c, err = resolve.ChunkCited(db, store.ChunkID(v1.Version.ID, 1), "analyst@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != resolve.StatusSuperseded || c.Link == nil || c.Link.Target.DocumentVersion != v1.Version.ID || c.Link.Excerpt.Text != c.Text {
		t.Errorf("superseded: got %s %+v, want a link pinned to %s", c.Status, c.Link, v1.Version.ID)
	}
	if _, err := db.Delete("notes.txt", ""); err != nil {
		t.Fatal(err)
	}
	if c, _ := resolve.ChunkCited(db, store.ChunkID(v1.Version.ID, 1), "analyst@example.com"); c.Status != resolve.StatusDeleted || c.Link != nil {
		t.Errorf("deleted: got %s with link %v, want deleted without a link", c.Status, c.Link)
	}
}

// TestSub narrows a resolution to part of its span, with that part's page.
func TestSub(t *testing.T) {
	db := storetest.Open(t)
	text := "Page one text.\fPage two: café 東京 rules."
	nv := storetest.NewVersion("doc", text, 0)
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	err := db.View(func(tx *store.Tx) error {
		r, err := resolve.ChunkTx(tx, store.ChunkID(nv.Version.ID, 0), "")
		if err != nil {
			return err
		}
		s, err := resolve.Sub(tx, r, 25, 32)
		if err != nil {
			return err
		}
		if s.Text != "café 東京" || s.Page != 2 || s.Start != 25 || s.End != 32 {
			t.Errorf("got %q page %d [%d, %d), want \"café 東京\" page 2 [25, 32)", s.Text, s.Page, s.Start, s.End)
		}
		if _, err := resolve.Sub(tx, r, 30, 99); err == nil {
			t.Error("a range past the span: got no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
