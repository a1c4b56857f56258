package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
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
	Judge string `json:"judge"`
	Label string `json:"label,omitempty"` // "" when the judge failed (see Error)
	// Score is the judge's probability that the evidence supports the
	// claim, 0 to 1; the label decides, the score is reported.
	Score    float64 `json:"score"`
	Fragment string  `json:"fragment,omitempty"`
	// LatencyMS is the time the judge took to answer, in milliseconds; a
	// cached verdict keeps the latency of the call that produced it.
	LatencyMS float64 `json:"latency_ms"`
	Cached    bool    `json:"cached,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// JudgeConfig configures an HTTP judge (policy field judge, or the
// --judge flags) and the limits of every judge the policy carries.
type JudgeConfig struct {
	URL         string `json:"url"`
	Format      string `json:"format,omitempty"` // plain (default) or openai
	Model       string `json:"model,omitempty"`
	TimeoutMS   int    `json:"timeout_ms,omitempty"`  // per call; default 10000
	MaxCalls    int    `json:"max_calls,omitempty"`   // claims judged per request; default 32
	Concurrency int    `json:"concurrency,omitempty"` // calls in flight per request; default 4
	// APIKey, when set, is sent as a bearer token. It is never written to
	// a policy or a trace; the CLI reads it from EVIDENCE_JUDGE_API_KEY.
	APIKey string `json:"-"`
}

// Judge limits: defaults, and the most a configuration may ask for.
const (
	defaultJudgeTimeout     = 10 * time.Second
	defaultJudgeMaxCalls    = 32
	defaultJudgeConcurrency = 4
	maxJudgeTimeout         = 10 * time.Minute
	maxJudgeMaxCalls        = 10000
	maxJudgeConcurrency     = 64
	maxJudgeFragment        = 1024 // bytes of a verdict's fragment kept in the report
)

// limits returns the per-call timeout, the calls per request and the
// calls in flight, with the defaults for what is unset.
func (c *JudgeConfig) limits() (timeout time.Duration, maxCalls, concurrency int) {
	timeout, maxCalls, concurrency = defaultJudgeTimeout, defaultJudgeMaxCalls, defaultJudgeConcurrency
	if c == nil {
		return
	}
	if c.TimeoutMS > 0 {
		timeout = time.Duration(c.TimeoutMS) * time.Millisecond
	}
	if c.MaxCalls > 0 {
		maxCalls = c.MaxCalls
	}
	if c.Concurrency > 0 {
		concurrency = c.Concurrency
	}
	return
}

// Judge reason codes of a claim.
const (
	ReasonJudgeRequired     = "judge_required"      // the policy wants a judge and none is configured
	ReasonJudgeUnavailable  = "judge_unavailable"   // the judge could not be asked, failed or timed out, or the budget was spent
	ReasonJudgeMalformed    = "judge_malformed"     // the judge answered something that is not a verdict
	ReasonJudgeContradicted = "judge_contradicted"  // the judge says the evidence contradicts the claim
	ReasonJudgeNotAddressed = "judge_not_addressed" // the judge says the evidence does not establish the claim
)

// Errors of a judge call; a Judge wraps one of them.
var (
	// ErrJudgeUnavailable is returned when a judge cannot be reached, fails,
	// answers with an HTTP error, or does not answer in time.
	ErrJudgeUnavailable = errors.New("verify: judge unavailable")
	// ErrJudgeMalformed is returned when a judge's answer is not a verdict:
	// not JSON, an unknown label, a score outside 0..1, or too large.
	ErrJudgeMalformed = errors.New("verify: judge answer malformed")
)

// pending is a claim that passed every deterministic check, with the
// evidence a judge would be shown.
type pending struct {
	claim int
	spans []string
}

// judgeCache is a judge that can answer from a cache without a call; see
// CachedJudge. judgeClaims reads it in the request's goroutine, so a
// cached verdict costs no goroutine and no timer.
type judgeCache interface {
	cached(in *JudgeInput) (JudgeVerdict, bool)
}

// judgeClaims asks the policy's judge about the claims that passed the
// deterministic checks, outside the store's read transaction, and routes
// a claim the policy wants confirmed and no judge confirmed to review.
//
// At most max_calls claims are judged, the first in request order, cached
// or not, so that a report never depends on what the cache held; at most
// concurrency calls are in flight. Verdicts are applied in claim order
// once all are in, so the report does not depend on which call finished
// first.
func judgeClaims(ctx context.Context, req *Request, pol *Policy, rep *Report, todo []pending) {
	j := pol.judge
	if j == nil {
		for _, p := range todo {
			if pol.judgeRequired(&req.Claims[p.claim]) {
				cr := &rep.Claims[p.claim]
				cr.Disposition = stronger(cr.Disposition, Review)
				cr.Reasons = append(cr.Reasons, ReasonJudgeRequired)
			}
		}
		return
	}
	if len(todo) == 0 {
		return
	}
	timeout, maxCalls, concurrency := pol.Judge.limits()
	verdicts := make([]JudgeVerdict, len(todo))
	errs := make([]error, len(todo))
	inputs := make([]JudgeInput, len(todo))
	cache, _ := j.(judgeCache)
	var calls []int // indexes into todo that need a call
	for i, p := range todo {
		if i >= maxCalls {
			errs[i] = fmt.Errorf("%w: the budget of %d judged claims per request is spent", ErrJudgeUnavailable, maxCalls)
			continue
		}
		cl := &req.Claims[p.claim]
		inputs[i] = JudgeInput{RequestID: req.RequestID, ClaimID: cl.ClaimID, Claim: cl.Text, Evidence: p.spans}
		if cache != nil {
			if v, ok := cache.cached(&inputs[i]); ok {
				verdicts[i] = v
				continue
			}
		}
		calls = append(calls, i)
	}
	if len(calls) > 0 {
		var wg sync.WaitGroup
		work := make(chan int)
		for range min(concurrency, len(calls)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					verdicts[i], errs[i] = callJudge(ctx, j, timeout, &inputs[i])
				}
			}()
		}
		for _, i := range calls {
			work <- i
		}
		close(work)
		wg.Wait()
	}
	id := j.ID()
	entailment := EntailmentJudge + id
	for i, p := range todo {
		applyVerdict(&rep.Claims[p.claim], id, entailment, verdicts[i], errs[i])
	}
}

// callJudge makes one judge call within timeout. The call runs in a
// goroutine of its own, so that a judge which ignores its context still
// cannot hold the request past the timeout; a panic in it is a failure of
// the judge, not of the verifier.
func callJudge(parent context.Context, j Judge, timeout time.Duration, in *JudgeInput) (JudgeVerdict, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	type result struct {
		v   JudgeVerdict
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned call still finishes
	start := time.Now()
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("%w: the judge panicked: %v", ErrJudgeUnavailable, p)}
			}
			done <- r
		}()
		r.v, r.err = j.Judge(ctx, *in)
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		r.err = ctx.Err()
	}
	if r.v.LatencyMS == 0 && !r.v.Cached { // CachedJudge measures the call it stores
		r.v.LatencyMS = milliseconds(time.Since(start))
	}
	switch {
	case r.err == nil:
		r.err = checkVerdict(&r.v)
	case errors.Is(r.err, ErrJudgeMalformed):
	case parent.Err() != nil:
		r.err = fmt.Errorf("%w: the request ended first: %v", ErrJudgeUnavailable, parent.Err())
	case ctx.Err() != nil:
		r.err = fmt.Errorf("%w: no answer within %s", ErrJudgeUnavailable, timeout)
	case errors.Is(r.err, ErrJudgeUnavailable):
	default:
		r.err = fmt.Errorf("%w: %v", ErrJudgeUnavailable, r.err)
	}
	return r.v, r.err
}

func milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkVerdict reports a verdict that is not one: an unknown label or a
// score outside 0..1.
func checkVerdict(v *JudgeVerdict) error {
	switch v.Label {
	case JudgeSupported, JudgeContradicted, JudgeNotAddressed:
	default:
		return fmt.Errorf("%w: label %.40q: want supported, contradicted or not_addressed", ErrJudgeMalformed, v.Label)
	}
	if math.IsNaN(v.Score) || v.Score < 0 || v.Score > 1 {
		return fmt.Errorf("%w: score %v: want 0 to 1", ErrJudgeMalformed, v.Score)
	}
	return nil
}

// applyVerdict records a judge's verdict on a claim and downgrades it as
// the verdict says: a judge never raises a claim's disposition, and a
// failed judge sends the claim to review.
func applyVerdict(cr *ClaimReport, id, entailment string, v JudgeVerdict, err error) {
	v.Judge = id
	v.Fragment = clipUTF8(v.Fragment, maxJudgeFragment)
	if err != nil {
		v.Label, v.Score, v.Error = "", 0, err.Error()
		reason := ReasonJudgeUnavailable
		if errors.Is(err, ErrJudgeMalformed) {
			reason = ReasonJudgeMalformed
		}
		cr.Disposition = stronger(cr.Disposition, Review)
		cr.Reasons = append(cr.Reasons, reason)
		cr.Judge = &v
		return
	}
	cr.Judge = &v
	// The judge established what the claim means, whichever way it went;
	// only a confirmation adds its check.
	cr.Entailment = entailment
	switch v.Label {
	case JudgeSupported:
		cr.Checks = append(cr.Checks, CheckJudge)
		for i := range cr.Evidence {
			if e := &cr.Evidence[i]; e.Status == EvidenceOK {
				e.Checks = append(e.Checks, CheckJudge)
			}
		}
	case JudgeContradicted:
		downgrade(cr, Contradicted, BlockAnswer, EvidenceContradicts, ReasonJudgeContradicted)
	case JudgeNotAddressed:
		downgrade(cr, Unsupported, RemoveClaim, EvidenceInsufficient, ReasonJudgeNotAddressed)
	}
}

func downgrade(cr *ClaimReport, status, disposition, evidenceStatus, reason string) {
	cr.Status = status
	cr.Disposition = stronger(cr.Disposition, disposition)
	cr.Reasons = append(cr.Reasons, reason)
	for i := range cr.Evidence {
		if e := &cr.Evidence[i]; e.Status == EvidenceOK {
			e.Status = evidenceStatus
			e.Reasons = append(e.Reasons, reason)
		}
	}
}

// clipUTF8 cuts s to at most n bytes, at a character boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// JudgeObserver is told the outcome of every verdict a judge is asked
// for: result is the label, "unavailable", "malformed" or "cached", and d
// the call's duration (zero for a cached verdict). It must be safe for
// concurrent use.
type JudgeObserver func(judge, result string, d time.Duration)

// ObservedJudge returns j reporting each verdict to obs: the hook for a
// server's metrics. Wrap the cached judge, so that cache hits are seen.
func ObservedJudge(j Judge, obs JudgeObserver) Judge {
	if obs == nil {
		return j
	}
	return &observedJudge{j: j, obs: obs}
}

type observedJudge struct {
	j   Judge
	obs JudgeObserver
}

func (o *observedJudge) ID() string { return o.j.ID() }

func (o *observedJudge) Judge(ctx context.Context, in JudgeInput) (JudgeVerdict, error) {
	start := time.Now()
	v, err := o.j.Judge(ctx, in)
	d := time.Since(start)
	if err == nil {
		err = checkVerdict(&v)
	}
	result := v.Label
	switch {
	case errors.Is(err, ErrJudgeMalformed):
		result = "malformed"
	case err != nil:
		result = "unavailable"
	case v.Cached:
		result, d = "cached", 0
	}
	o.obs(o.j.ID(), result, d)
	return v, err
}

func (o *observedJudge) cached(in *JudgeInput) (JudgeVerdict, bool) {
	c, ok := o.j.(judgeCache)
	if !ok {
		return JudgeVerdict{}, false
	}
	v, ok := c.cached(in)
	if ok {
		o.obs(o.j.ID(), "cached", 0)
	}
	return v, ok
}
