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
func (c *checker) quoteMeaningDiffers(quote, span string, fuzzy bool) (string, string) {
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
	return q.meaningWords(), s.meaningWords()
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
