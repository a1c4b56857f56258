package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A unit scale stated for a table or passage ("(in EUR thousands)",
// "(€m)", "USD millions", "$ in millions", "in thousands of euros")
// makes its bare numbers amounts: under "(€m)" a row's 12.5 is
// EUR 12,500,000. The statement holds from where it stands to the end of
// the chunk; the last one before a number is the one in force.

// unitScale is a stated currency and power of ten.
type unitScale struct {
	currency string
	exp      int
	start    int // byte offsets of the statement in the text it was found in
	end      int
}

// appendEvidenceFigures appends the figures of an evidence span to out.
// When the claim holds an amount and the span a bare number, a scale
// statement in the chunk before the span (before) or in the span itself
// adds, for each bare number after it, the amount it states; the number
// stays too, so a claim quoting the plain number still finds it.
func appendEvidenceFigures(out []Figure, span, before string, claim []Figure) []Figure {
	start := len(out)
	out = appendPercentCells(appendScales(appendFigures(out, span), start, span, before, claim), start, span, before, claim)
	return appendColumnUnits(appendRateSpreads(out, start, span, claim), span, before, claim)
}

// appendEvidenceFiguresOf is appendEvidenceFigures of a span whose
// figures (appendFigures of span) are known: figs.
func appendEvidenceFiguresOf(out, figs []Figure, span, before string, claim []Figure) []Figure {
	start := len(out)
	out = appendPercentCells(appendScales(append(out, figs...), start, span, before, claim), start, span, before, claim)
	return appendColumnUnits(appendRateSpreads(out, start, span, claim), span, before, claim)
}

// appendColumnUnits adds, for a table whose header row gives a column its
// unit in parentheses ("| TWA (mg/m3) |", "| Dose (mg) |"), the measure each
// bare number of that column's cells states: "| … | 0.05 |" under "TWA
// (mg/m3)" is 0.05 mg/m3. Read only for a claim with a measure or a count.
func appendColumnUnits(out []Figure, span, before string, claim []Figure) []Figure {
	if !strings.Contains(span, "|") || !holdsMeasureOrCount(claim) {
		return out
	}
	header := tableHeader(before, span)
	if header == "" || !strings.Contains(header, "(") && !strings.Contains(strings.ToLower(header), "unit") {
		return out
	}
	units := columnCells(header)
	unitCol := -1 // a column of units, a row's own ("| Test | Units | Male | Female |")
	for j, u := range units {
		if h := strings.ToLower(strings.TrimSpace(u)); h == "units" || h == "unit" || h == "uom" {
			unitCol = j
		}
		units[j] = ""
		if i := strings.LastIndexByte(u, '('); i >= 0 && strings.HasSuffix(strings.TrimSpace(u), ")") {
			units[j] = strings.TrimSuffix(strings.TrimSpace(u[i+1:]), ")")
		}
	}
	// A quote may start inside a row: its cells count from the row's start,
	// which the text before the span holds; only the span's cells are read.
	prefix := before[strings.LastIndexByte(before, '\n')+1:]
	for rest, first := span, true; rest != ""; first = false {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		skip := 0
		if first && strings.HasPrefix(strings.TrimSpace(prefix), "|") {
			line, skip = prefix+line, len(prefix)
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "|") || separatorLine(line) || line == header {
			continue
		}
		at := strings.IndexByte(line, '|') + 1
		cells := columnCells(line)
		rowUnit := ""
		if unitCol >= 0 && unitCol < len(cells) {
			rowUnit = strings.TrimSpace(cells[unitCol])
		}
		for j, cell := range cells {
			cellAt := at
			at += len(cell) + 1
			u := rowUnit
			if j < len(units) && units[j] != "" {
				u = units[j]
			}
			if u == "" || j == unitCol || cellAt < skip {
				continue
			}
			for _, v := range cellNumbers(strings.TrimSpace(cell)) {
				if f := Figures(v + " " + u); len(f) == 1 && (isMeasure(f[0].Kind) || strings.HasPrefix(f[0].Kind, "count:")) {
					out = append(out, Figure{Kind: f[0].Kind, Value: f[0].Value, Text: v})
				}
			}
		}
	}
	return out
}

// cellNumbers returns a cell's number, or the two ends of its range
// ("130–175", "3.5-5.2"), or nothing for any other cell.
func cellNumbers(v string) []string {
	isNum := func(x string) bool { return x != "" && strings.Trim(x, "0123456789.,") == "" }
	if isNum(v) {
		return []string{v}
	}
	for _, sep := range [...]string{"–", "-", " to "} {
		if a, b, ok := strings.Cut(v, sep); ok && isNum(strings.TrimSpace(a)) && isNum(strings.TrimSpace(b)) {
			return []string{strings.TrimSpace(a), strings.TrimSpace(b)}
		}
	}
	return nil
}

// holdsMeasureOrCount reports whether figs hold a measure or a count.
func holdsMeasureOrCount(figs []Figure) bool {
	for _, f := range figs {
		if isMeasure(f.Kind) || strings.HasPrefix(f.Kind, "count:") {
			return true
		}
	}
	return false
}

// tableHeader is the last table header row (a row followed by its
// separator line) in the span, or else in the text before it, or "".
func tableHeader(before, span string) string {
	for _, text := range [2]string{span, before} {
		h := ""
		for rest := text; rest != ""; {
			line, next, _ := strings.Cut(rest, "\n")
			rest = next
			if strings.HasPrefix(strings.TrimSpace(line), "|") && separatorLine(next) && !separatorLine(line) {
				h = line
			}
		}
		if h != "" {
			return h
		}
	}
	return ""
}

// separatorLine reports whether the first line of s is a table's header
// separator ("|---|:--|"), not a row cut short ("| ").
func separatorLine(s string) bool {
	line, _, _ := strings.Cut(s, "\n")
	return strings.Contains(line, "-") && headerRow(line)
}

// columnCells splits a table row into its cells, the outer bars dropped.
func columnCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	return strings.Split(row, "|")
}

// appendRateSpreads adds, for a claim that states percentage points, the
// percentage points a percent of the evidence states as a spread over a
// rate: "2.000% above or below the Initial Rate", "1.5% over the Index"
// move a rate by points, not by a share of it.
func appendRateSpreads(out []Figure, start int, span string, claim []Figure) []Figure {
	if !holdsKind(claim, "percentage_point") {
		return out
	}
	pos := 0
	for k, n := start, len(out); k < n; k++ {
		f := out[k]
		at := strings.Index(span[pos:], f.Text)
		if at < 0 {
			continue
		}
		end := pos + at + len(f.Text)
		pos = end
		if f.Kind == "percent" && spreadOverRate(span[end:]) {
			out = append(out, Figure{Kind: "percentage_point", Value: f.Value, Text: f.Text})
		}
	}
	return out
}

// spreadOverRate reports whether s starts with "above", "below", "over" or
// "under" (or "above or below") and names a rate within six words after.
func spreadOverRate(s string) bool {
	words := strings.Fields(strings.ToLower(s[:min(len(s), 96)]))
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "above", "below", "over", "under":
	default:
		return false
	}
	for _, w := range words[1:min(len(words), 7)] {
		switch strings.Trim(w, ".,;:()\"'") {
		case "rate", "index", "margin", "yield", "sofr", "libor", "euribor", "prime", "coupon":
			return true
		}
	}
	return false
}

// appendPercentCells adds, for a claim that states a percentage, the
// percentage each bare number of a table row states when the table's
// header marks its columns as percentages ("| Reaction | Dose 1 (%) |
// Placebo (%) |" over "| Chills | 9.3 | 44.8 | 5.7 |": 9.3 is 9.3%).
func appendPercentCells(out []Figure, start int, span, before string, claim []Figure) []Figure {
	if !holdsKind(claim, "percent") || !strings.Contains(span, "|") || !percentHeader(before, span) {
		return out
	}
	for k, n := start, len(out); k < n; k++ {
		if f := out[k]; bare(f) && strings.Contains(span, "| "+f.Text) {
			out = append(out, Figure{Kind: "percent", Value: f.Value, Text: f.Text})
		}
	}
	return out
}

func holdsKind(figs []Figure, kind string) bool {
	for _, f := range figs {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// percentHeader reports whether a table header row before or in the span
// (a row followed by its separator line) holds "%".
func percentHeader(before, span string) bool {
	for _, text := range [2]string{before, span} {
		for rest := text; rest != ""; {
			line, next, _ := strings.Cut(rest, "\n")
			rest = next
			if strings.HasPrefix(strings.TrimSpace(line), "|") && (strings.Contains(line, "%") || strings.Contains(line, "per cent") ||
				strings.Contains(line, "percent")) && headerRow(next) {
				return true
			}
		}
	}
	return false
}

// appendScales is the rest of appendEvidenceFigures, once the span's
// figures are out[start:].
func appendScales(out []Figure, start int, span, before string, claim []Figure) []Figure {
	if !holdsAmount(claim) && !holdsScaledNumber(claim) || !holdsBare(out[start:]) && !(holdsAmount(out[start:]) && scaleWordIn(before, span)) {
		return out
	}
	cur, inForce := lastScale(before)
	next, found := nextScale(span, 0)
	if !inForce && !found {
		if cur, inForce = impliedScale(out[start:]); !inForce {
			return appendHeaderCurrency(out, start, span, before)
		}
	}
	out = out[:start]
	pos := 0
	for found {
		out = appendScaled(out, span[pos:next.start], cur, inForce)
		cur, inForce, pos = next, true, next.end // the statement's own text is no figure
		next, found = nextScale(span, pos)
	}
	return appendScaled(out, span[pos:], cur, inForce)
}

// appendScaled appends the figures of s and, under a scale, the amount
// each bare number states.
func appendScaled(out []Figure, s string, sc unitScale, inForce bool) []Figure {
	start := len(out)
	out = appendFigures(out, s)
	if !inForce {
		return out
	}
	pos := 0
	for k, n := start, len(out); k < n; k++ {
		f := out[k]
		row := ""
		if at := strings.Index(s[pos:], f.Text); at >= 0 {
			row, pos = lineAt(s, pos+at), pos+at+len(f.Text)
		}
		switch {
		case bare(f) && perShareRow(row):
			// "| Diluted EPS | 0.94 |" under "USD thousands, except
			// per-share data": dollars a share, as written.
			out = append(out, Figure{Kind: "amount:" + sc.currency, Value: f.Value, Text: f.Text})
		case bare(f):
			out = append(out, Figure{Kind: "amount:" + sc.currency, Value: scaleSigned(f.Value, sc.exp), Text: f.Text})
			if exp := rowScale(row); exp > 0 {
				// "| Diluted shares outstanding (thousands) | 52,500 |":
				// 52.5 million shares, no amount.
				out = append(out, Figure{Kind: "number", Value: scaleSigned(f.Value, exp), Text: f.Text})
			}
		case unscaledAmount(f, sc):
			// "$9,300,200" in a table "(dollars in thousands)" is $9.3
			// billion: the sign says dollars, the statement how many. The
			// cell as written stays too (a claim may copy it), but it has
			// a scaled twin now, and roundedIn reads the twin.
			out = append(out, Figure{Kind: f.Kind, Value: scaleSigned(f.Value, sc.exp), Text: f.Text})
		}
	}
	return out
}

// impliedScale returns the scale a span's own words give its table when no
// statement does: a bare number that is, in thousands, millions or
// billions, an amount the span writes out ("RWAs increased … to GBP 128.6
// billion" over "| Total RWAs | 128,600 |" is a table in GBP millions).
func impliedScale(figs []Figure) (unitScale, bool) {
	for _, a := range figs {
		sc := scaleWordOf(a.Text)
		if !strings.HasPrefix(a.Kind, "amount:") || sc == 0 {
			continue
		}
		for _, b := range figs {
			if !bare(b) {
				continue
			}
			for _, exp := range [...]int{3, 6, 9} {
				if exp <= sc && scaleSigned(b.Value, exp) == a.Value {
					return unitScale{currency: strings.TrimPrefix(a.Kind, "amount:"), exp: exp, start: -1, end: -1}, true
				}
			}
		}
	}
	return unitScale{}, false
}

// appendHeaderCurrency adds, for a table whose header row names a currency
// ("| Amount (GBP) |", "| Limit any one loss (USD) |"), the amount each bare
// number of the span states in it.
func appendHeaderCurrency(out []Figure, start int, span, before string) []Figure {
	cur := headerCurrency(before, span)
	if cur == "" {
		return out
	}
	for k, n := start, len(out); k < n; k++ {
		if f := out[k]; bare(f) && strings.Contains(span, "| "+f.Text) {
			out = append(out, Figure{Kind: "amount:" + cur, Value: f.Value, Text: f.Text})
		}
	}
	return out
}

// headerCurrency is the currency code a table header row before or in the
// span names in parentheses ("(GBP)"), or "".
func headerCurrency(before, span string) string {
	for _, text := range [2]string{before, span} {
		for rest := text; rest != ""; {
			line, next, _ := strings.Cut(rest, "\n")
			rest = next
			if !strings.HasPrefix(strings.TrimSpace(line), "|") || !headerRow(next) {
				continue
			}
			for i := strings.IndexByte(line, '('); i >= 0 && i+4 < len(line); {
				if line[i+4] == ')' && currencyCodes[line[i+1:i+4]] {
					return line[i+1 : i+4]
				}
				j := strings.IndexByte(line[i+1:], '(')
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
	}
	return ""
}

// holdsScaledNumber reports whether figs hold a number written with a
// scale word ("52.5 million" shares).
func holdsScaledNumber(figs []Figure) bool {
	for _, f := range figs {
		if f.Kind == "number" && scaleWordOf(f.Text) > 0 {
			return true
		}
	}
	return false
}

// lineAt returns the line of s that holds byte i.
func lineAt(s string, i int) string {
	from := strings.LastIndexByte(s[:i], '\n') + 1
	to := strings.IndexByte(s[i:], '\n')
	if to < 0 {
		return s[from:]
	}
	return s[from : i+to]
}

// rowLabel is the first cell of a table row, lower case, or "".
func rowLabel(row string) string {
	row = strings.TrimSpace(row)
	if !strings.HasPrefix(row, "|") {
		return ""
	}
	label, _, _ := strings.Cut(row[1:], "|")
	return strings.ToLower(label)
}

// perShareRow reports whether a table row's label is a figure per share
// (EPS, dividends per share), which a table's scale does not scale.
func perShareRow(row string) bool {
	l := rowLabel(row)
	if strings.Contains(l, "per share") || strings.Contains(l, "per-share") || strings.Contains(l, "per common share") {
		return true
	}
	for _, w := range strings.FieldsFunc(l, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if w == "eps" {
			return true
		}
	}
	return false
}

// rowScale is the power of ten a table row's label states for its own
// cells ("Diluted shares outstanding (thousands)"), or 0.
func rowScale(row string) int {
	l := rowLabel(row)
	switch {
	case strings.Contains(l, "(thousands)") || strings.Contains(l, "(in thousands)"):
		return 3
	case strings.Contains(l, "(millions)") || strings.Contains(l, "(in millions)"):
		return 6
	}
	return 0
}

// scaleWordIn reports whether either text holds a scale word written out
// ("(dollars in thousands)", "in millions of euros"): only then can an
// amount with a currency sign of its own be scaled, and the statement scan
// is not run for the amounts of every other span.
func scaleWordIn(before, span string) bool {
	for _, w := range [...]string{"housand", "illion"} {
		if strings.Contains(span, w) || strings.Contains(before, w) {
			return true
		}
	}
	return false
}

// unscaledAmount reports whether f is an amount in the statement's
// currency written without a scale word of its own ("$9,300,200", not
// "$9.3 billion").
func unscaledAmount(f Figure, sc unitScale) bool {
	return f.Kind == "amount:"+sc.currency && scaleWordOf(f.Text) == 0 && !f.Reference
}

func holdsAmount(figs []Figure) bool {
	for _, f := range figs {
		if strings.HasPrefix(f.Kind, "amount:") {
			return true
		}
	}
	return false
}

func holdsBare(figs []Figure) bool {
	for _, f := range figs {
		if bare(f) {
			return true
		}
	}
	return false
}

// bare reports whether a figure is a number written with nothing around
// it: no currency, unit, scale word or reference ("Note 12", "Clause
// 4"). A four-digit 19xx or 20xx is a year unless written with a
// thousands separator ("2,024").
func bare(f Figure) bool {
	switch {
	case f.Reference:
		return false
	case f.Kind == "year":
		return strings.ContainsAny(f.Text, ", \u00a0\u202f")
	case f.Kind != "number":
		return false
	}
	for i := 0; i < len(f.Text); {
		r, size := utf8.DecodeRuneInString(f.Text[i:])
		if !isDigit(r) && r != '.' && r != ',' && r != ' ' && r != '-' && r != '\u2212' && r != '\u2013' && r != '\u00a0' && r != '\u202f' {
			return false
		}
		i += size
	}
	return true
}

// scaleSigned is scale for a value that may be negative.
func scaleSigned(v string, exp int) string {
	if strings.HasPrefix(v, "-") {
		return "-" + scale(v[1:], exp)
	}
	return scale(v, exp)
}

// lastScale returns the last scale statement in s.
func lastScale(s string) (unitScale, bool) {
	var last unitScale
	found := false
	for sc, ok := nextScale(s, 0); ok; sc, ok = nextScale(s, sc.end) {
		last, found = sc, true
	}
	return last, found
}

// scaleWords are the powers of ten a statement names after its currency.
var scaleWords = map[string]int{"thousand": 3, "thousands": 3, "k": 3, "million": 6, "millions": 6, "m": 6, "mn": 6,
	"mio": 6, "mln": 6, "billion": 9, "billions": 9, "bn": 9}

// nextScale finds the first scale statement in s at or after from: a
// currency (a code, a sign, a word) and a scale, in one of the forms
// "EUR thousands", "€m", "€000", "€'000", "$ in millions", "thousands of
// euros", "millions of US dollars", "millions of EUR". It must stand as a
// statement: after "(", the word "in" or the start of a line or table cell,
// and not before a number ("EUR m 12" is no heading, "EUR 5 million" an
// amount).
func nextScale(s string, from int) (unitScale, bool) {
	for i := from; i < len(s); {
		cur, a, b := currencyAt(s, i)
		if cur == "" {
			i++
			continue
		}
		if exp, end, ok := scaleAfter(s, b); ok && statementBefore(s, a) && !numberAfter(s, end) {
			return unitScale{currency: cur, exp: exp, start: a, end: end}, true
		}
		if exp, start, ok := scaleOfBefore(s, a); ok && statementBefore(s, start) && !numberAfter(s, b) {
			return unitScale{currency: cur, exp: exp, start: start, end: b}, true
		}
		i = b
	}
	return unitScale{}, false
}

// currencyAt reads a currency at i: a code, a sign, or a currency word;
// it returns the code and the token's bounds, or "".
func currencyAt(s string, i int) (string, int, int) {
	c := s[i]
	switch {
	case isUpper(rune(c)) && wordStart(s, i) && i+3 <= len(s) && currencyCodes[s[i:i+3]] && (i+3 == len(s) || !isWordByte(s[i+3]) || s[i+3] == 'm' || s[i+3] == 'k'):
		return s[i : i+3], i, i + 3 // "EUR", "EURm"
	case c == '$':
		if i >= 2 && s[i-2:i] == "US" && wordStart(s, i-2) {
			return "USD", i - 2, i + 1 // "(US$m)"
		}
		return "USD", i, i + 1
	case c >= utf8.RuneSelf:
		r, size := utf8.DecodeRuneInString(s[i:])
		if code := currencySymbol(r); code != "" {
			return code, i, i + size
		}
	case 'a' <= c && c <= 'z' && wordStart(s, i):
		w, end := wordAt(s, i)
		if code := currencyWords[w]; code != "" {
			return code, i, end
		}
	}
	return "", i, i + 1
}

// scaleAfter reads the scale after a currency ending at i: "m", " m",
// " millions", " in millions", "000", "'000", " '000".
func scaleAfter(s string, i int) (int, int, bool) {
	j := skipSpaces(s, i)
	if w, e := wordAt(s, j); w == "in" && j > i {
		j = skipSpaces(s, e)
	}
	k := j
	if strings.HasPrefix(s[k:], "'") {
		k++
	} else if strings.HasPrefix(s[k:], "’") {
		k += len("’")
	}
	if strings.HasPrefix(s[k:], "000") && !(k+3 < len(s) && isWordByte(s[k+3])) {
		return 3, k + 3, true
	}
	if k != j {
		return 0, 0, false // an apostrophe only before 000
	}
	w, e := wordAt(s, k)
	if exp, ok := scaleWords[strings.ToLower(w)]; ok {
		return exp, e, true
	}
	return 0, 0, false
}

// scaleOfBefore reads "thousands of " or "millions of US " before a
// currency at i and returns where the scale word starts.
func scaleOfBefore(s string, i int) (int, int, bool) {
	j := i
	if strings.HasSuffix(s[:j], "US ") {
		j -= len("US ")
	}
	if !strings.HasSuffix(s[:j], " of ") {
		return 0, 0, false
	}
	j -= len(" of ")
	k := j
	for k > 0 && j-k < len("thousands") && 'a' <= s[k-1]|0x20 && s[k-1]|0x20 <= 'z' {
		k--
	}
	exp, ok := scaleWords[strings.ToLower(s[k:j])]
	if !ok || j-k < len("million") || k > 0 && isWordByte(s[k-1]) { // words only: "m of EUR" is no statement
		return 0, 0, false
	}
	return exp, k, true
}

// statementBefore reports whether a statement may start at i: at the start
// of the text, a line or a table cell, after "(", or after the word "in"
// ("amounts in EUR million", "in thousands of euros").
func statementBefore(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j == 0 {
		return true
	}
	switch s[j-1] {
	case '\n', '|', '\t', '(', '[':
		return true
	}
	return j != i && j >= 2 && strings.EqualFold(s[j-2:j], "in") && (j == 2 || !isWordByte(s[j-3]))
}

// numberAfter reports whether a digit follows at i, past spaces: then the
// currency and scale belong to an amount or a row, not a heading.
func numberAfter(s string, i int) bool {
	j := skipSpaces(s, i)
	return j < len(s) && isDigit(rune(s[j]))
}

// spanContradicts checks, by docs/contract.md#figures, the claim's figures that its
// loosely matched quote states too against the span the quote matched: the
// citation says it shows them, and the span shows another figure of the
// same kind. It returns those absent from the span, and whether one is
// contradicted. A claim figure the quote does not state may stand in
// another citation of the claim, so it is left to the claim's check on all
// its evidence. Only on the failure path of an altered quote.
func spanContradicts(claim string, quote []Figure, span, before string) ([]Figure, bool) {
	var cf []Figure
	for _, f := range Figures(claim) {
		if hasFigure(quote, f) {
			cf = append(cf, f)
		}
	}
	if len(cf) == 0 {
		return nil, false
	}
	return checkFigures(cf, appendEvidenceFigures(nil, span, before, cf))
}

// appendNewFigures appends the figures of add not already in out.
func appendNewFigures(out, add []Figure) []Figure {
	for _, f := range add {
		if !hasFigure(out, f) {
			out = append(out, f)
		}
	}
	return out
}
