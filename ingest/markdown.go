package ingest

import (
	"strings"

	"github.com/evidence-rag/evidence/store"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser finds headings only. Inline parsing is left out because titles
// are kept raw; the link-reference transformer stays because a paragraph
// made only of link reference definitions cannot become a setext heading.
// Heading attributes ("## Intro {#intro}", as in Go's and Pandoc's docs)
// are parsed so that they stay out of titles. A goldmark parser is safe for
// concurrent use once built.
var mdParser = parser.NewParser(
	parser.WithBlockParsers(mdBlockParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

// mdBlockParsers are goldmark's CommonMark block parsers, in the order
// and with the priorities of parser.DefaultBlockParsers, the heading parsers
// set to take a trailing attribute block off the title.
func mdBlockParsers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(parser.NewSetextHeadingParser(parser.WithHeadingAttribute()), 100),
		util.Prioritized(parser.NewThematicBreakParser(), 200),
		util.Prioritized(parser.NewListParser(), 300),
		util.Prioritized(parser.NewListItemParser(), 400),
		util.Prioritized(parser.NewCodeBlockParser(), 500),
		util.Prioritized(parser.NewATXHeadingParser(parser.WithHeadingAttribute()), 600),
		util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
		util.Prioritized(parser.NewBlockquoteParser(), 800),
		util.Prioritized(parser.NewHTMLBlockParser(), 900),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	}
}

// ExtractMarkdown extracts a Markdown (CommonMark) source. Its canonical
// text is Normalize(src) with the Markdown syntax kept, so offsets computed
// on the raw file by other pipelines stay valid. It has one page.
//
// Sections come from ATX and setext headings as CommonMark parses the
// canonical text: a "#" line inside a fenced or indented code block or an
// HTML block is no heading. A section starts at the heading's first line
// (at its "#", or at the first character of a setext heading's text) and
// ends where the next heading of the same or a higher level starts, or at
// the end of the text. Its title is the heading's raw inline content,
// trimmed, with an ATX heading's closing #s and a trailing attribute block
// such as {#id} removed, and the lines of a multi-line setext heading joined
// by a space; inline markup is kept. Headings with an empty title make no
// section, and neither do lines of YAML or TOML front matter (from a first
// line "---" or "+++" to the same line again; "..." also closes YAML).
//
// A source nested deeper than MaxMarkdownNesting block quotes and list
// items fails with ErrTooComplex (reason too_complex) before it is parsed.
func ExtractMarkdown(src []byte) (*Extracted, error) { return extractMarkdown(src, false) }

// extractMarkdown is ExtractMarkdown; own says the text may share src (normalize).
func extractMarkdown(src []byte, own bool) (*Extracted, error) {
	s, err := normalize(src, own)
	if err != nil {
		return nil, err
	}
	if err := checkMarkdownNesting(s); err != nil {
		return nil, err
	}
	return &Extracted{
		Text:      s,
		Layout:    store.Layout{PageStarts: []int{0}, Sections: markdownSections(s)},
		MediaType: "text/markdown",
		Extractor: "markdown/1",
	}, nil
}

// heading is a heading found by an extractor, at a byte offset.
type heading struct {
	level int // 1 to 6
	off   int // byte offset of the heading's start in the text
	title string
}

// markdownSections returns the sections of the canonical text s. The line
// scanner finds the headings of most sources (mdscan.go); goldmark's block
// parse those it does not model.
func markdownSections(s string) []store.Section {
	fm := frontMatterEnd(s)
	hs, ok := scanHeadings(s[fm:], fm, nil)
	if !ok {
		hs = goldmarkHeadings(s, fm)
	}
	return buildSections(s, hs)
}

// goldmarkHeadings returns the headings of s after the front matter that
// ends at byte fm, as goldmark's block parse finds them.
func goldmarkHeadings(s string, fm int) []heading {
	source := []byte(s[fm:])
	doc := mdParser.Parse(text.NewReader(source))
	var hs []heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		h, ok := n.(*ast.Heading)
		if !ok {
			if n.Type() == ast.TypeDocument || n.Kind() == ast.KindBlockquote || n.Kind() == ast.KindList || n.Kind() == ast.KindListItem {
				return ast.WalkContinue, nil
			}
			return ast.WalkSkipChildren, nil // headings live only in containers
		}
		title := headingTitle(h, source)
		if title != "" && h.Pos() >= 0 {
			hs = append(hs, heading{level: h.Level, off: fm + h.Pos(), title: title})
		}
		return ast.WalkSkipChildren, nil
	})
	return hs
}

// frontMatterEnd returns the byte offset just past the YAML ("---") or
// TOML ("+++") front matter that opens s, or 0 when there is none. Front
// matter is metadata, not Markdown: CommonMark would read its closing
// "---" as a setext underline and its last line as a heading.
func frontMatterEnd(s string) int {
	line, rest, ok := strings.Cut(s, "\n")
	fence := strings.TrimRight(line, " \t")
	if !ok || fence != "---" && fence != "+++" {
		return 0
	}
	off := len(line) + 1
	for rest != "" {
		line, rest, _ = strings.Cut(rest, "\n")
		off += len(line) + 1
		l := strings.TrimRight(line, " \t")
		if l == fence || fence == "---" && l == "..." {
			return min(off, len(s))
		}
	}
	return 0
}

// headingTitle returns the raw content of a heading's lines, trimmed, lines
// joined by a space.
func headingTitle(h *ast.Heading, source []byte) string {
	lines := h.Lines()
	switch lines.Len() {
	case 0:
		return ""
	case 1:
		seg := lines.At(0)
		return strings.TrimSpace(string(seg.Value(source)))
	}
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSpace(string(seg.Value(source)))
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(line)
	}
	return b.String()
}

// buildSections turns headings in text order into sections: offsets
// converted from bytes to code points in one forward pass, each section
// ending where the next heading of the same or a higher level (a smaller
// or equal level number) starts, or at the end of the text, and each path
// listing the titles of the enclosing headings, outermost first.
func buildSections(s string, hs []heading) []store.Section {
	if len(hs) == 0 {
		return nil
	}
	secs := make([]store.Section, len(hs))
	var open []int // indexes of sections not yet ended, levels increasing
	cp, prev := 0, 0
	for i, h := range hs {
		cp += countRunes(s[prev:h.off]) // s is canonical: valid UTF-8
		prev = h.off
		for len(open) > 0 && hs[open[len(open)-1]].level >= h.level {
			secs[open[len(open)-1]].End = cp
			open = open[:len(open)-1]
		}
		path := make([]string, len(open)+1)
		for k, j := range open {
			path[k] = hs[j].title
		}
		path[len(open)] = h.title
		secs[i] = store.Section{Start: cp, Path: path}
		open = append(open, i)
	}
	cp += countRunes(s[prev:])
	for _, j := range open {
		secs[j].End = cp
	}
	return secs
}
