package pdf

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Heading candidates from font sizes, for documents without an outline: a
// short line set clearly larger than the page's body text. The body size
// is the size that carries most of the page's glyphs.

const (
	headingMinRatio = 1.15 // times the body size
	headingMaxRunes = 120
	headingMaxLines = 12 // more candidates than this on a page: it is not body text vs headings
	maxHeadingLevel = 6
)

func headings(text string, lines []lineInfo) []Heading {
	if len(lines) < 2 {
		return nil
	}
	weight := map[float64]int{}
	for _, l := range lines {
		weight[roundSize(l.size)] += l.chars
	}
	body, best := 0.0, -1
	for s, w := range weight {
		if w > best || (w == best && s < body) {
			body, best = s, w
		}
	}
	if body <= 0 {
		return nil
	}
	var cands []lineInfo
	for _, l := range lines {
		if l.size < body*headingMinRatio || l.end > len(text) {
			continue
		}
		s := text[l.start:l.end]
		if utf8.RuneCountInString(s) > headingMaxRunes || !strings.ContainsFunc(s, unicode.IsLetter) {
			continue
		}
		cands = append(cands, l)
	}
	if len(cands) == 0 || len(cands) > headingMaxLines {
		return nil
	}
	var sizes []float64
	for _, c := range cands {
		sizes = append(sizes, roundSize(c.size))
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	slices.Reverse(sizes)
	var out []Heading
	for _, c := range cands {
		level := slices.Index(sizes, roundSize(c.size)) + 1
		out = append(out, Heading{Text: text[c.start:c.end], Level: min(level, maxHeadingLevel), Offset: c.start})
	}
	return out
}

// roundSize groups sizes to half points.
func roundSize(s float64) float64 { return math.Round(s*2) / 2 }
