package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// attribution: a figure the claim gives one owner that the cited chunk
// states only under another of its parallel owners. Reports and tables
// give each segment, product or party its own paragraph or row
// ("Flow Systems. Net sales increased 1.4% …" / "Sensing Technologies. …
// Organic sales grew 6.8%"); a claim that takes a figure from one and
// names the other ("Flow Systems' organic sales grew 6.8%") holds every
// figure and every name the chunk has, and says what it does not. Which
// owner a figure belongs to is what the layout says, not the words, so
// the finding goes to review (figure_attribution_unconfirmed), for a
// person or the judge.
//
// An owner is what leads a unit of the chunk: a table row's first cell,
// or a paragraph's lead-in (a capitalised phrase of at most five words
// ending in a full stop, "Sensing Technologies."). A finding needs the
// claim to name one owner, every place of the figure to be in units of
// other owners, and none of those owners named by the claim: a claim
// that names both ("Flow Systems grew 1.4% and Sensing Technologies
// 22.3%") is read figure by figure against the owners it names.
func (m *meaningScanner) attribution(claim string, evs []meaningEvidence, res *meaningResult) {
	var figs []Figure
	if m.claimFigsOf == claim && m.claimFigs != nil {
		figs = m.claimFigs // the checker's, read for the figure check already
	} else {
		figs = appendFigures(m.figs[:0], claim)
		m.figs = figs
	}
	owned := false
	for _, f := range figs {
		owned = owned || attributable(f)
	}
	if !owned {
		return
	}
	for i := range evs {
		units := ownedUnits(evs[i].chunk, m.units[:0])
		m.units = units
		if len(units) < 2 {
			continue
		}
		named := -1 // the unit owner the claim names, when it names exactly one
		for u := range units {
			if !containsOwner(claim, units[u].owner) {
				continue
			}
			if named >= 0 && units[named].owner != units[u].owner {
				named = -2 // two owners: each figure is theirs to sort, left alone
				break
			}
			named = u
		}
		if named < 0 {
			continue
		}
		owner := units[named].owner
		for _, f := range figs {
			if !attributable(f) {
				continue
			}
			other, found, own := "", false, false
			for u := range units {
				text := evs[i].chunk[units[u].from:units[u].to]
				if !m.holdsFigure(text, f) {
					continue
				}
				found = true
				if units[u].owner == owner || containsOwner(claim, units[u].owner) {
					own = true
					break
				}
				other = units[u].owner
			}
			if found && !own && other != "" && !m.holdsFigure(unitsOutside(evs[i].chunk, units), f) {
				m.add(res, "attribution", reasonAttribution, f.Text, other)
				fd := &res.findings[len(res.findings)-1]
				fd.Message = reasonAttribution + ": claim " + quoteWords(f.Text) + " of " + quoteWords(owner) + " / evidence " + quoteWords(f.Text) + " under " + quoteWords(other)
				res.review = true
				return
			}
		}
	}
}

// attributable reports whether a figure is a quantity an owner has: not
// a bare number, a year or a reference.
func attributable(f Figure) bool {
	return f.Kind != "number" && f.Kind != "year" && !f.Reference
}

// reasonAttribution: a figure the claim gives one owner that the chunk
// states only under another.
const reasonAttribution = "figure_attribution_unconfirmed"

// ownedUnit is a part of a chunk led by an owner: bytes [from, to).
type ownedUnit struct {
	owner    string
	from, to int
}

// ownedUnits appends the chunk's table rows and paragraphs that have an
// owner.
func ownedUnits(chunk string, out []ownedUnit) []ownedUnit {
	for pos := 0; pos < len(chunk); {
		end := strings.IndexByte(chunk[pos:], '\n')
		if end < 0 {
			end = len(chunk)
		} else {
			end += pos
		}
		line := chunk[pos:end]
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			pos = end + 1 // a blank line or a heading: no unit
		case strings.HasPrefix(strings.TrimSpace(line), "|"):
			if owner := rowOwner(line); owner != "" && !headerRow(chunk[min(end+1, len(chunk)):]) {
				out = append(out, ownedUnit{owner, pos, end})
			}
			pos = end + 1
		default:
			// A paragraph: up to a blank line or a table row.
			stop := end
			for stop < len(chunk) {
				next := strings.IndexByte(chunk[stop+1:], '\n')
				ln := ""
				if next < 0 {
					ln = chunk[stop+1:]
				} else {
					ln = chunk[stop+1 : stop+1+next]
				}
				if strings.TrimSpace(ln) == "" || strings.HasPrefix(strings.TrimSpace(ln), "|") || strings.HasPrefix(ln, "#") {
					break
				}
				if next < 0 {
					stop = len(chunk)
				} else {
					stop += 1 + next
				}
			}
			if owner := leadIn(chunk[pos:min(stop, len(chunk))]); owner != "" {
				out = append(out, ownedUnit{owner, pos, min(stop, len(chunk))})
			}
			pos = stop + 1
		}
	}
	return out
}

// headerRow reports whether the text after a row starts with a table's
// separator line ("|---|---|"): the row is the header, which owns nothing.
func headerRow(next string) bool {
	line, _, _ := strings.Cut(next, "\n")
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "|") && strings.Trim(line, "|-: ") == ""
}

// rowOwner is a table row's first cell when it names something: a
// capitalised word, no digits ("| Flow Systems | 512 |"; not "|---|").
func rowOwner(line string) string {
	row := strings.Trim(strings.TrimSpace(line), "|")
	i := strings.IndexByte(row, '|')
	if i < 0 {
		return "" // one cell: no row of a table
	}
	c := strings.TrimSpace(row[:i])
	if c == "" || strings.ContainsAny(c, "0123456789-:") || strings.EqualFold(c, "total") {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(c); !unicode.IsUpper(r) {
		return ""
	}
	return c
}

// leadIn is a paragraph's lead-in: a capitalised phrase of one to five
// words, each capitalised or a short joining word, ending in ". "
// ("Sensing Technologies. Net sales increased …").
func leadIn(p string) string {
	p = strings.TrimLeft(p, " \t")
	i := strings.Index(p, ". ")
	if i <= 0 || i > 60 {
		return ""
	}
	n := 0
	for rest := p[:i]; rest != ""; n++ {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		w, next, _ := strings.Cut(rest, " ")
		rest = next
		r, _ := utf8.DecodeRuneInString(w)
		if n >= 5 || !unicode.IsUpper(r) && !(n > 0 && (w == "and" || w == "of" || w == "&")) || strings.ContainsAny(w, "0123456789") {
			return ""
		}
	}
	if n == 0 {
		return ""
	}
	return p[:i]
}

// containsOwner reports whether the claim names owner, as whole words,
// case aside ("anemia in 9.6%" names the row "Anemia").
func containsOwner(claim, owner string) bool { return containsWordFold(claim, owner) }

// holdsFigure reports whether text states figure f: the same kind and
// value.
func (m *meaningScanner) holdsFigure(text string, f Figure) bool {
	if !strings.Contains(text, f.Text) && !strings.ContainsAny(text, "0123456789") {
		return false
	}
	m.unitFigs = appendFigures(m.unitFigs[:0], text) // reused: a claim reads many units
	for _, g := range m.unitFigs {
		if g.Value == f.Value && sameKind(g, f) {
			return true
		}
	}
	return false
}

// unitsOutside is the chunk's text that no owned unit covers.
func unitsOutside(chunk string, units []ownedUnit) string {
	var b strings.Builder
	at := 0
	for _, u := range units {
		if u.from > at {
			b.WriteString(chunk[at:u.from])
			b.WriteByte('\n')
		}
		at = max(at, u.to)
	}
	if at < len(chunk) {
		b.WriteString(chunk[at:])
	}
	return b.String()
}
