package pdf

import "strings"

// Advance widths (glyph units) of codes 32–126 in the standard Helvetica
// and Times-Roman fonts, from their AFM metrics, for non-embedded fonts
// that omit /Widths. The other styles of a family differ by a few percent,
// which word-gap detection does not notice.
var (
	helveticaWidths = [95]uint16{
		278, 278, 355, 556, 556, 889, 667, 222, 333, 333, 389, 584, 278, 333, 278, 278,
		556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
		1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
		667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
		222, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
		556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
	}
	timesWidths = [95]uint16{
		250, 333, 408, 500, 500, 833, 778, 333, 333, 333, 500, 564, 250, 333, 250, 278,
		500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444,
		921, 722, 667, 667, 722, 611, 556, 722, 722, 333, 389, 722, 611, 889, 722, 722,
		556, 722, 667, 556, 611, 722, 722, 944, 722, 722, 611, 333, 278, 333, 469, 500,
		333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500, 278, 778, 500, 500,
		500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
	}
)

// standardWidths fills widths (text space units per unit of font size) for
// a base font without /Widths and reports whether the font was known.
func standardWidths(name string, widths *[256]float64) bool {
	if i := strings.IndexByte(name, '+'); i >= 0 {
		name = name[i+1:] // subset prefix
	}
	var table *[95]uint16
	switch {
	case strings.Contains(name, "Courier"):
		for c := range widths {
			widths[c] = 0.6
		}
		return true
	case strings.HasPrefix(name, "Helvetica"), strings.HasPrefix(name, "Arial"):
		table = &helveticaWidths
	case strings.HasPrefix(name, "Times"):
		table = &timesWidths
	default:
		for c := range widths {
			widths[c] = 0.5
		}
		return false
	}
	for c := range widths {
		widths[c] = 0.5
		if c >= 32 && c <= 126 {
			widths[c] = float64(table[c-32]) / 1000
		}
	}
	return true
}
