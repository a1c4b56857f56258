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
		{"from 2 to 5 days", []string{"number=2", "duration:day=5"}},
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
		{"v3.5, x86_64, FY2024 and Q3", nil}, // digits inside a word are no figure, nor is what follows their point
		{"merge 846f34d351, 12kg and 50m2", []string{"count:kg=12", "count:m=50"}},
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
		{"", nil},
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
	f.Add("$ in millions\nSales 3,200 up 25 bps, 0.5 pp; Clause 22.2.1 and § 4\nEUR m\t2,024", uint(14))
	claim := []Figure{{Kind: "amount:EUR", Value: "1"}}
	f.Fuzz(func(t *testing.T, s string, cut uint) {
		for _, fig := range Figures(s) {
			if fig.Kind == "" || fig.Value == "" {
				t.Fatalf("empty figure %+v in %q", fig, s)
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
