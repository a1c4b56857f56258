package match

import (
	"strings"
	"unicode"
)

// Locate finds a quote in a short text, such as a chunk, and also returns
// the match's byte range. A quote that occurs exactly once is placed by the
// sampling scanner without building an Index; anything else goes through
// Find's levels. A quote that is found at no level and leaves words out
// ("…", "...", "[...]") is then located part by part (LocateElided).
func Locate(text, quote string, opts Options) (m Match, bs, be int) {
	if i, again := occurs(text, quote); i >= 0 && !again && quote != "" {
		start := CodePoints(text[:i])
		return Match{Level: LevelExact, Start: start, End: start + CodePoints(quote), Count: 1}, i, i + len(quote)
	}
	sc := scratchIndex(text)
	m = sc.ix.Find(quote, opts)
	sc.release()
	if m.Found() {
		bs, be = ByteRange(text, m.Start, m.End)
		return m, bs, be
	}
	if strings.Contains(quote, "...") || strings.ContainsRune(quote, '…') {
		// Its parts hold no mark, so this recursion ends.
		if em, ebs, ebe, ok := LocateElided(text, quote, opts); ok {
			return em, ebs, ebe
		}
	}
	return m, 0, 0
}

// elision replaces the marks of words left out of a quote by a separator.
var elision = strings.NewReplacer("[...]", "\x00", "[…]", "\x00", "...", "\x00", "…", "\x00")

// levelRank orders the levels, strongest first.
var levelRank = map[Level]int{LevelExact: 0, LevelWhitespace: 1, LevelNormalized: 2, LevelFuzzy: 3}

// LocateElided locates a quote that leaves words out, as quotations do
// ("The Net Leverage Ratio shall not exceed … 3,25 to 1,00"): each part in
// order, each at its own level, the next after the previous one. The match
// runs from the first part's start to the last part's end, its level is
// the weakest part's, its distance the parts' sum, its Count the first
// part's, and Elided is set. Every part must say something, two words or a
// digit: "the … of" proves nothing, and ok is false.
func LocateElided(text, quote string, opts Options) (m Match, bs, be int, ok bool) {
	return locateElided(text, quote, opts, nil)
}

// ElidedGaps returns the byte ranges of text between the parts of an
// elided quote, where LocateElided finds them: the words the quote leaves
// out. It is nil when the quote does not match part by part.
func ElidedGaps(text, quote string, opts Options) [][2]int {
	var gaps [][2]int
	if _, _, _, ok := locateElided(text, quote, opts, &gaps); !ok {
		return nil
	}
	return gaps
}

func locateElided(text, quote string, opts Options, gaps *[][2]int) (m Match, bs, be int, ok bool) {
	var parts []string
	for _, p := range strings.Split(elision.Replace(quote), "\x00") {
		if p = strings.TrimSpace(p); p != "" {
			if len(strings.Fields(p)) < 2 && strings.IndexFunc(p, unicode.IsDigit) < 0 {
				return Match{}, 0, 0, false
			}
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return Match{}, 0, 0, false
	}
	hint := opts.Hint
	pos, cp := 0, 0 // where the next part may start, in bytes and code points
	for i, p := range parts {
		o := opts
		o.Hint = NoHint
		if hint >= cp {
			o.Hint = hint - cp
		}
		pm, pbs, pbe := Locate(text[pos:], p, o)
		if !pm.Found() || pm.Elided {
			return Match{}, 0, 0, false
		}
		if i == 0 {
			m.Start, bs, m.Level, m.Count = cp+pm.Start, pos+pbs, pm.Level, pm.Count
		} else if gaps != nil {
			*gaps = append(*gaps, [2]int{be, pos + pbs})
		}
		if levelRank[pm.Level] > levelRank[m.Level] {
			m.Level = pm.Level
		}
		m.Distance += pm.Distance
		m.End, be = cp+pm.End, pos+pbe
		pos, cp = pos+pbe, cp+pm.End
		hint = NoHint // later parts follow the first, wherever it is
	}
	m.Elided = true
	return m, bs, be, true
}
