package verify

import (
	"errors"
	"testing"
	"time"
)

// TestSummaryNeedles: a summary starts with the prefix its needles need,
// and a filter's needles pass over exactly the summaries whose members
// differ, escaping included.
func TestSummaryNeedles(t *testing.T) {
	req := &Request{RequestID: "r-1", Principal: `<ann&bob> "x"`}
	rep := &Report{Disposition: AnswerPartial, Policy: "default", Claims: []ClaimReport{{Disposition: RemoveClaim,
		Evidence: []EvidenceReport{{Status: EvidenceInsufficient, DocumentID: "policy.md", Reasons: []string{"figure_missing"}}}}}}
	b, err := EncodeTraceSummary("01", time.Unix(1e9, 0), req, rep)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:len(summaryPrefix)]) != string(summaryPrefix) {
		t.Fatalf("summary %s does not start with %s: its needles never apply", b, summaryPrefix)
	}
	for _, tt := range []struct {
		f      TraceFilter
		reject bool
	}{
		{TraceFilter{Principal: req.Principal}, false},
		{TraceFilter{Principal: "ann"}, true},
		{TraceFilter{ByPrincipal: true}, true},
		{TraceFilter{RequestID: "r-1", Document: "policy.md", Disposition: AnswerPartial}, false},
		{TraceFilter{RequestID: "r-2"}, true},
		{TraceFilter{Document: "policy"}, true},
		{TraceFilter{Disposition: AnswerBlock}, true},
		{TraceFilter{Reason: "figure_missing", Category: FailSupport}, false},
	} {
		if got := filterNeedles(&tt.f).rejects(b); got != tt.reject {
			t.Errorf("%+v: rejects %v, want %v (summary %s)", tt.f, got, tt.reject, b)
		}
		d, err := digest([]byte("01"), b, func() ([]byte, error) { return nil, errors.New("the trace was read") })
		if err != nil {
			t.Fatal(err)
		}
		if d.matches(&tt.f) == tt.reject {
			t.Errorf("%+v: the needles say %v, the decoded summary %v", tt.f, !tt.reject, d.matches(&tt.f))
		}
	}
}
