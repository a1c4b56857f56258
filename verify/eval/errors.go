package eval

import "errors"

// Sentinel errors.
var (
	// ErrGolden is returned when a golden set cannot be read at all (no
	// question in it, or a read error); a bad line is recorded, not returned.
	ErrGolden = errors.New("eval: bad golden set")
	// ErrThresholds is returned for a thresholds file that cannot be used.
	ErrThresholds = errors.New("eval: bad thresholds")
	// ErrRecord is returned for a run record that cannot be read.
	ErrRecord = errors.New("eval: bad run record")
	// ErrAnswer is returned for a generator line that is not an Answer.
	ErrAnswer = errors.New("eval: bad answer")
)

// Reason codes of a question that has no scored answer, in the record's
// questions[].reason (before a colon and the detail) and errors counts.
const (
	ReasonGoldenInvalid      = "golden_invalid"       // the golden line is not a valid question
	ReasonEvidenceUnresolved = "evidence_unresolved"  // an expected_evidence quote does not resolve in the store
	ReasonTimeout            = "generator_timeout"    // no answer within the per-question timeout
	ReasonCrashed            = "generator_crashed"    // the generator process ended, or could not start
	ReasonBadOutput          = "generator_bad_output" // its line is not an Answer for this question
	ReasonGeneratorError     = "generator_error"      // it answered with an error of its own
	ReasonAnswerInvalid      = "answer_invalid"       // the verifier refuses the answer as a request
	ReasonAnswerMissing      = "answer_missing"       // --answers: no line for this question
	ReasonBudget             = "budget"               // not run: the budget was spent (budget.stopped says which)
	ReasonInterrupted        = "interrupted"          // not run: the run was cancelled
)
