package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/store"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// ExtractHTML extracts the visible text of an HTML source, with its block
// structure as line breaks. It has one page.
//
// The text is built as follows:
//   - block elements (p, div, li, table, h1 to h6, ...) start and end on a
//     line of their own; paragraph-like blocks (p, lists, tables, headings,
//     sections, pre, blockquote, ...) are set apart by a blank line, line-like
//     ones (div, li, dt, dd, tr, figcaption, summary, caption) by a line break;
//   - br is a line break, table cells of a row are separated by a tab;
//   - white space is collapsed to one space outside pre, where it is kept
//     (except the line break right after <pre>, trailing blanks of a line,
//     and form feeds, which become line breaks: an HTML source has one page);
//   - script, style, noscript, template, title, iframe, noembed, noframes,
//     svg and math are dropped, and with them everything a head holds; so
//     are links of class "headerlink" (the "¶" of Sphinx and MkDocs headings);
//   - character references are decoded; the result is normalized like
//     Normalize's output (NFC, controls removed), and holds no leading or
//     trailing white space and no run of more than one blank line.
//
// Headings h1 to h6 make sections as in ExtractMarkdown: a section starts at
// the code point where its heading's text starts and ends where the next
// heading of the same or a higher level starts, or at the end of the text;
// its title is the heading's text with white space collapsed. Headings
// without text make no section.
//
// The source must be UTF-8 (a charset declared in the document is not
// honoured); elements hidden by CSS or the hidden attribute are not
// recognized as hidden.
func ExtractHTML(src []byte) (*Extracted, error) { return extractHTML(src, false) }

// extractHTML is ExtractHTML; own says src may be read in place (normalize).
func extractHTML(src []byte, own bool) (*Extracted, error) {
	// Normalize first: it checks the source (binary, invalid UTF-8) and
	// strips the BOM. Character references can still bring in controls and
	// decomposed characters, so the output is cleaned again below.
	s, err := normalize(src, own)
	if err != nil {
		return nil, err
	}
	w := htmlWriter{out: make([]byte, 0, len(s)/2)}
	w.run(s)
	text, hs := w.finish()
	return &Extracted{
		Text:      text,
		Layout:    store.Layout{PageStarts: []int{0}, Sections: buildSections(text, hs)},
		MediaType: "text/html",
		Extractor: "html/1",
	}, nil
}

// Breaks pending between two pieces of text, weakest first. The strongest
// requested one is written when the next text comes, none at the start or
// end of the text.
const (
	sepNone  = iota
	sepSpace // collapsed white space
	sepTab   // between table cells
)

// blockKind tells how an element breaks the text around it.
type blockKind uint8

const (
	inline    blockKind = iota
	lineBlock           // on its own line
	paraBlock           // set apart by a blank line
	cell                // a table cell, tab-separated from the previous one
	dropped             // dropped with its content
)

var htmlKinds = map[atom.Atom]blockKind{
	atom.P: paraBlock, atom.Section: paraBlock, atom.Article: paraBlock, atom.Header: paraBlock,
	atom.Footer: paraBlock, atom.Nav: paraBlock, atom.Aside: paraBlock, atom.Main: paraBlock,
	atom.Ul: paraBlock, atom.Ol: paraBlock, atom.Dl: paraBlock, atom.Table: paraBlock,
	atom.Blockquote: paraBlock, atom.Pre: paraBlock, atom.Figure: paraBlock, atom.Form: paraBlock,
	atom.H1: paraBlock, atom.H2: paraBlock, atom.H3: paraBlock, atom.H4: paraBlock,
	atom.H5: paraBlock, atom.H6: paraBlock, atom.Hr: paraBlock, atom.Address: paraBlock,
	atom.Details: paraBlock, atom.Fieldset: paraBlock, atom.Hgroup: paraBlock, atom.Menu: paraBlock,
	atom.Center: paraBlock, atom.Search: paraBlock, atom.Dialog: paraBlock, atom.Xmp: paraBlock,
	atom.Listing: paraBlock, atom.Plaintext: paraBlock, atom.Body: paraBlock,

	atom.Div: lineBlock, atom.Li: lineBlock, atom.Dt: lineBlock, atom.Dd: lineBlock,
	atom.Tr: lineBlock, atom.Figcaption: lineBlock, atom.Summary: lineBlock,
	atom.Caption: lineBlock, atom.Legend: lineBlock, atom.Thead: lineBlock,
	atom.Tbody: lineBlock, atom.Tfoot: lineBlock,

	atom.Td: cell, atom.Th: cell,

	atom.Script: dropped, atom.Style: dropped, atom.Noscript: dropped, atom.Template: dropped,
	atom.Title: dropped, atom.Iframe: dropped, atom.Noembed: dropped, atom.Noframes: dropped,
	atom.Svg: dropped, atom.Math: dropped,
}

// isPre reports whether an element keeps its white space.
func isPre(a atom.Atom) bool {
	return a == atom.Pre || a == atom.Xmp || a == atom.Listing || a == atom.Plaintext
}

// headingLevel returns 1 to 6 for h1 to h6, else 0.
func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// htmlWriter builds the extracted text.
type htmlWriter struct {
	out       []byte
	lines     int // line breaks owed before the next text: 0, 1 or 2 (a blank line)
	sep       int // sepNone, sepSpace or sepTab, owed when no line break is
	trailNL   int // line breaks at the end of out, blanks after them ignored
	pre       int // depth of open pre-like elements
	preStart  bool
	skip      atom.Atom // the dropped element being skipped, or 0
	skipDepth int
	cells     int // cells seen in the current table row

	level     int // level of the open heading, or 0
	headStart int // byte offset of the open heading's text, or -1
	headings  []heading
}

func (w *htmlWriter) run(s string) {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		preStart := w.preStart
		w.preStart = false
		switch tt {
		case html.ErrorToken:
			// io.EOF, or a tokenizer error on input it cannot read; either
			// way the text so far is what there is.
			w.endHeading()
			return
		case html.TextToken:
			if w.skip != 0 {
				continue
			}
			t := cleanControls(z.Text())
			if preStart && len(t) > 0 && t[0] == '\n' {
				t = t[1:] // a line break right after <pre> is not content
			}
			if w.pre > 0 && w.level == 0 {
				w.writePre(t)
			} else {
				w.writeCollapsed(t)
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if a == atom.A && hasAttr && tt == html.StartTagToken && w.skip == 0 && isHeaderLink(z) {
				// A permalink mark ("¶") that Sphinx and MkDocs put in
				// every heading, shown only on hover: not part of the title.
				w.skip, w.skipDepth = atom.A, 1
				continue
			}
			w.tag(tt, a)
		}
	}
}

func (w *htmlWriter) tag(tt html.TokenType, a atom.Atom) {
	if w.skip != 0 {
		if a == w.skip {
			switch tt {
			case html.StartTagToken:
				w.skipDepth++
			case html.EndTagToken:
				w.skipDepth--
				if w.skipDepth == 0 {
					w.skip = 0
				}
			}
		}
		return
	}
	end := tt == html.EndTagToken
	if a == atom.Br { // </br> too, as in browsers
		w.lines = min(w.lines+1, 2)
		return
	}
	kind := htmlKinds[a]
	switch kind {
	case inline:
		return
	case dropped:
		// Foreign elements honour "/>"; for the others browsers ignore it.
		if !end && !(tt == html.SelfClosingTagToken && (a == atom.Svg || a == atom.Math)) {
			w.skip, w.skipDepth = a, 1
		}
		return
	case cell:
		if !end {
			if w.cells > 0 {
				w.sep = sepTab
			}
			w.cells++
		}
		return
	}
	if l := headingLevel(a); l > 0 {
		// Any heading tag closes an open heading, as in browsers.
		w.endHeading()
		if !end && tt != html.SelfClosingTagToken {
			w.level, w.headStart = l, -1
		}
	}
	if a == atom.Tr && !end {
		w.cells = 0
	}
	if isPre(a) && tt != html.SelfClosingTagToken {
		if end {
			w.pre = max(w.pre-1, 0)
		} else {
			w.pre++
			w.preStart = true
		}
	}
	want := 1
	if kind == paraBlock {
		want = 2
	}
	w.lines = max(w.lines, want)
}

// isHeaderLink reports whether the current tag has the class "headerlink".
func isHeaderLink(z *html.Tokenizer) bool {
	for {
		key, val, more := z.TagAttr()
		if string(key) == "class" {
			for _, c := range strings.Fields(string(val)) {
				if c == "headerlink" {
					return true
				}
			}
		}
		if !more {
			return false
		}
	}
}

// endHeading closes the open heading, if any, recording it when it has text.
func (w *htmlWriter) endHeading() {
	if w.level == 0 {
		return
	}
	if w.headStart >= 0 {
		title := collapseSpace(w.out[w.headStart:])
		if title != "" {
			w.headings = append(w.headings, heading{level: w.level, off: w.headStart, title: title})
		}
	}
	w.level = 0
}

// flush writes the owed break before a piece of text.
func (w *htmlWriter) flush() {
	if w.lines > 0 {
		// Blanks that pre text left at a line end go first, so that a blank
		// line is empty.
		n := len(w.out)
		for n > 0 && (w.out[n-1] == ' ' || w.out[n-1] == '\t') {
			n--
		}
		w.out = w.out[:n]
	}
	if len(w.out) == 0 {
		w.lines, w.sep = 0, sepNone
		return
	}
	if w.lines > 0 {
		for ; w.trailNL < w.lines; w.trailNL++ {
			w.out = append(w.out, '\n')
		}
	} else if w.sep == sepTab {
		w.out = append(w.out, '\t')
	} else if w.sep == sepSpace && w.trailNL == 0 {
		w.out = append(w.out, ' ')
	}
	w.lines, w.sep = 0, sepNone
}

// mark records where the open heading's text starts, once it has some.
func (w *htmlWriter) mark() {
	if w.level > 0 && w.headStart < 0 {
		w.headStart = len(w.out)
	}
}

// writeCollapsed writes text outside pre: runs of HTML white space become
// one space.
func (w *htmlWriter) writeCollapsed(t []byte) {
	for len(t) > 0 {
		i := 0
		for i < len(t) && isHTMLSpace(t[i]) {
			i++
		}
		if i > 0 {
			w.sep = max(w.sep, sepSpace)
			t = t[i:]
			continue
		}
		for i < len(t) && !isHTMLSpace(t[i]) {
			i++
		}
		w.flush()
		w.mark()
		w.out = append(w.out, t[:i]...)
		w.trailNL = 0
		t = t[i:]
	}
}

// writePre writes text inside pre, keeping its white space but dropping
// blanks at line ends, leading blank lines of the text and line breaks
// beyond one blank line.
func (w *htmlWriter) writePre(t []byte) {
	if len(t) == 0 {
		return
	}
	w.flush()
	for _, c := range t {
		switch c {
		case '\n', '\f':
			n := len(w.out)
			for n > 0 && (w.out[n-1] == ' ' || w.out[n-1] == '\t') {
				n--
			}
			w.out = w.out[:n]
			if n > 0 && w.trailNL < 2 {
				w.out = append(w.out, '\n')
				w.trailNL++
			}
		case ' ', '\t':
			w.out = append(w.out, c)
		default:
			w.out = append(w.out, c)
			w.trailNL = 0
		}
	}
}

// collapseSpace returns t with runs of HTML white space replaced by one
// space and none at either end. Other white space, such as U+00A0, is kept
// as in the text.
func collapseSpace(t []byte) string {
	var b strings.Builder
	b.Grow(len(t))
	sp := false
	for _, c := range t {
		if isHTMLSpace(c) {
			sp = b.Len() > 0
			continue
		}
		if sp {
			b.WriteByte(' ')
			sp = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r'
}

// finish returns the text, trimmed and in NFC, and its headings with byte
// offsets into it.
func (w *htmlWriter) finish() (string, []heading) {
	w.endHeading()
	n := len(w.out)
	for n > 0 && isHTMLSpace(w.out[n-1]) {
		n--
	}
	text := string(w.out[:n])
	if nfcSpan(text, 0) == len(text) {
		return text, w.headings
	}
	// Character references made text that is not NFC. Every heading starts
	// right after a line break (or at 0), and nothing composes with a line
	// break, so normalizing piece by piece between heading starts gives the
	// NFC of the whole and keeps each heading's offset exact.
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	prev := 0
	for i := range w.headings {
		h := &w.headings[i]
		b.WriteString(norm.NFC.String(text[prev:h.off]))
		prev, h.off = h.off, b.Len()
		h.title = norm.NFC.String(h.title)
	}
	b.WriteString(norm.NFC.String(text[prev:]))
	return b.String(), w.headings
}

// cleanControls removes the control characters that Normalize removes
// (other than \t, \n, \f and \r, which are white space in HTML), and turns
// \r into \n: character references can bring them back in. It returns t
// itself when there is nothing to remove.
func cleanControls(t []byte) []byte {
	i := 0
	for i < len(t) {
		c := t[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\f' {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if isC1(t, i) {
				break // C1 control
			}
			i++
			continue
		}
		break
	}
	if i == len(t) {
		return t
	}
	out := make([]byte, 0, len(t))
	out = append(out, t[:i]...)
	for i < len(t) {
		c := t[i]
		switch {
		case c == '\r':
			out = append(out, '\n')
		case c < 0x20 && c != '\t' && c != '\n' && c != '\f', c == 0x7f:
			// dropped
		case isC1(t, i):
			i++ // C1 control, two bytes: dropped
		default:
			out = append(out, c)
		}
		i++
	}
	return out
}

// isC1 reports whether t[i:] starts with a C1 control, U+0080 to U+009F.
func isC1(t []byte, i int) bool {
	return t[i] == 0xc2 && i+1 < len(t) && t[i+1] >= 0x80 && t[i+1] <= 0x9f
}
