package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// meaningContext widens the matched span [bs, be) of a chunk to whole
// sentences: the negation, bound or exception that turns a quote around
// often sits just outside it ("does not" + quote "cover flood damage").
func meaningContext(chunk string, bs, be int, er *EvidenceReport) meaningEvidence {
	cs, ce := sentenceStart(chunk, bs), sentenceStop(chunk, be)
	return meaningEvidence{context: chunk[cs:ce], spanFrom: bs - cs, spanTo: be - cs, chunk: chunk,
		section: er.SectionPath, document: er.DocumentID, version: er.DocumentVersion}
}

// maxWiden bounds how far a span is widened to a sentence's ends.
const maxWiden = 250

func sentenceStart(s string, bs int) int {
	for i := bs - 1; i >= 0 && bs-i <= maxWiden; i-- {
		switch c := s[i]; {
		case c == '\f' || c == '\n' && (i > 0 && s[i-1] == '\n' || lineItem(s, i+1)):
			return i + 1
		case (c == '.' || c == '!' || c == '?') && i+1 < len(s) && isSpaceByte(s[i+1]) && stops(s, i):
			return i + 1
		}
	}
	if bs > maxWiden {
		return bs
	}
	return 0
}

func sentenceStop(s string, be int) int {
	if be > 0 && be <= len(s) && (s[be-1] == '.' || s[be-1] == '!' || s[be-1] == '?') && stops(s, be-1) {
		return be
	}
	for i := be; i < len(s) && i-be <= maxWiden; i++ {
		switch c := s[i]; {
		case c == '\f' || c == '\n' && (i+1 < len(s) && s[i+1] == '\n' || lineItem(s, i+1)):
			return i
		case (c == '.' || c == '!' || c == '?') && (i+1 == len(s) || isSpaceByte(s[i+1])) && stops(s, i):
			return i + 1
		}
	}
	return min(len(s), be+maxWiden)
}

// lineItem reports whether a line starting at i is a list item, a table
// row or a heading: a sentence does not run across it.
func lineItem(s string, i int) bool {
	return i < len(s) && (s[i] == '-' || s[i] == '*' || s[i] == '#' || s[i] == '|')
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// stops reports whether the stop at s[i] ends a sentence: the next word
// does not start in lower case and the word before is no abbreviation.
func stops(s string, i int) bool {
	k := i + 1
	for k < len(s) && isSpaceByte(s[k]) {
		k++
	}
	if k < len(s) && k == i+2 && s[i+1] == ' ' {
		if r, _ := utf8.DecodeRuneInString(s[k:]); unicode.IsLower(r) || unicode.IsDigit(r) {
			return false
		}
	}
	w := i
	for w > 0 && isWordRune(rune(s[w-1])) && s[w-1] < 0x80 {
		w--
	}
	word := strings.ToLower(s[w:i])
	return len(word) > 1 && !abbreviations[word]
}

// quoteMeaningDiffers compares the negators, bounds, timings and
// exception words of a loosely matched quote with those of its span: OCR
// noise changes letters, not whether a sentence says "not" or "unless".
// It returns the words that differ, or "", "".
//
// An elision leaves words out by design: what it drops is judged by the
// negators, bounds and exception words it leaves out ("will never return
// … will never be executed" drops "hence … after a call", a timing that
// changes nothing the quote says); OCR noise is judged by timings too.
//
// What an elision leaves out whole says nothing of the words it keeps: a
// negator or exception in a list item or sentence of its own ("except …
// (d) a claim by a liquidator" leaves out "(c) … who has not served"), a
// bound or timing with its number ("one extension … on written request"
// leaves out "of not more than 6 months"). A negator cut from the words it
// denies ("does … cover") still differs. gaps are the elision's, in span.
func (c *checker) quoteMeaningDiffers(quote, span string, fuzzy bool, gaps [][2]int) (string, string) {
	q, s := &c.meaning.quote[0], &c.meaning.quote[1]
	q.scan(quote)
	s.scan(span)
	qs, ss := q.signature(), s.signature()
	if !fuzzy {
		qs[3], qs[4], ss[3], ss[4] = 0, 0, 0, 0 // timings
	}
	if qs == ss {
		return "", ""
	}
	if len(gaps) > 0 {
		if ss = s.keptSignature(gaps); !fuzzy {
			ss[3], ss[4] = 0, 0
		}
		if qs == ss {
			return "", ""
		}
	}
	return q.meaningWords(), s.meaningWords()
}

// keptSignature is signature without the negators, bounds, timings and
// exception words that an elision's gaps leave out whole.
func (t *mtext) keptSignature(gaps [][2]int) [8]int {
	var sig [8]int
	for k := range t.toks {
		if t.toks[k].neg && !t.leftOutWhole(k, k+1, gaps, false) {
			sig[0]++
		}
	}
	for _, m := range t.matches {
		switch m.kind {
		case kBound:
			if !t.leftOutWhole(m.from, m.to, gaps, true) {
				sig[1+m.value]++
			}
		case kTiming:
			if !t.leftOutWhole(m.from, m.to, gaps, true) {
				sig[3+m.value-vBefore]++
			}
		case kException:
			if !t.leftOutWhole(m.from, m.to, gaps, false) {
				sig[5]++
			}
		}
	}
	return sig
}

// leftOutWhole reports whether tokens [from, to) lie in a gap together
// with what they govern: with operand (a bound, a timing), the number
// after them; otherwise the list item or sentence they stand in, which
// the gap must open and close (or the kept words around it must: a
// sentence ends before it, an item marker follows it).
func (t *mtext) leftOutWhole(from, to int, gaps [][2]int, operand bool) bool {
	start, end := t.toks[from].start, t.toks[to-1].end
	for _, g := range gaps {
		if start < g[0] || end > g[1] {
			continue
		}
		if operand {
			for k := to; k < len(t.toks) && k < to+4; k++ {
				if w := t.toks[k].w; hasDigit(w) || spelledValue(w) > 0 {
					return t.toks[k].end <= g[1]
				}
			}
			return false
		}
		opens := itemBreakIn(t.s[g[0]:start]) || strings.HasSuffix(strings.TrimRight(t.s[:g[0]], " \t\n"), ".") ||
			strings.HasSuffix(strings.TrimRight(t.s[:g[0]], " \t\n"), ";")
		closes := itemBreakIn(t.s[end:g[1]]) || strings.HasSuffix(strings.TrimRight(t.s[end:g[1]], " \t\n"), ".") ||
			listMarker(strings.TrimLeft(t.s[g[1]:], " \t\n"))
		return opens && closes
	}
	return false
}

// itemBreakIn reports whether s holds a sentence or segment end (". ",
// ";", a line break) or a list item's marker ("(c)").
func itemBreakIn(s string) bool {
	if strings.Contains(s, ". ") || strings.ContainsAny(s, ";\n") {
		return true
	}
	for i := strings.IndexByte(s, '('); i >= 0; {
		if listMarker(s[i:]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '(')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// listMarker reports whether s starts with a list item's marker: "(d)",
// "(iv)", "(12)".
func listMarker(s string) bool {
	if len(s) < 3 || s[0] != '(' {
		return false
	}
	for i := 1; i < len(s) && i <= 5; i++ {
		c := s[i]
		switch {
		case c == ')':
			return i > 1
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return false
}

// signature counts a text's negators and its bound, timing and exception
// phrases by value.
func (t *mtext) signature() [8]int {
	var sig [8]int
	for k := range t.toks {
		if t.toks[k].neg {
			sig[0]++
		}
	}
	for _, m := range t.matches {
		switch m.kind {
		case kBound:
			sig[1+m.value]++ // vMin, vMax
		case kTiming:
			sig[3+m.value-vBefore]++
		case kException:
			sig[5]++
		}
	}
	return sig
}

// meaningWords lists a text's negators and bound, timing and exception
// phrases, for a finding.
func (t *mtext) meaningWords() string {
	var b strings.Builder
	add := func(w string) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w)
	}
	for _, m := range t.matches {
		switch m.kind {
		case kBound, kTiming, kException:
			add(t.words(m.from, m.to))
		case kNeg:
			if t.toks[m.from].neg {
				add(t.words(m.from, m.to))
			}
		}
	}
	return b.String()
}
