package eval

import (
	"strings"

	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/verify"
)

// Metric names of the run record (docs/eval.md#metrics). Thresholds files
// and other programs read them: names are added, never renamed.
const (
	MetricRetrievalHitRate         = "retrieval_hit_rate"
	MetricMRR                      = "mrr"
	MetricValueCorrectRate         = "value_correct_rate"
	MetricCitationSupportRate      = "citation_support_rate"
	MetricClaimCoverageRate        = "claim_coverage_rate"
	MetricUnanswerableDeclinedRate = "unanswerable_declined_rate"
	MetricFalseRefusalRate         = "false_refusal_rate"
	MetricAnswersBlocked           = "answers_blocked"
	MetricAnswersPartial           = "answers_partial"
	MetricAnswersAbstained         = "answers_abstained"
	MetricAnswersAccepted          = "answers_accepted"
	MetricAnswersReview            = "answers_review"
	MetricAnswersClarify           = "answers_clarify"
	MetricSentenceCitationRate     = "sentence_citation_rate"
	MetricValidMarkerRate          = "valid_marker_rate"
	MetricProbeDecorationRate      = "probe_decoration_rate"
	MetricProbeMemoryRate          = "probe_memory_rate"
	MetricCitationRecall           = "citation_recall"
	MetricCitationPrecision        = "citation_precision"
	MetricAnswerErrorRate          = "answer_error_rate"
)

// Metrics lists every metric name, in the order reports show them.
var Metrics = []string{
	MetricRetrievalHitRate, MetricMRR, MetricValueCorrectRate, MetricCitationSupportRate, MetricClaimCoverageRate,
	MetricUnanswerableDeclinedRate, MetricFalseRefusalRate, MetricAnswersBlocked, MetricAnswersPartial,
	MetricAnswersAbstained, MetricAnswersAccepted, MetricAnswersReview, MetricAnswersClarify,
	MetricSentenceCitationRate, MetricValidMarkerRate, MetricProbeDecorationRate, MetricProbeMemoryRate,
	MetricCitationRecall, MetricCitationPrecision, MetricAnswerErrorRate,
}

// lowerIsBetter names the metrics a regression raises.
var lowerIsBetter = map[string]bool{
	MetricFalseRefusalRate: true, MetricAnswersBlocked: true, MetricAnswersPartial: true, MetricAnswersAbstained: true,
	MetricAnswersReview: true, MetricAnswersClarify: true, MetricProbeDecorationRate: true, MetricProbeMemoryRate: true,
	MetricAnswerErrorRate: true,
}

// Question statuses in the run record.
const (
	StatusAnswered  = "answered"  // the generator answered and the answer was verified
	StatusAbstained = "abstained" // the generator declined
	StatusError     = "error"     // no usable answer: Reason says why
	StatusInvalid   = "invalid"   // the golden line is not a valid question, or its evidence does not resolve
	StatusNotRun    = "not_run"   // the budget was spent, or the run cancelled, first
)

// Failures counts failures by category: the verifier's five (support,
// coverage, resolution, version, permission) summed over the answers, then
// abstention (an unanswerable question answered, an answerable one
// declined) and correctness (an answered question missing an expected
// value), one per question.
type Failures struct {
	Support     int `json:"support"`
	Coverage    int `json:"coverage"`
	Resolution  int `json:"resolution"`
	Version     int `json:"version"`
	Permission  int `json:"permission"`
	Abstention  int `json:"abstention"`
	Correctness int `json:"correctness"`
}

func (f *Failures) add(o Failures) {
	f.Support += o.Support
	f.Coverage += o.Coverage
	f.Resolution += o.Resolution
	f.Version += o.Version
	f.Permission += o.Permission
	f.Abstention += o.Abstention
	f.Correctness += o.Correctness
}

// Total is the number of failures of every category.
func (f Failures) Total() int {
	return f.Support + f.Coverage + f.Resolution + f.Version + f.Permission + f.Abstention + f.Correctness
}

// Counts are the numerators and denominators behind a question's rates,
// kept so that a split's or a run's rate is computed from the sums.
type Counts struct {
	Citations               int `json:"citations"`
	AcceptedCitations       int `json:"accepted_citations"`
	ClaimsRequiringEvidence int `json:"claims_requiring_evidence"`
	SupportedClaims         int `json:"supported_claims"`
	FactualSentences        int `json:"factual_sentences"`
	CitedFactualSentences   int `json:"cited_factual_sentences"`
	Markers                 int `json:"markers"`
	ValidMarkers            int `json:"valid_markers"`
	AblationProbes          int `json:"ablation_probes"`
	Decorations             int `json:"decorations"`
	CounterfactualProbes    int `json:"counterfactual_probes"`
	MemoryAnswers           int `json:"memory_answers"`
	JudgedClaims            int `json:"judged_claims"`   // ALCE: claims whose citations a judge read
	RecalledClaims          int `json:"recalled_claims"` // their citations together support them
	JudgedCitations         int `json:"judged_citations"`
	PreciseCitations        int `json:"precise_citations"`
}

func (c *Counts) add(o Counts) {
	c.Citations += o.Citations
	c.AcceptedCitations += o.AcceptedCitations
	c.ClaimsRequiringEvidence += o.ClaimsRequiringEvidence
	c.SupportedClaims += o.SupportedClaims
	c.FactualSentences += o.FactualSentences
	c.CitedFactualSentences += o.CitedFactualSentences
	c.Markers += o.Markers
	c.ValidMarkers += o.ValidMarkers
	c.AblationProbes += o.AblationProbes
	c.Decorations += o.Decorations
	c.CounterfactualProbes += o.CounterfactualProbes
	c.MemoryAnswers += o.MemoryAnswers
	c.JudgedClaims += o.JudgedClaims
	c.RecalledClaims += o.RecalledClaims
	c.JudgedCitations += o.JudgedCitations
	c.PreciseCitations += o.PreciseCitations
}

// score fills in the metrics, counts and failures of a question with an
// answer, from the answer and its verification report (nil for an
// abstained answer, which is not verified).
func score(qr *QuestionResult, q *Question, a *Answer, rep *verify.Report) {
	m := map[string]float64{}
	qr.Metrics = m
	if len(qr.ExpectedEvidence) > 0 {
		m[MetricRetrievalHitRate], m[MetricMRR] = retrieval(qr.ExpectedEvidence, a.Retrieved)
	}
	if q.Answerable {
		m[MetricFalseRefusalRate] = b2f(a.Abstained)
		if a.Abstained {
			qr.Failures.Abstention++
		}
		if len(q.ExpectedValues) > 0 {
			text := answerText(a)
			qr.ValuesFound, qr.ValuesMissing = expectedValues(q.ExpectedValues, text)
			ok := !a.Abstained && len(qr.ValuesMissing) == 0
			m[MetricValueCorrectRate] = b2f(ok)
			if !ok && !a.Abstained {
				qr.Failures.Correctness++
			}
		}
	} else {
		m[MetricUnanswerableDeclinedRate] = b2f(a.Abstained)
		if !a.Abstained {
			qr.Failures.Abstention++
		}
	}
	if rep == nil {
		qr.Disposition = verify.AnswerAbstain
		return
	}
	qr.Disposition = rep.Disposition
	c := &qr.Counts
	vm := rep.Metrics
	c.Citations, c.AcceptedCitations = vm.Citations, vm.AcceptedCitations
	c.ClaimsRequiringEvidence, c.SupportedClaims = vm.ClaimsRequiringEvidence, vm.SupportedClaims
	f := rep.Failures
	qr.Failures.add(Failures{Support: f.Support, Coverage: f.Coverage, Resolution: f.Resolution, Version: f.Version, Permission: f.Permission})
	sentences := verify.ProseSentences(a.Answer)
	retrieved := make(map[string]bool, len(a.Retrieved))
	for _, id := range a.Retrieved {
		retrieved[id] = true
	}
	for _, s := range sentences {
		if s.Factual {
			c.FactualSentences++
			if len(s.Markers) > 0 {
				c.CitedFactualSentences++
			}
		}
		for _, id := range s.Markers {
			c.Markers++
			if retrieved[id] {
				c.ValidMarkers++
			} else {
				qr.InvalidMarkers = append(qr.InvalidMarkers, id)
			}
		}
	}
	if len(a.Claims) == 0 {
		// An answer without claims is verified for its grounding only;
		// each factual sentence of its prose is a claim no evidence
		// covers (docs/eval.md#metrics).
		c.ClaimsRequiringEvidence += c.FactualSentences
		qr.Failures.Coverage += c.FactualSentences
	}
	if c.Citations > 0 {
		m[MetricCitationSupportRate] = ratio(c.AcceptedCitations, c.Citations)
	}
	if c.ClaimsRequiringEvidence > 0 {
		m[MetricClaimCoverageRate] = ratio(c.SupportedClaims, c.ClaimsRequiringEvidence)
	}
	if c.FactualSentences > 0 {
		m[MetricSentenceCitationRate] = ratio(c.CitedFactualSentences, c.FactualSentences)
	}
	if c.Markers > 0 {
		m[MetricValidMarkerRate] = ratio(c.ValidMarkers, c.Markers)
	}
}

// rescoreProbes and rescoreJudge set the question's probe and ALCE
// metrics from its counts.
func rescoreProbes(qr *QuestionResult) {
	c := &qr.Counts
	if c.AblationProbes > 0 {
		qr.Metrics[MetricProbeDecorationRate] = ratio(c.Decorations, c.AblationProbes)
	}
	if c.CounterfactualProbes > 0 {
		qr.Metrics[MetricProbeMemoryRate] = ratio(c.MemoryAnswers, c.CounterfactualProbes)
	}
}

func rescoreJudge(qr *QuestionResult) {
	c := &qr.Counts
	if c.JudgedClaims > 0 {
		qr.Metrics[MetricCitationRecall] = ratio(c.RecalledClaims, c.JudgedClaims)
	}
	if c.JudgedCitations > 0 {
		qr.Metrics[MetricCitationPrecision] = ratio(c.PreciseCitations, c.JudgedCitations)
	}
}

// retrieval returns the share of expected passages that a retrieved chunk
// holds, and the reciprocal rank of the first retrieved chunk that holds
// one (0 when none does).
func retrieval(ev []ResolvedEvidence, retrieved []string) (hitRate, rr float64) {
	rank := make(map[string]int, len(retrieved))
	for i, id := range retrieved {
		if _, ok := rank[id]; !ok {
			rank[id] = i + 1
		}
	}
	hits, best := 0, 0
	for _, e := range ev {
		hit := false
		for _, id := range e.ChunkIDs {
			if r, ok := rank[id]; ok {
				hit = true
				if best == 0 || r < best {
					best = r
				}
			}
		}
		if hit {
			hits++
		}
	}
	if best > 0 {
		rr = 1 / float64(best)
	}
	return ratio(hits, len(ev)), rr
}

// answerText is what value correctness reads: the prose and every claim.
func answerText(a *Answer) string {
	var b strings.Builder
	b.WriteString(a.Answer)
	for _, c := range a.Claims {
		b.WriteString("\n")
		b.WriteString(c.Text)
	}
	return b.String()
}

// expectedValues splits the expected values into those the text holds and
// those it lacks. A value with figures is held when every one of its
// figures is among the text's, by the verifier's figure reader (1,000 is
// 1000, 3,5 is not 3,25): the same value, and the same kind unless the
// expected figure is a bare number. A value without figures ("Chief
// Financial Officer") is held when the text contains it, both folded as
// the normalized quote level folds (case, typography, whitespace).
func expectedValues(values []string, text string) (found, missing []string) {
	var figs []verify.Figure
	var folded string
	for _, v := range values {
		want := verify.Figures(v)
		ok := true
		if len(want) == 0 {
			if folded == "" {
				folded = match.Fold(text, match.LevelNormalized)
			}
			ok = strings.Contains(folded, match.Fold(v, match.LevelNormalized))
		} else {
			if figs == nil {
				figs = verify.Figures(text)
			}
			for _, w := range want {
				ok = ok && holdsFigure(figs, w)
			}
		}
		if ok {
			found = append(found, v)
		} else {
			missing = append(missing, v)
		}
	}
	return found, missing
}

func holdsFigure(figs []verify.Figure, w verify.Figure) bool {
	for _, f := range figs {
		if f.Value == w.Value && (f.Kind == w.Kind || w.Kind == "number") {
			return true
		}
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
