package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// qualifier is a compiled Qualifier.
type qualifier struct {
	name  string
	re    *regexp.Regexp // nil for a list of values
	gated bool           // the pattern runs only on a text with one of its keywords
	bit   uint64         // the qualifier's bit in wordScanner.scan's gates
}

// wordScanner reads a text once for all qualifiers: which gated patterns
// have a keyword starting a word, and which listed values occur as whole
// words. It runs on every claim and evidence span, so it allocates only for
// what it finds.
type wordScanner struct {
	keywords [256][]keyword     // by the byte a word starts with
	values   map[string][]value // by the value's first word, lower case
	valueLen [256]uint64        // bit n: a value's first word starts with byte b (lower case) and has n bytes
}

type keyword struct {
	word string // lower case
	bit  uint64
	fold bool // not ASCII: compared with strings.EqualFold
}

type value struct {
	qualifier int
	text      string // lower case, single spaces
	// exact is the value as written when it is an acronym in capitals
	// ("US", "EU"): it matches only in capitals, or "us" in "contact us"
	// would read as a jurisdiction.
	exact string
	canon string // the value it names: its alias group's first, or text
}

// found is a listed value found in a text.
type found struct {
	qualifier int
	value     string
}

// compileQualifiers checks and compiles a policy's qualifiers. The first
// 64 gated patterns get a gate bit; any more run ungated, which costs time,
// not correctness.
func compileQualifiers(qs []Qualifier) ([]qualifier, wordScanner, error) {
	var out []qualifier
	w := wordScanner{values: map[string][]value{}}
	gated := 0
	for i, q := range qs {
		c := qualifier{name: q.Name}
		if q.Name == "" || (q.Pattern == "") == (len(q.Values) == 0) {
			return nil, w, fmt.Errorf("%w: qualifier %q needs a name and either a pattern or values", ErrPolicy, q.Name)
		}
		if q.Pattern != "" {
			re, err := regexp.Compile(q.Pattern)
			if err != nil {
				return nil, w, fmt.Errorf("%w: qualifier %q: %v", ErrPolicy, q.Name, err)
			}
			c.re = re
		}
		canon := map[string]string{} // an alias, lower case -> its group's value
		names := slices.Clone(q.Values)
		for _, g := range q.Aliases {
			if len(g) < 2 {
				return nil, w, fmt.Errorf("%w: qualifier %q: an alias group needs two names or more", ErrPolicy, q.Name)
			}
			first := strings.ToLower(strings.Join(strings.Fields(g[0]), " "))
			for _, a := range g {
				a = strings.Join(strings.Fields(a), " ")
				if a == "" {
					return nil, w, fmt.Errorf("%w: qualifier %q has an empty alias", ErrPolicy, q.Name)
				}
				canon[strings.ToLower(a)] = first
				if !slices.Contains(names, a) {
					names = append(names, a)
				}
			}
		}
		for _, raw := range names {
			raw = strings.Join(strings.Fields(raw), " ")
			v := strings.ToLower(raw)
			if v == "" {
				return nil, w, fmt.Errorf("%w: qualifier %q has an empty value", ErrPolicy, q.Name)
			}
			val := value{qualifier: i, text: v, canon: v}
			if c, ok := canon[v]; ok {
				val.canon = c
			}
			if acronym(raw) {
				val.exact = raw
			}
			first, _, _ := strings.Cut(v, " ")
			w.values[first] = append(w.values[first], val)
			if len(first) < 64 {
				w.valueLen[first[0]] |= 1 << len(first)
			}
		}
		if c.re != nil && gated < 64 && slices.ContainsFunc(q.Keywords, func(k string) bool { return strings.TrimSpace(k) != "" }) {
			c.gated, c.bit = true, 1<<gated
			gated++
			for _, k := range q.Keywords {
				if k = strings.TrimSpace(k); k != "" {
					w.addKeyword(k, c.bit)
				}
			}
		}
		out = append(out, c)
	}
	return out, w, nil
}

func (w *wordScanner) addKeyword(word string, bit uint64) {
	k := keyword{word: strings.ToLower(word), bit: bit}
	k.fold = slices.ContainsFunc([]byte(k.word), func(b byte) bool { return b >= utf8.RuneSelf })
	first := k.word[0]
	if first >= utf8.RuneSelf {
		// The upper case of a non-ASCII first letter may start with another
		// byte: every word starting with a non-ASCII byte is a candidate.
		for b := utf8.RuneSelf; b < 256; b++ {
			w.keywords[b] = append(w.keywords[b], k)
		}
		return
	}
	w.keywords[first] = append(w.keywords[first], k)
	if 'a' <= first && first <= 'z' {
		w.keywords[first-'a'+'A'] = append(w.keywords[first-'a'+'A'], k)
	}
}

// scan returns the gate bits of the keywords that start a word of s, and
// appends the listed values that s holds as whole words (ASCII letters
// compared without case) to into.
func (w *wordScanner) scan(s string, into []found) (gates uint64, _ []found) {
	var buf [32]byte
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		for _, k := range w.keywords[s[i]] {
			if gates&k.bit == 0 && (!k.fold && hasPrefixFold(s[i:], k.word) ||
				k.fold && len(s)-i >= len(k.word) && strings.EqualFold(s[i:i+len(k.word)], k.word)) {
				gates |= k.bit
			}
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if n := j - i; n < 64 && n <= len(buf) && w.valueLen[lowerASCII(s[i])]&(1<<n) != 0 {
			word := buf[:n]
			for k := range word {
				word[k] = lowerASCII(s[i+k])
			}
			for _, v := range w.values[string(word)] { // a map lookup by converted bytes does not allocate
				matches := hasPrefixFold(s[i:], v.text)
				if v.exact != "" {
					matches = strings.HasPrefix(s[i:], v.exact)
				}
				if matches && (i+len(v.text) == len(s) || !isWordByte(s[i+len(v.text)])) {
					into = append(into, found{qualifier: v.qualifier, value: v.canon})
				}
			}
		}
		i = j
	}
	return gates, into
}

// find returns the values of qualifier i in s, lower case, each once;
// gates and listed are what scan found in s.
func (q *qualifier) find(i int, s string, gates uint64, listed []found, into []string) []string {
	if q.re == nil {
		for _, f := range listed {
			if f.qualifier == i && !slices.Contains(into, f.value) {
				into = append(into, f.value)
			}
		}
		return into
	}
	if q.gated && gates&q.bit == 0 {
		return into
	}
	for _, m := range q.re.FindAllStringSubmatch(s, -1) {
		v := m[0]
		for _, g := range m[1:] { // the first group that took part
			if g != "" {
				v = g
				break
			}
		}
		into = append(into, canonicalValue(v))
	}
	return into
}

// canonicalValue is how a pattern's value is compared: a date as its
// calendar date ("1 March 2025" = "2025-03-01"), a version without its
// "v" ("v2" = "2"), anything else lower case with single spaces.
func canonicalValue(v string) string {
	if figs := Figures(v); len(figs) == 1 && figs[0].Kind == "date" && len(figs[0].Text) == len(strings.TrimSpace(v)) {
		return figs[0].Value
	}
	v = strings.ToLower(strings.Join(strings.Fields(v), " "))
	if len(v) > 1 && v[0] == 'v' && isDigit(rune(v[1])) {
		v = v[1:]
	}
	return v
}

// acronym reports whether a listed value is written in capitals, two or
// more of them and nothing else ("US", "EEA").
func acronym(v string) bool {
	if len(v) < 2 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isUpper(rune(v[i])) {
			return false
		}
	}
	return true
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// hasPrefixFold reports whether s starts with the lower-case ASCII
// string p, ignoring ASCII case.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lowerASCII(s[i]) != p[i] {
			return false
		}
	}
	return true
}
