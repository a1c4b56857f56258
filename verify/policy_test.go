package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// qualifierNames lists a policy's qualifiers by name.
func qualifierNames(p *Policy) []string {
	var names []string
	for _, q := range p.Qualifiers {
		names = append(names, q.Name)
	}
	return names
}

// TestPolicyExtendsDefault: a policy inherits the default field by field;
// a list it gives replaces the default's, null takes a value away, and
// "extends": "none" inherits nothing.
func TestPolicyExtendsDefault(t *testing.T) {
	def := DefaultPolicy()
	defNames := qualifierNames(def)
	if len(defNames) == 0 {
		t.Fatal("the default policy has no qualifiers: this test needs some")
	}
	yes := true
	tests := []struct {
		name, policy string
		want         func(p *Policy) []string // what differs from expected, if anything
	}{
		{"a subset keeps the rest", `{"superseded": "review"}`, func(p *Policy) []string {
			return diffs(
				cmp.Diff(defNames, qualifierNames(p)), cmp.Diff("review", p.Superseded),
				cmp.Diff(def.Risk, p.Risk), cmp.Diff("", p.Name), cmp.Diff(len(def.compiled), len(p.compiled)))
		}},
		{"a list replaces the default's", `{"name": "eu", "qualifiers": [{"name": "jurisdiction", "values": ["EU"]}]}`, func(p *Policy) []string {
			return diffs(cmp.Diff([]string{"jurisdiction"}, qualifierNames(p)), cmp.Diff([]string{"EU"}, p.Qualifiers[0].Values),
				cmp.Diff(def.Superseded, p.Superseded), cmp.Diff("eu", p.Name), cmp.Diff(1, len(p.compiled)))
		}},
		{"an empty list is no qualifiers", `{"qualifiers": []}`, func(p *Policy) []string {
			return diffs(cmp.Diff(0, len(p.Qualifiers)), cmp.Diff(0, len(p.compiled)))
		}},
		{"null takes the default's value away", `{"qualifiers": null, "risk": "high"}`, func(p *Policy) []string {
			return diffs(cmp.Diff(0, len(p.Qualifiers)), cmp.Diff("high", p.Risk))
		}},
		{"an object merges field by field", `{"allow_fuzzy": true, "judge": {"url": "http://127.0.0.1:9/j"}}`, func(p *Policy) []string {
			return diffs(cmp.Diff(&yes, p.AllowFuzzy), cmp.Diff(defNames, qualifierNames(p)), cmp.Diff("http://127.0.0.1:9/j", p.Judge.URL))
		}},
		{"extends default says what the default is", `{"extends": "default", "name": "d"}`, func(p *Policy) []string {
			return diffs(cmp.Diff(defNames, qualifierNames(p)), cmp.Diff("d", p.Name))
		}},
		{"extends none inherits nothing", `{"extends": "none", "superseded": "review"}`, func(p *Policy) []string {
			return diffs(cmp.Diff([]string(nil), qualifierNames(p)), cmp.Diff("review", p.Superseded), cmp.Diff("normal", p.Risk))
		}},
	}
	for _, tt := range tests {
		p, err := ParsePolicy([]byte(tt.policy))
		if err != nil {
			t.Errorf("%s: %s: %v", tt.name, tt.policy, err)
			continue
		}
		for _, d := range tt.want(p) {
			t.Errorf("%s: %s: (-want +got)\n%s", tt.name, tt.policy, d)
		}
	}
	if after := DefaultPolicy(); !cmp.Equal(qualifierNames(after), defNames) || after.Superseded != def.Superseded {
		t.Errorf("parsing policies changed the default: got %v %s", qualifierNames(after), after.Superseded)
	}
}

func diffs(ds ...string) []string {
	var out []string
	for _, d := range ds {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// TestPolicyErrors: a policy that cannot be used is an error naming what
// is wrong, the unknown field or the bad value, whether or not it extends
// the default.
func TestPolicyErrors(t *testing.T) {
	for _, tt := range []struct{ policy, want string }{
		{`{"supersede": "review"}`, `unknown field "supersede"`},
		{`{"extends": "none", "supersede": "review"}`, `unknown field "supersede"`},
		{`{"qualifiers": [{"name": "j", "valuez": ["x"]}]}`, `unknown field "valuez"`},
		{`{"judge": {"urll": "http://h/"}}`, `unknown field "urll"`},
		{`{"extends": "strict"}`, `extends "strict": want default or none`},
		{`{"extends": 1}`, `extends: want "default" or "none"`},
		{`{"risk": "medium"}`, `risk "medium"`},
		{`[]`, `a policy is a JSON object`},
		{`null`, `a policy is a JSON object`},
		{``, `empty policy`},
		{`{} {}`, `trailing data`},
		{`{"name": "x"`, `unexpected EOF`},
	} {
		_, err := ParsePolicy([]byte(tt.policy))
		if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want ErrPolicy saying %s", tt.policy, err, tt.want)
		}
	}
}

// TestLoadPolicyName: a file that names no policy is named after the
// file, not after the default it extends.
func TestLoadPolicyName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte("superseded: review\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "mine" || p.Superseded != "review" || len(p.Qualifiers) != len(DefaultPolicy().Qualifiers) {
		t.Errorf("got name %q, superseded %s, %d qualifiers: want mine, review, the default's", p.Name, p.Superseded, len(p.Qualifiers))
	}
}
