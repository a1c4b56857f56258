package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/evidence-rag/evidence/verify"
)

// Record is a run: what ran against what, every question's answer and
// verdicts, and the metrics of the run and of each split. It pins the
// golden set (its hash), the store's version sequence and every version
// cited or expected, so a run is explainable later
// (docs/eval.md#the-run-record).
type Record struct {
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Golden   FileInfo  `json:"golden"`
	Source   Source    `json:"source"`
	Store    StoreInfo `json:"store"`
	// Policy is the verification policy, as the verifier read it.
	Policy  json.RawMessage `json:"policy"`
	Judge   string          `json:"judge,omitempty"` // id of the judge, when one was configured
	Options Options         `json:"options"`
	Budget  BudgetReport    `json:"budget"`
	// Complete is true when every valid question was run and every
	// sampled probe asked.
	Complete bool `json:"complete"`
	Summary
	// Splits are the summaries of the test and dev splits: only test
	// gates.
	Splits map[string]*Summary `json:"splits"`
	// Issues are lines of an answers file that name no question.
	Issues    []InvalidLine    `json:"issues"`
	Versions  []CitedVersion   `json:"versions"`
	Questions []QuestionResult `json:"questions"`
}

// FileInfo names an input file and pins its bytes.
type FileInfo struct {
	Path   string `json:"path"`
	BLAKE3 string `json:"blake3,omitempty"`
}

// Source says where the answers came from.
type Source struct {
	Mode      string    `json:"mode"`                // live (a generator) or answers (a recorded file)
	Generator string    `json:"generator,omitempty"` // the command line
	Answers   *FileInfo `json:"answers,omitempty"`
}

// StoreInfo is the store the run verified against: its path and its
// version sequence when the run started and ended (equal unless the store
// was written meanwhile).
type StoreInfo struct {
	Path        string `json:"path"`
	Sequence    uint64 `json:"sequence"`
	SequenceEnd uint64 `json:"sequence_end"`
}

// Options are the run's settings.
type Options struct {
	Parallel  int     `json:"parallel"`
	TimeoutMS float64 `json:"timeout_ms"`
	Probe     int     `json:"probe"`
}

// CitedVersion is a document version a run cited or expected.
type CitedVersion struct {
	DocumentID      string `json:"document_id"`
	DocumentVersion string `json:"document_version"`
	VersionStatus   string `json:"version_status,omitempty"` // as the verifier saw it
}

// Summary is what a run or a split amounts to: metrics by name (a metric
// that nothing measured is absent), failures by category, the counts
// behind the rates, errors by reason code, and questions by status.
type Summary struct {
	Metrics  map[string]float64 `json:"metrics"`
	Failures Failures           `json:"failures"`
	Counts   Counts             `json:"counts"`
	Errors   map[string]int     `json:"errors"`
	Statuses map[string]int     `json:"statuses"` // questions by status, and "total"
}

// QuestionResult is one question of a run.
type QuestionResult struct {
	ID         string   `json:"id"`
	Split      string   `json:"split,omitempty"`
	Question   string   `json:"question,omitempty"`
	Answerable bool     `json:"answerable"`
	Risk       string   `json:"risk,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Principal  string   `json:"principal,omitempty"`
	Status     string   `json:"status"`
	// Reason says why a question has no scored answer: a reason code,
	// then a colon and the detail.
	Reason string `json:"reason,omitempty"`
	// Disposition is the verifier's on the answer ("abstain" for an
	// answer the generator declined, which is not verified).
	Disposition      string             `json:"disposition,omitempty"`
	Metrics          map[string]float64 `json:"metrics"`
	Counts           Counts             `json:"counts"`
	Failures         Failures           `json:"failures"`
	ValuesFound      []string           `json:"values_found,omitempty"`
	ValuesMissing    []string           `json:"values_missing,omitempty"`
	InvalidMarkers   []string           `json:"invalid_markers,omitempty"`
	ExpectedEvidence []ResolvedEvidence `json:"expected_evidence,omitempty"`
	Answer           *Answer            `json:"answer,omitempty"`
	Verification     *verify.Report     `json:"verification,omitempty"`
	Citations        []ClaimCitations   `json:"citation_quality,omitempty"` // ALCE, with a judge
	Probes           []ProbeResult      `json:"probes,omitempty"`
	LatencyMS        float64            `json:"latency_ms,omitempty"` // the generator's time to answer
}

// reason formats a reason code and its detail.
func reason(code, detail string) string {
	if detail == "" {
		return code
	}
	return code + ": " + detail
}

// reasonCode is the code part of a reason.
func reasonCode(r string) string {
	if i := bytes.IndexByte([]byte(r), ':'); i >= 0 {
		return r[:i]
	}
	return r
}

// summarize computes the summary of qs: rates from the summed counts
// (citation support, claim coverage, citation structure, probes, ALCE),
// means of the per-question rates (retrieval, value correctness,
// abstention), and counts of dispositions.
func summarize(qs []*QuestionResult) *Summary {
	s := &Summary{Metrics: map[string]float64{}, Errors: map[string]int{}, Statuses: map[string]int{"total": len(qs)}}
	mean := map[string][2]float64{} // sum, n
	for _, q := range qs {
		s.Statuses[q.Status]++
		switch q.Status {
		case StatusError, StatusInvalid:
			s.Errors[reasonCode(q.Reason)]++
			continue
		case StatusNotRun:
			continue
		}
		s.Counts.add(q.Counts)
		s.Failures.add(q.Failures)
		for _, name := range []string{MetricRetrievalHitRate, MetricMRR, MetricValueCorrectRate, MetricUnanswerableDeclinedRate, MetricFalseRefusalRate} {
			if v, ok := q.Metrics[name]; ok {
				x := mean[name]
				mean[name] = [2]float64{x[0] + v, x[1] + 1}
			}
		}
		switch q.Disposition {
		case verify.AnswerBlock:
			s.Metrics[MetricAnswersBlocked]++
		case verify.AnswerPartial:
			s.Metrics[MetricAnswersPartial]++
		case verify.AnswerAbstain:
			s.Metrics[MetricAnswersAbstained]++
		case verify.AnswerAccept:
			s.Metrics[MetricAnswersAccepted]++
		case verify.AnswerReview:
			s.Metrics[MetricAnswersReview]++
		case verify.AnswerClarify:
			s.Metrics[MetricAnswersClarify]++
		}
	}
	for name, x := range mean {
		s.Metrics[name] = x[0] / x[1]
	}
	c := &s.Counts
	set := func(name string, n, d int) {
		if d > 0 {
			s.Metrics[name] = ratio(n, d)
		}
	}
	set(MetricCitationSupportRate, c.AcceptedCitations, c.Citations)
	set(MetricClaimCoverageRate, c.SupportedClaims, c.ClaimsRequiringEvidence)
	set(MetricSentenceCitationRate, c.CitedFactualSentences, c.FactualSentences)
	set(MetricValidMarkerRate, c.ValidMarkers, c.Markers)
	set(MetricProbeDecorationRate, c.Decorations, c.AblationProbes)
	set(MetricProbeMemoryRate, c.MemoryAnswers, c.CounterfactualProbes)
	set(MetricCitationRecall, c.RecalledClaims, c.JudgedClaims)
	set(MetricCitationPrecision, c.PreciseCitations, c.JudgedCitations)
	if run := len(qs) - s.Statuses[StatusNotRun]; run > 0 {
		s.Metrics[MetricAnswerErrorRate] = ratio(s.Statuses[StatusError]+s.Statuses[StatusInvalid], run)
	}
	if s.Statuses[StatusAnswered]+s.Statuses[StatusAbstained] > 0 {
		for _, name := range []string{MetricAnswersBlocked, MetricAnswersPartial, MetricAnswersAbstained, MetricAnswersAccepted, MetricAnswersReview, MetricAnswersClarify} {
			s.Metrics[name] += 0 // present, 0 when none
		}
	}
	return s
}

// finish computes the record's summaries and the versions it pins.
func (r *Record) finish() {
	all := make([]*QuestionResult, len(r.Questions))
	bySplit := map[string][]*QuestionResult{SplitTest: nil, SplitDev: nil}
	for i := range r.Questions {
		q := &r.Questions[i]
		all[i] = q
		if q.Split == SplitTest || q.Split == SplitDev {
			bySplit[q.Split] = append(bySplit[q.Split], q)
		}
	}
	r.Summary = *summarize(all)
	r.Splits = map[string]*Summary{}
	for name, qs := range bySplit {
		r.Splits[name] = summarize(qs)
	}
	seen := map[string]bool{}
	add := func(v CitedVersion) {
		if v.DocumentVersion == "" || seen[v.DocumentVersion+v.VersionStatus] {
			return
		}
		seen[v.DocumentVersion+v.VersionStatus] = true
		r.Versions = append(r.Versions, v)
	}
	for _, q := range all {
		for _, e := range q.ExpectedEvidence {
			add(CitedVersion{DocumentID: e.DocumentID, DocumentVersion: e.DocumentVersion, VersionStatus: "current"})
		}
		if q.Verification != nil {
			for _, c := range q.Verification.Claims {
				for _, e := range c.Evidence {
					add(CitedVersion{DocumentID: e.DocumentID, DocumentVersion: e.DocumentVersion, VersionStatus: e.VersionStatus})
				}
			}
		}
	}
	sort.Slice(r.Versions, func(i, j int) bool {
		a, b := r.Versions[i], r.Versions[j]
		if a.DocumentID != b.DocumentID {
			return a.DocumentID < b.DocumentID
		}
		if a.DocumentVersion != b.DocumentVersion {
			return a.DocumentVersion < b.DocumentVersion
		}
		return a.VersionStatus < b.VersionStatus
	})
	if r.Versions == nil {
		r.Versions = []CitedVersion{}
	}
	if r.Issues == nil {
		r.Issues = []InvalidLine{}
	}
}

// ParseRecord reads a run record (JSON, as `evidence --json eval run`
// prints it and the store keeps it).
func ParseRecord(b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	if r.RunID == "" || r.Splits == nil {
		return nil, fmt.Errorf("%w: no run_id or splits: not a run record", ErrRecord)
	}
	return &r, nil
}

// Question returns the result of the question with id, or nil.
func (r *Record) Question(id string) *QuestionResult {
	for i := range r.Questions {
		if r.Questions[i].ID == id {
			return &r.Questions[i]
		}
	}
	return nil
}
