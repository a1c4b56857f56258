package verify

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQualifiers(t *testing.T) {
	pol, err := ParsePolicy([]byte(`{"qualifiers": [
		{"name": "jurisdiction", "values": ["European Union", "EU", "New York"]},
		{"name": "version", "pattern": "(?i)\\bversion (\\d+)", "keywords": ["version"]},
		{"name": "straße", "pattern": "(?i)straße (\\d+)", "keywords": ["Straße"]},
		{"name": "ungated", "pattern": "article (\\d+)"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := checker{pol: pol}
	tests := []struct {
		claim, evidence                    string
		missing, unsupported, contradicted []string
	}{
		{"Applies in the EU under Version 3.", "In the EU, VERSION 3 applies.", nil, nil, nil},
		{"Reports are due in 14 days.", "Contact us within 14 days.", nil, nil, nil}, // "us" is no jurisdiction: acronyms match in capitals
		{"Applies in the eu.", "Applies in the EU.", []string{"jurisdiction"}, nil, nil},
		{"Applies in new york.", "Applies in New York.", nil, nil, nil},                       // names match in any case
		{"Applies in New York.", "Applies in new  york.", nil, []string{"jurisdiction"}, nil}, // values are single-spaced words
		{"Applies in New York.", "Applies in New Yorkshire.", nil, []string{"jurisdiction"}, nil},
		{"Applies.", "Applies in the European Union.", []string{"jurisdiction"}, nil, nil},
		{"Applies in the EU.", "Applies in New York.", nil, nil, []string{"jurisdiction"}},
		{"See version 2.", "See version 3.", nil, nil, []string{"version"}},
		{"See subversion 2.", "See version 2.", []string{"version"}, nil, nil}, // gated: no keyword starts a word of the claim
		{"See STRASSE 4.", "See STRASSE 4.", nil, nil, nil},
		{"See STRAßE 4.", "See straße 5.", nil, nil, []string{"straße"}}, // non-ASCII keyword, case folded
		{"See article 4.", "See article 5.", nil, nil, []string{"ungated"}},
	}
	for _, tt := range tests {
		m, u, x := c.checkQualifiers(tt.claim, tt.evidence)
		if !slices.Equal(m, tt.missing) || !slices.Equal(u, tt.unsupported) || !slices.Equal(x, tt.contradicted) {
			t.Errorf("%q vs %q: got missing %v unsupported %v contradicted %v, want %v %v %v",
				tt.claim, tt.evidence, m, u, x, tt.missing, tt.unsupported, tt.contradicted)
		}
	}
	for _, bad := range []string{
		`{"qualifiers": [{"name": "j", "values": ["  "]}]}`,
		`{"qualifiers": [{"name": "j", "pattern": "("}]}`,
		`{"qualifiers": [{"name": "", "values": ["x"]}]}`,
	} {
		if _, err := ParsePolicy([]byte(bad)); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: got %v, want ErrPolicy", bad, err)
		}
	}
}

// TestDefaultPolicyValues: pattern values compare as what they mean.
func TestDefaultPolicyValues(t *testing.T) {
	c := checker{pol: DefaultPolicy()}
	tests := []struct {
		claim, evidence string
		contradicted    []string
	}{
		{"The policy is effective 1 March 2025.", "Effective from 2025-03-01, the policy applies.", nil}, // one date, two spellings
		{"The policy is effective 2 March 2025.", "Effective from 2025-03-01, the policy applies.", []string{"effective_date"}},
		{"Under version v2 of the policy.", "Under version 2 of the policy.", nil},
		{"Under version 3 of the policy.", "Under version 2 of the policy.", []string{"policy_version"}},
		{"Policy version 4 applies.", "Policy version 3 applies.", []string{"policy_version"}},
		{"Policy version 3 applies.", "This is policy version 3.", nil},
		// A software version is no version of the document: "protocol
		// version 2" neither qualifies nor contradicts a claim.
		{"The protocol is no longer the default.", "The transport protocol version 2 was demoted from the default.", nil},
		{"Python 3 is required.", "The latest released minor version 2.7 will see extended support.", nil},
	}
	for _, tt := range tests {
		m, u, x := c.checkQualifiers(tt.claim, tt.evidence)
		if len(m) > 0 || len(u) > 0 || !slices.Equal(x, tt.contradicted) {
			t.Errorf("%q vs %q: got missing %v unsupported %v contradicted %v, want contradicted %v", tt.claim, tt.evidence, m, u, x, tt.contradicted)
		}
	}
}

// TestLoadPolicyFormats: a policy reads the same from JSON and YAML, and a
// misspelt field is an error in both, naming the file.
func TestLoadPolicyFormats(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p.json":    `{"name": "strict", "risk": "high", "superseded": "review", "qualifiers": [{"name": "jurisdiction", "values": ["EU", "New York"]}]}`,
		"p.yaml":    "name: strict\nrisk: high\nsuperseded: review\nqualifiers:\n  - name: jurisdiction\n    values: [EU, New York]\n",
		"typo.json": `{"name": "x", "qualifers": []}`,
		"typo.yml":  "name: x\nqualifers: []\n",
		"bad.yaml":  "name: [unclosed\n",
		"two.json":  `{"name": "x"} {"name": "y"}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []*Policy
	for _, name := range []string{"p.json", "p.yaml"} {
		p, err := LoadPolicy(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Name != "strict" || p.Risk != "high" || p.Superseded != "review" || len(p.compiled) != 1 {
			t.Errorf("%s: got %+v", name, p)
		}
		got = append(got, p)
	}
	if c := (checker{pol: got[1]}); !slices.Equal(mustUnsupported(c.checkQualifiers("In New York.", "Nothing.")), []string{"jurisdiction"}) {
		t.Errorf("YAML policy: New York not found as a value")
	}
	for _, name := range []string{"typo.json", "typo.yml", "bad.yaml", "two.json"} {
		_, err := LoadPolicy(filepath.Join(dir, name))
		if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v, want ErrPolicy naming the file", name, err)
		}
	}
}

func mustUnsupported(_, unsupported, _ []string) []string { return unsupported }

// FuzzWordScanner checks the one-pass scanner against a naive one: at
// every word start, every keyword and every listed value is tried.
func FuzzWordScanner(f *testing.F) {
	f.Add("Effective 1 March 2025 in the EU, version 3; new  york and New York. STRAßE 9, rev. 2", "EU")
	f.Add("ÉU eu Eu eU euro neu", "Ü")
	f.Fuzz(func(t *testing.T, s, extra string) {
		if !utf8.ValidString(extra) {
			return // policies come through JSON, which makes them valid UTF-8
		}
		qs := []Qualifier{
			{Name: "j", Values: []string{"EU", "New York", "United States", extra}},
			{Name: "v", Pattern: `(?i)\bversion (\d+)`, Keywords: []string{"version", "rev."}},
			{Name: "s", Pattern: `(?i)straße (\d+)`, Keywords: []string{"Straße", extra}},
		}
		compiled, w, err := compileQualifiers(qs)
		if err != nil {
			return // extra made an empty value
		}
		gates, got := w.scan(s, nil)
		var wantGates uint64
		var want []found
		for i := 0; i < len(s); i++ {
			if !isWordByte(s[i]) || i > 0 && isWordByte(s[i-1]) {
				continue
			}
			for qi, q := range qs {
				for _, k := range q.Keywords {
					k = strings.TrimSpace(k)
					if k != "" && compiled[qi].gated && len(s)-i >= len(k) && strings.EqualFold(s[i:i+len(k)], k) {
						wantGates |= compiled[qi].bit
					}
				}
				for _, v := range q.Values {
					raw := strings.Join(strings.Fields(v), " ")
					v = strings.ToLower(raw)
					match := hasPrefixFold(s[i:], v)
					if acronym(raw) {
						match = strings.HasPrefix(s[i:], raw)
					}
					if v != "" && match && (i+len(v) == len(s) || !isWordByte(s[i+len(v)])) {
						want = append(want, found{qualifier: qi, value: v})
					}
				}
			}
		}
		if gates != wantGates {
			t.Fatalf("gates %b, naive %b", gates, wantGates)
		}
		if len(got) != len(want) {
			t.Fatalf("found %v, naive %v", got, want)
		}
		for _, f := range want {
			if !slices.Contains(got, f) {
				t.Fatalf("found %v, naive %v", got, want)
			}
		}
	})
}

// TestQualifierAliases: names of one value are the same value ("the US"
// citing "the United States"), not a contradiction; another value still
// contradicts (corpus/outside heldout12 e196).
func TestQualifierAliases(t *testing.T) {
	custom, err := ParsePolicy([]byte(`{"qualifiers": [{"name": "jurisdiction", "values": ["Canada"],
		"aliases": [["United States", "US", "USA"], ["European Union", "EU"]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []*Policy{DefaultPolicy(), custom} {
		c := checker{pol: pol}
		tests := []struct {
			claim, evidence string
			contradicted    bool
		}{
			{"She may not compete in the US or Canada.", "the Executive shall not, within the United States or Canada, engage in", false},
			{"She may not compete in the United States.", "the Executive shall not, within the USA, engage in", false},
			{"She may not compete in the EU.", "the Executive shall not, within the European Union, engage in", false},
			{"She may not compete in the EU.", "the Executive shall not, within the United States, engage in", true},
		}
		for _, tt := range tests {
			_, _, contradicted := c.checkQualifiers(tt.claim, tt.evidence)
			if (len(contradicted) > 0) != tt.contradicted {
				t.Errorf("%s: %q citing %q: contradicted %v, want %v", pol.Name, tt.claim, tt.evidence, contradicted, tt.contradicted)
			}
		}
	}
	if _, err := ParsePolicy([]byte(`{"qualifiers": [{"name": "j", "values": ["A"], "aliases": [["US"]]}]}`)); err == nil {
		t.Error("an alias group of one name: no error")
	}
}
