package verify

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// The meaning checks' faster paths against the code they replaced: the
// same answer on any input (precision before recall: a faster check that
// answers otherwise could block a correct claim or pass a wrong one).

// containsWordFoldRef is containsWordFold as it was: both cases searched
// again from every candidate.
func containsWordFoldRef(s, w string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		if wholeWord(s, from+i, from+i+len(w)) {
			return true
		}
		from += i + 1
	}
	n := len(w)
	if n == 0 {
		return false
	}
	if c := w[0]; c < 0x80 && isWordRune(rune(c)) {
		lo, up := c|0x20, c&^0x20
		if c < 'A' {
			lo, up = c, c
		}
		for i := 0; i+n <= len(s); i++ {
			j := strings.IndexByte(s[i:len(s)-n+1], lo)
			if k := strings.IndexByte(s[i:len(s)-n+1], up); k >= 0 && (j < 0 || k < j) {
				j = k
			}
			if j < 0 {
				return false
			}
			i += j
			if strings.EqualFold(s[i:i+n], w) && wholeWord(s, i, i+n) {
				return true
			}
		}
		return false
	}
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], w) && wholeWord(s, i, i+n) {
			return true
		}
	}
	return false
}

func FuzzContainsWordFold(f *testing.F) {
	for _, s := range []string{"the Chief Financial Officer signs", "Kestrel Harbor Group Ltd", "17 banks, 7 banks", "Ärzte und ärzte", "aAaA a"} {
		for _, w := range []string{"financial", "FINANCIAL", "7", "ärzte", "a", "Harbor", "x"} {
			f.Add(s, w)
		}
	}
	f.Fuzz(func(t *testing.T, s, w string) {
		if got, want := containsWordFold(s, w), containsWordFoldRef(s, w); got != want {
			t.Errorf("containsWordFold(%q, %q) = %v, was %v", s, w, got, want)
		}
		if got, want := saidTwice(s, w), w != "" && strings.Count(s, w) > 1; w != "" && got != want {
			t.Errorf("saidTwice(%q, %q) = %v, strings.Count says %v", s, w, got, want)
		}
	})
}

func TestFirstRunIsBinarySearch(t *testing.T) {
	ctx := "No, the Borrower shall not prepay the Term Loan — before 2026-06-30 (unless the Agent consents)."
	_, runs := contextWords(ctx)
	for x := -1; x <= len(ctx)+1; x++ {
		for edge := range 2 {
			want, _ := slices.BinarySearchFunc(runs, x, func(r [2]int, x int) int { return cmp.Compare(r[edge], x) })
			if got := firstRun(runs, edge, x); got != want {
				t.Fatalf("firstRun(edge %d, %d) = %d, BinarySearchFunc %d", edge, x, got, want)
			}
		}
	}
}

// TestQualifiersOfItself: a claim that is its evidence finds no qualifier
// missing, unsupported or contradicted when the full comparison runs,
// which is what checkQualifiers' shortcut for it answers.
func TestQualifiersOfItself(t *testing.T) {
	c := checker{pol: DefaultPolicy()}
	texts := []string{"Claims above EUR 25 in Germany need a receipt within 30 days, unless the CFO agrees.",
		"From 1 March 2025 the US and EU offices follow v2 of the policy; contact us."}
	for _, tc := range meaningCases {
		texts = append(texts, tc.claim, tc.evidence)
	}
	for _, s := range texts {
		if m, u, x := c.compareQualifiers(s, s); len(m)+len(u)+len(x) > 0 {
			t.Errorf("%q against itself: missing %v, unsupported %v, contradicted %v", s, m, u, x)
		}
	}
}
