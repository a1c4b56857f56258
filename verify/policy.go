package verify

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Policy holds the rules that vary by domain, as data (docs/contract.md#claims-in-verdicts-out).
type Policy struct {
	Name string `json:"name"`
	// Risk "high" routes every answer with any failure to review instead
	// of a partial answer; "normal" (default) does not.
	Risk string `json:"risk"`
	// Superseded says what a citation of a superseded version gets:
	// "accept_if_text_unchanged" (the default: checked as current when
	// the version's canonical text is the current version's, else
	// block_claim), "accept", "review" or "block" (block_claim).
	Superseded string `json:"superseded"`
	// FuzzyMaxDistance bounds fuzzy quote matches in edits; 0 means one
	// edit per eight code points of the quote.
	FuzzyMaxDistance int `json:"fuzzy_max_distance"`
	// AllowFuzzy false makes a fuzzy-only quote match insufficient.
	AllowFuzzy *bool `json:"allow_fuzzy,omitempty"`
	// Qualifiers a claim must carry when its evidence carries them.
	Qualifiers []Qualifier `json:"qualifiers"`
	// MeaningChecks false turns the deterministic meaning checks off
	// (polarity, direction, period, modality, names, exceptions); nil or
	// true runs them.
	MeaningChecks *bool `json:"meaning_checks,omitempty"`
	// RequireJudge says which claims a model judge must confirm before
	// they are accepted: "none" (default), "high_risk" (claims marked
	// risk "high", every claim under a high-risk policy) or "all". An
	// unconfirmed claim goes to review.
	RequireJudge string `json:"require_judge,omitempty"`
	// Judge configures the model judge; the CLI's and the server's flags
	// override it.
	Judge *JudgeConfig `json:"judge,omitempty"`

	judge Judge // set by WithJudge, or built from Judge

	compiled []qualifier
	words    wordScanner
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
	// Aliases name one value several ways ("United States", "US", "USA"):
	// each group's first name is the value, each name is found as a value
	// is, and a claim's "US" against the evidence's "United States" is the
	// same value, not a contradiction.
	Aliases [][]string `json:"aliases,omitempty"`
	// Keywords, when set, gate the pattern: it runs only on a text where a
	// word starts with one of them, ignoring case, which keeps regular
	// expressions off the hot path of texts that cannot match. A pattern
	// that can match inside a word should not be gated.
	Keywords []string `json:"keywords,omitempty"`
}

//go:embed default-policy.json
var defaultPolicyJSON []byte

// DefaultPolicy returns the documented default policy (default-policy.json).
func DefaultPolicy() *Policy {
	p, err := decodePolicy(defaultPolicyJSON)
	if err != nil {
		panic("verify: default policy: " + err.Error()) // a build-time asset; tests load it
	}
	return p
}

// ErrPolicy is returned for a policy file that cannot be used.
var ErrPolicy = errors.New("verify: bad policy")

// LoadPolicy reads a policy file: YAML when its name ends in .yaml or
// .yml, else JSON. Both are read strictly: an unknown field is an error,
// so a misspelt rule is never silently ignored. The file extends the
// default policy as ParsePolicy says; a file that names no policy is
// named after the file (mine.json is "mine").
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		if b, err = yaml.YAMLToJSON(b); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", path, ErrPolicy, err)
		}
	}
	p, err := ParsePolicy(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Name == "" {
		base := filepath.Base(path)
		p.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return p, nil
}

// ParsePolicy parses and checks a JSON policy. A policy extends the
// default (default-policy.json) unless it says "extends": "none": the
// file is applied to the default as a JSON merge patch (RFC 7396), so a
// field it gives replaces the default's, an object (judge) merges field
// by field, a list (qualifiers, a qualifier's values) replaces the
// default's list whole, and null takes the default's value away. The
// name is the policy's own and never inherited.
func ParsePolicy(b []byte) (*Policy, error) {
	merged, err := extendPolicy(b)
	if err != nil {
		return nil, err
	}
	return decodePolicy(merged)
}

// extendPolicy returns policy b applied to the policy it extends.
func extendPolicy(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var patch map[string]json.RawMessage
	var typeErr *json.UnmarshalTypeError
	switch err := dec.Decode(&patch); {
	case errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%w: empty policy", ErrPolicy)
	case errors.As(err, &typeErr) || err == nil && patch == nil:
		return nil, fmt.Errorf("%w: a policy is a JSON object", ErrPolicy)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the policy object", ErrPolicy)
	}
	extends := "default"
	if raw, ok := patch["extends"]; ok {
		if err := json.Unmarshal(raw, &extends); err != nil {
			return nil, fmt.Errorf("%w: extends: want \"default\" or \"none\"", ErrPolicy)
		}
		delete(patch, "extends")
	}
	if _, ok := patch["name"]; !ok {
		patch["name"] = json.RawMessage(`""`)
	}
	switch extends {
	case "none":
		return json.Marshal(patch)
	case "default":
		return mergePatch(defaultPolicyJSON, patch)
	}
	return nil, fmt.Errorf("%w: extends %q: want default or none", ErrPolicy, extends)
}

// mergePatch applies an object's members to a JSON object, as RFC 7396
// says: members merge into objects, null removes, anything else replaces.
func mergePatch(base json.RawMessage, patch map[string]json.RawMessage) ([]byte, error) {
	var out map[string]json.RawMessage
	if err := json.Unmarshal(base, &out); err != nil || out == nil {
		out = map[string]json.RawMessage{} // base is not an object: the patch replaces it
	}
	for k, v := range patch {
		var sub map[string]json.RawMessage
		switch {
		case string(bytes.TrimSpace(v)) == "null":
			delete(out, k)
		case json.Unmarshal(v, &sub) == nil && sub != nil:
			m, err := mergePatch(out[k], sub)
			if err != nil {
				return nil, err
			}
			out[k] = m
		default:
			out[k] = v
		}
	}
	return json.Marshal(out)
}

// decodePolicy parses and checks a whole JSON policy, inheriting nothing.
func decodePolicy(b []byte) (*Policy, error) {
	var p Policy
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrPolicy, strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the policy object", ErrPolicy)
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
		p.Superseded = SupersededIfTextUnchanged
	case "accept", "review", "block", SupersededIfTextUnchanged:
	default:
		return nil, fmt.Errorf("%w: superseded %q: want block, review, accept_if_text_unchanged or accept", ErrPolicy, p.Superseded)
	}
	switch p.RequireJudge {
	case "":
		p.RequireJudge = "none"
	case "none", "high_risk", "all":
	default:
		return nil, fmt.Errorf("%w: require_judge %q: want none, high_risk or all", ErrPolicy, p.RequireJudge)
	}
	var err error
	if p.compiled, p.words, err = compileQualifiers(p.Qualifiers); err != nil {
		return nil, err
	}
	if p.Judge != nil {
		if p.judge, err = NewHTTPJudge(*p.Judge); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
		}
	}
	return &p, nil
}

func (p *Policy) allowFuzzy() bool { return p.AllowFuzzy == nil || *p.AllowFuzzy }

func (p *Policy) meaningChecks() bool { return p.MeaningChecks == nil || *p.MeaningChecks }

// WithJudge returns a copy of the policy that asks j about every claim
// that passes the deterministic checks; nil takes the judge away. The
// limits of the policy's Judge config (calls, concurrency, timeout) apply
// to j.
func (p *Policy) WithJudge(j Judge) *Policy {
	q := *p
	q.judge = j
	return &q
}

// ModelJudge returns the judge the policy asks: the one set by WithJudge,
// else the one its judge config describes, else nil.
func (p *Policy) ModelJudge() Judge { return p.judge }

// judgeRequired reports whether the policy wants a judge to confirm cl.
func (p *Policy) judgeRequired(cl *Claim) bool {
	switch p.RequireJudge {
	case "all":
		return true
	case "high_risk":
		return p.Risk == "high" || cl.Risk == "high"
	}
	return false
}
