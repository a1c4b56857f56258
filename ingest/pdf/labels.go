package pdf

import (
	"sort"
	"strconv"
	"strings"

	lpdf "github.com/ledongthuc/pdf"
)

// Page labels (PDF 32000-1 §12.4.2): a number tree from page index to a
// label range with a style (D decimal, R/r roman, A/a letters), a prefix
// /P and a start /St. The tree is walked with a visited set and caps, so a
// damaged or cyclic tree yields the labels it can, never a hang.

const (
	maxLabelNodes  = 4096
	maxLabelRanges = 1 << 16
)

type labelRange struct {
	start  int
	style  string
	prefix string
	first  int
}

// pageLabels returns one label per page, or nil when the document defines none.
func (x *extractor) pageLabels(root lpdf.Value, n int) []string {
	tree := root.Key("PageLabels")
	if tree.Kind() != lpdf.Dict {
		return nil
	}
	var ranges []labelRange
	walkTree(tree, maxLabelNodes, func(node lpdf.Value) bool {
		nums := node.Key("Nums")
		for i := 0; i+1 < nums.Len() && len(ranges) < maxLabelRanges; i += 2 {
			k := nums.Index(i)
			d := nums.Index(i + 1)
			if k.Kind() != lpdf.Integer || d.Kind() != lpdf.Dict {
				continue
			}
			r := labelRange{start: int(k.Int64()), style: d.Key("S").Name(), first: 1}
			if p := d.Key("P"); p.Kind() == lpdf.String {
				r.prefix = x.textString(p)
			}
			if st := d.Key("St"); st.Kind() == lpdf.Integer && st.Int64() >= 1 && st.Int64() < 1<<30 {
				r.first = int(st.Int64())
			}
			ranges = append(ranges, r)
		}
		return len(ranges) < maxLabelRanges
	})
	if len(ranges) == 0 {
		return nil
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].start < ranges[j].start })
	labels := make([]string, n)
	ri := -1
	for page := 0; page < n; page++ {
		for ri+1 < len(ranges) && ranges[ri+1].start <= page {
			ri++
		}
		if ri < 0 {
			// Pages before the first range have no label of their own;
			// readers show the page number.
			labels[page] = strconv.Itoa(page + 1)
			continue
		}
		r := ranges[ri]
		labels[page] = r.prefix + formatLabel(r.style, r.first+page-r.start)
	}
	return labels
}

func formatLabel(style string, n int) string {
	switch style {
	case "D":
		return strconv.Itoa(n)
	case "R":
		return roman(n)
	case "r":
		return strings.ToLower(roman(n))
	case "A":
		return letters(n, 'A')
	case "a":
		return letters(n, 'a')
	}
	return ""
}

// roman writes n in upper-case roman numerals (n < 1 or huge: decimal).
func roman(n int) string {
	if n < 1 || n > 100000 {
		return strconv.Itoa(n)
	}
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

// letters writes n as A..Z, AA..ZZ, AAA.. (the letter repeated), as the
// specification defines.
func letters(n int, base byte) string {
	if n < 1 || n > 26*1000 {
		return strconv.Itoa(n)
	}
	k := (n-1)/26 + 1
	return strings.Repeat(string(rune(base+byte((n-1)%26))), k)
}
