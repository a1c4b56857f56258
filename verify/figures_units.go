package verify

import (
	"math"
	"strconv"
	"strings"
)

// A unit of measure after a number makes it a measure in that unit,
// kind "measure:<unit>" (a length, a size of data, a type size), where a
// word after a number would otherwise be a counted noun that any count
// of the same value finds: "12 mm" citing "12pt" counted millimetres
// where the passage counts points, and passed. A measure is found by the
// same value in the same unit, or by the same quantity in another unit
// of its dimension ("1 in" citing "72.27pt", "2.54 cm" citing "1 inch"),
// within roundingTolerance; a measure of the same unit with another value
// contradicts it, as for durations (DESIGN: a figure of the same unit).
// Durations convert the same way: seconds to weeks, months to years.
type unitOfMeasure struct {
	name string  // canonical, the kind's suffix
	dim  string  // units of one dimension convert into each other
	per  float64 // the unit in its dimension's base unit; 0 converts to nothing
	// glued: read only when written onto the number ("8.5in"), since the
	// word alone is English ("5 in the list").
	glued bool
}

// measureWords are the units by the word as written in lower case;
// caseUnits are read in the case they are written ("MB" and "Mb" differ).
var measureWords, caseUnits = unitTables()

func unitTables() (measureWords, caseUnits map[string]unitOfMeasure) {
	measureWords, caseUnits = map[string]unitOfMeasure{}, map[string]unitOfMeasure{}
	add := func(m map[string]unitOfMeasure, u unitOfMeasure, words ...string) {
		for _, w := range words {
			m[w] = u
		}
	}
	mm := func(name string, per float64) unitOfMeasure {
		return unitOfMeasure{name: name, dim: "length", per: per}
	}
	add(measureWords, mm("mm", 1), "mm", "millimetre", "millimetres", "millimeter", "millimeters")
	add(measureWords, mm("cm", 10), "cm", "centimetre", "centimetres", "centimeter", "centimeters")
	add(measureWords, mm("m", 1000), "metre", "metres", "meter", "meters")
	add(measureWords, mm("km", 1e6), "km", "kilometre", "kilometres", "kilometer", "kilometers")
	add(measureWords, mm("in", 25.4), "inch", "inches")
	add(measureWords, unitOfMeasure{name: "in", dim: "length", per: 25.4, glued: true}, "in")
	// TeX's point; "points" in words are as often percentage points
	// ("currency added 0.6 points") or a score, so only the symbol.
	add(measureWords, mm("pt", 25.4/72.27), "pt", "pts")
	add(measureWords, mm("ft", 304.8), "ft", "foot", "feet")
	add(measureWords, mm("yd", 914.4), "yd", "yds", "yard", "yards")
	add(measureWords, mm("rod", 5029.2), "rod", "rods")
	add(measureWords, mm("mi", 1609344), "mile", "miles")
	// Relative to a font or a screen: units of their own.
	add(measureWords, unitOfMeasure{name: "em", dim: "em"}, "em", "ems")
	add(measureWords, unitOfMeasure{name: "ex", dim: "ex"}, "ex")
	add(measureWords, unitOfMeasure{name: "px", dim: "px"}, "px", "pixel", "pixels")
	b := func(name string, per float64) unitOfMeasure { return unitOfMeasure{name: name, dim: "data", per: per} }
	add(measureWords, b("byte", 1), "byte", "bytes")
	add(measureWords, b("bit", 0.125), "bit", "bits")
	// A kilobyte is 1,000 or 1,024 bytes as the writer means it: the
	// two are one unit here, so "5 MB" for "5 MiB" holds.
	add(measureWords, b("KiB", 1<<10), "kilobyte", "kilobytes", "kibibyte", "kibibytes")
	add(measureWords, b("MiB", 1<<20), "megabyte", "megabytes", "mebibyte", "mebibytes")
	add(measureWords, b("GiB", 1<<30), "gigabyte", "gigabytes", "gibibyte", "gibibytes")
	add(measureWords, b("TiB", 1<<40), "terabyte", "terabytes", "tebibyte", "tebibytes")
	add(caseUnits, b("KiB", 1<<10), "KB", "kB", "KiB")
	add(caseUnits, b("MiB", 1<<20), "MB", "MiB")
	add(caseUnits, b("GiB", 1<<30), "GB", "GiB")
	add(caseUnits, b("TiB", 1<<40), "TB", "TiB")
	// Mass and volume, as doses and labels write them.
	g := func(name string, per float64) unitOfMeasure { return unitOfMeasure{name: name, dim: "mass", per: per} }
	add(measureWords, g("mg", 1), "mg", "milligram", "milligrams")
	add(measureWords, g("g", 1000), "gram", "grams")
	add(caseUnits, g("g", 1000), "g") // "4.5 g IV", "a maximum of 2 g"; "G" is no gram
	add(measureWords, g("kg", 1e6), "kg", "kilogram", "kilograms")
	add(measureWords, g("mcg", 1e-3), "mcg", "µg", "μg", "microgram", "micrograms")
	add(measureWords, g("lb", 453592.37), "lb", "lbs", "pound", "pounds")
	v := func(name string, per float64) unitOfMeasure {
		return unitOfMeasure{name: name, dim: "volume", per: per}
	}
	add(caseUnits, v("mL", 1), "mL", "ml")
	add(measureWords, v("mL", 1), "milliliter", "milliliters", "millilitre", "millilitres")
	add(measureWords, v("L", 1000), "liter", "liters", "litre", "litres")
	// Power and energy.
	w := func(name string, per float64, dim string) unitOfMeasure {
		return unitOfMeasure{name: name, dim: dim, per: per}
	}
	add(caseUnits, w("kW", 1e3, "power"), "kW")
	add(caseUnits, w("MW", 1e6, "power"), "MW")
	add(caseUnits, w("GW", 1e9, "power"), "GW")
	add(caseUnits, w("kWh", 1e3, "energy"), "kWh")
	add(caseUnits, w("MWh", 1e6, "energy"), "MWh")
	add(caseUnits, w("GWh", 1e9, "energy"), "GWh")
	return measureWords, caseUnits
}

// perWord reads " per day" (or week, month, year, hour, minute, dose, kg)
// after a unit: a rate written in words, as "mg/day" writes it.
func perWord(s string, i int) (string, int) {
	k := skipSpaces(s, i)
	if k == i {
		return "", i
	}
	var w string
	var e int
	switch {
	case strings.HasPrefix(s[k:], "per "):
		w, e = wordAt(s, k+len("per "))
	case strings.HasPrefix(s[k:], "a "), strings.HasPrefix(s[k:], "an "), strings.HasPrefix(s[k:], "each "), strings.HasPrefix(s[k:], "every "):
		// "1,500 mg a day", "2 g every day": per day, in other words.
		w, e = wordAt(s, skipSpaces(s, strings.IndexByte(s[k:], ' ')+k))
		if lw := strings.ToLower(w); lw != "day" && lw != "week" && lw != "month" && lw != "year" && lw != "hour" && lw != "minute" {
			return "", i
		}
	default:
		return "", i
	}
	switch lw := strings.ToLower(w); lw {
	case "day", "week", "month", "year", "hour", "minute", "dose", "kg", "kilogram":
		return lw, e
	}
	return "", i // "600 km per trip": a limit per trip, read as km
}

// perUnit returns the unit a rate divides by when s holds "/unit" at i
// ("mg/kg", "mg/m2", "mL/min"): the measure is then a rate, a unit of its
// own, which no amount of the plain unit holds.
func perUnit(s string, i int) (string, int) {
	if i >= len(s) || s[i] != '/' {
		return "", i
	}
	j := i + 1
	for j < len(s) && (isWordByte(s[j]) && s[j] != '_') {
		j++
	}
	if j == i+1 || j-i > 8 {
		return "", i
	}
	return s[i+1 : j], j
}

// unitAfter returns the unit of measure of word, written right after a
// number (glued) or after a space.
func unitAfter(word string, glued bool) (unitOfMeasure, bool) {
	u, ok := caseUnits[word]
	if !ok {
		u, ok = measureWords[strings.ToLower(word)]
	}
	if !ok || u.glued && !glued {
		return unitOfMeasure{}, false
	}
	return u, true
}

// durationSize is a duration unit in its dimension's base unit: seconds
// for the units a clock measures, months for those a calendar does (a
// month has no fixed number of days, nor a year of weeks).
var durationSize = map[string]struct {
	dim string
	per float64
}{
	"nanosecond": {"clock", 1e-9}, "microsecond": {"clock", 1e-6}, "millisecond": {"clock", 1e-3},
	"second": {"clock", 1}, "minute": {"clock", 60}, "hour": {"clock", 3600}, "day": {"clock", 86400},
	"week":  {"clock", 7 * 86400},
	"month": {"calendar", 1}, "quarter": {"calendar", 3}, "year": {"calendar", 12},
}

// roundingTolerance is how far a converted measure may be from the
// evidence's and still be the same: "1 in" for "72pt" is 0.4% off, a
// writer's rounding; a changed unit is off by a factor.
const roundingTolerance = 0.02

// sizeOf returns a figure's dimension and its value in the dimension's
// base unit, when it is a measure or duration that converts.
func sizeOf(f Figure) (dim string, v float64, ok bool) {
	var per float64
	switch kind, unit, _ := strings.Cut(f.Kind, ":"); kind {
	case "measure":
		u, found := unitByName[unit]
		if !found || u.per == 0 {
			return "", 0, false
		}
		dim, per = u.dim, u.per
	case "duration":
		d, found := durationSize[unit]
		if !found {
			return "", 0, false
		}
		dim, per = d.dim, d.per
	default:
		return "", 0, false
	}
	x, err := strconv.ParseFloat(f.Value, 64)
	if err != nil {
		return "", 0, false
	}
	return dim, x * per, true
}

// unitByName is every unit by its canonical name.
var unitByName = func() map[string]unitOfMeasure {
	m := map[string]unitOfMeasure{}
	for _, t := range []map[string]unitOfMeasure{measureWords, caseUnits} {
		for _, u := range t {
			m[u.name] = u
		}
	}
	return m
}()

// convertedIn reports whether the evidence holds the claim's measure or
// duration in another unit of its dimension: the same quantity, within
// roundingTolerance.
func convertedIn(f Figure, evidence []Figure) bool {
	dim, v, ok := sizeOf(f)
	if !ok {
		return false
	}
	for _, e := range evidence {
		if e.Kind == f.Kind {
			continue // the same unit: its value was compared as written
		}
		if d, w, ok := sizeOf(e); ok && d == dim && math.Abs(v-w) <= roundingTolerance*math.Max(math.Abs(v), math.Abs(w)) {
			return true
		}
	}
	return false
}

// isMeasure reports whether a figure kind is a measure in a unit.
func isMeasure(kind string) bool { return strings.HasPrefix(kind, "measure:") }

// unitOK reports whether word is a unit of measure after a number.
func unitOK(word string, glued bool) bool {
	_, ok := unitAfter(word, glued)
	return ok
}

// sameDimension reports whether two figures are measures of one
// dimension ("sixty yards", "sixty rods"): a number word is judged
// against either.
func sameDimension(a, b Figure) bool {
	ua, ok := unitByName[strings.TrimPrefix(a.Kind, "measure:")]
	if !ok || !isMeasure(a.Kind) || !isMeasure(b.Kind) {
		return false
	}
	ub, ok := unitByName[strings.TrimPrefix(b.Kind, "measure:")]
	return ok && ua.dim == ub.dim
}

// denominator reports whether the number at i is a fraction's ("1/72
// inch"): the unit is the fraction's, and 72 measures nothing.
func denominator(s string, i int) bool {
	return i >= 2 && s[i-1] == '/' && isDigit(rune(s[i-2]))
}

// unitOfNumber reports whether w, at byte i of s, is a unit of measure
// written in capitals after a number ("5 MB"): the figures check judges
// it with its number, and it names nothing.
func unitOfNumber(s string, i int, w string) bool {
	if _, ok := caseUnits[w]; !ok {
		return false
	}
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	return j > 0 && isDigit(rune(s[j-1]))
}

// rangeScales gives the first number of a range of amounts the scale the
// range states once, at its end: "$4.95-$5.01 billion" is $4.95 billion
// to $5.01 billion, not $4.95 to $5.01 billion; and the second the
// currency it states once, at its start ("USD 1.58 to 1.64 billion").
func rangeScales(figs []Figure, s string) {
	pos := 0
	prevEnd, prevStart := -1, 0
	for i := range figs {
		at := strings.Index(s[pos:], figs[i].Text)
		if at < 0 {
			return
		}
		start := pos + at
		pos = start + len(figs[i].Text)
		aStart := prevStart
		prevStart = start
		if i > 0 && prevEnd >= 0 && boundedRangeJoin(s[prevEnd:start]) {
			a, b := &figs[i-1], &figs[i]
			if a.Kind == "number" && !a.Reference && (strings.HasPrefix(b.Kind, "duration:") || strings.HasPrefix(b.Kind, "measure:") ||
				b.Kind == "percent") && !yearLike(a.Value) && lessValue(a.Value, b.Value) {
				a.Kind = b.Kind // "5 to less than 10 years": years at both ends
			}
			if a.Kind == b.Kind && (a.Kind != "number" || !a.Reference && !b.Reference) && !byBefore(s[:aStart]) {
				a.RangeEnd = b.Value // not "increased by GBP 3.7 billion to GBP 128.6 billion": a change
			}
		}
		if i > 0 && prevEnd >= 0 && rangeJoin(s[prevEnd:start]) {
			a, b := &figs[i-1], &figs[i]
			if strings.HasPrefix(a.Kind, "amount:") && b.Kind == "number" && !b.Reference {
				b.Kind = a.Kind // "USD 395-415 million", "USD 1.18-1.28": the currency is stated once, first
			}
			if a.Kind == b.Kind && strings.HasPrefix(a.Kind, "amount:") {
				if sc := scaleWordOf(b.Text); sc > 0 && scaleWordOf(a.Text) == 0 {
					a.Value = scale(a.Value, sc)
				}
			}
		}
		prevEnd = pos
	}
}

// byBefore reports whether s ends with the word "by".
func byBefore(s string) bool {
	s = strings.TrimRight(s, " ")
	return strings.HasSuffix(s, " by") || s == "by"
}

// lessValue reports whether the number a is below the number b.
func lessValue(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x < y
}

// markClaimFigures marks the claim's figures a condition introduces or a
// fall states ("an employee with seven years", "slipped 1.0%"): read for
// a claim only, since only a claim's figure is judged by them.
func markClaimFigures(figs []Figure, s string) {
	pos := 0
	for i := range figs {
		at := strings.Index(s[pos:], figs[i].Text)
		if at < 0 {
			return
		}
		start := pos + at
		pos = start + len(figs[i].Text)
		figs[i].Condition = conditionBefore(s[:start])
		figs[i].Fall = fallBefore(s[:start])
	}
}

// boundedRangeJoin reports whether s joins the two ends of a range, the
// words of a band's bounds included: "5 to less than 10 years", "less than
// 99.5% but at least 99.0%".
func boundedRangeJoin(s string) bool {
	if rangeJoin(s) {
		return true
	}
	if len(s) > 24 {
		return false // most text between two figures: no join
	}
	s = strings.TrimSpace(s)
	for _, j := range [...]string{"to less than", "to under", "up to", "to below", "but less than", "but at least",
		"but not more than", "but not less than", "but under", "but below", "and less than", "and under"} {
		if strings.EqualFold(s, j) {
			return true
		}
	}
	return false
}

// conditionBefore reports whether a word of condition ("with", "if",
// "when", "where", "whenever", "having", "once") stands in the four words
// before the end of s, with no comma or other figure's digits between.
func conditionBefore(s string) bool {
	for n := 0; n < 4 && s != ""; n++ {
		s = strings.TrimRight(s, " ")
		k := len(s)
		for k > 0 && (isWordByte(s[k-1]) || s[k-1] == '-') {
			k--
		}
		w := s[k:]
		if w == "" || hasDigit(w) {
			return false
		}
		if len(w) >= 2 && len(w) <= 8 && strings.IndexByte("wiohWIOH", w[0]) >= 0 {
			for _, c := range [...]string{"with", "if", "when", "where", "whenever", "having", "once"} {
				if strings.EqualFold(w, c) {
					return true
				}
			}
		}
		s = s[:k]
	}
	return false
}

// fallBefore reports whether a word of decline ends s, or stands before a
// "by", "of", "it" or "them" that does ("slipped 1.0%", "fell by 2%", "a
// decrease of 3%", "reduced them by GBP 700 million").
func fallBefore(s string) bool {
	for n := 0; n < 3 && s != ""; n++ {
		s = strings.TrimRight(s, " ")
		k := len(s)
		for k > 0 && isWordByte(s[k-1]) {
			k--
		}
		w := s[k:]
		if w == "by" || w == "of" || w == "them" || w == "it" {
			s = s[:k]
			continue
		}
		return len(w) <= 10 && fallWords[w] // lower case, as changes are written mid-sentence
	}
	return false
}

// fallWords state a change as a fall.
var fallWords = map[string]bool{"fell": true, "fall": true, "falls": true, "fallen": true, "declined": true,
	"decline": true, "declines": true, "decreased": true, "decrease": true, "decreases": true, "dropped": true,
	"drop": true, "drops": true, "slipped": true, "slip": true, "slips": true, "down": true, "shrank": true,
	"contracted": true, "dipped": true, "eased": true, "reduced": true, "reduce": true, "reduces": true, "lowered": true,
	"lost": true, "deducted": true}

// rangeJoin reports whether s joins the two ends of a range.
func rangeJoin(s string) bool {
	switch strings.TrimSpace(s) {
	case "-", "–", "—", "to":
		return true
	}
	return false
}

// scaleWordOf is the power of ten of the scale word a figure's text ends
// in ("$5.01 billion": 9), or 0.
func scaleWordOf(text string) int {
	i := strings.LastIndexAny(text, " 0123456789")
	if i < 0 || i+1 >= len(text) {
		return 0
	}
	return scales[strings.ToLower(text[i+1:])]
}

// hasScaledTwin reports whether the evidence holds e scaled by a
// thousand, a million or a billion: e is a cell written under a unit scale
// statement, whose amount is the twin's (appendScaled).
func hasScaledTwin(e Figure, evidence []Figure) bool {
	for _, exp := range [...]int{3, 6, 9} {
		v := scaleSigned(e.Value, exp)
		for _, g := range evidence {
			if g.Kind == e.Kind && g.Value == v && g.Text == e.Text {
				return true
			}
		}
	}
	return false
}

// roundingShare is how far a rounded amount may be from the evidence's.
const roundingShare = 0.01

// roundedIn reports whether the evidence holds the claim's scaled amount
// unrounded: "$9.3 billion" is $9,300,200 thousand rounded to the tenth of
// a billion the claim writes, "$116.1 million" $116,109 thousand. Only an
// amount written with a scale word, to the precision its digits state.
func roundedIn(f Figure, evidence []Figure) bool {
	if !strings.HasPrefix(f.Kind, "amount:") && f.Kind != "number" {
		return false
	}
	sc := scaleWordOf(f.Text)
	if sc == 0 {
		return false
	}
	decimals := 0
	if i := strings.IndexByte(f.Text, '.'); i >= 0 {
		for k := i + 1; k < len(f.Text) && isDigit(rune(f.Text[k])); k++ {
			decimals++
		}
	}
	unit := math.Pow(10, float64(sc-decimals))
	v, err := strconv.ParseFloat(f.Value, 64)
	if err != nil {
		return false
	}
	for _, e := range evidence {
		if e.Kind != f.Kind || hasScaledTwin(e, evidence) {
			continue // a cell under a scale statement is read as its twin
		}
		// Rounded as the claim's digits say, and within roundingShare of
		// it: "EUR 13 million" is no rounding of a stated 12.5 million.
		w, err := strconv.ParseFloat(e.Value, 64)
		if err == nil && math.Abs(math.Round(w/unit)-v/unit) < 1e-6 && math.Abs(w-v) <= roundingShare*math.Abs(w) {
			return true
		}
	}
	return false
}

// appendCompoundDurations adds the sum of two clock durations written one
// after the other ("2 hours and 30 minutes" is 2.5 hours, "1 hour 15
// minutes" 1.25): a claim's "two and a half hours" is found in it. The
// parts stay figures of their own.
func appendCompoundDurations(figs []Figure, s string) []Figure {
	pos, prevStart, prevEnd, n := 0, -1, -1, len(figs)
	for i := 0; i < n; i++ {
		at := strings.Index(s[pos:], figs[i].Text)
		if at < 0 {
			return figs
		}
		start := pos + at
		pos = start + len(figs[i].Text)
		if i > 0 && prevEnd >= 0 {
			switch strings.TrimSpace(s[prevEnd:start]) {
			case "and", ",", "":
				if sum, ok := durationSum(figs[i-1], figs[i]); ok {
					sum.Text = s[prevStart:pos]
					figs = append(figs, sum)
				}
			}
		}
		prevStart, prevEnd = start, pos
	}
	return figs
}

// durationSum is a + b in a's unit, when both are clock durations and b's
// unit is the smaller.
func durationSum(a, b Figure) (Figure, bool) {
	da, va, ok1 := sizeOf(a)
	db, vb, ok2 := sizeOf(b)
	if !ok1 || !ok2 || da != "clock" || db != "clock" || !strings.HasPrefix(a.Kind, "duration:") || vb >= va {
		return Figure{}, false
	}
	per := durationSize[strings.TrimPrefix(a.Kind, "duration:")].per
	return Figure{Kind: a.Kind, Value: strconv.FormatFloat((va+vb)/per, 'f', -1, 64), Text: a.Text + " " + b.Text}, true
}

// perTimeHeld reports whether a claim's rate per unit of time ("10 mg per
// day") or per dose is found as its amount in the evidence ("10 mg once
// daily", "the maximum single dose is 1 g"): the evidence may state the
// period in words of its own. A rate per anything else ("6 mg/kg") is a
// unit of its own.
func perTimeHeld(f Figure, evidence []Figure) bool {
	unit, per, ok := strings.Cut(strings.TrimPrefix(f.Kind, "measure:"), "/")
	if !ok || !isMeasure(f.Kind) {
		return false
	}
	switch per {
	case "day", "week", "month", "year", "hour", "minute", "min", "h", "d", "dose":
	default:
		return false
	}
	for _, e := range evidence {
		if e.Kind == "measure:"+unit && e.Value == f.Value {
			return true
		}
	}
	return false
}
