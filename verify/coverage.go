package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// UncitedSentences splits answer prose into sentences, reads [chunk_id]
// markers (a marker right after a sentence's end belongs to that
// sentence), and returns the factual sentences that carry none, with their
// code-point offsets in the answer.
//
// A sentence is factual when it states something checkable: it holds a
// figure (number, date, amount, identifier), or a capitalised name after
// its first word, or is a plain declarative sentence of at least six
// words. Questions, hedges ("may", "might", "could", "I think",
// "possibly"), advice ("you should", "consider", "please") and short
// connective sentences are not.
func UncitedSentences(answer string) []Sentence {
	out := []Sentence{}
	for _, s := range sentences(answer, false) {
		if s.cited || !factual(s.text) {
			continue
		}
		out = append(out, Sentence{Text: s.text, Start: s.start, End: s.end})
	}
	return out
}

// ProseSentence is one sentence of answer prose as the coverage check
// reads it: its text without markers, its code-point offsets in the answer
// (markers that belong to it included), whether it is factual, and the
// chunk ids of its markers in order.
type ProseSentence struct {
	Text    string   `json:"text"`
	Start   int      `json:"start"`
	End     int      `json:"end"`
	Factual bool     `json:"factual"`
	Markers []string `json:"markers"`
}

// ProseSentences splits answer prose into sentences exactly as
// UncitedSentences does and returns all of them, with the chunk ids of
// their [chunk_id] markers (a marker [a, b] names two). It is what a
// measure of citation structure reads: the share of factual sentences
// that carry a marker, and of markers that name a retrieved chunk.
func ProseSentences(answer string) []ProseSentence {
	ss := sentences(answer, true)
	out := make([]ProseSentence, len(ss))
	for i, s := range ss {
		out[i] = ProseSentence{Text: s.text, Start: s.start, End: s.end, Factual: factual(s.text), Markers: s.markers}
		if out[i].Markers == nil {
			out[i].Markers = []string{}
		}
	}
	return out
}

type sentence struct {
	text       string
	start, end int // code points
	cited      bool
	markers    []string // chunk ids of its markers, when sentences was asked for them
}

// sentences splits at . ! ? (and CJK 。！？) followed by space or the end,
// and at blank lines, keeping track of citation markers; with keep, it
// also keeps the chunk ids they name (the verifier needs only whether a
// sentence is cited, and does not pay for the ids).
func sentences(s string, keep bool) []sentence {
	var out []sentence
	var cur strings.Builder
	start, cp := -1, 0
	cited := false
	var marks []string
	mark := func(m string) {
		if keep {
			for _, id := range strings.Split(m, ",") {
				marks = append(marks, strings.TrimSpace(id))
			}
		}
	}
	flush := func(end int) {
		t := strings.TrimSpace(cur.String())
		if t != "" {
			out = append(out, sentence{text: t, start: start, end: end, cited: cited, markers: marks})
		}
		cur.Reset()
		start, cited, marks = -1, false, nil
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '[' {
			if j := strings.IndexByte(s[i:], ']'); j > 1 && isMarker(s[i+1:i+j]) {
				// A marker after a finished sentence belongs to it.
				if cur.Len() == 0 && len(out) > 0 && start < 0 {
					out[len(out)-1].cited = true
					if keep {
						prev := marks
						marks = nil
						mark(s[i+1 : i+j])
						out[len(out)-1].markers = append(out[len(out)-1].markers, marks...)
						marks = prev
					}
				} else {
					cited = true
					mark(s[i+1 : i+j])
				}
				cp += utf8.RuneCountInString(s[i : i+j+1])
				i += j + 1
				continue
			}
		}
		if start < 0 && !unicode.IsSpace(r) {
			start = cp
		}
		if start >= 0 {
			cur.WriteRune(r)
		}
		i += size
		cp++
		end := r == '.' && !abbreviation(cur.String()) && !perCentGoesOn(cur.String(), s[i:]) ||
			r == '!' || r == '?' || r == '。' || r == '！' || r == '？'
		if end && (i >= len(s) || s[i] == ' ' || s[i] == '\n' || s[i] == '[' || r >= utf8.RuneSelf) {
			// Markers that follow at once stay with this sentence.
			k := i
			for k < len(s) && s[k] == ' ' {
				k++
			}
			for k < len(s) && s[k] == '[' {
				j := strings.IndexByte(s[k:], ']')
				if j <= 1 || !isMarker(s[k+1:k+j]) {
					break
				}
				cited = true
				mark(s[k+1 : k+j])
				cp += utf8.RuneCountInString(s[i : k+j+1])
				i = k + j + 1
				k = i
				for k < len(s) && s[k] == ' ' {
					k++
				}
			}
			flush(cp)
		} else if r == '\n' && i < len(s) && s[i] == '\n' {
			flush(cp - 1)
		}
	}
	flush(cp)
	return out
}

// abbreviations end with a period that does not end a sentence: titles
// before a name, references before a number, Latin shorthand. "etc." is
// left out: it ends sentences as often as not.
var abbreviations = map[string]bool{"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "st": true,
	"no": true, "nos": true, "pp": true, "para": true, "paras": true, "art": true, "arts": true, "sec": true,
	"secs": true, "ch": true, "fig": true, "figs": true, "vol": true, "cf": true, "vs": true, "al": true,
	"approx": true, "inc": true, "ltd": true, "co": true, "corp": true, "jr": true, "sr": true, "jan": true,
	"feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true,
	"oct": true, "nov": true, "dec": true, "est": true, "dept": true, "mt": true}

// abbreviation reports whether the sentence so far, which ends in a
// period, ends in an abbreviation: a known one ("Dr.", "p.", "No."), an
// initial ("J."), or a dotted one ("U.S.", "e.g.", "i.e."). A sentence
// that truly ends in one is joined to the next, which can only make a
// citation cover more, never report a fragment as uncited.
func abbreviation(sofar string) bool {
	w := strings.TrimSuffix(sofar, ".")
	if i := strings.LastIndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '"' || r == '“' }); i >= 0 {
		_, size := utf8.DecodeRuneInString(w[i:])
		w = w[i+size:]
	}
	if w == "" {
		return false
	}
	if r, size := utf8.DecodeRuneInString(w); size == len(w) && unicode.IsLetter(r) {
		return true // an initial, or "p." before a page
	}
	if strings.Contains(w, ".") {
		for _, part := range strings.Split(w, ".") {
			if r, size := utf8.DecodeRuneInString(part); size != len(part) || !unicode.IsLetter(r) {
				return false // "3.5", "example.com" end sentences
			}
		}
		return true
	}
	return abbreviations[strings.ToLower(w)]
}

// perCentGoesOn reports whether the sentence so far, which ends in a
// period, ends in "per cent" and goes on after it: contracts write
// "3.5 per cent. per annum" and "50 per cent. of the Lenders", the period
// marking the abbreviation. A capital or a citation marker after it starts
// the next sentence ("… is 3.5 per cent. The fee …").
func perCentGoesOn(sofar, rest string) bool {
	w := strings.TrimSuffix(sofar, ".")
	const pc = "per cent"
	if len(w) < len(pc) || !strings.EqualFold(w[len(w)-len(pc):], pc) || len(w) > len(pc) && isWordByte(w[len(w)-len(pc)-1]) {
		return false
	}
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(rest)
	return rest != "" && !unicode.IsUpper(r) && r != '['
}

// isMarker reports whether s looks like a chunk id (or a list of them).
func isMarker(s string) bool {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" || strings.ContainsAny(part, " \n\t") {
			return false
		}
	}
	return true
}

var hedges = []string{"may ", "might ", "could ", "possibly", "perhaps", "i think", "i believe", "it seems", "likely",
	"you should", "you may", "consider ", "please ", "let me", "feel free", "i recommend", "we recommend", "it is best"}

func factual(s string) bool {
	ls := strings.ToLower(s)
	if strings.HasSuffix(s, "?") {
		return false
	}
	for _, h := range hedges {
		if strings.Contains(ls, h) {
			return false
		}
	}
	if len(Figures(s)) > 0 {
		return true
	}
	words := strings.Fields(s)
	for _, w := range words[1:] {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			return true
		}
	}
	return len(words) >= 6
}

// withoutClaims drops the sentences that are claims of the request (the
// sentence holds a claim's text, or a claim's text holds the sentence):
// those are judged, and counted, as claims.
func withoutClaims(ss []Sentence, claims []Claim) []Sentence {
	out := ss[:0]
	for _, s := range ss {
		ls := squash(s.Text)
		covered := false
		for i := range claims {
			lc := squash(claims[i].Text)
			if lc != "" && (strings.Contains(ls, lc) || strings.Contains(lc, ls)) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, s)
		}
	}
	return out
}

// squash lower-cases, collapses white space and drops final punctuation.
func squash(s string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".!?。！？ ")
}
