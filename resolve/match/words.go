package match

import (
	"unicode"
	"unicode/utf8"
)

// A fuzzy match is the place of least edit distance, and such a place can
// end inside a word: a quote "… within 14 days" against "… within 14
// calendar days" is closest to "… within 14 cale" (three substitutions
// beat deleting "calendar"). Shown to a reader, or checked for figures, a
// cut word misleads ("1,250" cut out of "1,250,000"), so an end that cuts
// a word on an edit moves to the word's outer edge or past the separators
// to the neighbouring word, whichever leaves fewer edits, as long as the
// distance stays within the bound; Match.Distance is the distance of the
// span returned. An end whose quote rune matches the text's stays: the
// quote quotes part of a word there. The other levels are not touched:
// their spans equal the quote at their level.
//
// Quotes without a separator (one word, an identifier, a fragment of one)
// keep the least-distance place: they may well be part of a word.

// maxSnap bounds how far, in code points, an end moves: beyond it the
// "word" is a token (a URL, a hash) that a boundary would not improve.
const maxSnap = 32

// wordRune reports whether r belongs to a word: letters, digits and marks.
// Ideographs and kana, written without spaces, are words of one character.
func wordRune(r rune) bool {
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// inner reports whether p joins the runes around it into one word: the
// point or comma of a number ("3.25", "250,000"), an apostrophe between
// letters ("don't", after folding of ’).
func inner(prev, p, next rune) bool {
	switch p {
	case '.', ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	case '\'':
		return unicode.IsLetter(prev) && unicode.IsLetter(next)
	}
	return false
}

// inWord reports whether byte offset i of s (on a rune boundary) is inside
// a word: between two runes of one word.
func inWord(s string, i int) bool {
	if i <= 0 || i >= len(s) {
		return false
	}
	a, as := utf8.DecodeLastRuneInString(s[:i])
	b, bs := utf8.DecodeRuneInString(s[i:])
	switch aw, bw := wordRune(a), wordRune(b); {
	case aw && bw:
		return true
	case aw && i+bs < len(s):
		c, _ := utf8.DecodeRuneInString(s[i+bs:])
		return inner(a, b, c)
	case bw && i-as > 0:
		c, _ := utf8.DecodeLastRuneInString(s[:i-as])
		return inner(c, a, b)
	}
	return false
}

// hasSeparator reports whether s holds a rune that is not part of a word.
func hasSeparator(s string) bool {
	for _, r := range s {
		if !wordRune(r) {
			return true
		}
	}
	return false
}

// leftWhile moves i left, at most maxSnap code points, while in(i) holds;
// ok is false when the limit stopped it.
func leftWhile(s string, i int, in func(int) bool) (int, bool) {
	for n := 0; in(i); n++ {
		if n == maxSnap {
			return i, false
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i, true
}

// rightWhile moves i right like leftWhile.
func rightWhile(s string, i int, in func(int) bool) (int, bool) {
	for n := 0; in(i); n++ {
		if n == maxSnap {
			return i, false
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i, true
}

// edges returns where an end at byte i may move, preferred first: i itself
// when it is not inside a word, else the word's outer edge (extending the
// span, so a word or number is not cut) and the neighbouring word's edge
// past the separators (shrinking it). start says whether i is a span's
// start.
func edges(s string, i int, start bool, out []int) []int {
	out = out[:0]
	if !inWord(s, i) {
		return append(out, i)
	}
	word := func(j int) bool { return inWord(s, j) }
	sep := func(j int) bool { // a separator follows (start) or precedes (end) j
		var r rune
		switch {
		case start && j < len(s):
			r, _ = utf8.DecodeRuneInString(s[j:])
		case !start && j > 0:
			r, _ = utf8.DecodeLastRuneInString(s[:j])
		default:
			return false
		}
		return !wordRune(r)
	}
	outer, in := leftWhile, rightWhile
	if !start {
		outer, in = rightWhile, leftWhile
	}
	if j, ok := outer(s, i, word); ok {
		out = append(out, j)
	}
	if j, ok := in(s, i, word); ok {
		if k, ok := in(s, j, sep); ok && k != j {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = append(out, i) // a token longer than maxSnap: leave it
	}
	return out
}

// cut reports whether the end of a fuzzy span at byte i of s cuts a word
// on an edit: i is inside a word and the quote's rune at that end (first
// for a start, last for an end) differs from the text's. A quote whose
// edge rune matches there ends where the quote ends: it quotes part of a
// word, and the span keeps that. A number is never cut: "1,250" taken out
// of "1,250,000" would be a different figure.
func cut(s, fq string, i int, start bool) bool {
	if !inWord(s, i) {
		return false
	}
	a, _ := utf8.DecodeLastRuneInString(s[:i])
	b, _ := utf8.DecodeRuneInString(s[i:])
	if unicode.IsDigit(a) && unicode.IsDigit(b) || inner(a, b, runeAt(s, i+utf8.RuneLen(b))) || inner(runeBefore(s, i-utf8.RuneLen(a)), a, b) {
		return true // inside a number ("3.25" and "1,000" join only digits)
	}
	if start {
		q, _ := utf8.DecodeRuneInString(fq)
		return q != b
	}
	q, _ := utf8.DecodeLastRuneInString(fq)
	return q != a
}

// runeAt and runeBefore decode the rune at or before byte i of s, or 0.
func runeAt(s string, i int) rune {
	if i < 0 || i >= len(s) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func runeBefore(s string, i int) rune {
	if i <= 0 || i > len(s) {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// snap moves the ends of a fuzzy candidate x (bytes x.fs, x.fe of the
// folded text s) of the folded quote fq that cut a word to word
// boundaries, choosing the pair of ends with the least distance, at most
// k; preferred edges win ties. It leaves x as it is when no pair is within
// k.
func (q *query) snap(s, fq string, x *cand, k int) {
	sr := q.sr
	cs, ce := cut(s, fq, x.fs, true), cut(s, fq, x.fe, false)
	if !cs && !ce {
		return
	}
	// An end that cuts a word must move; one that does not stays.
	starts, ends := append(sr.snapStarts[:0], x.fs), append(sr.snapEnds[:0], x.fe)
	if cs {
		starts = edges(s, x.fs, true, starts[:0])
	}
	if ce {
		ends = edges(s, x.fe, false, ends[:0])
	}
	sr.snapStarts, sr.snapEnds = starts, ends
	lo := len(s)
	for _, st := range starts {
		lo = min(lo, st)
	}
	var scores [3]int
	bestD, bestS, bestE := k+1, -1, -1
	for _, e := range ends {
		// One backward pass from e scores every start.
		scores = [3]int{k + 1, k + 1, k + 1}
		sr.back(s, lo, e, k, func(j, score int) {
			for i, st := range starts {
				if st == j {
					scores[i] = score
				}
			}
		})
		for i, st := range starts {
			if st < e && scores[i] < bestD {
				bestD, bestS, bestE = scores[i], st, e
			}
		}
	}
	if bestS < 0 {
		return
	}
	x.fs, x.fe, x.dist = bestS, bestE, bestD
}
