package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// routingReasons send an answer to review without saying it is wrong:
// they have no failure category.
var routingReasons = []string{"high_risk_policy", "claim_review", verify.ReasonJudgeRequired, verify.ReasonJudgeUnavailable, verify.ReasonJudgeMalformed}

// TestReasonCategories: over every verifier fixture, each reason code the
// verifier gives has a failure category (or is a routing code), a stored
// trace's summary names the categories its report's failure counts imply,
// an accepted answer with claims has none, an abstained one abstention, a blocked one
// correctness; and the fixtures show all seven categories.
func TestReasonCategories(t *testing.T) {
	seen := map[string]bool{}
	for _, fx := range loadFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			db, _, req, pol := prepareFixture(t, &fx)
			rep, err := verify.Answer(context.Background(), db, &req, pol)
			if err != nil {
				t.Fatal(err)
			}
			reasons := slices.Clone(rep.Reasons)
			for _, c := range rep.Claims {
				reasons = append(reasons, c.Reasons...)
				for _, e := range c.Evidence {
					reasons = append(reasons, e.Reasons...)
				}
			}
			for _, r := range reasons {
				if verify.Category(r) == "" && !slices.Contains(routingReasons, r) {
					t.Errorf("reason %q has no failure category: map it in verify/category.go", r)
				}
				if c := verify.Category(r); c != "" && !verify.ValidCategory(c) {
					t.Errorf("reason %q maps to %q, not a category", r, c)
				}
			}
			// The same trace stored again without its summary reads the same.
			var page *verify.TracePage
			var b []byte
			if err := db.View(func(tx *store.Tx) (err error) { b, err = tx.Trace(rep.TraceID); return err }); err != nil {
				t.Fatal(err)
			}
			if err := db.PutTrace(rep.TraceID+"0", b); err != nil {
				t.Fatal(err)
			}
			if err := db.View(func(tx *store.Tx) (err error) {
				page, err = verify.ListTraces(tx, &verify.TraceFilter{}, "", 10, 0)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(page.Traces) != 2 || page.Traces[1].TraceID != rep.TraceID {
				t.Fatalf("listing: got %+v, want the trace %s and its copy", page.Traces, rep.TraceID)
			}
			s := page.Traces[1]
			copied := page.Traces[0]
			copied.TraceID = s.TraceID
			if diff := cmp.Diff(s, copied); diff != "" {
				t.Errorf("summary read from the trace differs from the stored summary (-summary +trace)\n%s", diff)
			}
			has := func(c string) bool { return slices.Contains(s.Categories, c) }
			f := rep.Failures
			for _, want := range []struct {
				n   int
				cat []string
			}{
				{f.Resolution, []string{verify.FailResolution}}, {f.Permission, []string{verify.FailPermission}},
				{f.Version, []string{verify.FailVersion}}, {f.Coverage, []string{verify.FailCoverage}},
				{f.Support, []string{verify.FailSupport, verify.FailCorrectness}},
			} {
				if want.n > 0 && !slices.ContainsFunc(want.cat, has) {
					t.Errorf("failures %+v: categories %v lack %s", f, s.Categories, strings.Join(want.cat, " or "))
				}
			}
			switch rep.Disposition {
			case verify.AnswerAccept:
				// Without claims, a retrieved chunk that does not ground an
				// answer others ground still counts a failure.
				if len(req.Claims) > 0 && len(s.Categories) > 0 {
					t.Errorf("accepted answer with failure categories %v", s.Categories)
				}
			case verify.AnswerAbstain:
				if !has(verify.FailAbstention) {
					t.Errorf("abstained answer: categories %v lack abstention", s.Categories)
				}
			case verify.AnswerBlock:
				if !has(verify.FailCorrectness) {
					t.Errorf("blocked answer: categories %v lack correctness", s.Categories)
				}
			}
			if s.Disposition != rep.Disposition || s.RequestID != req.RequestID || s.Principal != req.Principal || s.Policy != rep.Policy {
				t.Errorf("summary %+v does not match the report (%s, %s)", s, rep.Disposition, rep.Policy)
			}
			for _, c := range s.Categories {
				seen[c] = true
			}
		})
	}
	for _, c := range verify.Categories {
		if !seen[c] {
			t.Errorf("no fixture shows a %s failure", c)
		}
	}
}

func TestReasonCode(t *testing.T) {
	for _, tt := range []struct{ reason, code, category string }{
		{"superseded_by:0123abcd", "superseded_by", verify.FailVersion},
		{"name_unsupported:saxagliptin", "name_unsupported", verify.FailSupport},
		{"quarantined:text_mismatch", "quarantined:text_mismatch", verify.FailResolution},
		{"qualifier_missing:jurisdiction", "qualifier_missing:jurisdiction", verify.FailSupport},
		{"qualifier_contradicted:effective_date", "qualifier_contradicted:effective_date", verify.FailCorrectness},
		{"figure_contradicted", "figure_contradicted", verify.FailCorrectness},
		{"no_citation", "no_citation", verify.FailCoverage},
		{"nothing_retrieved", "nothing_retrieved", verify.FailAbstention},
		{"forbidden", "forbidden", verify.FailPermission},
		{"judge_unavailable", "judge_unavailable", ""},
		{"no_such_reason", "no_such_reason", ""},
	} {
		if got := verify.ReasonCode(tt.reason); got != tt.code {
			t.Errorf("ReasonCode(%q): got %q, want %q", tt.reason, got, tt.code)
		}
		if got := verify.Category(tt.reason); got != tt.category {
			t.Errorf("Category(%q): got %q, want %q", tt.reason, got, tt.category)
		}
	}
}
