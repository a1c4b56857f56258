package verify

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Policy holds the rules that vary by domain, as data (DESIGN §6).
type Policy struct {
	Name string `json:"name"`
	// Risk "high" routes every answer with any failure to review instead
	// of a partial answer; "normal" (default) does not.
	Risk string `json:"risk"`
	// Superseded says what a citation of a superseded version gets:
	// "accept", "review" or "block" (block_claim, the default).
	Superseded string `json:"superseded"`
	// FuzzyMaxDistance bounds fuzzy quote matches in edits; 0 means one
	// edit per eight code points of the quote.
	FuzzyMaxDistance int `json:"fuzzy_max_distance"`
	// AllowFuzzy false makes a fuzzy-only quote match insufficient.
	AllowFuzzy *bool `json:"allow_fuzzy,omitempty"`
	// Qualifiers a claim must carry when its evidence carries them.
	Qualifiers []Qualifier `json:"qualifiers"`

	compiled []qualifier
}

// Qualifier names a kind of scope (effective date, jurisdiction, product,
// policy version) by a pattern or a list of values. When the evidence of a
// claim states one and the claim states none, the claim must be clarified;
// when the claim states one the evidence does not hold, it is not
// supported; another value of the same qualifier contradicts it.
type Qualifier struct {
	Name    string   `json:"name"`
	Pattern string   `json:"pattern,omitempty"` // RE2; the first group, else the match, is the value
	Values  []string `json:"values,omitempty"`  // matched as whole words, case-insensitively
	// Keywords, when set, gate the pattern: it runs only on a text holding
	// one of them in lower, Title or UPPER case, which keeps regular expressions off
	// the hot path of texts that cannot match.
	Keywords []string `json:"keywords,omitempty"`
}

type qualifier struct {
	name     string
	re       *regexp.Regexp
	values   []string            // lower case
	byFirst  map[string][]string // values by their first word, for a one-pass scan
	firstLen [256]uint64         // bit n of firstLen[b]: some first word starts with byte b and has n bytes
	keywords []string            // each in lower, Title and UPPER case
}

//go:embed default-policy.json
var defaultPolicyJSON []byte

// DefaultPolicy returns the documented default policy (default-policy.json).
func DefaultPolicy() *Policy {
	p, err := ParsePolicy(defaultPolicyJSON)
	if err != nil {
		panic("verify: default policy: " + err.Error()) // a build-time asset; tests load it
	}
	return p
}

// ErrPolicy is returned for a policy file that cannot be used.
var ErrPolicy = errors.New("verify: bad policy")

// LoadPolicy reads a JSON policy file.
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	p, err := ParsePolicy(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy parses and checks a JSON policy.
func ParsePolicy(b []byte) (*Policy, error) {
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	switch p.Risk {
	case "":
		p.Risk = "normal"
	case "normal", "high":
	default:
		return nil, fmt.Errorf("%w: risk %q: want normal or high", ErrPolicy, p.Risk)
	}
	switch p.Superseded {
	case "":
		p.Superseded = "block"
	case "accept", "review", "block":
	default:
		return nil, fmt.Errorf("%w: superseded %q: want accept, review or block", ErrPolicy, p.Superseded)
	}
	for _, q := range p.Qualifiers {
		c := qualifier{name: q.Name}
		if q.Name == "" || (q.Pattern == "") == (len(q.Values) == 0) {
			return nil, fmt.Errorf("%w: qualifier %q needs a name and either a pattern or values", ErrPolicy, q.Name)
		}
		if q.Pattern != "" {
			re, err := regexp.Compile(q.Pattern)
			if err != nil {
				return nil, fmt.Errorf("%w: qualifier %q: %v", ErrPolicy, q.Name, err)
			}
			c.re = re
		}
		c.byFirst = map[string][]string{}
		for _, v := range q.Values {
			v = strings.Join(strings.Fields(strings.ToLower(v)), " ")
			c.values = append(c.values, v)
			first, _, _ := strings.Cut(v, " ")
			c.byFirst[first] = append(c.byFirst[first], v)
			if len(first) < 64 {
				c.firstLen[first[0]] |= 1 << len(first)
			}
		}
		for _, k := range q.Keywords {
			k = strings.ToLower(k)
			if k == "" {
				continue
			}
			c.keywords = append(c.keywords, k, strings.ToUpper(k[:1])+k[1:], strings.ToUpper(k))
		}
		p.compiled = append(p.compiled, c)
	}
	return &p, nil
}

func (p *Policy) allowFuzzy() bool { return p.AllowFuzzy == nil || *p.AllowFuzzy }

// find returns the qualifier's values in s, lower-cased. It allocates
// only for what it finds: it runs on every claim and evidence span.
func (q *qualifier) find(s string) []string {
	var out []string
	if q.re != nil {
		// Keywords gate the pattern in lower, Title or UPPER case: vectorized
		// searches, cheaper than folding the text.
		if len(q.keywords) > 0 && !slices.ContainsFunc(q.keywords, func(k string) bool { return strings.Contains(s, k) }) {
			return nil
		}
		for _, m := range q.re.FindAllStringSubmatch(s, -1) {
			v := m[0]
			if len(m) > 1 && m[1] != "" {
				v = m[1]
			}
			out = append(out, strings.ToLower(strings.Join(strings.Fields(v), " ")))
		}
		return out
	}
	// One pass over the words of the text; a value matches as whole words.
	var buf [32]byte
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j-i < 64 && q.firstLen[lowerASCII(s[i])]&(1<<(j-i)) != 0 && j-i <= len(buf) {
			w := buf[:j-i]
			for k := range w {
				w[k] = lowerASCII(s[i+k])
			}
			for _, v := range q.byFirst[string(w)] { // no allocation: map lookup by converted bytes
				if hasPrefixFold(s[i:], v) && (i+len(v) == len(s) || !isWordByte(s[i+len(v)])) && !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
		i = j
	}
	return out
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
