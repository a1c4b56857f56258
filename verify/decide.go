package verify

import "slices"

// decide sets the metrics, the failure counts and the answer's disposition
// from the claim reports (docs/contract.md#dispositions): block if any claim blocks the answer;
// review under a high-risk policy with any failure (or a grounded answer
// without claims); abstain when an answer without claims is not grounded, nothing
// was retrieved or no claim is supported; review after a retrieval error;
// clarify; partial when some claims are removed or blocked; else accept.
func decide(rep *Report, req *Request, pol *Policy) {
	m := &rep.Metrics
	f := &rep.Failures
	anyBlockAnswer, anyClarify, anyRemoved, anyReview := false, false, false, false
	for i := range rep.Claims {
		cr := &rep.Claims[i]
		cl := &req.Claims[i]
		for _, e := range cr.Evidence {
			m.Citations++
			switch e.Status {
			case EvidenceOK:
				m.AcceptedCitations++
			case EvidenceForbidden:
				f.add(FailPermission)
			case EvidenceStale:
				f.add(FailVersion)
			case EvidenceUnresolved:
				f.add(FailResolution)
			default:
				f.add(FailSupport)
			}
		}
		if cl.requiresEvidence() {
			m.ClaimsRequiringEvidence++
			if cr.Status == Supported && len(cr.Evidence) > 0 {
				m.SupportedClaims++
			}
			if cr.Status == Uncited {
				f.add(FailCoverage)
			}
		}
		switch cr.Disposition {
		case BlockAnswer:
			anyBlockAnswer = true
		case Clarify:
			anyClarify = true
		case Review:
			anyReview = true
		case RemoveClaim, BlockClaim:
			anyRemoved = true
		}
	}
	for range rep.UncitedSentences {
		m.ClaimsRequiringEvidence++
		f.add(FailCoverage)
		anyRemoved = true
	}
	if m.Citations > 0 {
		m.CitationSupportRate = float64(m.AcceptedCitations) / float64(m.Citations)
	}
	if m.ClaimsRequiringEvidence > 0 {
		m.ClaimCoverageRate = float64(m.SupportedClaims) / float64(m.ClaimsRequiringEvidence)
	}
	nothingRetrieved := len(req.Retrieved) == 0
	noneSupported := m.ClaimsRequiringEvidence > 0 && m.SupportedClaims == 0
	noClaims := len(req.Claims) == 0 // the cheaper contract: grounding set by Check
	if !noClaims {
		rep.Grounding = claimsGrounding(req, rep)
	}
	switch {
	case anyBlockAnswer:
		rep.Disposition = AnswerBlock
		rep.Reasons = append(rep.Reasons, "evidence_contradicts_claim")
	case pol.Risk == "high" && (f.total() > 0 || anyClarify || noClaims && rep.Grounding == Grounded):
		rep.Disposition = AnswerReview
		rep.Reasons = append(rep.Reasons, "high_risk_policy")
	case noClaims && rep.Grounding != Grounded:
		rep.Disposition = AnswerAbstain
		rep.Reasons = append(rep.Reasons, groundingReason(req, rep))
	case nothingRetrieved:
		rep.Disposition = AnswerAbstain
		rep.Reasons = append(rep.Reasons, "nothing_retrieved")
	case noneSupported:
		rep.Disposition = AnswerAbstain
		rep.Reasons = append(rep.Reasons, "no_claim_supported")
	case req.RetrievalError != "":
		// The claims held against what did come back; what the outage
		// kept back might have changed them.
		rep.Disposition = AnswerReview
	case anyReview:
		rep.Disposition = AnswerReview
		rep.Reasons = appendReviewReasons(rep.Reasons, rep.Claims)
	case anyClarify:
		rep.Disposition = AnswerClarify
	case anyRemoved:
		rep.Disposition = AnswerPartial
	default:
		rep.Disposition = AnswerAccept
	}
	if req.RetrievalError != "" && !slices.Contains(rep.Reasons, RetrievalUnavailable) {
		rep.Reasons = append(rep.Reasons, RetrievalUnavailable)
	}
}

// appendReviewReasons names why claims went to review: a superseded
// citation ("superseded_evidence"), or the judge's reason codes
// (judge_required, judge_unavailable, judge_malformed), each once;
// "claim_review" for another cause.
func appendReviewReasons(reasons []string, claims []ClaimReport) []string {
	n := len(reasons)
	add := func(r string) {
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	for i := range claims {
		cr := &claims[i]
		if cr.Disposition != Review {
			continue
		}
		for _, e := range cr.Evidence {
			if e.Status == EvidenceStale {
				add("superseded_evidence")
			}
		}
		for _, r := range cr.Reasons {
			switch r {
			case ReasonJudgeRequired, ReasonJudgeUnavailable, ReasonJudgeMalformed:
				add(r)
			}
		}
	}
	if len(reasons) == n {
		reasons = append(reasons, "claim_review") // a review finding without a code of its own here
	}
	return reasons
}
