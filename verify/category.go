package verify

import (
	"slices"
	"strings"
)

// The failure categories beyond the five a report counts (Failures): what
// traces and evaluations count a failure as (docs/traces.md#categories).
const (
	// FailAbstention: the answer abstained, or should have (nothing
	// retrieved, no claim supported, retrieval failed).
	FailAbstention = "abstention"
	// FailCorrectness: the evidence (or a judge) contradicts what the
	// answer says; a report counts such a citation under support.
	FailCorrectness = "correctness"
)

// Categories lists every failure category, in the order reports and stats
// show them.
var Categories = []string{FailSupport, FailCoverage, FailResolution, FailVersion, FailPermission, FailAbstention, FailCorrectness}

// ReasonUncitedSentence is the reason a trace summary gives an uncited
// factual sentence of the answer (a report lists them under
// uncited_sentences, without a code): a coverage failure.
const ReasonUncitedSentence = "uncited_sentence"

// reasonCategory maps each reason code (without its parameter) to its
// failure category. The one place the mapping lives: trace stats, trace
// filters and evaluations read it through Category. A code absent here
// is no failure of the answer (high_risk_policy, claim_review and the
// judge's judge_required, judge_unavailable, judge_malformed route an
// answer to review without saying it is wrong).
var reasonCategory = map[string]string{
	// The citation does not resolve.
	"not_retrieved":         FailResolution,
	"unknown_chunk":         FailResolution,
	"quarantined":           FailResolution,
	"deleted":               FailResolution,
	"offsets_outside_chunk": FailResolution,
	// The principal may not read the source.
	"forbidden": FailPermission,
	// A superseded version where the policy wants the current one.
	"superseded_by":       FailVersion,
	"superseded_evidence": FailVersion,
	// The evidence does not say what the claim says.
	"quote_not_found":        FailSupport,
	"quote_in_other_chunk":   FailSupport,
	"quote_outside_offsets":  FailSupport,
	"fuzzy_not_allowed":      FailSupport,
	"quote_figures_differ":   FailSupport,
	"quote_meaning_differs":  FailSupport,
	"figure_missing":         FailSupport,
	ReasonFigureOutsideQuote: FailSupport, // beside figure_missing: the quote is narrower than the claim
	"qualifier_unsupported":  FailSupport,
	"qualifier_missing":      FailSupport, // the evidence holds only a narrower claim: clarify
	"modality_differs":       FailSupport,
	"name_unsupported":       FailSupport,
	"polarity_unconfirmed":   FailSupport, // to review: the words cannot tell
	"modality_unconfirmed":   FailSupport, // to review: the words cannot tell
	ReasonJudgeNotAddressed:  FailSupport,
	// The evidence says otherwise.
	"figure_contradicted":        FailCorrectness,
	"qualifier_contradicted":     FailCorrectness,
	"polarity_contradicted":      FailCorrectness,
	"antonym_contradicted":       FailCorrectness,
	"direction_contradicted":     FailCorrectness,
	"period_contradicted":        FailCorrectness,
	"role_contradicted":          FailCorrectness,
	"evidence_contradicts_claim": FailCorrectness,
	ReasonJudgeContradicted:      FailCorrectness,
	// What needs evidence cites none.
	"no_citation":         FailCoverage,
	ReasonUncitedSentence: FailCoverage,
	// Nothing to answer from.
	"nothing_retrieved":  FailAbstention,
	"no_claim_supported": FailAbstention,
	InsufficientEvidence: FailAbstention,
	RetrievalUnavailable: FailAbstention,
}

// ReasonCode returns a reason as trace filters and stats group it: the
// reason itself, except that a parameter naming one instance rather than a
// kind is dropped (superseded_by:<version> is superseded_by,
// name_unsupported:<name> is name_unsupported); quarantined:<reason> and
// qualifier_*:<name> keep theirs.
func ReasonCode(reason string) string {
	code, _, ok := strings.Cut(reason, ":")
	if ok && (code == "superseded_by" || code == "name_unsupported") {
		return code
	}
	return reason
}

// Category returns the failure category of a reason (one of Categories),
// or "" for a reason that is no failure of the answer.
func Category(reason string) string {
	code, _, _ := strings.Cut(reason, ":")
	return reasonCategory[code]
}

// ValidCategory reports whether c is one of Categories.
func ValidCategory(c string) bool { return slices.Contains(Categories, c) }
