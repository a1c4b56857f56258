package eval

import (
	"context"
	"slices"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// ClaimCitations is the ALCE-style judgement of one claim's citations
// (Gao et al. 2023, "Enabling Large Language Models to Generate Text with
// Citations"): recall is whether the cited passages together support the
// claim; a citation is precise unless it supports nothing alone and the
// others support the claim without it (leave-one-out). Passages are the
// whole cited chunks, as the principal may read them; the judge is the
// verifier's (verify.Judge).
type ClaimCitations struct {
	ClaimID   string `json:"claim_id"`
	Recall    bool   `json:"recall"`
	Citations int    `json:"citations"`
	Precise   int    `json:"precise"`
	// Error is set when a judge call failed: the claim is not counted.
	Error string `json:"error,omitempty"`
}

// judgeCitations judges the citations of every claim of the answer that
// cites something, adds them to the question's counts, and returns the
// judge calls made.
func (r *runner) judgeCitations(qr *QuestionResult, q *Question, a *Answer) int {
	ctx := r.ctx
	if r.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 4*r.cfg.Timeout)
		defer cancel()
	}
	passages := map[string]string{}
	_ = r.cfg.DB.View(func(tx *store.Tx) error {
		for _, c := range a.Claims {
			for _, e := range c.Evidence {
				if _, ok := passages[e.ChunkID]; ok {
					continue
				}
				passages[e.ChunkID] = ""
				if res, err := resolve.ChunkTx(tx, e.ChunkID, q.Principal); err == nil && res.Served() {
					passages[e.ChunkID] = res.Text
				}
			}
		}
		return nil
	})
	calls := 0
	for _, c := range a.Claims {
		if len(c.Evidence) == 0 {
			continue
		}
		ps := make([]string, len(c.Evidence))
		for i, e := range c.Evidence {
			ps[i] = passages[e.ChunkID]
		}
		cc, n := judgeClaim(ctx, r.cfg.Judge, qr.ID, &c, ps)
		calls += n
		qr.Citations = append(qr.Citations, cc)
		if cc.Error != "" {
			continue
		}
		qr.Counts.JudgedClaims++
		qr.Counts.JudgedCitations += cc.Citations
		qr.Counts.PreciseCitations += cc.Precise
		if cc.Recall {
			qr.Counts.RecalledClaims++
		}
	}
	return calls
}

// judgeClaim judges one claim whose citations' passages are ps ("" for a
// citation that does not resolve for the principal: it supports nothing).
func judgeClaim(ctx context.Context, j verify.Judge, requestID string, c *verify.Claim, ps []string) (ClaimCitations, int) {
	cc := ClaimCitations{ClaimID: c.ClaimID, Citations: len(ps)}
	calls := 0
	supports := func(passages []string) (bool, error) {
		var nonEmpty []string
		for _, p := range passages {
			if p != "" {
				nonEmpty = append(nonEmpty, p)
			}
		}
		if len(nonEmpty) == 0 {
			return false, nil
		}
		calls++
		v, err := j.Judge(ctx, verify.JudgeInput{RequestID: requestID, ClaimID: c.ClaimID, Claim: c.Text, Evidence: nonEmpty})
		if err != nil {
			return false, err
		}
		return v.Label == verify.JudgeSupported, nil
	}
	recall, err := supports(ps)
	if err != nil {
		cc.Error = err.Error()
		return cc, calls
	}
	cc.Recall = recall
	if !recall {
		return cc, calls // ALCE: the citations of an unsupported claim are not precise
	}
	if len(ps) == 1 {
		cc.Precise = 1
		return cc, calls
	}
	for k := range ps {
		alone, err := supports(ps[k : k+1])
		if err != nil {
			cc.Error = err.Error()
			return cc, calls
		}
		if alone {
			cc.Precise++
			continue
		}
		rest, err := supports(slices.Delete(slices.Clone(ps), k, k+1))
		if err != nil {
			cc.Error = err.Error()
			return cc, calls
		}
		if !rest {
			cc.Precise++ // needed: without it the others do not support the claim
		}
	}
	return cc, calls
}
