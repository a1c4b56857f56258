package ingest

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// scanHeadings finds the headings of s, which starts at byte base of the
// canonical text, with a line scanner instead of goldmark's block parse,
// for the sources whose block structure it models exactly: paragraphs,
// ATX and setext headings, fenced and indented code, thematic breaks, and
// lists whose lines cannot hold a heading. It appends to hs and reports
// ok == false as soon as a line needs more (a block quote, an HTML block,
// a list line that could start a heading, fence or setext underline, a
// link reference definition that may be a setext heading's text), and the
// caller then parses with goldmark, the oracle it is fuzzed against
// (FuzzScanHeadings).
//
// The rules are CommonMark's, as goldmark implements them: a line indented
// four columns or more (any tab in the indentation makes four) is code or
// a paragraph's continuation, never a block start; a setext underline is
// tried before a thematic break, a thematic break before a list item; a
// fence, an ATX heading, a thematic break and a bullet or "1." item with
// content interrupt a paragraph, other list items do not.
func scanHeadings(s string, base int, hs []heading) ([]heading, bool) {
	var (
		para        bool // a paragraph is open
		paraLine    int  // byte offset in s of its first line
		paraStart   int  // byte offset in s of its first non-space character
		paraBracket bool // it starts with '[': link reference definitions, maybe
		fence       byte // '`' or '~' while in a fenced code block
		fenceLen    int
		html        byte // in an HTML block: '2', a comment, till "-->"; '6', till a blank line
		list        bool // in a list or block quote: only lines that cannot matter pass
		listBlank   bool // the list's last line was blank
	)
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := s[start:end]
		lineStart := start
		start = end + 1

		if fence != 0 {
			col, i := indent(line, 0, 0)
			if col < 4 {
				n := repeats(line[i:], fence)
				if n >= fenceLen && blank(line[i+n:]) {
					fence = 0
				}
			}
			continue
		}
		col, i := indent(line, 0, 0)
		switch {
		case html == '2':
			if strings.Contains(line, "-->") {
				html = 0
			}
			continue
		case html == '6':
			if i == len(line) {
				html = 0
			}
			continue
		}
		if list {
			switch {
			case i == len(line):
				listBlank = true
				continue
			case listBlank && col == 0 && listMarker(line) == 0 && line[0] != '>':
				list = false // a line at column 0 after a blank one closes every list item and quote
			default:
				if !listSafe(line) {
					return hs, false
				}
				listBlank = false
				continue
			}
		}
		if i == len(line) {
			para = false
			continue
		}
		if col >= 4 {
			continue // indented code, or the open paragraph's continuation
		}
		rest := line[i:]
		c := rest[0]
		if para && (c == '=' || c == '-') && setextBar(rest) {
			if paraBracket {
				return hs, false
			}
			level := 1
			if c == '-' {
				level = 2
			}
			title, ok := setextTitle(s[paraLine:lineStart], line)
			if !ok {
				return hs, false
			}
			if title != "" {
				hs = append(hs, heading{level: level, off: base + paraStart, title: title})
			}
			para = false
			continue
		}
		if (c == '*' || c == '-' || c == '_') && thematicBreak(rest) {
			para = false
			continue
		}
		if w := listMarker(rest); w > 0 {
			if !para || interrupts(rest, w) {
				if !listSafe(rest) {
					return hs, false
				}
				list, listBlank, para = true, false, false
				continue
			}
			// an item that cannot interrupt the paragraph continues it
		}
		switch c {
		case '#':
			if level, ok := atxLevel(rest); ok {
				title, ok := atxTitle(rest[level:])
				if !ok {
					return hs, false
				}
				if title != "" {
					hs = append(hs, heading{level: level, off: base + lineStart + i, title: title})
				}
				para = false
				continue
			}
		case '`', '~':
			if n := repeats(rest, c); n >= 3 && (c == '~' || strings.IndexByte(rest[n:], '`') < 0) {
				fence, fenceLen, para = c, n, false
				continue
			}
		case '>':
			if !listSafe(rest) {
				return hs, false
			}
			list, listBlank, para = true, false, false
			continue
		case '<':
			switch t := htmlStart(rest); {
			case t == '2' || t == '6':
				if t != '2' || !strings.Contains(rest, "-->") {
					html = t
				}
				para = false
				continue
			case t != 0 || !para:
				return hs, false // another HTML block, or maybe one
			}
		}
		if !para {
			para, paraLine, paraStart, paraBracket = true, lineStart, lineStart+i, c == '['
		}
	}
	return hs, true
}

// repeats returns how many times c repeats at the start of s.
func repeats(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// blank reports whether s holds only spaces and tabs.
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// setextBar reports whether s (a line without its indentation) is a setext
// underline: '=' or '-' only, then spaces and tabs.
func setextBar(s string) bool {
	n := repeats(s, s[0])
	return blank(s[n:])
}

// thematicBreak reports whether s (a line without its indentation) is
// three or more '*', '-' or '_', the same throughout, spaces and tabs
// between them allowed.
func thematicBreak(s string) bool {
	mark, n := s[0], 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t':
		case mark:
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// interrupts reports whether the list item opening s, its marker w bytes
// wide, may interrupt a paragraph: a bullet or an ordered item numbered 1,
// with content.
func interrupts(s string, w int) bool {
	if blank(s[w:]) {
		return false
	}
	if s[0] == '-' || s[0] == '+' || s[0] == '*' {
		return true
	}
	digits := strings.TrimLeft(s[:w-1], "0")
	return digits == "1"
}

// listSafe reports whether a line inside a list can hold no heading and
// change nothing the scanner tracks, whatever the list items around it
// are: what follows its indentation and list markers is empty, or
// paragraph text that starts no heading, fence, setext underline,
// thematic break, HTML block or block quote.
func listSafe(line string) bool {
	for {
		_, i := indent(line, 0, 0)
		s := line[i:]
		if s == "" {
			return true
		}
		switch s[0] {
		case '#':
			if _, ok := atxLevel(s); ok {
				return false
			}
		case '`', '~':
			if repeats(s, s[0]) >= 3 {
				return false
			}
		case '<':
			if htmlSpans(s) {
				return false
			}
		case '=', '-', '*', '_':
			if setextBar(s) || thematicBreak(s) {
				return false
			}
		}
		w := listMarker(s)
		if w == 0 && s[0] == '>' {
			w = 1
		}
		if w == 0 {
			return true
		}
		line = s[w:]
	}
}

// htmlStart returns the kind of HTML block that s (a line without its
// indentation, starting with '<') opens: '2' for a comment, '6' for a
// CommonMark block tag followed by a space, '>', "/>" or the end of the
// line; '?' for what may be another kind, 0 for none ('<' then neither a
// letter nor '/', '!', '?').
func htmlStart(s string) byte {
	if strings.HasPrefix(s, "<!--") {
		return '2'
	}
	var t string
	if len(s) > 1 && s[1] == '/' {
		t = strings.TrimLeft(s[2:], " ")
	} else {
		t = s[1:]
	}
	n := 0
	for n < len(t) && (t[n] >= 'a' && t[n] <= 'z' || t[n] >= 'A' && t[n] <= 'Z' || n > 0 && (t[n] >= '0' && t[n] <= '9' || t[n] == '-')) {
		n++
	}
	if n == 0 {
		if len(s) > 1 && (s[1] == '!' || s[1] == '?' || s[1] == '/') {
			return '?'
		}
		return 0
	}
	after := t[n:]
	if blockTags[strings.ToLower(t[:n])] && (after == "" || after[0] == ' ' || after[0] == '>' || strings.HasPrefix(after, "/>")) {
		return '6'
	}
	return '?'
}

// htmlSpans reports whether s (a line without its indentation, starting
// with '<') may open an HTML block that blank lines do not end (CommonMark
// kinds 1 to 5: a comment, "<?", "<!", "<script", "<pre", "<style",
// "<textarea"). The other kinds end at a blank line, as a list's
// conservative stretch does.
func htmlSpans(s string) bool {
	if len(s) > 1 && (s[1] == '!' || s[1] == '?') {
		return true
	}
	l := strings.ToLower(s[1:min(len(s), 10)])
	for _, t := range []string{"script", "pre", "style", "textarea"} {
		if strings.HasPrefix(l, t) {
			return true
		}
	}
	return false
}

// blockTags are CommonMark's HTML block tag names (goldmark's list).
var blockTags = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`address article aside base basefont blockquote body caption center col colgroup dd details
		dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html
		iframe legend li link main menu menuitem meta nav noframes ol optgroup option p param search section summary
		table tbody td tfoot th thead title tr track ul`) {
		blockTags[t] = true
	}
}

// atxLevel returns the level of the ATX heading that s (a line without its
// indentation, starting with '#') opens: one to six '#', then a space, a
// tab or the end of the line.
func atxLevel(s string) (int, bool) {
	n := repeats(s, '#')
	if n > 6 || n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return 0, false
	}
	return n, true
}

// atxTitle returns the title of an ATX heading from what follows its
// opening '#'s: trimmed, the closing '#'s taken off as goldmark does. A
// '{' may open an attribute block, which goldmark itself then takes off
// (goldmarkTitle).
func atxTitle(s string) (string, bool) {
	v := strings.Trim(s, " \t")
	if strings.IndexByte(v, '{') >= 0 {
		return goldmarkTitle("# " + v)
	}
	stop := len(v)
	if stop > 0 {
		j := stop - 1
		for ; v[j] == '#' && j > 0; j-- {
		}
		if j == 0 && v[0] == '#' {
			return "", true // only closing '#'s: an empty heading
		}
		if j != stop-1 && (v[j] == ' ' || v[j] == '\t') {
			stop = len(strings.TrimRight(v[:j], " \t"))
		}
	}
	return strings.TrimSpace(v[:stop]), true
}

// setextTitle returns the title of a setext heading: the lines of its
// paragraph (lines, each ending in '\n'), each trimmed, joined by a space.
// A '{' in the last line may open an attribute block: goldmark then reads
// the paragraph and underline itself.
func setextTitle(lines, bar string) (string, bool) {
	last := strings.TrimSuffix(lines, "\n")
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	if strings.IndexByte(last, '{') >= 0 {
		return goldmarkTitle(lines + bar)
	}
	if strings.Count(lines, "\n") == 1 {
		return strings.TrimSpace(lines), true
	}
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimSuffix(lines, "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(l)
		}
	}
	return b.String(), true
}

// goldmarkTitle parses src, one heading and nothing else, with goldmark and
// returns its title; ok is false when src is not one heading.
func goldmarkTitle(src string) (string, bool) {
	source := []byte(src)
	doc := mdParser.Parse(text.NewReader(source))
	h, ok := doc.FirstChild().(*ast.Heading)
	if !ok || h.NextSibling() != nil {
		return "", false
	}
	return headingTitle(h, source), true
}
