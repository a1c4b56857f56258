package verify

import "encoding/json"

// Claim statuses.
const (
	Supported    = "supported"
	Unsupported  = "unsupported"
	Contradicted = "contradicted"
	Unresolved   = "unresolved"
	Forbidden    = "forbidden"
	Stale        = "stale"
	Uncited      = "uncited"
)

// Dispositions of a claim, strongest first in claimStrength.
const (
	Accept      = "accept"
	RemoveClaim = "remove_claim"
	BlockClaim  = "block_claim"
	BlockAnswer = "block_answer"
	Clarify     = "clarify"
	Review      = "review"
)

// Dispositions of an answer.
const (
	AnswerAccept  = "accept"
	AnswerPartial = "partial"
	AnswerBlock   = "block"
	AnswerAbstain = "abstain"
	AnswerClarify = "clarify"
	AnswerReview  = "review"
)

// Groundings of an answer: whether it rests on retrieved evidence.
const (
	Grounded             = "grounded"
	InsufficientEvidence = "insufficient_evidence"
	RetrievalUnavailable = "retrieval_unavailable" // the request's retrieval_error is set
)

// Evidence statuses.
const (
	EvidenceOK           = "ok"
	EvidenceUnresolved   = "unresolved"
	EvidenceForbidden    = "forbidden"
	EvidenceStale        = "stale"
	EvidenceInsufficient = "insufficient"
	EvidenceContradicts  = "contradicts"
)

// Failure categories.
const (
	FailSupport    = "support"
	FailCoverage   = "coverage"
	FailResolution = "resolution"
	FailVersion    = "version"
	FailPermission = "permission"
)

// Report is the verdict on one answer.
type Report struct {
	RequestID        string        `json:"request_id"`
	TraceID          string        `json:"trace_id,omitempty"`
	Disposition      string        `json:"disposition"`
	Reasons          []string      `json:"reasons"`
	Claims           []ClaimReport `json:"claims"`
	UncitedSentences []Sentence    `json:"uncited_sentences"`
	Metrics          Metrics       `json:"metrics"`
	Failures         Failures      `json:"failures"`
	Policy           string        `json:"policy"`

	// Grounding says whether the answer rests on retrieved evidence:
	// without claims, a retrieved chunk that resolves; with claims, a
	// supported claim with an accepted citation (docs/verify.md).
	Grounding string `json:"grounding"`
	// Sources are the retrieved documents an answer without claims may
	// cite, in retrieved order; empty for a request with claims, whose
	// evidence reports carry the same.
	Sources []Source `json:"sources"`
	// Metadata is the request's metadata, echoed as it came.
	Metadata json.RawMessage `json:"metadata,omitempty"`

	storeSequence uint64 // of the store state the report was made on
}

// StoreSequence is the store's version sequence in the read transaction
// the report was made in: what its trace records as the state it saw.
func (r *Report) StoreSequence() uint64 { return r.storeSequence }

// ClaimReport is the verdict on one claim.
type ClaimReport struct {
	ClaimID           string           `json:"claim_id"`
	Status            string           `json:"status"`
	Disposition       string           `json:"disposition"`
	Reasons           []string         `json:"reasons"`
	MissingFigures    []Figure         `json:"missing_figures"`
	MissingQualifiers []string         `json:"missing_qualifiers,omitempty"`
	Evidence          []EvidenceReport `json:"evidence"`
	// Checks names the checks that ran on the claim and passed, in the
	// order they run (CheckResolution … CheckJudge): a check that did not
	// run, or failed, is not listed.
	Checks []string `json:"checks"`
	// Entailment says how the claim's meaning was established:
	// EntailmentNotChecked, EntailmentMeaning, or "judge:<id>".
	Entailment string `json:"entailment"`
	// Findings name the words on both sides of each meaning check that
	// failed.
	Findings []Finding `json:"findings,omitempty"`
	// Judge is the model judge's verdict, when one was asked.
	Judge *JudgeVerdict `json:"judge,omitempty"`
}

// Checks, in the order they run.
const (
	CheckResolution = "resolution"
	CheckQuote      = "quote"
	CheckFigures    = "figures"
	CheckQualifiers = "qualifiers"
	CheckMeaning    = "meaning"
	CheckJudge      = "judge"
)

// Entailment values; a judge's is "judge:" and its id.
const (
	EntailmentNotChecked = "not_checked"
	EntailmentMeaning    = "meaning_checks"
	EntailmentJudge      = "judge:"
)

// Finding is one failed meaning check: the reason code, and the words of
// the claim and of the evidence that disagree.
type Finding struct {
	Check    string `json:"check"`  // polarity, direction, period, modality, name, role, exception
	Reason   string `json:"reason"` // the reason code it adds to the claim
	Claim    string `json:"claim"`  // the claim's words ("" when the claim lacks them)
	Evidence string `json:"evidence"`
	Message  string `json:"message"` // reason: claim "…" / evidence "…"
}

// EvidenceReport is the verdict on one citation. Its coordinates come from
// ingestion metadata, never from the model; for forbidden evidence nothing
// of the source is reported.
type EvidenceReport struct {
	ChunkID  string `json:"chunk_id"`
	Status   string `json:"status"`
	Match    string `json:"match,omitempty"` // exact, whitespace, normalized, fuzzy, none
	Distance int    `json:"distance"`
	// Elided is set when the quote left words out ("…") and matched part by
	// part, in order: Match is its weakest part's level and the span runs
	// from its first part to its last.
	Elided          bool     `json:"elided,omitempty"`
	DocumentID      string   `json:"document_id,omitempty"`
	DocumentVersion string   `json:"document_version,omitempty"`
	VersionStatus   string   `json:"version_status,omitempty"`
	PageNumber      int      `json:"page_number,omitempty"`
	PageEnd         int      `json:"page_end,omitempty"`
	PageLabel       string   `json:"page_label,omitempty"`
	SectionPath     []string `json:"section_path,omitempty"`
	SourceStart     int      `json:"source_start"` // the evidence span, half-open code points into the canonical text
	SourceEnd       int      `json:"source_end"`
	Text            string   `json:"text,omitempty"` // the evidence span, for accepted evidence
	MissingFigures  []Figure `json:"missing_figures"`
	Reasons         []string `json:"reasons"`
	// Checks names the checks that ran on this citation and passed.
	Checks []string `json:"checks"`
	// Findings name the words of a loose quote and of its span that
	// differ in meaning (quote_meaning_differs).
	Findings []Finding `json:"findings,omitempty"`
	// FoundIn names where a quote that is not in the cited chunk really is
	// in the same version (the "right fact, wrong page" failure).
	FoundIn *Location `json:"found_in,omitempty"`
	// CurrentVersion names the document's current version when the cited
	// one is superseded; TextUnchanged says the cited version's canonical
	// text is the current version's, so its span is the current text.
	CurrentVersion string `json:"current_version,omitempty"`
	TextUnchanged  bool   `json:"text_unchanged,omitempty"`
	// ViewerURL is a link to the cited chunk in the evidence viewer, signed
	// for the request's principal; the service sets it (docs/service.md),
	// for evidence that resolved and may be read.
	ViewerURL string `json:"viewer_url,omitempty"`
}

// Source is a citation-safe projection of one retrieved document version:
// its identity and where to open it, from ingestion metadata only, with no
// chunk text and no scores. A chunk the principal may not read, or that does
// not resolve, makes no source and is named nowhere.
type Source struct {
	Label           string `json:"label"` // "[1]", "[2]"…, in retrieved order
	DocumentID      string `json:"document_id"`
	DocumentVersion string `json:"document_version"`
	VersionStatus   string `json:"version_status"`
	Title           string `json:"title"` // first heading, else the source's file name, else the document id
	// URL is the deep link of the version's first retrieved chunk (see
	// resolve.Links), empty when no openable source_url was recorded;
	// LinkKind says what its fragment addresses.
	URL      string `json:"url,omitempty"`
	LinkKind string `json:"link_kind"`
	// PageNumber (from 1) and PageLabel are the page the first retrieved
	// chunk starts on.
	PageNumber int    `json:"page_number,omitempty"`
	PageLabel  string `json:"page_label,omitempty"`
	// EffectiveDates are the values of the policy's effective_date
	// qualifier in the retrieved chunks of the version, as it compares them
	// (a date as its ISO calendar date), each once.
	EffectiveDates []string `json:"effective_dates,omitempty"`
	ChunkIDs       []string `json:"chunk_ids"` // the retrieved ids of this version, in retrieved order
	// CurrentVersion and TextUnchanged as in EvidenceReport, for a
	// superseded version.
	CurrentVersion string `json:"current_version,omitempty"`
	TextUnchanged  bool   `json:"text_unchanged,omitempty"`
}

// Location is a place in a version: a chunk and its page.
type Location struct {
	ChunkID     string   `json:"chunk_id"`
	PageNumber  int      `json:"page_number"`
	PageLabel   string   `json:"page_label,omitempty"`
	SectionPath []string `json:"section_path,omitempty"`
	SourceStart int      `json:"source_start"`
	SourceEnd   int      `json:"source_end"`
}

// Sentence is a factual sentence of the answer prose that cites nothing,
// with its code-point offsets in the answer.
type Sentence struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Metrics keeps citation support and claim coverage apart.
type Metrics struct {
	CitationSupportRate     float64 `json:"citation_support_rate"`
	ClaimCoverageRate       float64 `json:"claim_coverage_rate"`
	Citations               int     `json:"citations"`
	AcceptedCitations       int     `json:"accepted_citations"`
	ClaimsRequiringEvidence int     `json:"claims_requiring_evidence"`
	SupportedClaims         int     `json:"supported_claims"`
}

// Failures counts failures by category.
type Failures struct {
	Support    int `json:"support"`
	Coverage   int `json:"coverage"`
	Resolution int `json:"resolution"`
	Version    int `json:"version"`
	Permission int `json:"permission"`
}

func (f *Failures) add(category string) {
	switch category {
	case FailSupport:
		f.Support++
	case FailCoverage:
		f.Coverage++
	case FailResolution:
		f.Resolution++
	case FailVersion:
		f.Version++
	case FailPermission:
		f.Permission++
	}
}

func (f *Failures) total() int {
	return f.Support + f.Coverage + f.Resolution + f.Version + f.Permission
}

// claimStrength orders claim dispositions: the strongest finding decides.
var claimStrength = map[string]int{Accept: 0, Clarify: 1, RemoveClaim: 2, Review: 3, BlockClaim: 4, BlockAnswer: 5}

func stronger(a, b string) string {
	if claimStrength[b] > claimStrength[a] {
		return b
	}
	return a
}
