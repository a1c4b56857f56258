package match

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Test and benchmark material, generated deterministically so every run and
// the Node peer harness see the same bytes.

var genWords = strings.Fields(`the of and to in a is that for it as with be by on not this are or from at
which an shall must may any each such other under within than its their all been has will
expense reports submitted calendar days Borrower maintain Net Leverage Ratio exceeding
Lender Agreement Section Article covenant payment interest rate principal amount
outstanding quarter fiscal year consolidated EBITDA period ending date notice
written consent default event termination obligations guarantee collateral security
policy employee travel reimbursement receipts approval manager department budget
café Zürich naïve résumé Straße 東京 Genève façade coöperate
14 30 90 3.25x 12.5% $250,000 2025-03-31 RAG-41 §7.1 1,000,000`)

// genText returns n code points of policy-like prose: sentences of random
// words with punctuation, line breaks and paragraph breaks, a few non-ASCII
// words. The same seed gives the same text.
func genText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x6d61746368))
	var b strings.Builder
	b.Grow(n + n/4)
	count, col, inSentence := 0, 0, 0
	for count < n {
		w := genWords[r.IntN(len(genWords))]
		if inSentence == 0 {
			rs := []rune(w)
			rs[0] = unicode.ToUpper(rs[0])
			w = string(rs)
		}
		b.WriteString(w)
		wl := utf8.RuneCountInString(w)
		count += wl
		col += wl
		inSentence++
		sep := " "
		switch {
		case inSentence > 6 && r.IntN(8) == 0:
			sep = ". "
			if r.IntN(6) == 0 {
				sep = ".\n\n"
			}
			inSentence = 0
		case r.IntN(20) == 0:
			sep = ", "
		case col > 72:
			sep = "\n"
		}
		if strings.Contains(sep, "\n") {
			col = 0
		}
		b.WriteString(sep)
		count += utf8.RuneCountInString(sep)
	}
	return string([]rune(b.String())[:n])
}

// ocrNoise applies k edits to q at distinct, spaced-out letters or digits:
// substitutions by a look-alike (e→c, l→1, o→0, …), deletions and
// insertions, cycling. Spaces are left alone so the quote cannot reach
// another level by whitespace folding, and substitutions never change only
// the case, so every edit is an error for a case-sensitive peer too.
func ocrNoise(seed uint64, q string, k int) string {
	r := rand.New(rand.NewPCG(seed, 0x6f6372))
	rs := []rune(q)
	var pos []int
	for i, c := range rs {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			pos = append(pos, i)
		}
	}
	if k <= 0 || len(pos) < 3*k {
		return q
	}
	// Spread the edits over the quote, one per stretch, so they neither
	// cancel nor merge; none at the very first or last letter, which would
	// make the boundary ambiguous for any matcher.
	chosen := make([]int, 0, k)
	stretch := len(pos) / k
	for i := range k {
		lo := i*stretch + 1
		hi := max(lo+1, (i+1)*stretch-1)
		chosen = append(chosen, pos[min(len(pos)-2, lo+r.IntN(hi-lo))])
	}
	look := map[rune]rune{'e': 'c', 'c': 'e', 'l': '1', '1': 'l', 'o': '0', '0': 'o', 'a': 'o',
		'i': 'l', 's': '5', '5': 's', 'n': 'h', 'h': 'n', 'r': 'n', 'm': 'n', 't': 'f', 'u': 'v', 'd': 'a'}
	for j := len(chosen) - 1; j >= 0; j-- {
		i := chosen[j]
		switch j % 3 {
		case 0: // substitution
			c, ok := look[unicode.ToLower(rs[i])]
			if !ok {
				c = 'x'
				if unicode.ToLower(rs[i]) == 'x' {
					c = 'y'
				}
			}
			rs[i] = c
		case 1: // deletion
			rs = append(rs[:i], rs[i+1:]...)
		case 2: // insertion of a stray mark
			rs = append(rs[:i], append([]rune{'.'}, rs[i:]...)...)
		}
	}
	return string(rs)
}

// runeSlice returns s[start:end] in code points, an invalid byte counting
// as one, with the original bytes.
func runeSlice(s string, start, end int) string {
	i, cp, from := 0, 0, -1
	for ; i < len(s) && cp < end; cp++ {
		if cp == start {
			from = i
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if from < 0 {
		from = i
	}
	return s[from:i]
}

// refDistance is the textbook O(n·m) dynamic program (Sellers 1980): the
// least edit distance between p and any substring of t.
func refDistance(p, t []rune) int {
	prev := make([]int, len(p)+1)
	cur := make([]int, len(p)+1)
	for i := range prev {
		prev[i] = i
	}
	best := prev[len(p)]
	for j := range t {
		cur[0] = 0
		for i := 1; i <= len(p); i++ {
			c := prev[i-1]
			if p[i-1] != t[j] {
				c++
			}
			cur[i] = min(c, prev[i]+1, cur[i-1]+1)
		}
		prev, cur = cur, prev
		best = min(best, prev[len(p)])
	}
	return best
}

// levenshtein is the edit distance between a and b.
func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
