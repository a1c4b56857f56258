package verify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFigures(t *testing.T) {
	tests := []struct {
		in   string
		want []string // kind=value
	}{
		{"Submit within 14 calendar days.", []string{"duration:day=14"}},
		{"within 10 business days", []string{"duration:business_day=10"}},
		{"a limit of 250,000,000 units", []string{"count:unit=250000000"}},
		{"a limit of 250 000 000 units", []string{"count:unit=250000000"}},
		{"3,25 and 3,5 and 3.25 and 3,250", []string{"number=3.25", "number=3.5", "number=3.25", "number=3250"}},
		{"not exceed 3.25 to 1.00", []string{"multiple=3.25"}},
		{"not exceed 3,25 to 1,00", []string{"multiple=3.25"}},
		{"3,25x and 3.5x and 3.25:1 and 13:4", []string{"multiple=3.25", "multiple=3.5", "multiple=3.25", "multiple=3.25"}},
		{"fell from 3.39% in 2023 to 3.21% in 2024", []string{"percent=3.39", "number=2023", "percent=3.21", "year=2024"}}, // no range of 2023 to 3.21%
		{"| 5 to less than 10 years | 23 days |", []string{"duration:year=5", "duration:year=10", "duration:day=23"}},
		{"model updates of GBP (1,100) million and", []string{"amount:GBP=1100000000"}}, // a deduction's size
		{"recoveries of 7.5%–11.0%", []string{"percent=7.5", "percent=11"}},             // a range, no minus
		{"from 2 to 5 days", []string{"duration:day=2", "duration:day=5"}},              // a range: the unit at its end is both ends
		{"EUR 2,500.01 and $1.2 million and 75 EUR and €3", []string{"amount:EUR=2500.01", "amount:USD=1200000", "amount:EUR=75", "amount:EUR=3"}},
		{"12.5% and 12,5 % and 7 percent", []string{"percent=12.5", "percent=12.5", "percent=7"}},
		{"on 2025-03-31, 31 March 2025, March 31, 2025 and March 2025", []string{"date=2025-03-31", "date=2025-03-31", "date=2025-03-31", "date=2025-03"}},
		{"see RAG-41 and FIN-07 in 2024", []string{"id=RAG-41", "id=FIN-07", "year=2024"}},
		{"a syndicate of 7 banks", []string{"count:bank=7"}},
		{"version 4.2", []string{"number=4.2"}},
		{"Zürich 8001, ☕ 2 cups", []string{"number=8001", "count:cup=2"}},
		{"a margin of -3.5%, −3.5%, (–3.5%) and\u00a0−3.5 %", []string{"percent=-3.5", "percent=-3.5", "percent=-3.5", "percent=-3.5"}},
		{"pages 10-12, 10–12 and 2023-2024", []string{"number=10", "number=12", "number=10", "number=12", "year=2023", "year=2024"}},
		{"EUR -2.5 million, -$3, $-4 and −€5", []string{"amount:EUR=-2500000", "amount:USD=-3", "amount:USD=-4", "amount:EUR=-5"}},
		{"v3.5, x86_64, FY2024 and Q3", []string{"year=2024"}}, // digits inside a word are no figure, nor is what follows their point, but "FY2024" is a year
		{"merge 846f34d351, 12kg and 50m2", []string{"measure:kg=12", "count:m=50"}},
		{"a change of -0 and - 3", []string{"number=0", "number=3"}},
		{"250 million euros, 5 US dollars and 3 francs", []string{"amount:EUR=250000000", "amount:USD=5", "amount:CHF=3"}},
		// Basis points are hundredths of a percentage point (and, marked
		// BasisPoints, equal a percent of that value too: sameKind).
		{"50 bps, 125 basis points and 5 bp", []string{"percentage_point=0.5", "percentage_point=1.25", "percentage_point=0.05"}},
		{"up 0.25 percentage points, 1 percentage point, 2 pp, 1.5 ppts and 3 %-points", []string{"percentage_point=0.25",
			"percentage_point=1", "percentage_point=2", "percentage_point=1.5", "percentage_point=3"}},
		{"3.25 times EBITDA and 4 times a year", []string{"multiple=3.25", "multiple=4"}},
		{"signed 28/06/2024, 06/28/2024, 28.06.2024; 1.5.2 and 3.25", []string{"date=2024-06-28", "date=2024-06-28", "date=2024-06-28", "number=1.5", "number=2", "number=3.25"}},
		// Day or month? No date, but its numbers: a claim holding it still needs them.
		{"on 06/05/2024", []string{"number=6", "number=5", "year=2024"}},
		{"EUR3.5m and USD250,000", []string{"amount:EUR=3500000", "amount:USD=250000"}},
		// Number words are figures only with a unit or a counted noun.
		{"for a minimum of two years (four Go releases)", []string{"duration:year=2", "count:release=4"}},
		{"There are two new dpkg status values; ten days, twenty-five business days, a two-year term",
			[]string{"count:new=2", "duration:day=10", "duration:business_day=25", "duration:year=2"}},
		{"within ten (10) Business Days, twenty\u00a0days, ten (12) days", []string{"duration:business_day=10", "duration:day=20",
			"number=12"}}, // other digits in the parenthesis: no figure of the word
		{"Three banks and five percent, twelve more months, three times EBITDA, seven dollars",
			[]string{"count:bank=3", "percent=5", "duration:month=12", "multiple=3", "amount:USD=7"}},
		// "one", "a", ordinals, names, idioms, determiners, fractions and
		// larger phrases are no figure; nor is a word number alone.
		{"one of the parties, no one else, one may argue, one party, a day, an hour, the first two", nil},
		{"Formula One, the Big Four, Section Two applies, two-factor auth, two or three, in two, seven.", nil},
		{"the two parties, both three, all three banks, two thirds of lenders, three quarters of the banks", nil},
		{"two hundred days, two dozen banks, twenty five days, two thousand users, often, tense, nineteenth", nil},
		{"two should apply, ten-fold, twofold, twenty-five-year, two hundred and five days", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Figures(tt.in) {
			got = append(got, f.Kind+"="+f.Value)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Figures(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzFigures: no empty figure; cut at any byte into a chunk's text before
// the span and the span, a stated unit scale yields only well-formed
// amounts, and without an amount in the claim the span reads as Figures.
func FuzzFigures(f *testing.F) {
	f.Add("EUR 2,500.01 on 2025-03-31 within 14 calendar days, 3,25 to 1,00, RAG-41, 12,5 %", uint(0))
	f.Add("Results (in EUR thousands)\n| | Note | 2024 |\n| Revenue | note 4 | 12,500 | -1,2 |\n(€'000) 7 in millions of US dollars\n3", uint(27))
	f.Add("Three banks, twenty-five business days, a two-year term, the two parties, six Go releases", uint(5))
	f.Add("$ in millions\nSales 3,200 up 25 bps, 0.5 pp; Clause 22.2.1 and § 4\nEUR m\t2,024", uint(14))
	claim := []Figure{{Kind: "amount:EUR", Value: "1"}}
	f.Fuzz(func(t *testing.T, s string, cut uint) {
		figs := Figures(s)
		for _, fig := range figs {
			if fig.Kind == "" || fig.Value == "" {
				t.Fatalf("empty figure %+v in %q", fig, s)
			}
			if fig.Spelled && !strings.Contains(s, fig.Text) {
				t.Fatalf("number word figure %+v is not text of %q", fig, s)
			}
		}

		before, span := s[:cut%uint(len(s)+1)], s[cut%uint(len(s)+1):]
		for _, fig := range appendEvidenceFigures(nil, span, before, claim) {
			if !wellFormed(fig) {
				t.Fatalf("figure %+v in %q after %q", fig, span, before)
			}
		}
		if diff := cmp.Diff(Figures(span), appendEvidenceFigures(nil, span, before, nil)); diff != "" {
			t.Fatalf("without an amount in the claim, %q after %q reads otherwise (-want +got):\n%s", span, before, diff)
		}
	})
}

// wellFormed reports whether a figure has a kind and a value, and an
// amount's value is a canonical decimal.
func wellFormed(f Figure) bool {
	if f.Kind == "" || f.Value == "" {
		return false
	}
	if !strings.HasPrefix(f.Kind, "amount:") {
		return true
	}
	i, frac, dot := strings.Cut(strings.TrimPrefix(f.Value, "-"), ".")
	return i != "" && strings.Trim(i, "0123456789") == "" && (i == "0" || i[0] != '0') &&
		(!dot || frac != "" && strings.Trim(frac, "0123456789") == "" && !strings.HasSuffix(frac, "0"))
}

func TestFigureMarks(t *testing.T) {
	tests := []struct {
		in   string
		want []string // kind=value plus /bp and /ref
	}{
		{"25 bps and 0.25 percentage points", []string{"percentage_point=0.25/bp", "percentage_point=0.25"}},
		{"Under Clause 22.2.1, see Section 4(b), Art. 5, § 7, §8 and note 12", []string{"number=22.2/ref", "number=1/ref",
			"number=4/ref", "number=5/ref", "number=7/ref", "number=8/ref", "number=12/ref"}},
		// Only a number right after the word names a clause; an amount never does.
		{"Clause EUR 5 million, clauses 3 and 4, subsection 9, counterpart 2", []string{"amount:EUR=5000000", "number=3/ref",
			"number=4", "number=9", "number=2"}},
		{"Clause 7 applies to 7 banks", []string{"number=7/ref", "count:bank=7"}},
		// "No." with its period numbers a thing; a bare "no" counts nothing.
		{"Amendment No. 1 reduced the fee; Nr. 4 applies; no 3 banks", []string{"number=1/ref", "number=4/ref", "count:bank=3"}},
		// A modifier between a number and its unit keeps the unit.
		{"for 12 more months and 3 further banks", []string{"duration:month=12", "count:bank=3"}},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range Figures(tt.in) {
			s := f.Kind + "=" + f.Value
			if f.BasisPoints {
				s += "/bp"
			}
			if f.Reference {
				s += "/ref"
			}
			got = append(got, s)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Figures(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestCheckFigures: claim against evidence by docs/contract.md#figures, through the
// evidence reader the verifier uses (unit scales included).
func TestCheckFigures(t *testing.T) {
	tests := []struct {
		name                string
		claim, span, before string
		missing             []string
		contradicted        bool
	}{
		{name: "bps are a percent", claim: "a margin of 0.25%", span: "a margin of 25 basis points"},
		{name: "bps are percentage points", claim: "up 0.25 percentage points", span: "up 25 bps"},
		{name: "a percent is a bps figure", claim: "a margin of 25 bps", span: "a margin of 0.25%"},
		{name: "bps contradict a percent", claim: "a margin of 0.30%", span: "a margin of 25 basis points",
			missing: []string{"percent=0.3"}, contradicted: true},
		{name: "pp are not a percent", claim: "the margin rose 0.25%", span: "the margin rose 0.25 percentage points",
			missing: []string{"percent=0.25"}},
		{name: "a percent is not pp", claim: "up 0.25 percentage points", span: "the margin is 0.25%",
			missing: []string{"percentage_point=0.25"}},
		{name: "pp contradict pp", claim: "up 0.5 pp", span: "up 0.25 percentage points",
			missing: []string{"percentage_point=0.5"}, contradicted: true},
		{name: "pp against a percent and pp", claim: "the margin, 2.5%, rose 0.25%", span: "the margin rose 0.25 pp to 2.5%",
			missing: []string{"percent=0.25"}},

		{name: "a power is no figure", claim: "exceeds 2^31 - 1 in absolute value", span: "exceeds 231 - 1 in absolute value"},
		{name: "a standard's number is no year", claim: "headers are encoded with RFC 2047, and", span: "uses RFC 2047 encoding for headers"},
		{name: "a standard's number changed", claim: "headers are encoded with RFC 2048, and", span: "uses RFC 2047 encoding for headers",
			missing: []string{"number=2048"}},
		{name: "a year the evidence's words read as a number", claim: "LaTeX2e came out in 1994, and it added concepts.",
			span: "LATEX 2ε was released in 1994 and added a number of then-new concepts"},
		{name: "a year the evidence reads as a number, changed", claim: "LaTeX2e came out in 1995, and it added concepts.",
			span: "LATEX 2ε was released in 1994 and added a number of then-new concepts", missing: []string{"year=1995"}},
		{name: "a date year first, with slashes", claim: "The file was last revised on 30 November 2021.",
			span: "This file has version number v1.9d, last revised 2021/11/30."},
		{name: "a date year first, changed", claim: "The file was last revised on 30 October 2021.",
			span: "This file has version number v1.9d, last revised 2021/11/30.", missing: []string{"date=2021-10-30"}, contradicted: true},
		{name: "a decimal without its 0", claim: "This article used a rule of 0.4pt.", span: "In this article a value of .4pt was used."},
		{name: "a decimal without its 0, changed", claim: "This article used a rule of 0.5pt.", span: "In this article a value of .4pt was used.",
			missing: []string{"measure:pt=0.5"}, contradicted: true},
		{name: "a year the evidence reads as a count", claim: "the six largest departments in 1973, classified by sex",
			span: "the six largest departments in 1973 classified by admission and sex"},
		{name: "a year the evidence reads as a count, changed", claim: "the six largest departments in 1974, classified by sex",
			span: "the six largest departments in 1973 classified by admission and sex", missing: []string{"year=1974"}},
		{name: "a counted noun in British spelling", claim: "Using gotestjsonbuildtext restores the 1.23 behaviour.",
			span: "Using gotestjsonbuildtext restores the 1.23 behavior."},
		{name: "a counted noun in British spelling, changed", claim: "Using gotestjsonbuildtext restores the 1.22 behaviour.",
			span: "Using gotestjsonbuildtext restores the 1.23 behavior.", missing: []string{"count:behavior=1.22"}, contradicted: true},
		{name: "a fiscal year stays a year", claim: "revenue rose in FY 2024.", span: "revenue rose in FY 2023",
			missing: []string{"year=2024"}, contradicted: true},

		{name: "table in EUR m", claim: "Revenue was EUR 12.5 million.", before: "Group results (€m)\n| | 2024 | 2023 |\n",
			span: "| Revenue | 12.5 | 11.0 |"},
		{name: "table in EUR m, full amount", claim: "Revenue was €12,500,000.", before: "(in EUR million)\n", span: "Revenue 12.5"},
		{name: "thousands of euros", claim: "Revenue was EUR 1.2345 million.", before: "Amounts in thousands of euros.\n",
			span: "Revenue 1,234.5"},
		{name: "€000", claim: "Costs were EUR 1,234,000.", before: "", span: "Costs (€000)\nStaff 1,234"},
		{name: "$ in millions", claim: "Sales were $3.2 billion.", before: "$ in millions\n", span: "Sales 3,200"},
		{name: "USD millions cell", claim: "Sales were USD 3.2 billion.", before: "| USD millions | 2024 |\n", span: "| Sales | 3,200 |"},
		{name: "a scaled row contradicts", claim: "Revenue was EUR 13 million.", before: "(€m)\n", span: "Revenue 12.5",
			missing: []string{"amount:EUR=13000000"}, contradicted: true},
		{name: "the plain number stays", claim: "Revenue was EUR 12.5 million in line 12.5.", before: "(€m)\n", span: "Revenue 12.5"},
		{name: "a year is not scaled", claim: "EUR 2,024 million in 2024", before: "(€m)\n", span: "| Revenue | 2024 |",
			missing: []string{"amount:EUR=2024000000"}},
		{name: "a separated 2,024 is an amount", claim: "EUR 2,024 million", before: "(€m)\n", span: "Revenue 2,024"},
		{name: "a percent is not scaled", claim: "EUR 5 million", before: "(€m)\n", span: "margin 5%",
			missing: []string{"amount:EUR=5000000"}},
		{name: "a note number is not scaled", claim: "EUR 4 million", before: "(€m)\n", span: "Revenue (note 4)",
			missing: []string{"amount:EUR=4000000"}},
		{name: "a date is not scaled", claim: "EUR 31 million", before: "(€m)\n", span: "at 31.12.2024",
			missing: []string{"amount:EUR=31000000"}},
		{name: "the chunk only: no statement", claim: "Revenue was EUR 12.5 million.", span: "Revenue 12.5",
			missing: []string{"amount:EUR=12500000"}},
		{name: "an amount is no statement", claim: "EUR 12.5 million", before: "a fee of EUR 5 million\n", span: "Revenue 12.5",
			missing: []string{"amount:EUR=12500000"}},
		{name: "a statement after the number", claim: "EUR 12.5 million", span: "Revenue 12.5\nCosts (€m)",
			missing: []string{"amount:EUR=12500000"}},
		{name: "a statement in the span", claim: "EUR 12.5 million", span: "Revenue 12.5\nCosts (€m)\nStaff 3",
			missing: []string{"amount:EUR=12500000"}, contradicted: true},
		{name: "the last statement holds", claim: "EUR 12.5 thousand", before: "(€m)\n", span: "(€000)\nRevenue 12.5"},
		{name: "prose is no statement", claim: "EUR 12.5 million", before: "the EUR m figures\n", span: "Revenue 12.5",
			missing: []string{"amount:EUR=12500000"}},
		{name: "another currency", claim: "USD 12.5 million", before: "(€m)\n", span: "Revenue 12.5",
			missing: []string{"amount:USD=12500000"}},

		// Number words: the same value in words or digits, either way.
		{name: "words for digits", claim: "It takes effect after three years.", span: "It takes effect after 3 years."},
		{name: "digits for words", claim: "It takes effect after 3 years.", span: "It takes effect after three years."},
		{name: "words for words", claim: "maintained for at least two years (four Go releases)",
			span: "maintained for a minimum of two years (four Go releases)"},
		{name: "a word count for digits", claim: "a service provider must meet 2 overall conditions",
			span: "a service provider must meet two overall conditions"},
		{name: "words and digits, as contracts write them", claim: "within 10 business days", span: "within ten (10) Business Days"},
		{name: "a hyphenated duration", claim: "for two years", span: "for a two-year period"},
		{name: "one is no figure", claim: "If one party defaults, no one may object for a day.", span: "If a party defaults, nobody may object."},
		{name: "the two is no figure", claim: "The two parties sign.", span: "Both parties sign."},
		// A number word the evidence states no comparable figure for is
		// not judged: absent is not wrong for a word.
		{name: "a count word the quote does not state", claim: "dpkg has two new status values, triggers-pending and triggers-awaited.",
			span: "'triggers-pending' and 'triggers-awaited', which lie between 'config-failed' and 'installed'"},
		{name: "a duration word in another unit and value", claim: "It is due within two weeks.", span: "It is due within 14 days."},
		{name: "a duration word against a count", claim: "It runs for two years.", span: "It runs for 2 releases."},
		// Units of measure (corpus/outside: unit_changed passed as counts).
		{name: "a length in its unit", claim: "The overflow defaults to 12 pt.", span: "\\maxbalancingoverflow defaults to 12pt."},
		{name: "a length in another unit", claim: "The overflow defaults to 12 mm.", span: "\\maxbalancingoverflow defaults to 12pt.",
			missing: []string{"measure:mm=12"}},
		{name: "a length in the same unit, changed", claim: "The gap is 18 mm.", span: "The gap is 15 mm.",
			missing: []string{"measure:mm=18"}, contradicted: true},
		{name: "a length converted", claim: "The margin is 1 inch.", span: "The margin is 72.27pt."},
		{name: "a length converted, rounded", claim: "The paper is 21.6 cm wide.", span: "The paper is 8.5in wide."},
		{name: "a length converted, wrong", claim: "The paper is 8.5 cm wide.", span: "The paper is 8.5in wide.",
			missing: []string{"measure:cm=8.5"}},
		{name: "a size of data, KB for KiB", claim: "It may grow up to 5 MB.", span: "It may grow up to 5 MiB."},
		{name: "a size of data in another unit", claim: "It may grow up to 5 MiB.", span: "It may grow up to 5GiB.",
			missing: []string{"measure:MiB=5"}},
		{name: "a unit written onto its number, changed", claim: "The image uses only about 83 KiB on disk.", span: "Its actual disk usage is mere 83MiB.",
			missing: []string{"measure:KiB=83"}},
		{name: "a unit written onto its number", claim: "The image uses only about 83 MiB on disk.", span: "Its actual disk usage is mere 83MiB."},
		// corpus/outside heldout11.
		{name: "a suspended hyphen", claim: "a one-, three- or six-month Interest Period, three Business Days before",
			span: "an Interest Period of one, three or six months, notice three Business Days prior"},
		{name: "a year the evidence dates within", claim: "The sweep begins with fiscal year 2026 and is reduced.",
			span: "commencing with the fiscal year ending December 31, 2026, the Borrower shall prepay"},
		{name: "a year the evidence dates within, changed", claim: "The sweep begins with fiscal year 2027 and is reduced.",
			span: "commencing with the fiscal year ending December 31, 2026, the Borrower shall prepay", missing: []string{"year=2027"}},
		{name: "a year read as a count", claim: "The 2025 outlook assumes no further acquisitions.",
			span: "For full-year 2025, we now expect net sales of $4,950 million. Our outlook assumes no further acquisitions."},
		{name: "a year read as a count, changed", claim: "The 2024 outlook assumes no further acquisitions.",
			span:    "For full-year 2025, we now expect net sales of $4,950 million. Our outlook assumes no further acquisitions.",
			missing: []string{"count:outlook=2024"}},
		{name: "a range's scale stated once", claim: "net sales are now expected at $4.95-$5.01 billion",
			span: "we now expect net sales of $4,950 million to $5,010 million"},
		{name: "a range's scale stated once, changed", claim: "net sales are now expected at $4.90-$5.01 billion",
			span: "we now expect net sales of $4,950 million to $5,010 million", missing: []string{"amount:USD=4900000000"}, contradicted: true},
		{name: "points for percentage points", claim: "the acquisition added 4.2 percentage points and currency 0.6 points",
			span: "Deverell contributed 4.2 percentage points and currency translation added 0.6 percentage points"},
		{name: "points for percentage points, changed", claim: "the acquisition added 4.2 percentage points and currency 0.7 points",
			span: "Deverell contributed 4.2 percentage points and currency translation added 0.6 percentage points", missing: []string{"count:point=0.7"}},
		{name: "a modal after a number counts nothing", claim: "rights under Articles 12 to 22 can draw fines",
			span: "the data subjects' rights pursuant to Articles 12 to 22, shall be subject to fines"},
		{name: "a table's dollars in thousands", claim: "Total loans rose to $9.3 billion.",
			before: "(dollars in thousands)\n| | 2024 | 2023 |\n|---|---|---|\n", span: "| Total loans held for investment | $9,300,200 | $8,991,000 |"},
		{name: "a table's dollars in thousands, read unscaled", claim: "Total loans rose to $9.3 million.",
			before: "(dollars in thousands)\n| | 2024 | 2023 |\n|---|---|---|\n", span: "| Total loans held for investment | $9,300,200 | $8,991,000 |",
			missing: []string{"amount:USD=9300000"}, contradicted: true},
		{name: "a table's cell copied", claim: "Total loans held for investment were $9,300,200.",
			before: "(dollars in thousands)\n| | 2024 | 2023 |\n|---|---|---|\n", span: "| Total loans held for investment | $9,300,200 | $8,991,000 |"},
		{name: "a rounded amount", claim: "Adjusted net income was $116.1 million in 2024.", span: "Adjusted net income was $116,109,000 in 2024."},
		{name: "a rounding too coarse", claim: "Revenue was EUR 13 million.", span: "Revenue was EUR 12,500,000.",
			missing: []string{"amount:EUR=13000000"}, contradicted: true},
		{name: "a number in parentheses after words", claim: "a lump sum of 1.5 times the Target Bonus",
			span: "the Company shall pay, in a lump sum, one and one-half (1.5) times the Target Bonus"},
		{name: "a unit joined by a hyphen", claim: "three weeks of titration followed by nine weeks of maintenance",
			span: "comprises a 3-week titration phase followed by a 9-week maintenance phase"},
		{name: "a unit joined by a hyphen, changed", claim: "four weeks of titration",
			span: "comprises a 3-week titration phase followed by a 9-week maintenance phase", missing: []string{"duration:week=4"}, contradicted: true},
		{name: "a multiple with a spaced sign", claim: "total bilirubin above 1.5 times ULN", span: "or total bilirubin > 1.5 × ULN, unless"},
		{name: "a size is no multiple", claim: "a[2,,] is a 4 by 2 array", span: "gives a 4 × 2 array"},
		{name: "words before a duration unit", claim: "She is entitled to 25 paid vacation days each year.",
			span: "shall be entitled to twenty-five (25) days of paid vacation per calendar year"},
		// corpus/outside heldout13.
		{name: "times of day, 12 and 24 hours", claim: "supported 8 a.m. to 6 p.m. Eastern, Monday to Friday",
			span: "during Business Hours (08:00 to 18:00 Eastern Time, Monday through Friday"},
		{name: "times of day, changed", claim: "supported 8 a.m. to 5 p.m. Eastern, Monday to Friday",
			span: "during Business Hours (08:00 to 18:00 Eastern Time, Monday through Friday", missing: []string{"time=17:00"}, contradicted: true},
		{name: "a ratio is no time", claim: "randomized in a 2:1 ratio", span: "randomized 2:1 to drug or placebo"},
		{name: "a grade's number", claim: "For a Severity 2 incident the response time is two hours.",
			span: "| Severity 1 | 30 minutes |\n| Severity 2 | 2 hours |"},
		{name: "a half in words", claim: "A 90-day supply costs 2.5 times the 30-day copay.",
			span: "a 90-day supply at two and one-half times the 30-day Copay"},
		{name: "a half in words, changed", claim: "A 90-day supply costs 3 times the 30-day copay.",
			span: "a 90-day supply at two and one-half times the 30-day Copay", missing: []string{"multiple=3"}, contradicted: true},
		// corpus/outside heldout14.
		{name: "a range with through", claim: "into the anterolateral thigh for children 6 through 35 months old",
			span: "Infants and children 6 through 35 months of age: anterolateral aspect of the thigh"},
		{name: "a range with through, changed", claim: "into the anterolateral thigh for children 5 through 35 months old",
			span: "Infants and children 6 through 35 months of age: anterolateral aspect of the thigh", missing: []string{"number=5"}},
		{name: "a duration in two units", claim: "Vials can be thawed for two and a half hours.",
			span: "Vials may be thawed in the refrigerator for 2 hours and 30 minutes, or at room temperature for 1 hour."},
		{name: "a duration in two units, changed", claim: "Vials can be thawed for three and a half hours.",
			span:    "Vials may be thawed in the refrigerator for 2 hours and 30 minutes, or at room temperature for 1 hour.",
			missing: []string{"duration:hour=3.5"}, contradicted: true},
		{name: "percent cells under a percent header", claim: "Chills rose from 9.3% after the first dose to 44.8% after the second, compared with 5.7% on placebo.",
			before: "| Reaction | Dose 1 (%) | Dose 2 (%) | Placebo (%) |\n|---|---|---|---|\n", span: "| Chills | 9.3 | 44.8 | 5.7 |"},
		{name: "percent cells under a percent header, changed", claim: "Chills rose from 9.3% after the first dose to 48.8% after the second.",
			before: "| Reaction | Dose 1 (%) | Dose 2 (%) | Placebo (%) |\n|---|---|---|---|\n", span: "| Chills | 9.3 | 44.8 | 5.7 |",
			missing: []string{"percent=48.8"}, contradicted: true},
		{name: "no percent header, no percent cells", claim: "Chills rose from 9.3% after the first dose.",
			before: "| Reaction | Dose 1 | Dose 2 |\n|---|---|---|\n", span: "| Chills | 9.3 | 44.8 |", missing: []string{"percent=9.3"}},
		{name: "a unit with its modifier joined by hyphens", claim: "at least 1,000 Hours of Service in a 12-month period",
			span: "a 12-consecutive-month period in which you complete at least 1,000 Hours of Service"},
		{name: "a dose in its unit", claim: "The recommended dose is 60 milligrams once daily.", span: "the recommended dosage is 60 mg taken orally once daily"},
		{name: "a dose per kilogram for a dose", claim: "The recommended dose is 60 mg/kg once daily.", span: "the recommended dosage is 60 mg taken orally once daily",
			missing: []string{"measure:mg/kg=60"}},
		{name: "a dose converted", claim: "Each tablet holds 1 gram.", span: "Each tablet contains 1,000 mg of the active substance."},
		{name: "micrograms for milligrams", claim: "A 0.5 mL dose contains 50 milligrams of mRNA.", span: "Each 0.5 mL dose contains 50 micrograms of mRNA.",
			missing: []string{"measure:mg=50"}},
		{name: "a rate per day in words", claim: "tapered to 10 mg per day or less", span: "tapered to 10 mg/day of prednisone or less"},
		{name: "a rate per day for a daily dose", claim: "The dose is 60 mg per day.", span: "The recommended dosage is 60 mg taken orally once daily."},
		{name: "a rate per kilogram for a dose", claim: "The dose is 60 mg per kg.", span: "The recommended dosage is 60 mg taken orally once daily.",
			missing: []string{"measure:mg/kg=60"}},
		{name: "a range from zero", claim: "an ECOG performance status of 0 to 1", span: "Eastern Cooperative Oncology Group (ECOG) performance status of 0 or 1."},
		{name: "bits for bytes", claim: "Keys must be at least 1024 bytes long.", span: "Keys must be at least 1024 bits long.",
			missing: []string{"measure:byte=1024"}},
		{name: "a bare number in a measure", claim: "The column gap is 18, as set.", span: "a \\columnsep of 18.0pt"},
		{name: "a count in a measure", claim: "10 samples along x and 20 along y", span: "10 points along x and 20 points along y"},
		{name: "a fraction's unit", claim: "a point being 1/72 inch", span: "a point is 1/72 of an inch"},
		{name: "a number word in another unit", claim: "passing sixty yards away", span: "passing sixty rods away",
			missing: []string{"measure:yd=60"}},
		{name: "milliseconds for seconds", claim: "the timeout is 30 milliseconds", span: "the timeout is 30 seconds",
			missing: []string{"duration:millisecond=30"}},
		{name: "a duration converted", claim: "the timeout is 2 minutes", span: "the timeout is 120 seconds"},
		{name: "weeks converted to days", claim: "within 2 weeks", span: "within 14 days"},
		{name: "a bare number in a duration", claim: "took 1 second on Linux (3 on Windows)", span: "took 1 sec on Linux and 3 secs on Windows"},
		// A changed number word is caught as a changed digit is.
		{name: "a changed duration word", claim: "It does not take effect for three years.",
			span: "It does not take effect for two years.", missing: []string{"duration:year=3"}, contradicted: true},
		{name: "a changed unit after a word", claim: "maintained for a minimum of two months",
			span: "maintained for a minimum of two years", missing: []string{"duration:month=2"}},
		{name: "a changed count word", claim: "for at least two years (six Go releases)",
			span: "for a minimum of two years (four Go releases)", missing: []string{"count:release=6"}, contradicted: true},
		{name: "a month of a full date", claim: "Under the May 2021 Agreement, Brennick was to install four silos.",
			span: "agreed in a written Agreement dated 4 May 2021 (the \"Agreement\") to install four silos"},
		{name: "a month of a full date, changed", claim: "Under the June 2021 Agreement, Brennick was to install four silos.",
			span:    "agreed in a written Agreement dated 4 May 2021 (the \"Agreement\") to install four silos",
			missing: []string{"date=2021-06"}, contradicted: true},
		{name: "a full date against a month alone", claim: "The Agreement is dated 4 May 2021.", span: "an Agreement of May 2021",
			missing: []string{"date=2021-05-04"}, contradicted: true},
		{name: "the first day of a month", claim: "The First Change Date is July 1, 2039.",
			span: "The interest rate may change on the first day of July 2039 (the \"First Change Date\")"},
		{name: "the first day of a month, changed", claim: "The First Change Date is July 15, 2039.",
			span:    "The interest rate may change on the first day of July 2039 (the \"First Change Date\")",
			missing: []string{"date=2039-07-15"}, contradicted: true},
		{name: "consecutive calendar days", claim: "a fee applies when an account stays overdrawn for seven calendar days in a row",
			span: "If an Account remains overdrawn for seven consecutive calendar days, a Sustained Overdraft Fee applies. Repay within 45 calendar days."},
		{name: "consecutive calendar days, changed", claim: "a fee applies when an account stays overdrawn for five calendar days in a row",
			span:    "If an Account remains overdrawn for seven consecutive calendar days, a Sustained Overdraft Fee applies.",
			missing: []string{"duration:day=5"}, contradicted: true},
		{name: "paid working days", claim: "the employee is entitled to five paid working days of bereavement leave",
			span: "| Bereavement — immediate family | 5 working days per event | Spouse, sibling |"},
		{name: "paid working days are no calendar days", claim: "the employee is entitled to five paid days of bereavement leave",
			span: "| Bereavement — immediate family | 5 working days per event | Spouse, sibling |", missing: []string{"duration:day=5"}},
		{name: "a rate a day", claim: "keep sodium under 1,500 mg a day", span: "limit sodium to less than 1,500 mg per day"},
		{name: "a rate a day, changed", claim: "keep sodium under 2,000 mg a day", span: "limit sodium to less than 1,500 mg per day",
			missing: []string{"measure:mg/day=2000"}, contradicted: true},
		{name: "grams written apart", claim: "loaded up to a maximum of 2 g", span: "25 mg/kg IV (maximum 2000 mg)"},
		{name: "grams written apart, changed", claim: "loaded up to a maximum of 3 g", span: "25 mg/kg IV (maximum 2000 mg)",
			missing: []string{"measure:g=3"}},
		{name: "a range's currency stated once", claim: "guided to revenue of USD 395 million to USD 415 million",
			span: "Revenue: USD 395-415 million"},
		{name: "a range's currency stated once, changed", claim: "guided to revenue of USD 395 million to USD 425 million",
			span: "Revenue: USD 395-415 million", missing: []string{"amount:USD=425000000"}, contradicted: true},
		{name: "a range's currency and scale", claim: "guidance was USD 1.58 billion to USD 1.64 billion",
			span: "| Revenue | USD 1.58 to 1.64 billion |"},
		{name: "a fiscal year is no count", claim: "Full-year fiscal 2025 revenue guidance is now USD 1.60 billion.",
			span: "| Revenue (fiscal 2025) | USD 1.60 billion |"},
		{name: "a fiscal year, changed", claim: "Full-year fiscal 2026 revenue guidance is now USD 1.60 billion.",
			span: "| Revenue (fiscal 2025) | USD 1.60 billion |", missing: []string{"year=2026"}, contradicted: true},
		{name: "a condition inside a table's band", claim: "A full-time employee with seven completed years of service accrues 23 days of PTO a year.",
			span: "| 5 to less than 10 years | 23 days | 8 days |"},
		{name: "a condition outside the band", claim: "A full-time employee with twelve completed years of service accrues 23 days of PTO a year.",
			span: "| 5 to less than 10 years | 23 days | 8 days |", missing: []string{"duration:year=12"}, contradicted: true},
		{name: "a condition inside a band of percentages", claim: "A month with 99.2% uptime entitles the customer to a Service Credit of 10%.",
			span: "| Less than 99.5% but at least 99.0% | 10% |"},
		{name: "a condition inside a band, the credit changed", claim: "A month with 99.2% uptime entitles the customer to a Service Credit of 25%.",
			span: "| Less than 99.5% but at least 99.0% | 10% |", missing: []string{"percent=25"}, contradicted: true},
		{name: "a value inside a range, stated", claim: "Monthly uptime was 99.2% and the credit 10%.",
			span: "| Less than 99.5% but at least 99.0% | 10% |", missing: []string{"percent=99.2"}},
		{name: "a fall against a signed change", claim: "Test & Measurement revenue slipped 1.0% to USD 131.5 million.",
			span: "| Test & Measurement | 131.5 | 132.8 | -1.0% |", before: "| Segment (USD millions) | Q2 FY2025 | Q2 FY2024 | Change |\n"},
		{name: "a rise against a signed fall", claim: "Test & Measurement revenue rose 1.0% to USD 131.5 million.",
			span: "| Test & Measurement | 131.5 | 132.8 | -1.0% |", before: "| Segment (USD millions) | Q2 FY2025 | Q2 FY2024 | Change |\n",
			missing: []string{"percent=1"}, contradicted: true},
		{name: "a fall by an amount", claim: "Net debt fell by USD 2 million.", span: "| Net debt change | USD -2 million |"},
		{name: "a per-share row under a scale", claim: "For the six months, diluted EPS was USD 1.74.",
			span: "| Diluted EPS | 0.94 | 0.73 | 1.74 | 1.36 |", before: "| USD thousands, except per-share data | Q2 | Q2 | Six months | Six months |\n|---|---|---|---|---|\n"},
		{name: "a per-share row under a scale, changed", claim: "For the six months, diluted EPS was USD 1.84.",
			span: "| Diluted EPS | 0.94 | 0.73 | 1.74 | 1.36 |", before: "| USD thousands, except per-share data | Q2 | Q2 | Six months | Six months |\n|---|---|---|---|---|\n",
			missing: []string{"amount:USD=1.84"}, contradicted: true},
		{name: "a row in thousands of shares", claim: "Diluted shares outstanding fell to about 52.5 million from about 53.3 million.",
			span: "| Diluted shares outstanding (thousands) | 52,500 | 53,290 |", before: "| USD thousands, except per-share data | Q2 FY2025 | Q2 FY2024 |\n|---|---|---|\n"},
		{name: "a row in thousands of shares, changed", claim: "Diluted shares outstanding fell to about 51.5 million from about 53.3 million.",
			span: "| Diluted shares outstanding (thousands) | 52,500 | 53,290 |", before: "| USD thousands, except per-share data | Q2 FY2025 | Q2 FY2024 |\n|---|---|---|\n",
			missing: []string{"number=51500000"}},
		{name: "revenue in thousands is no per-share figure", claim: "Revenue was USD 412,600.",
			span: "| Revenue | 412,600 | 377,100 |", before: "| USD thousands, except per-share data | Q2 FY2025 | Q2 FY2024 |\n|---|---|---|\n",
			missing: []string{"amount:USD=412600"}, contradicted: true},
		{name: "a percent header in words", claim: "Leverage of 3.50:1 or more carries a Margin of 3.25% per annum.",
			span: "| Leverage | Margin (per cent. per annum) |\n|---|---|\n| Greater than or equal to 3.50:1 | 3.25 |\n| Less than 2.00:1 | 1.90 |"},
		{name: "a percent header in words, changed", claim: "Leverage of 3.50:1 or more carries a Margin of 3.50% per annum.",
			span:    "| Leverage | Margin (per cent. per annum) |\n|---|---|\n| Greater than or equal to 3.50:1 | 3.25 |\n| Less than 2.00:1 | 1.90 |",
			missing: []string{"percent=3.5"}, contradicted: true},
		{name: "a currency header", claim: "A GBP 340 holding deposit is paid when the offer is accepted.",
			span: "| Payment | Amount (GBP) | When due |\n|---|---|---|\n| Holding deposit | 340 | On acceptance of offer |\n| Tenancy Deposit | 1,700 | Before the Start Date |"},
		{name: "a currency header, changed", claim: "A GBP 350 holding deposit is paid when the offer is accepted.",
			span:    "| Payment | Amount (GBP) | When due |\n|---|---|---|\n| Holding deposit | 340 | On acceptance of offer |\n| Tenancy Deposit | 1,700 | Before the Start Date |",
			missing: []string{"amount:GBP=350"}, contradicted: true},
		{name: "a table's scale implied by its text", claim: "Operational risk RWAs increased by GBP 1.2 billion to GBP 13.8 billion.",
			span: "RWAs increased by GBP 3.7 billion to GBP 128.6 billion.\n\n| RWAs by risk type | 2024 | 2023 | Change |\n|---|---|---|---|\n| Operational risk | 13,800 | 12,600 | +1,200 |\n| Total RWAs | 128,600 | 124,900 | +3,700 |"},
		{name: "a table's scale implied by its text, changed", claim: "Operational risk RWAs increased by GBP 1.2 billion to GBP 14.8 billion.",
			span:    "RWAs increased by GBP 3.7 billion to GBP 128.6 billion.\n\n| RWAs by risk type | 2024 | 2023 | Change |\n|---|---|---|---|\n| Operational risk | 13,800 | 12,600 | +1,200 |\n| Total RWAs | 128,600 | 124,900 | +3,700 |",
			missing: []string{"amount:GBP=14800000000"}, contradicted: true},
		{name: "a word between a modifier and its unit", claim: "Each beneficiary has 60 lifetime reserve days.",
			span: "\"Lifetime Reserve Days\" means the 60 additional inpatient days available once in a lifetime after the 90 days are exhausted."},
		{name: "a word between a modifier and its unit, changed", claim: "Each beneficiary has 50 lifetime reserve days.",
			span:    "\"Lifetime Reserve Days\" means the 60 additional inpatient days available once in a lifetime after the 90 days are exhausted.",
			missing: []string{"duration:day=50"}, contradicted: true},
		{name: "a column's unit in its header", claim: "Respirable crystalline silica has a TWA of 0.05 mg/m3 and no STEL.",
			span:   "Respirable crystalline silica | 14808-60-7 | — | 0.05 | — | — | Carc",
			before: "| Substance | CAS No. | TWA (ppm) | TWA (mg/m3) | STEL (ppm) | STEL (mg/m3) | Notation |\n|---|---|---|---|---|---|---|\n| Benzene | 71-43-2 | 0.5 | 1.6 | 2.5 | 8 | Sk, Carc |\n| "},
		{name: "a column's unit in its header, another column", claim: "Benzene has a TWA of 0.5 mg/m3.",
			span:    "Benzene | 71-43-2 | 0.5 | 1.6 | 2.5 | 8 | Sk, Carc |",
			before:  "| Substance | CAS No. | TWA (ppm) | TWA (mg/m3) | STEL (ppm) | STEL (mg/m3) | Notation |\n|---|---|---|---|---|---|---|\n| ",
			missing: []string{"measure:mg/m3=0.5"}, contradicted: true},
		{name: "a row's unit in a units column", claim: "For adult women the haemoglobin reference interval is 115 to 155 g/L.",
			span: "| Test | Units | Male | Female |\n|---|---|---|---|\n| Sodium | mmol/L | 135–145 | 135–145 |\n| Haemoglobin | g/L | 130–175 | 115–155 |"},
		{name: "a row's unit in a units column, changed", claim: "For adult women the haemoglobin reference interval is 115 to 165 g/L.",
			span:    "| Test | Units | Male | Female |\n|---|---|---|---|\n| Sodium | mmol/L | 135–145 | 135–145 |\n| Haemoglobin | g/L | 130–175 | 115–155 |",
			missing: []string{"measure:g/L=165"}, contradicted: true},
		{name: "an ordinal counts nothing", claim: "Rent is paid in advance on the 1st by standing order.",
			span: "The Rent is GBP 1,475 per calendar month, payable in advance on the 1st day of each month by standing order."},
		{name: "an ordinal counts nothing, changed", claim: "Rent is paid in advance on the 2nd by standing order.",
			span:    "The Rent is GBP 1,475 per calendar month, payable in advance on the 1st day of each month by standing order.",
			missing: []string{"number=2"}},
		{name: "a dose per dose", claim: "Amoxicillin is capped at 1 g per dose and 3 g per day.",
			span: "The maximum single dose is 1 g and the maximum daily dose is 3 g."},
		{name: "a dose per dose, changed", claim: "Amoxicillin is capped at 2 g per dose and 3 g per day.",
			span: "The maximum single dose is 1 g and the maximum daily dose is 3 g.", missing: []string{"measure:g/dose=2"}},
		{name: "a spread over a rate in points", claim: "At the First Change Date the rate cannot move more than 2 percentage points either way.",
			span: "| Not more than 2.000% above or below the Initial Rate | 4.125% to 8.125% |"},
		{name: "a spread over a rate in points, changed", claim: "At the First Change Date the rate cannot move more than 3 percentage points either way.",
			span: "| Not more than 2.000% above or below the Initial Rate | 4.125% to 8.125% |", missing: []string{"percentage_point=3"}, contradicted: true},
		{name: "a share above last year is no points", claim: "Revenue was 2 percentage points higher.",
			span: "Revenue was 2% above last year's revenue.", missing: []string{"percentage_point=2"}},
		{name: "a changed count word against digits", claim: "must meet three overall conditions",
			span: "must meet 2 overall conditions", missing: []string{"count:overall=3"}, contradicted: true},
	}
	for _, tt := range tests {
		claim := Figures(tt.claim)
		evidence := appendEvidenceFigures(nil, tt.span, tt.before, claim)
		// The same again past smallFigures, where the evidence is a map.
		padded := append([]Figure(nil), evidence...)
		for i := range smallFigures {
			padded = append(padded, Figure{Kind: "count:pad", Value: string(rune('a' + i))})
		}
		for _, ev := range [][]Figure{evidence, padded} {
			missing, contradicted := checkFigures(claim, ev)
			var got []string
			for _, f := range missing {
				got = append(got, f.Kind+"="+f.Value)
			}
			if diff := cmp.Diff(tt.missing, got); diff != "" || contradicted != tt.contradicted {
				t.Errorf("%s (%d evidence figures): missing (-want +got):\n%s\ncontradicted %v, want %v", tt.name, len(ev), diff,
					contradicted, tt.contradicted)
			}
		}
	}
}

func TestNextScale(t *testing.T) {
	tests := []struct {
		in   string
		want string // currency/exp, or "" for none
	}{
		{"(in EUR thousands)", "EUR/3"}, {"in thousands of euros", "EUR/3"}, {"(€m)", "EUR/6"}, {"EUR m", "EUR/6"},
		{"USD millions", "USD/6"}, {"$ in millions", "USD/6"}, {"(€000)", "EUR/3"}, {"(€'000)", "EUR/3"},
		{"amounts in EUR million", "EUR/6"}, {"(EURm)", "EUR/6"}, {"(in millions of US dollars)", "USD/6"},
		{"(£bn)", "GBP/9"}, {"| CHF k |", "CHF/3"}, {"(US$m)", "USD/6"}, {"Revenue, in US$ thousands", "USD/3"},
		{"a fee of EUR 5 million", ""}, {"EUR m 12.5", ""}, {"the EUR m figures", ""}, {"5 millions of euros", ""},
		{"EURO m", ""}, {"€5m", ""},
	}
	for _, tt := range tests {
		got := ""
		if sc, ok := nextScale(tt.in, 0); ok {
			got = sc.currency + "/" + string(rune('0'+sc.exp))
		}
		if got != tt.want {
			t.Errorf("nextScale(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWithoutOwnSections(t *testing.T) {
	good := []accepted{{report: 0}}
	evs := []EvidenceReport{{SectionPath: []string{"22. Events of Default", "22.2 Non-payment", "Uncontrolled Search Path Element (CWE-427)", "3.3 Using non-standard Type 1 fonts"}}}
	tests := []struct {
		claim string
		want  []string
	}{
		{"Under Clause 22.2, a missed payment is an Event of Default.", nil},
		{"Clause 22 makes a missed payment an Event of Default.", nil},
		{"Section 23.1 makes a missed payment an Event of Default.", []string{"23.1"}},
		// Only references: the plain 22.2 and an amount stay missing.
		{"A missed payment of 22.2 is an Event of Default.", []string{"22.2"}},
		{"Clause 22.2 applies from EUR 22.2.", []string{"22.2"}},
		// An identifier a heading holds: the claim names its section.
		{"Loading files from any accessible path is no vulnerability (CWE-427).", nil},
		{"Loading files from any accessible path is no vulnerability (CWE-426).", []string{"CWE-426"}},
		// A designation its heading writes: "Type 1" under "Using non-standard Type 1 fonts".
		{"In Type 1 embedding, the AFM file is ASCII.", nil},
		{"In Type 3 embedding, the AFM file is ASCII.", []string{"3"}},
		{"In 1 embedding, the AFM file is ASCII.", []string{"1"}},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range withoutOwnSections(Figures(tt.claim), good, evs, tt.claim) {
			got = append(got, f.Value)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.claim, diff)
		}
	}
}

func TestSpanContradicts(t *testing.T) {
	span := "The board approved a dividend of EUR 1.20 per share"
	tests := []struct {
		claim, quote, span string
		contradicted       bool
	}{
		// The model altered quote and claim alike: the span contradicts.
		{"The dividend is EUR 1.28 per share.", "a dividend of EUR 1.28 per share", span, true},
		// The claim keeps the span's figure: only the quote is wrong.
		{"The dividend is EUR 1.20 per share.", "a dividend of EUR 1.28 per share", span, false},
		// A figure of another kind contradicts nothing: missing only.
		{"The dividend is paid within 14 days.", "paid within 14 days", span, false},
		{"Clause 7 applies.", "Clause 7 applies", "Clause 22.2 applies", false},
		// A claim figure the quote does not state may stand in another
		// citation: EUR 5 million is not this span's to contradict.
		{"EUR 5 million in 2024 and EUR 6 million in 2025", "EUR 6 million in 2025 and EUR 7.1 million in 2026",
			"EUR 6 million in 2025 and EUR 7 million in 2026", false},
		// Claim and quote altered differently: left to the claim's check.
		{"The dividend is EUR 1.30 per share.", "a dividend of EUR 1.28 per share", span, false},
	}
	for _, tt := range tests {
		if _, got := spanContradicts(tt.claim, Figures(tt.quote), tt.span, ""); got != tt.contradicted {
			t.Errorf("spanContradicts(%q, %q, %q) = %v, want %v", tt.claim, tt.quote, tt.span, got, tt.contradicted)
		}
	}
}

// TestChangedValuesWords: a loose quote's number word may be garbled in the
// span as any word may; its digits may not.
func TestChangedValuesWords(t *testing.T) {
	tests := []struct {
		quote, span string
		changed     int
	}{
		{"does not take effect for two years", "does not take effect for tw0 years", 0},
		{"does not take effect for 2 years", "does not take effect for two years", 0},
		{"does not take effect for 3 years", "does not take effect for 2 years", 1},
	}
	for _, tt := range tests {
		if got := changedValues(Figures(tt.quote), Figures(tt.span)); len(got) != tt.changed {
			t.Errorf("changedValues(%q, %q) = %v, want %d changed", tt.quote, tt.span, got, tt.changed)
		}
	}
}

// TestOneWrittenAsWord: a claim's 1 with a unit is found where the
// evidence writes "one", "a" or "an" before the same words, and nowhere
// else; another number is still missing, and a 1 is no contradiction of
// the evidence's other figures of its kind.
// TestOneWrittenAsWord: a 1 the evidence writes as a word, and a count
// it joins to its noun with a hyphen.
func TestOneWrittenAsWord(t *testing.T) {
	for _, tt := range []struct {
		claim, evidence string
		missing         bool
	}{
		{"Claims are paid within 1 year.", "Claims are paid within one year.", false},
		{"The notice period is 1 business day.", "The notice period is one business day.", false},
		{"The fee is charged after 1 hour.", "The fee is charged after an hour.", false},
		{"Reports are due in 1 month.", "Reports are due in a month, and appeals in 2 months.", false},
		{"Claims are paid within 2 years.", "Claims are paid within one year.", true},
		{"Claims are paid within 1 year.", "Claims are paid within one decade.", true},
		{"Claims are paid within 1 year.", "Claims are paid within someone yearly.", true},
		{"The verbosity defaults to 0.", "By default, the verbosity is zero.", false},
		{"The verbosity defaults to 1.", "By default, the verbosity is zero.", true},
		{"Arguments are matched in 3 passes.", "Matching is done by a three-pass process.", false},
		{"Arguments are matched in 3 passes.", "Matching is done by a 3-pass process.", false},
		{"Arguments are matched in 2 passes.", "Matching is done by a three-pass process.", true},
		{"Arguments are matched in 3 steps.", "Matching is done by a three-pass process.", true},
		// numbers a claim lists across a range the evidence writes
		{"Emulated runlevels 2, 3 and 4 all point to multi-user.target.", "Emulated runlevel 2 to 4 are all symlinked to multi-user.target.", false},
		{"Emulated runlevels 2, 3 and 4 all point to multi-user.target.", "Emulated runlevels 2–4 are all symlinked to multi-user.target.", false},
		{"Emulated runlevel 3 points to multi-user.target.", "Emulated runlevel 2 to 4 are all symlinked to multi-user.target.", true},
		{"Emulated runlevels 2, 3 and 4 all point to multi-user.target.", "Emulated runlevel 2 to 45 are all symlinked to multi-user.target.", true},
	} {
		claim := Figures(tt.claim)
		ev := appendOnes(Figures(tt.evidence), claim, tt.evidence)
		missing, contradicted := checkFigures(claim, ev)
		if got := len(missing) > 0; got != tt.missing || (!tt.missing && contradicted) {
			t.Errorf("%q citing %q: missing %v contradicted %v, want missing %v", tt.claim, tt.evidence, missing, contradicted, tt.missing)
		}
	}
}
