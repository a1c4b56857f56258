package verify

import (
	"strconv"
	"strings"
)

// Numbers written as words ("three years", "two overall conditions") are
// figures only where they measure or count: followed by a unit or a
// counted noun, as digits are, so "three years" is "3 years". The words
// are two to ninety-nine. "one" is left out: it is a pronoun ("no one",
// "one may argue", "one of the parties") and an article ("one party" for
// "a party") as often as a number, and a claim's "one year" for "a year"
// must not go missing. "zero", "hundred", "thousand", "dozen" and the
// like are left out too: a phrase holding them ("two hundred days", "two
// dozen banks", "two thousand five hundred") is no figure at all, rather
// than a wrong one.

// spelledValue returns the value of a number word, lower case, or 0.
// Units one to nine are returned too: they close a compound
// ("twenty-one"), and wordFigure refuses "one" alone.
func spelledValue(w string) int {
	switch w {
	case "one":
		return 1
	case "two":
		return 2
	case "three":
		return 3
	case "four":
		return 4
	case "five":
		return 5
	case "six":
		return 6
	case "seven":
		return 7
	case "eight":
		return 8
	case "nine":
		return 9
	case "ten":
		return 10
	case "eleven":
		return 11
	case "twelve":
		return 12
	case "thirteen":
		return 13
	case "fourteen":
		return 14
	case "fifteen":
		return 15
	case "sixteen":
		return 16
	case "seventeen":
		return 17
	case "eighteen":
		return 18
	case "nineteen":
		return 19
	case "twenty":
		return 20
	case "thirty":
		return 30
	case "forty":
		return 40
	case "fifty":
		return 50
	case "sixty":
		return 60
	case "seventy":
		return 70
	case "eighty":
		return 80
	case "ninety":
		return 90
	}
	return 0
}

// spelledStops, after a number word, make it no figure: more of a number
// ("two hundred", "twenty five"), a fraction ("two thirds"), or a verb
// the number is the subject of ("two should").
var spelledStops = map[string]bool{"zero": true, "hundred": true, "hundreds": true, "thousand": true, "thousands": true,
	"million": true, "millions": true, "billion": true, "billions": true, "dozen": true, "dozens": true, "score": true,
	"half": true, "halves": true, "third": true, "thirds": true, "fourth": true, "fourths": true, "fifth": true,
	"fifths": true, "sixth": true, "sixths": true, "seventh": true, "sevenths": true, "eighth": true, "eighths": true,
	"ninth": true, "ninths": true, "tenth": true, "tenths": true, "percentile": true,
	"should": true, "would": true, "could": true, "can": true, "cannot": true, "might": true, "do": true, "does": true,
	"did": true, "have": true, "has": true, "had": true, "not": true, "also": true, "each": true, "both": true,
	"apiece": true, "together": true, "another": true}

// spelledDeterminers, before a number word, make it no figure: "the two
// parties" or "all three banks" often restate "both parties" or "the
// banks", where the evidence states no number.
var spelledDeterminers = map[string]bool{"the": true, "these": true, "those": true, "both": true, "either": true,
	"all": true, "its": true, "their": true, "our": true, "your": true, "his": true, "her": true, "each": true,
	"no": true, "whose": true}

// letterWord returns the ASCII letters at i, lower case, and where they
// end: a slice of s, copied only when it holds a capital (rare), so the
// scan allocates nothing for the words it passes.
func letterWord(s string, i int) (string, int) {
	j, upper := i, false
	for j < len(s) && ('a' <= s[j]|0x20 && s[j]|0x20 <= 'z') {
		upper = upper || s[j] < 'a'
		j++
	}
	if upper {
		return strings.ToLower(s[i:j]), j
	}
	return s[i:j], j
}

// spelledOf is the number word of v (2 to 20, and the tens to 90), or "".
func spelledOf(v int) string {
	for _, w := range [...]string{"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
		"twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
		"thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"} {
		if spelledValue(w) == v {
			return w
		}
	}
	return ""
}

// spelledValueFold is spelledValue of w in lower case, without the copy
// strings.ToLower makes: every capitalised word of a claim asks.
func spelledValueFold(w string) int {
	if len(w) > len("seventeen") {
		return 0
	}
	var b [len("seventeen")]byte
	for k := range len(w) {
		b[k] = w[k] | 0x20 // ASCII letters only: skipLetters read them
	}
	return spelledValue(string(b[:len(w)]))
}

// wordFigure reads a number word at i, a word start, with its unit or
// counted noun. next is where scanning goes on: past the word when it is
// no figure.
func wordFigure(s string, i int) (f Figure, next int, ok bool) {
	j := skipLetters(s, i)
	if j < len(s) && isWordByte(s[j]) && !nbspAt(s, j) {
		return Figure{}, j, false // "tenfold", "ten_x", "twoÿ": a word, not a number
	}
	v := spelledValueFold(s[i:j])
	if v < 1 {
		return Figure{}, j, false // most words
	}
	// "two and one-half times", "one and a half years": a half more.
	half := ""
	for _, h := range [...]string{" and one-half", " and one half", " and a half"} {
		if len(s)-j >= len(h) && strings.EqualFold(s[j:j+len(h)], h) && (j+len(h) == len(s) || !isWordByte(s[j+len(h)])) {
			half, j = ".5", j+len(h)
			break
		}
	}
	if v < 2 && !(v == 1 && half != "") || i > 0 && s[i-1] == '-' {
		return Figure{}, j, false
	}
	if isUpper(rune(s[i])) && !opensSentence(s, i) {
		return Figure{}, j, false // a name: "Formula Two", "the Big Four"
	}
	if j < len(s) && s[j] == '-' {
		u, k := letterWord(s, j+1)
		switch uv := spelledValue(u); {
		case v >= 20 && v%10 == 0 && uv >= 1 && uv <= 9 && !(k < len(s) && isWordByte(s[k])):
			v, j = v+uv, k // "twenty-five"
		case u != "" && durationUnits[u] == u && !(k < len(s) && (isWordByte(s[k]) || s[k] == '-')):
			// "a two-year period": a duration; "two-factor" is no count.
			return Figure{Kind: "duration:" + u, Value: strconv.Itoa(v), Text: s[i:k], Spelled: true}, k, true
		default:
			return Figure{}, j, false
		}
		if j < len(s) && s[j] == '-' {
			return Figure{}, j, false // "twenty-five-year": left out
		}
	}
	if determinerBefore(s, i) || referenceBefore(s, i) || numberBefore(s, i) {
		return Figure{}, j, false
	}
	if k := skipSpaces(s, j); k < len(s) && s[k] == '(' {
		// "ten (10) days", as contracts write it: the digits repeat the
		// word. Other digits make it no figure; they are read on their own.
		d, e := digitRun(s, k+1, 3)
		if d != v || e >= len(s) || s[e] != ')' {
			return Figure{}, j, false
		}
		j = e + 1
	}
	val := strconv.Itoa(v) + half // v is whole now ("twenty-five")
	k := skipSpaces(s, j)
	nw, nk := letterWord(s, k)
	if spelledStops[nw] || spelledValue(nw) > 0 {
		return Figure{}, j, false
	}
	if (nw == "quarter" || nw == "quarters") && prefixFold(s, skipSpaces(s, nk), "of") {
		return Figure{}, j, false // "three quarters of the lenders" is a fraction
	}
	if nk < len(s) && nk > k && isUpper(rune(s[k])) {
		// "six Go releases": a name between the number and what it counts.
		after := skipSpaces(s, nk)
		if nn, _ := letterWord(s, after); after > nk && nn != "" && s[after] >= 'a' && !functionWords[nn] &&
			!spelledStops[nn] && durationUnits[nn] == "" {
			g, end := measure(s, val, nk, "", i)
			if g.Kind == "number" {
				return Figure{}, j, false
			}
			g.Spelled = true
			return g, end, true
		}
	}
	g, end := measure(s, val, j, "", i)
	if g.Kind == "number" || g.Kind == "year" {
		return Figure{}, j, false // a bare number word counts nothing
	}
	g.Spelled = true
	return g, end, true
}

// opensSentence reports whether the capitalised word at i starts a
// sentence, a line, a list item or a parenthesis.
func opensSentence(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return j == 0 || strings.IndexByte(".!?:;\n\r(*-\"", s[j-1]) >= 0
}

// numberBefore reports whether a number word, or a larger one's part
// (hundred, thousand…), stands before the word at i, or one and "and":
// "five" in "twenty five days" or "two hundred and five days" is part of
// a larger number.
func numberBefore(s string, i int) bool {
	w, k := letterWordBefore(s, i)
	if w == "and" {
		w, _ = letterWordBefore(s, k)
	}
	switch w {
	case "zero", "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion", "billions", "dozen", "dozens":
		return true
	}
	return spelledValue(w) > 0
}

// letterWordBefore returns the ASCII word, lower case, before the spaces
// before i, and where it starts.
func letterWordBefore(s string, i int) (string, int) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n' || s[j-1] == '-') {
		j--
	}
	k := j
	for k > 0 && j-k < 12 && ('a' <= s[k-1]|0x20 && s[k-1]|0x20 <= 'z') {
		k--
	}
	if k == j || k > 0 && isWordByte(s[k-1]) {
		return "", k
	}
	w, _ := letterWord(s, k)
	return w, k
}

// determinerBefore reports whether a word of spelledDeterminers stands
// right before the word at i.
func determinerBefore(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n') {
		j--
	}
	k := j
	for k > 0 && j-k < 6 && ('a' <= s[k-1]|0x20 && s[k-1]|0x20 <= 'z') {
		k--
	}
	if k == j || k > 0 && isWordByte(s[k-1]) {
		return false
	}
	return spelledDeterminers[strings.ToLower(s[k:j])]
}

// spelledJudged reports whether the evidence holds a figure a claim's
// spelled figure f can be judged by: one of its own kind (equal, it is
// found; else f is contradicted), or a duration of the same number in
// another unit ("two months" citing "two years": the unit changed). Any
// other evidence leaves f unjudged, as the words were before they were
// read: absent is not wrong for a number word.
func spelledJudged(f Figure, evidence []Figure) bool {
	duration := strings.HasPrefix(f.Kind, "duration:")
	for _, e := range evidence {
		if sameKind(e, f) || duration && strings.HasPrefix(e.Kind, "duration:") && e.Value == f.Value || sameDimension(e, f) {
			return true
		}
	}
	return false
}
