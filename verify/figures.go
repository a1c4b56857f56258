package verify

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Figure is a number-like fact in a text: an amount, a percentage, a
// multiple, a date, a duration, an identifier, or a count of something.
// Figures of a claim must appear, exactly, in the evidence it cites.
type Figure struct {
	// Kind says what the figure measures; only figures of the same kind can
	// contradict each other: "percent", "percentage_point", "amount:EUR",
	// "multiple", "date", "duration:day", "id", "year", "count:bank",
	// "number".
	Kind string `json:"kind"`
	// Value is the canonical value: a decimal without separators or
	// trailing zeros ("250000000", "3.25"), a date "2025-03-31", an id.
	Value string `json:"value"`
	// Text is the figure as written.
	Text string `json:"text"`
	// BasisPoints marks a percentage_point figure written in basis points:
	// a hundredth of a percent too, so it also equals a percent of its
	// value (a margin of 25 bps is a margin of 0.25%).
	BasisPoints bool `json:"basis_points,omitempty"`
	// Reference marks a number that names a clause, section, article,
	// note… ("Clause 22.2", "§ 4"): never an amount, and not missing
	// when it is the number of the cited section.
	Reference bool `json:"reference,omitempty"`
	// Spelled marks a figure written in words ("three years"): a claim's
	// is judged only against an evidence figure it can be compared with
	// (spelledJudged), since a writer puts a number word where the
	// evidence states none ("two new values" citing the values' names).
	Spelled bool `json:"-"`
	// RangeEnd is, for the first end of a range ("5 to less than 10
	// years", "less than 99.5% but at least 99.0%"), the other end's value.
	RangeEnd string `json:"-"`
	// Condition marks a claim figure a condition introduces ("an employee
	// with seven years of service", "if uptime is 99.2%"): the claim
	// applies a rule to it rather than stating it.
	Condition bool `json:"-"`
	// Fall marks a claim's change stated as a fall ("slipped 1.0%",
	// "declined by $2 million"): the evidence may write it signed (-1.0%).
	Fall bool `json:"-"`
}

// currencySymbol returns the code of a currency sign, or "". A switch, not
// a map: Figures asks it for every code point.
func currencySymbol(r rune) string {
	switch r {
	case '$':
		return "USD"
	case '€':
		return "EUR"
	case '£':
		return "GBP"
	case '¥':
		return "JPY"
	}
	return ""
}

// currencyWords name a currency after an amount. "pounds" is left out: it
// weighs as often as it pays.
var currencyWords = map[string]string{"euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "yen": "JPY",
	"sterling": "GBP", "franc": "CHF", "francs": "CHF"}

var currencyCodes = map[string]bool{"USD": true, "EUR": true, "GBP": true, "CHF": true, "JPY": true, "CAD": true,
	"AUD": true, "SEK": true, "NOK": true, "DKK": true, "CNY": true, "INR": true}

var months = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

var durationUnits = map[string]string{"day": "day", "days": "day", "week": "week", "weeks": "week",
	"month": "month", "months": "month", "year": "year", "years": "year", "hour": "hour", "hours": "hour",
	"minute": "minute", "minutes": "minute", "quarter": "quarter", "quarters": "quarter",
	"second": "second", "seconds": "second", "sec": "second", "secs": "second",
	"millisecond": "millisecond", "milliseconds": "millisecond", "ms": "millisecond",
	"microsecond": "microsecond", "microseconds": "microsecond",
	"nanosecond": "nanosecond", "nanoseconds": "nanosecond", "ns": "nanosecond"}

// unitModifiers stand between a number and its unit without changing it:
// "12 more months" is a duration of 12 months, as "a further 12 months".
var unitModifiers = map[string]bool{"more": true, "further": true, "additional": true, "extra": true, "full": true,
	"consecutive": true, "successive": true, "whole": true, "remaining": true, "straight": true}

// dayQualifiers make a different unit: 10 business days are not 10 days.
var dayQualifiers = map[string]string{"business": "business_day", "working": "business_day", "banking": "business_day"}

// functionWords never name what a number counts.
var functionWords = map[string]bool{"and": true, "or": true, "to": true, "of": true, "in": true, "on": true, "at": true,
	"for": true, "by": true, "with": true, "from": true, "the": true, "a": true, "an": true, "is": true, "are": true,
	"was": true, "were": true, "per": true, "than": true, "as": true, "if": true, "but": true, "nor": true,
	"be": true, "will": true, "shall": true, "must": true, "may": true, "when": true, "where": true, "which": true,
	"can": true, "could": true, "should": true, "would": true, "might": true, "has": true, "have": true, "had": true,
	"do": true, "does": true, "did": true, "through": true, "thru": true, "after": true, "before": true, "until": true,
	"during": true, "versus": true, "vs": true}

var scales = map[string]int{"thousand": 3, "k": 3, "million": 6, "m": 6, "mn": 6, "billion": 9, "bn": 9, "b": 9}

// Figures extracts the figures of s in order. The number rules are those of
// docs/contract.md#figures: a comma or space followed by exactly three digits and a word
// boundary separates thousands; any other comma is a decimal comma.
func Figures(s string) []Figure {
	figs := appendFigures(nil, s)
	markClaimFigures(figs, s)
	return figs
}

// appendFigures appends the figures of s to out: the verifier reuses one
// buffer for all the claims of a request.
func appendFigures(out []Figure, s string) []Figure {
	n0 := len(out)
	out = scanFigures(out, s)
	if len(out)-n0 >= 2 {
		rangeScales(out[n0:], s)
		out = append(out[:n0], appendCompoundDurations(out[n0:], s)...)
	}
	return out
}

// scanFigures is appendFigures before the range scales.
func scanFigures(out []Figure, s string) []Figure {
	refEnd := -2 // where the last reference number ends
	for i := 0; i < len(s); {
		// Skip to a byte that can start a figure: a digit, a capital, '$'
		// or a multi-byte code point (a currency sign).
		for i < len(s) && !figureStart[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case isUpper(r) && wordStart(s, i):
			if f, n, ok := identifier(s, i); ok {
				out = append(out, f)
				i = n
				continue
			}
			if f, n, ok := textDate(s, i); ok {
				out = append(out, f)
				i = n
				continue
			}
			if code, n := currencyCode(s, i); code != "" {
				neg := false
				if k := minusBeforeDigit(s, n); k > 0 {
					n, neg = n+k, true // "EUR -2.5 million"
				} else if n+1 < len(s) && s[n] == '(' && isDigit(rune(s[n+1])) {
					n++ // "GBP (700) million": an accounting deduction, its size as a bare "(700)" is read
				}
				if f, m, ok := number(s, n, code, i); ok {
					out = append(out, signed(f, neg))
					i = m
					continue
				}
			}
			if f, n, ok := wordFigure(s, i); ok {
				out = append(out, f)
				i = n
				continue
			}
		case 'a' <= r && r <= 'z':
			// A lower-case letter that can start a number word: "three years".
			if !wordStart(s, i) {
				i = skipLetters(s, i)
				continue
			}
			f, n, ok := wordFigure(s, i)
			if ok {
				out = append(out, f)
			}
			i = n
			continue
		case currencySymbol(r) != "":
			// A minus may stand before the sign ("-$2.5 million") or after it.
			from, neg := i, false
			if m := minusBefore(s, i); m >= 0 {
				from, neg = m, true
			}
			j := skipSpaces(s, i+size)
			if n := minusBeforeDigit(s, j); n > 0 {
				j, neg = j+n, !neg
			}
			if f, n, ok := number(s, j, currencySymbol(r), from); ok {
				out = append(out, signed(f, neg))
				i = n
				continue
			}
		case isDigit(r):
			m := minusBefore(s, i)
			if m < 0 && wordBefore(s, i) || codeToken(s, i) || exponent(s, i) {
				// Inside a word or code ("v3.5", "FY2024", "x86", a commit
				// hash "846f34d351"): no figure starts here, nor at the
				// digits after its decimal point. A fiscal year's digits
				// are its year, though: "Six months FY2025" is of 2025.
				n := skipToken(s, i)
				if fiscalYearAt(s, i, n) {
					out = append(out, Figure{Kind: "year", Value: s[i:n], Text: s[i:n]})
				}
				i = n
				continue
			}
			if m < 0 {
				// Direct calls, not a list of readers: this loop reads every
				// claim and span, and indirect calls cost it a tenth.
				if f, n, ok := isoDate(s, i); ok {
					out = append(out, f)
					i = n
					continue
				}
				if f, n, ok := numericDate(s, i); ok {
					out = append(out, f)
					i = n
					continue
				}
				if f, n, ok := slashDate(s, i); ok {
					out = append(out, f)
					i = n
					continue
				}
			}
			if m < 0 && leadingPoint(s, i) {
				// ".4pt": a decimal written without its 0 (TeX writes them
				// so); read as the 0.4 it is, not as 4.
				t := "0" + s[i-1:min(len(s), i+48)]
				if f, n, ok := number(t, 0, "", 0); ok && strings.HasPrefix(f.Value, "0.") {
					end := i - 2 + n
					f.Text = s[i-1 : end]
					out = append(out, f)
					i = end
					continue
				}
			}
			from := i
			if m >= 0 {
				from = m
			}
			if f, n, ok := number(s, i, "", from); ok {
				// "RFC 2047", "ISO 9001": a standard's designation, not
				// a year or a count of what follows it.
				if m < 0 && (f.Kind == "year" || strings.HasPrefix(f.Kind, "count:")) && designationBefore(s, i) {
					f.Kind = "number"
				}
				// "Clause 22.2.1": the number after a reference word, and
				// the parts dotted onto it, name a clause, whatever word
				// follows ("Clause 7 applies" counts no applies).
				if (f.Kind == "number" || strings.HasPrefix(f.Kind, "count:")) && m < 0 &&
					(refEnd == i-1 && s[i-1] == '.' || referenceBefore(s, i)) {
					f.Kind, f.Reference, refEnd = "number", true, n
				}
				out = append(out, signed(f, m >= 0))
				i = n
				continue
			}
		}
		i += size
	}
	return out
}

// leadingPoint reports whether the digits at i follow a decimal point
// that follows no digit, at a word's start: ".4pt", "(.25)".
func leadingPoint(s string, i int) bool {
	return i >= 1 && s[i-1] == '.' && (i == 1 || s[i-2] == ' ' || s[i-2] == '(' || s[i-2] == '\n' || s[i-2] == '\t')
}

// exponent reports whether the digits at i are a power's base or its
// exponent ("2^31"): an expression, which a PDF's lost superscript turns
// into another number ("231"); it is no figure to find.
func exponent(s string, i int) bool {
	if i > 0 && s[i-1] == '^' {
		return true
	}
	j := i
	for j < len(s) && isDigit(rune(s[j])) {
		j++
	}
	return j < len(s) && s[j] == '^'
}

// figureStart marks the bytes a figure can start with.
var figureStart = func() (t [256]bool) {
	for b := range 256 {
		t[b] = '0' <= b && b <= '9' || 'A' <= b && b <= 'Z' || b == '$' || b >= utf8.RuneSelf ||
			strings.IndexByte("tfsen", byte(b)) >= 0 // the first letters of the number words
	}
	return t
}()

// skipLetters returns the end of the ASCII letters at i.
func skipLetters(s string, i int) int {
	for i < len(s) && 'a' <= s[i]|0x20 && s[i]|0x20 <= 'z' {
		i++
	}
	return i
}

// minusBeforeDigit returns the length of a minus sign at s[j:] that a digit
// follows, else 0.
func minusBeforeDigit(s string, j int) int {
	if n := minusLen(s, j); n > 0 && j+n < len(s) && isDigit(rune(s[j+n])) {
		return n
	}
	return 0
}

// minusLen returns the length of a minus sign at s[j:]: a hyphen-minus,
// U+2212 or an en dash, as typeset tables write negative figures; else 0.
func minusLen(s string, j int) int {
	switch {
	case j < len(s) && s[j] == '-':
		return 1
	case strings.HasPrefix(s[j:], "\u2212"), strings.HasPrefix(s[j:], "\u2013"):
		return 3
	}
	return 0
}

// minusBefore returns where the minus sign of a negative figure starting
// at i begins, or -1. A minus is a sign only when it starts a word: in
// "10-12", "10–12", "7.5%–11.0%" or "RAG-41" it joins.
func minusBefore(s string, i int) int {
	j := -1
	switch {
	case i >= 1 && s[i-1] == '-':
		j = i - 1
	case i >= 3 && (s[i-3:i] == "\u2212" || s[i-3:i] == "\u2013"):
		j = i - 3
	}
	if j < 0 || wordBefore(s, j) || j > 0 && s[j-1] == '%' {
		return -1 // "7.5%–11.0%" joins a range
	}
	return j
}

// signed makes f negative when neg is set: -3.5% and 3.5% are different
// values, so a flipped sign is caught like any changed digit.
func signed(f Figure, neg bool) Figure {
	if neg && f.Value != "0" && f.Kind != "date" && f.Kind != "year" {
		f.Value = "-" + f.Value
	}
	return f
}

// wordBefore reports whether a letter, digit or '_' ends s[:i]; a dash, a
// no-break space or other punctuation outside ASCII does not.
func wordBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	if s[i-1] < utf8.RuneSelf {
		return isWordByte(s[i-1])
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// codeToken reports whether the word starting at i is a code: six or more
// characters mixing digits, letters and digits again, as hashes and part
// numbers do ("846f34d351"). A number with a unit attached ("12kg",
// "3.25x", "50m2") is not one.
func codeToken(s string, i int) bool {
	letter, mixed, j := false, false, i
	for ; j < len(s) && isWordByte(s[j]); j++ {
		switch {
		case isDigit(rune(s[j])):
			mixed = mixed || letter
		case s[j] < utf8.RuneSelf:
			letter = true
		default:
			return false // a word with letters outside ASCII is prose
		}
	}
	return mixed && j-i >= 6
}

// skipToken returns the end of the word or code that holds the digit at
// i, decimal points and commas between digits included.
func skipToken(s string, i int) int {
	for i < len(s) && (isWordByte(s[i]) || (s[i] == '.' || s[i] == ',') && i+1 < len(s) && isDigit(rune(s[i+1]))) {
		i++
	}
	return i
}

func isDigit(r rune) bool    { return '0' <= r && r <= '9' }
func isUpper(r rune) bool    { return 'A' <= r && r <= 'Z' }
func isWordByte(b byte) bool { return wordBytes[b] }

// wordBytes: letters, digits, '_' and every byte of a multi-byte code point.
// A table, not comparisons: the scanners ask it for every byte of a text.
var wordBytes = func() (t [256]bool) {
	for b := range 256 {
		t[b] = b == '_' || b >= 0x80 || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
	}
	return t
}()

func wordStart(s string, i int) bool { return i == 0 || !isWordByte(s[i-1]) }

// nbspAt reports whether a no-break space (U+00A0, U+202F) starts at i.
func nbspAt(s string, i int) bool {
	return strings.HasPrefix(s[i:], "\u00a0") || strings.HasPrefix(s[i:], "\u202f")
}

func skipSpaces(s string, i int) int {
	// A line break is a space: a quote joins the lines its source wraps.
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	switch {
	case strings.HasPrefix(s[i:], "\u00a0"):
		return skipSpaces(s, i+len("\u00a0"))
	case strings.HasPrefix(s[i:], "\u202f"):
		return skipSpaces(s, i+len("\u202f"))
	}
	return i
}

// identifier reads RAG-41, FIN-07, DR-02: capitals (and digits) then a
// hyphen and digits.
func identifier(s string, i int) (Figure, int, bool) {
	j := i
	for j < len(s) && (isUpper(rune(s[j])) || isDigit(rune(s[j]))) {
		j++
	}
	if j == i || j >= len(s)-1 || s[j] != '-' || !isDigit(rune(s[j+1])) {
		return Figure{}, 0, false
	}
	k := j + 1
	for k < len(s) && (isDigit(rune(s[k])) || isUpper(rune(s[k]))) {
		k++
	}
	if k < len(s) && isWordByte(s[k]) {
		return Figure{}, 0, false
	}
	return Figure{Kind: "id", Value: s[i:k], Text: s[i:k]}, k, true
}

// currencyCode reads a currency code at i, alone or glued to its amount
// ("EUR 3,5", "EUR3.5m"), and returns where the amount may start.
func currencyCode(s string, i int) (string, int) {
	if i+3 > len(s) || (i+3 < len(s) && isWordByte(s[i+3]) && !isDigit(rune(s[i+3])) && !strings.HasPrefix(s[i+3:], "\u00a0") && !strings.HasPrefix(s[i+3:], "\u202f")) || !isUpper(rune(s[i+1])) || !isUpper(rune(s[i+2])) || !currencyCodes[s[i:i+3]] {
		return "", 0
	}
	return s[i : i+3], skipSpaces(s, i+3)
}

func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isDigit(rune(s[k])) {
			return false
		}
	}
	return true
}

// isoDate reads 2025-03-31, and 2021/11/30 (year first, so the order of
// month and day is known: LaTeX packages date their releases so).
func isoDate(s string, i int) (Figure, int, bool) {
	if !digitsAt(s, i, 4) || i+10 > len(s) || !digitsAt(s, i+5, 2) || !digitsAt(s, i+8, 2) ||
		!(i+10 == len(s) || !isWordByte(s[i+10]) || s[i+10] == 'T') {
		return Figure{}, 0, false
	}
	switch sep := s[i+4]; {
	case sep == '-' && s[i+7] == '-':
		return Figure{Kind: "date", Value: s[i : i+10], Text: s[i : i+10]}, i + 10, true
	case sep == '/' && s[i+7] == '/' && (i+10 == len(s) || s[i+10] != '/'):
		mon, day := atoiSmall(s[i+5:i+7]), atoiSmall(s[i+8:i+10])
		if mon >= 1 && mon <= 12 && day >= 1 && day <= 31 {
			return Figure{Kind: "date", Value: dateValue(s[i:i+4], mon, day), Text: s[i : i+10]}, i + 10, true
		}
	}
	return Figure{}, 0, false
}

// numericDate reads "31 March 2025" starting at the day.
func numericDate(s string, i int) (Figure, int, bool) {
	j := i
	for j < len(s) && j-i < 2 && isDigit(rune(s[j])) {
		j++
	}
	if j == i || j >= len(s) || s[j] != ' ' {
		return Figure{}, 0, false
	}
	mon, k := monthAt(s, j+1)
	if mon == 0 || k >= len(s) || s[k] != ' ' || !digitsAt(s, k+1, 4) || (k+5 < len(s) && isWordByte(s[k+5])) {
		return Figure{}, 0, false
	}
	day := atoiSmall(s[i:j])
	return Figure{Kind: "date", Value: dateValue(s[k+1:k+5], mon, day), Text: s[i : k+5]}, k + 5, true
}

// slashDate reads 28/06/2024 and 28.06.2024, and 06/28/2024 too: the
// order of day and month is read from the one above 12. When both could be
// the month (06/05/2024) it is no date: its parts are read as numbers, so a
// claim holding it still needs them in its evidence.
func slashDate(s string, i int) (f Figure, n int, ok bool) {
	a, j := digitRun(s, i, 2)
	if a == 0 || j >= len(s) || (s[j] != '/' && s[j] != '.') {
		return Figure{}, 0, false
	}
	sep := s[j]
	b, k := digitRun(s, j+1, 2)
	if b == 0 || k >= len(s) || s[k] != sep || !digitsAt(s, k+1, 4) || (k+5 < len(s) && isWordByte(s[k+5])) ||
		k+5 < len(s) && s[k+5] == sep && k+6 < len(s) && isDigit(rune(s[k+6])) {
		return Figure{}, 0, false
	}
	end := k + 5
	year := s[k+1 : end]
	switch {
	case a > 12 && a <= 31 && b <= 12:
		return Figure{Kind: "date", Value: dateValue(year, b, a), Text: s[i:end]}, end, true
	case b > 12 && b <= 31 && a <= 12:
		return Figure{Kind: "date", Value: dateValue(year, a, b), Text: s[i:end]}, end, true
	}
	return Figure{}, 0, false
}

// digitRun reads one to max digits at i as a positive number, or 0.
func digitRun(s string, i, max int) (int, int) {
	j := i
	for j < len(s) && j-i < max && isDigit(rune(s[j])) {
		j++
	}
	if j == i || j < len(s) && isDigit(rune(s[j])) {
		return 0, i
	}
	return atoiSmall(s[i:j]), j
}

// textDate reads "March 31, 2025" and "March 2025".
func textDate(s string, i int) (Figure, int, bool) {
	mon, j := monthAt(s, i)
	if mon == 0 || j >= len(s) || s[j] != ' ' {
		return Figure{}, 0, false
	}
	k := j + 1
	if digitsAt(s, k, 4) && (k+4 == len(s) || !isWordByte(s[k+4])) {
		v := s[k:k+4] + "-" + two(mon)
		if firstDayOf(s[:i]) {
			v += "-01" // "the first day of July 2039" is July 1, 2039
		}
		return Figure{Kind: "date", Value: v, Text: s[i : k+4]}, k + 4, true
	}
	d := k
	for d < len(s) && d-k < 2 && isDigit(rune(s[d])) {
		d++
	}
	if d == k || !strings.HasPrefix(s[d:], ", ") || !digitsAt(s, d+2, 4) || (d+6 < len(s) && isWordByte(s[d+6])) {
		return Figure{}, 0, false
	}
	return Figure{Kind: "date", Value: dateValue(s[d+2:d+6], mon, atoiSmall(s[k:d])), Text: s[i : d+6]}, d + 6, true
}

// firstDayOf reports whether s ends with "first day of " (or "1st day
// of "), before a month and year.
func firstDayOf(s string) bool {
	s = strings.TrimRight(s, " ")
	if !hasSuffixFold(s, " day of") {
		return false
	}
	s = strings.TrimRight(s[:len(s)-len(" day of")], " ")
	return hasSuffixFold(s, "first") || strings.HasSuffix(s, "1st")
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func monthAt(s string, i int) (int, int) {
	j := i
	for j < len(s) && ('a' <= s[j]|0x20 && s[j]|0x20 <= 'z') {
		j++
	}
	// A month name is 3 to 9 letters and is followed, after a space or a
	// period, by a digit; checking that first keeps capitalised words cheap.
	if j-i < 3 || j-i > 9 || j+2 >= len(s) || !(isDigit(rune(s[j+1])) || isDigit(rune(s[j+2]))) {
		return 0, 0
	}
	var buf [9]byte
	for k := i; k < j; k++ {
		buf[k-i] = s[k] | 0x20
	}
	m := months[string(buf[:j-i])]
	if m != 0 && j < len(s) && s[j] == '.' { // "Sept."
		j++
	}
	return m, j
}

func atoiSmall(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func two(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

func dateValue(year string, month, day int) string { return year + "-" + two(month) + "-" + two(day) }

// number reads a number at i and what follows it: percent, multiple,
// ratio, currency, scale, duration or counted noun. cur is a currency
// already read before it; from is where the figure's text starts.
func number(s string, i int, cur string, from int) (Figure, int, bool) {
	val, j, ok := decimal(s, i)
	if !ok {
		return Figure{}, 0, false
	}
	f, end := measure(s, val, j, cur, from)
	return f, end, true
}

// measure reads what follows the number val ending at j: percent,
// multiple, ratio, currency, scale, duration or counted noun.
func measure(s, val string, j int, cur string, from int) (Figure, int) {
	integer := !strings.Contains(val, ".")
	k := skipSpaces(s, j)
	if k < len(s) && s[k] == ')' && (from > 0 && s[from-1] == '(' && !spelledBefore(s, from-1) || strings.IndexByte(s[from:j], '(') >= 0) {
		// "one and one-half (1.5) times": the digits repeat the words, and
		// what follows the parenthesis is what they measure; "GBP (700)
		// million" is a deduction of GBP 700 million.
		k = skipSpaces(s, k+1)
	}
	word, w := wordAt(s, k)
	lw := strings.ToLower(word)
	f := Figure{Kind: "number", Value: val}
	end := j
	if k == j && k < len(s) && s[k] == '-' {
		// "a 7-day run-in", "a 3-week titration phase", "a 12-inch pipe":
		// a unit joined by a hyphen, when nothing more is joined to it.
		u, uw := wordAt(s, k+1)
		if unitModifiers[strings.ToLower(u)] && uw < len(s) && s[uw] == '-' {
			u, uw = wordAt(s, uw+1) // "a 12-consecutive-month period"
		}
		if u != "" && !(uw < len(s) && (s[uw] == '-' || isWordByte(s[uw]))) {
			lu := strings.ToLower(u)
			if d := durationUnits[lu]; d != "" && d == lu {
				return Figure{Kind: "duration:" + d, Value: val, Text: strings.TrimSpace(s[from:uw])}, uw
			}
			if unit, ok := unitAfter(u, true); ok && !unit.glued {
				return Figure{Kind: "measure:" + unit.name, Value: val, Text: strings.TrimSpace(s[from:uw])}, uw
			}
		}
	}
	switch {
	case k == j && (lw == "st" || lw == "nd" || lw == "rd" || lw == "th") && integer:
		f.Kind, end = "ordinal", w // "the 1st", "the 4th anniversary": an ordinal counts nothing
	case strings.HasPrefix(s[j:], "%") || strings.HasPrefix(s[j:], " %"):
		f.Kind, end = "percent", strings.Index(s[j:], "%")+j+1
		if prefixFold(s, end, "-point") {
			// "2 %-points", "2 percentage points", "2 pp": a difference of
			// percentages, never a percentage: 0.25 percentage points ≠ 0.25%.
			f.Kind = "percentage_point"
			_, end = wordAt(s, end+1)
		}
	case lw == "percentage" && prefixFold(s, w, " point"):
		f.Kind = "percentage_point"
		_, end = wordAt(s, w+1)
	case lw == "pp" || lw == "ppt" || lw == "ppts":
		f.Kind, end = "percentage_point", w
	case lw == "percent" || lw == "per" && prefixFold(s, w, " cent"):
		f.Kind, end = "percent", w
		if lw == "per" {
			end = w + len(" cent")
		}
	case j < len(s) && (s[j] == 'x' || s[j] == 'X') && (j+1 == len(s) || !isWordByte(s[j+1])):
		f.Kind, end = "multiple", j+1
	case strings.HasPrefix(s[j:], "×") || strings.HasPrefix(s[j:], " ×") && !digitAfterTimes(s, j):
		f.Kind, end = "multiple", strings.Index(s[j:], "×")+j+len("×") // "> 1.5 × ULN"
	case timeOfDay(s, from, val, j) != "":
		f.Kind, f.Value, end = timeOfDayFigure(s, val, j)
	case j < len(s) && s[j] == ':' && j+1 < len(s) && isDigit(rune(s[j+1])):
		if den, e, ok := decimal(s, j+1); ok {
			f.Kind, f.Value, end = "multiple", ratio(val, den), e
		}
	case lw == "bps" || lw == "bp" || lw == "basis" && prefixFold(s, w, " point"):
		// 50 basis points are 0.50 percentage points, and equal 0.50% too
		// (see BasisPoints).
		f.Kind, f.Value, f.BasisPoints, end = "percentage_point", scale(val, -2), true, w
		if lw == "basis" {
			_, end = wordAt(s, w+1)
		}
	case lw == "times" && cur == "":
		f.Kind, end = "multiple", w // "3.25 times EBITDA"
	case lw == "to" && cur == "":
		// "3.25 to 1.00" is a multiple only against one: "from 2 to 5" is a range.
		if den, e, ok := decimal(s, skipSpaces(s, w)); ok && den == "1" && val != "0" { // "0 to 1" is a range
			f.Kind, end = "multiple", e
		}
	}
	if f.Kind == "number" {
		if sc, ok := scales[lw]; ok && (cur != "" || lw == "million" || lw == "billion" || lw == "thousand") {
			f.Value, end = scale(val, sc), w
			k = skipSpaces(s, w)
			word, w = wordAt(s, k)
			lw = strings.ToLower(word)
		}
		if cur == "" {
			if c, n := currencyCode(s, k); c != "" && !(n < len(s) && isDigit(rune(s[n]))) {
				cur, end = c, k+3
			} else if r, size := utf8.DecodeRuneInString(s[k:]); currencySymbol(r) != "" {
				cur, end = currencySymbol(r), k+size
			} else if c := currencyWords[lw]; c != "" {
				cur, end = c, w // "250 million euros"
			} else if next, nw := wordAt(s, skipSpaces(s, w)); lw == "us" && currencyWords[strings.ToLower(next)] == "USD" {
				cur, end = "USD", nw // "5 US dollars"
			}
		}
		switch {
		case cur != "":
			f.Kind = "amount:" + cur
		case durationUnits[lw] != "":
			f.Kind, end = "duration:"+durationUnits[lw], w
		case unitOK(word, k == j) && !denominator(s, from):
			u, _ := unitAfter(word, k == j)
			f.Kind, end = "measure:"+u.name, w
			if per, e := perUnit(s, w); per != "" {
				f.Kind, end = "measure:"+u.name+"/"+per, e // "6 mg/kg" is no 6 mg
			} else if per, e := perWord(s, w); per != "" {
				f.Kind, end = "measure:"+u.name+"/"+per, e // "10 mg per day" is 10 mg/day
			}
		case dayQualifiers[lw] != "" || lw == "calendar":
			unit := "day"
			if dayQualifiers[lw] != "" {
				unit = dayQualifiers[lw]
			}
			if next, nw := wordAt(s, skipSpaces(s, w)); durationUnits[strings.ToLower(next)] == "day" {
				f.Kind, end = "duration:"+unit, nw
			}
		case unitModifiers[lw]:
			// "12 more months", "3 further banks": the unit follows the modifier.
			next, nw := wordAt(s, skipSpaces(s, w))
			ln := strings.ToLower(next)
			n2, n2w := wordAt(s, skipSpaces(s, nw))
			switch {
			case durationUnits[ln] != "":
				f.Kind, end = "duration:"+durationUnits[ln], nw
			case next != "" && unicode.IsLower(rune(next[0])) && !functionWords[ln] && skipSpaces(s, nw) > nw &&
				durationUnits[strings.ToLower(n2)] != "" && ln != "calendar" && dayQualifiers[ln] == "":
				// "the 60 additional inpatient days": a word between the
				// modifier and the unit describes the days.
				f.Kind, end = "duration:"+durationUnits[strings.ToLower(n2)], n2w
			case dayUnit(ln, s, nw) != "":
				// "seven consecutive calendar days", "5 consecutive Business Days"
				f.Kind, end = "duration:"+dayUnit(ln, s, nw), wordEnd(s, skipSpaces(s, nw))
			case next != "" && unicode.IsLower(rune(next[0])) && !functionWords[ln]:
				f.Kind, end = "count:"+singular(ln), nw
			}
		case integer && yearLike(val) && fiscalBefore(s, from):
			f.Kind = "year" // "fiscal 2025 revenue" is no count of revenue
		case integer && len(val) == 4 && (val[:2] == "19" || val[:2] == "20") && word == "":
			f.Kind = "year"
		case word != "" && unicode.IsLower(rune(word[0])) && !functionWords[lw]:
			f.Kind = "count:" + singular(lw) // "7 banks": only a count of banks can contradict it
			// "25 paid vacation days": words before a duration unit
			// describe it; the figure is the duration ("2025 base year"
			// is a year).
			for n, at, prev := 0, w, lw; n < 2 && !yearLike(val); n++ {
				next, nw := wordAt(s, skipSpaces(s, at))
				ln := strings.ToLower(next)
				if next == "" || functionWords[ln] || !unicode.IsLower(rune(next[0])) || skipSpaces(s, at) == at {
					break
				}
				if d := durationUnits[ln]; d != "" {
					if q := dayQualifiers[prev]; q != "" && d == "day" {
						d = q // "five paid working days" are business days
					}
					f.Kind, end = "duration:"+d, nw
					break
				}
				at, prev = nw, ln
			}
		}
	}
	if f.Kind == "ordinal" {
		f.Kind = "number"
	}
	f.Text = strings.TrimSpace(s[from:end])
	return f, end
}

// fiscalYearAt reports whether s[i:n] is the year of an "FY2025" token.
func fiscalYearAt(s string, i, n int) bool {
	return n-i == 4 && yearLike(s[i:n]) && i >= 2 && (s[i-2] == 'F' || s[i-2] == 'f') && (s[i-1] == 'Y' || s[i-1] == 'y') &&
		(i == 2 || !isWordByte(s[i-3]))
}

// fiscalBefore reports whether the word before byte i names a year
// ("fiscal", "calendar", "FY", "year").
func fiscalBefore(s string, i int) bool {
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && isWordByte(s[k-1]) {
		k--
	}
	switch strings.ToLower(s[k:j]) {
	case "fiscal", "calendar", "fy", "year":
		return j < i
	}
	return false
}

// dayUnit returns the unit of a qualified day ("calendar" or "business"
// before "days" at i), or "".
func dayUnit(q, s string, i int) string {
	if q != "calendar" && dayQualifiers[q] == "" {
		return ""
	}
	if next, _ := wordAt(s, skipSpaces(s, i)); durationUnits[strings.ToLower(next)] != "day" {
		return ""
	}
	if q == "calendar" {
		return "day"
	}
	return dayQualifiers[q]
}

// wordEnd is where the word at i ends.
func wordEnd(s string, i int) int {
	_, e := wordAt(s, i)
	return e
}

// spelledBefore reports whether the word before byte i is a number word
// ("ten (12) days"): the number word's reading decides (wordFigure).
func spelledBefore(s string, i int) bool {
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && (isWordByte(s[k-1]) || s[k-1] == '-') {
		k--
	}
	return k < j && spelledValueFold(s[k:j]) > 0
}

// timeOfDay returns the time of day the number val ending at j starts
// ("08:00", "18:00", "6 p.m.", "1 a.m.", "10:30 pm"), as HH:MM, or "".
func timeOfDay(s string, from int, val string, j int) string {
	t, _ := timeOfDayAt(s, val, j)
	return t
}

// timeOfDayFigure is the kind, value and end of a time of day.
func timeOfDayFigure(s, val string, j int) (string, string, int) {
	t, e := timeOfDayAt(s, val, j)
	return "time", t, e
}

// timeOfDayAt is timeOfDay with where the time ends.
func timeOfDayAt(s, val string, j int) (string, int) {
	if j >= len(s) || len(val) > 2 {
		return "", j
	}
	if c := s[j]; c != ':' && c != ' ' && c|0x20 != 'a' && c|0x20 != 'p' {
		return "", j // most numbers: cheap to leave
	}
	h, err := strconv.Atoi(val)
	if err != nil || h > 24 || strings.Contains(val, ".") {
		return "", j
	}
	m, end := 0, j
	if j+3 <= len(s) && s[j] == ':' && isDigit(rune(s[j+1])) && isDigit(rune(s[j+2])) && !(j+3 < len(s) && isDigit(rune(s[j+3]))) {
		m, _ = strconv.Atoi(s[j+1 : j+3])
		end = j + 3
	}
	k := skipSpaces(s, end)
	switch {
	case meridiem(s, k, 'a'):
		if h < 1 || h > 12 {
			return "", j
		}
		h %= 12
	case meridiem(s, k, 'p'):
		if h < 1 || h > 12 {
			return "", j
		}
		h = h%12 + 12
	case end == j || m > 59:
		return "", j // digits alone, or no minutes: no clock time
	default:
		return fmt.Sprintf("%02d:%02d", h, m), end
	}
	e := k + 2
	if k+4 <= len(s) && s[k+1] == '.' && s[k+2]|0x20 == 'm' && s[k+3] == '.' {
		e = k + 4
	} else if k+3 <= len(s) && s[k+1] == '.' {
		e = k + 3
	}
	return fmt.Sprintf("%02d:%02d", h, m), e
}

// meridiem reports whether s at k holds "a.m."/"am" (x = 'a') or
// "p.m."/"pm", as a word.
func meridiem(s string, k int, x byte) bool {
	if k+2 > len(s) || s[k]|0x20 != x {
		return false
	}
	switch {
	case s[k+1] == '.' && k+3 <= len(s) && s[k+2]|0x20 == 'm': // "a.m", "a.m."
		return k+3 == len(s) || !isWordByte(s[k+3])
	case s[k+1]|0x20 == 'm': // "am"
		return k+2 == len(s) || !isWordByte(s[k+2])
	}
	return false
}

// digitAfterTimes reports whether " × " at j is followed by a digit: "4 ×
// 2" is a size, not a multiple.
func digitAfterTimes(s string, j int) bool {
	k := skipSpaces(s, j+len(" ×"))
	return k < len(s) && isDigit(rune(s[k]))
}

// decimal reads digits with thousands separators and a decimal point or
// comma, returning the canonical decimal.
func decimal(s string, i int) (string, int, bool) {
	if i >= len(s) || !isDigit(rune(s[i])) {
		return "", 0, false
	}
	j := i
	for j < len(s) && isDigit(rune(s[j])) {
		j++
	}
	intPart := s[i:j]
	var grouped []byte // the digits, once a thousands separator joins groups
	for {
		sep := 0
		switch {
		case j < len(s) && (s[j] == ',' || s[j] == ' '):
			sep = 1
		case strings.HasPrefix(s[j:], "\u00a0"):
			sep = len("\u00a0")
		case strings.HasPrefix(s[j:], "\u202f"):
			sep = len("\u202f")
		}
		if sep == 0 || !digitsAt(s, j+sep, 3) || (j+sep+3 < len(s) && isDigit(rune(s[j+sep+3]))) || (j+sep+3 < len(s) && isWordByte(s[j+sep+3]) && !nbspAt(s, j+sep+3)) {
			break
		}
		if grouped == nil {
			grouped = append(make([]byte, 0, 24), intPart...)
		}
		grouped = append(grouped, s[j+sep:j+sep+3]...)
		j += sep + 3
	}
	if grouped != nil {
		intPart = string(grouped)
	}
	frac := ""
	if j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(rune(s[j+1])) {
		k := j + 1
		for k < len(s) && isDigit(rune(s[k])) {
			k++
		}
		frac, j = s[j+1:k], k
	}
	return canonical(intPart, frac), j, true
}

// canonical joins integer and fraction digits without leading or trailing zeros.
func canonical(intPart, frac string) string {
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return intPart
	}
	return intPart + "." + frac
}

// scale multiplies a canonical decimal by 10^n; n may be negative.
func scale(v string, n int) string {
	intPart, frac, _ := strings.Cut(v, ".")
	for ; n > 0; n-- {
		if frac != "" {
			intPart, frac = intPart+frac[:1], frac[1:]
		} else {
			intPart += "0"
		}
	}
	for ; n < 0; n++ {
		if intPart == "" {
			intPart = "0"
		}
		intPart, frac = intPart[:len(intPart)-1], intPart[len(intPart)-1:]+frac
	}
	return canonical(intPart, frac)
}

// ratio divides two canonical decimals: a terminating result as a decimal,
// else as a fraction.
func ratio(a, b string) string {
	ra, _ := new(big.Rat).SetString(a)
	rb, _ := new(big.Rat).SetString(b)
	if ra == nil || rb == nil || rb.Sign() == 0 {
		return a + ":" + b
	}
	q := new(big.Rat).Quo(ra, rb)
	for prec := 0; prec <= 12; prec++ {
		s := q.FloatString(prec)
		if r, _ := new(big.Rat).SetString(s); r != nil && r.Cmp(q) == 0 {
			i, f, _ := strings.Cut(s, ".")
			return canonical(i, f)
		}
	}
	return q.RatString()
}

// prefixFold reports whether s[i:] starts with p, ASCII case folded,
// without lower-casing the rest of s.
func prefixFold(s string, i int, p string) bool {
	return i <= len(s) && len(s)-i >= len(p) && strings.EqualFold(s[i:i+len(p)], p)
}

func wordAt(s string, i int) (string, int) {
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) {
			break
		}
		j += size
	}
	return s[i:j], j
}

func singular(w string) string {
	w = americanSpelling(w)
	switch {
	case len(w) <= 3 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
		return w // "class", "status"
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y" // "libraries"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "uses"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2] // "classes", "statuses", "batches", "boxes"
	}
	return w[:len(w)-1]
}

// americanSpelling folds a noun's British "-our" into "-or" ("the 1.23
// behaviour" counts what "the 1.23 behavior" counts); words of five
// letters or fewer ("hour", "four", "your") keep theirs.
func americanSpelling(w string) string {
	if len(w) > 5 && (strings.HasSuffix(w, "our") || strings.HasSuffix(w, "ours")) {
		i := strings.LastIndex(w, "our")
		return w[:i] + "or" + w[i+3:]
	}
	return w
}

// sameKind reports whether two figures measure the same thing: the same
// kind, or a basis-point figure and a percent (bps are hundredths of a
// percent as much as of a percentage point).
func sameKind(a, b Figure) bool {
	return a.Kind == b.Kind || a.BasisPoints && b.Kind == "percent" || b.BasisPoints && a.Kind == "percent"
}

// referenceWords name what a following number refers to: a clause, a
// section, a note of the accounts.
var referenceWords = map[string]bool{"clause": true, "clauses": true, "section": true, "sections": true,
	"article": true, "articles": true, "schedule": true, "schedules": true, "paragraph": true, "paragraphs": true,
	"part": true, "parts": true, "annex": true, "annexes": true, "appendix": true, "note": true, "notes": true,
	"art": true, "sec": true, "para": true, "cl": true,
	// designations of a grade or a rank: "Severity 2 incident", "Tier 1
	// capital", "Phase 2 trial", "Level 3 support"
	"severity": true, "tier": true, "level": true, "phase": true, "stage": true, "grade": true, "priority": true,
	"category": true, "cohort": true}

// referenceBefore reports whether the number at i follows a reference word
// ("Clause 22.2", "Art. 5", "§ 4", "§4").
func referenceBefore(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if strings.HasSuffix(s[:j], "\u00a0") {
		j -= len("\u00a0")
	}
	if strings.HasSuffix(s[:j], "§") {
		return true
	}
	dotted := false
	if j > 0 && s[j-1] == '.' && j < i {
		j-- // "Art. 5", not "v.5"
		dotted = true
	}
	var buf [10]byte
	k := j
	for k > 0 && j-k < len(buf) && ('a' <= s[k-1]|0x20 && s[k-1]|0x20 <= 'z') {
		k--
	}
	if k == j || k > 0 && isWordByte(s[k-1]) {
		return false
	}
	for n := k; n < j; n++ {
		buf[n-k] = s[n] | 0x20
	}
	if numberWords[string(buf[:j-k])] {
		return dotted // "No. 1", "Nr. 4": an abbreviation, where a bare "no 3" is a quantity
	}
	return referenceWords[string(buf[:j-k])]
}

// designationBefore reports whether the number at i follows a word of two
// to six capitals that names a standard or a series ("RFC", "ISO", "IEC"):
// not a fiscal or calendar year ("FY 2024") and no currency code.
func designationBefore(s string, i int) bool {
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && j-k <= 6 && 'A' <= s[k-1] && s[k-1] <= 'Z' {
		k--
	}
	if j-k < 2 || j-k > 6 || j == i || k > 0 && isWordByte(s[k-1]) {
		return false
	}
	w := s[k:j]
	return !yearAcronyms[w] && !currencyCodes[w]
}

// yearAcronyms stand before a year, which stays one.
var yearAcronyms = map[string]bool{"FY": true, "CY": true, "AD": true, "BC": true, "CE": true, "BCE": true, "AY": true, "MY": true}

// numberWords abbreviate "number" before a numeral, with their period.
var numberWords = map[string]bool{"no": true, "nos": true, "nr": true}

// withoutOwnSections drops from missing the reference numbers ("Under
// Clause 22.2, …") that name a section holding an accepted span: a claim
// may say where its evidence stands. A section's number is any plain
// number of its heading; a reference to an enclosing clause ("Clause 22"
// for a span in 22.2) is its own too. Amounts and other figures stay.
func withoutOwnSections(missing []Figure, good []accepted, evs []EvidenceReport, claim string) []Figure {
	out := missing[:0]
	for _, f := range missing {
		if f.Reference && inOwnSection(f.Value, good, evs) || f.Kind == "id" && idInOwnSection(f, good, evs) ||
			countLike(f.Kind) && designationInOwnSection(f, claim, good, evs) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// designationInOwnSection reports whether the claim writes its number
// after a capitalized word ("In Type 1 embedding") that a heading of an
// accepted chunk's section path writes before the same number ("3.3 Using
// non-standard Type 1 fonts"): a name of what the section is about, which
// the chunk under it need not repeat.
func designationInOwnSection(f Figure, claim string, good []accepted, evs []EvidenceReport) bool {
	word := wordBeforeNumber(claim, f.Value)
	if word == "" || !isUpper(rune(word[0])) {
		return false
	}
	for _, g := range good {
		for _, heading := range evs[g.report].SectionPath {
			if w := wordBeforeNumber(heading, f.Value); w != "" && strings.EqualFold(w, word) {
				return true
			}
		}
	}
	return false
}

// wordBeforeNumber returns the word right before the first standalone
// occurrence of the number v in s ("Type" in "Using Type 1 fonts"), or "".
func wordBeforeNumber(s, v string) string {
	for from := 0; ; {
		i := strings.Index(s[from:], v)
		if i < 0 {
			return ""
		}
		i += from
		end := i + len(v)
		if (i == 0 || s[i-1] == ' ') && (end == len(s) || !isDigit(rune(s[end])) && s[end] != '.' && s[end] != ',') {
			j := i - 1
			for j > 0 && s[j-1] != ' ' {
				j--
			}
			if j >= 0 && j < i-1 {
				return s[j : i-1]
			}
			return ""
		}
		from = i + 1
	}
}

// idInOwnSection reports whether an identifier of the claim ("CWE-427")
// is one a heading of an accepted chunk's section path holds: "####
// Uncontrolled Search Path Element (CWE-427)" above the rule the claim
// states.
func idInOwnSection(f Figure, good []accepted, evs []EvidenceReport) bool {
	for _, g := range good {
		for _, heading := range evs[g.report].SectionPath {
			for _, h := range Figures(heading) {
				if h.Kind == "id" && h.Value == f.Value {
					return true
				}
			}
		}
	}
	return false
}

func inOwnSection(value string, good []accepted, evs []EvidenceReport) bool {
	for _, g := range good {
		for _, heading := range evs[g.report].SectionPath {
			for _, h := range Figures(heading) {
				if h.Kind == "number" && (h.Value == value || strings.HasPrefix(h.Value, value+".")) {
					return true
				}
			}
		}
	}
	return false
}
