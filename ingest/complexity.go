package ingest

import (
	"fmt"
	"strings"
)

// MaxMarkdownNesting bounds how deep block containers (block quotes and
// list items) may nest in a Markdown source, as markdown-it's maxNesting
// does. goldmark checks every open container on every line, so the time
// to parse grows with lines times depth: 1 MB of ">" (a million nested
// quotes) took minutes, a 9 MB list nested by indentation 37 s and 910 MB.
// With the depth bounded, parsing is linear in the source: a source
// nested deeper fails with the reason too_complex before it is parsed.
const MaxMarkdownNesting = 32

// MaxLinkDefinitions bounds the link reference definitions of one
// paragraph: goldmark takes them off a paragraph one at a time, copying
// the rest each time, so the time grows with their square (262,144 of
// them in a row took three minutes).
const MaxLinkDefinitions = 1000

// checkMarkdownNesting returns an error wrapping ErrTooComplex when a line
// of s may open more than MaxMarkdownNesting block containers, or a
// paragraph holds more than MaxLinkDefinitions lines that look like link
// reference definitions. The depth
// it measures is an upper bound of CommonMark's, in one pass over s: the
// block quote and list markers that open a line, plus the list items of
// earlier lines that the line is indented into. It can overcount (a
// thematic break of a hundred "- ", lazy continuation lines), never
// undercount by more than the items a lazy line leaves open.
func checkMarkdownNesting(s string) error {
	var items []int // content columns of the list items open at the line
	lineNo, defs := 0, 0
	for rest := s; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		lineNo++
		col, i := indent(line, 0, 0)
		if i == len(line) {
			defs = 0 // a blank line ends a paragraph, and closes nothing yet
			continue
		}
		if col < 4 && line[i] == '[' && strings.Contains(line[i:], "]:") {
			if defs++; defs > MaxLinkDefinitions {
				return fmt.Errorf("%w: line %d: more than %d link reference definitions in one paragraph", ErrTooComplex, lineNo, MaxLinkDefinitions)
			}
		}
		for len(items) > 0 && col < items[len(items)-1] {
			items = items[:len(items)-1]
		}
		depth := len(items)
		// The container markers that open the line, each with up to three
		// spaces before it.
		for depth <= MaxMarkdownNesting && i < len(line) {
			if line[i] == '>' {
				depth++
				col, i = indent(line, col+1, i+1)
				continue
			}
			w := listMarker(line[i:])
			if w == 0 {
				break
			}
			depth++
			next, j := indent(line, col+w, i+w)
			if j == len(line) || next-(col+w) > 4 {
				next = col + w + 1 // an empty item, or one whose content is indented code
			}
			items = append(items, next)
			col, i = next, j
		}
		if depth > MaxMarkdownNesting {
			return fmt.Errorf("%w: line %d nests more than %d block quotes and list items", ErrTooComplex, lineNo, MaxMarkdownNesting)
		}
	}
	return nil
}

// indent skips the spaces and tabs of line from byte i at column col (tabs
// to the next multiple of 4) and returns the column and byte reached.
func indent(line string, col, i int) (int, int) {
	for ; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, i
		}
	}
	return col, i
}

// listMarker returns the width of the list marker that opens s ("-", "+",
// "*", or one to nine digits and "." or ")", followed by a space, a tab or
// the end of the line), or 0.
func listMarker(s string) int {
	w := 0
	switch {
	case s == "":
		return 0
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		w = 1
	default:
		for w < len(s) && w < 9 && '0' <= s[w] && s[w] <= '9' {
			w++
		}
		if w == 0 || w == len(s) || s[w] != '.' && s[w] != ')' {
			return 0
		}
		w++
	}
	if w < len(s) && s[w] != ' ' && s[w] != '\t' {
		return 0
	}
	return w
}
