package verify

import (
	"bytes"
	"errors"
	"fmt"
	json "github.com/segmentio/encoding/json"
	"io"
	"strings"
)

// Request is what the application hands over before it renders an answer:
// the generator's structured claims and what it knows about the request
// (docs/contract.md#claims-in-verdicts-out).
type Request struct {
	RequestID string   `json:"request_id"`
	Principal string   `json:"principal"`
	Retrieved []string `json:"retrieved"` // chunk ids retrieval returned for this request
	Answer    string   `json:"answer,omitempty"`
	Claims    []Claim  `json:"claims"`

	// RetrievalError, when set, says the application's retrieval failed
	// ("timeout"), wholly or in part: Retrieved may still hold what came
	// back. Such an answer is never grounded, nor accepted. A request
	// with no claims is the cheaper contract (grounding.go).
	RetrievalError string `json:"retrieval_error,omitempty"`

	// Metadata is the caller's own JSON object (a conversation id, the
	// model that answered): never read, kept in the trace and echoed in
	// the report. At most MaxMetadataBytes.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Claim is one atomic statement of the answer and the evidence it cites.
type Claim struct {
	ClaimID string `json:"claim_id"`
	Text    string `json:"text"`
	// RequiresEvidence is false for claims that need no source (greetings,
	// advice); nil means true.
	RequiresEvidence *bool      `json:"requires_evidence,omitempty"`
	Evidence         []Evidence `json:"evidence"`
	// Risk "high" marks a claim a judge must confirm under the policy's
	// require_judge: high_risk (as every claim is under a high-risk policy).
	Risk string `json:"risk,omitempty"`
}

func (c *Claim) requiresEvidence() bool { return c.RequiresEvidence == nil || *c.RequiresEvidence }

// Evidence is one citation: a chunk id, optionally the quoted words and
// the code-point offsets of the span in the version's canonical text.
type Evidence struct {
	ChunkID     string `json:"chunk_id"`
	Quote       string `json:"quote,omitempty"`
	SourceStart *int   `json:"source_start,omitempty"` // half-open, code points into the canonical text
	SourceEnd   *int   `json:"source_end,omitempty"`
}

// Limits bound what one request may ask for, so that a hostile request
// gets an error or a bounded report, never unbounded work.
const (
	MaxRequestBytes = 16 << 20
	MaxClaims       = 10000
	MaxCitations    = 50000
	MaxQuoteBytes   = 64 << 10
	// MaxRetrieved bounds the chunk ids a request may list: a request
	// without claims resolves each one.
	MaxRetrieved = 50000
	// MaxRetrievalErrorBytes bounds retrieval_error, which traces keep.
	MaxRetrievalErrorBytes = 4 << 10
	// MaxMetadataBytes bounds a request's metadata, which traces keep.
	MaxMetadataBytes = 16 << 10
)

// ErrRequest is returned for a request that cannot be verified as given.
var ErrRequest = errors.New("verify: bad request")

// ParseRequest reads a request strictly: unknown fields, missing ids,
// negative or inverted offsets and oversized input are errors that name
// what is wrong.
func ParseRequest(r io.Reader) (*Request, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRequest, err)
	}
	return DecodeRequest(b)
}

// DecodeRequest is ParseRequest for a request already read.
func DecodeRequest(b []byte) (*Request, error) {
	if len(b) > MaxRequestBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrRequest, MaxRequestBytes)
	}
	if string(bytes.Trim(b, " \t\r\n")) == "null" { // decodes to nothing, without an error
		return nil, fmt.Errorf("%w: the request is null, want a JSON object", ErrRequest)
	}
	var req Request
	rest, err := json.Parse(b, &req, json.DisallowUnknownFields)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRequest, err)
	}
	if len(bytes.Trim(rest, " \t\r\n")) > 0 { // JSON whitespace only
		return nil, fmt.Errorf("%w: trailing data after the request object", ErrRequest)
	}
	return &req, req.Validate()
}

// Validate checks what the request must hold.
func (req *Request) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrRequest}, args...)...)
	}
	if len(req.Retrieved) > MaxRetrieved {
		return bad("%d retrieved chunk ids, at most %d", len(req.Retrieved), MaxRetrieved)
	}
	if len(req.RetrievalError) > MaxRetrievalErrorBytes {
		return bad("retrieval_error of %d bytes, at most %d", len(req.RetrievalError), MaxRetrievalErrorBytes)
	}
	if req.RetrievalError != "" && strings.TrimSpace(req.RetrievalError) == "" {
		return bad("retrieval_error is blank: name the failure, or leave it out when retrieval succeeded")
	}
	if err := CheckMetadata(req.Metadata); err != nil {
		return fmt.Errorf("%w: %v", ErrRequest, err)
	}
	if len(req.Claims) > MaxClaims {
		return bad("%d claims, at most %d", len(req.Claims), MaxClaims)
	}
	seen := map[string]bool{}
	citations := 0
	for i, c := range req.Claims {
		if strings.TrimSpace(c.ClaimID) == "" {
			return bad("claims[%d]: missing claim_id", i)
		}
		if seen[c.ClaimID] {
			return bad("claims[%d]: claim_id %q given twice", i, c.ClaimID)
		}
		seen[c.ClaimID] = true
		citations += len(c.Evidence)
		for j, e := range c.Evidence {
			where := func() string { return fmt.Sprintf("claim %q evidence[%d]", c.ClaimID, j) }
			if strings.TrimSpace(e.ChunkID) == "" {
				return bad("%s: missing chunk_id", where())
			}
			if len(e.Quote) > MaxQuoteBytes {
				return bad("%s: quote of %d bytes, at most %d", where(), len(e.Quote), MaxQuoteBytes)
			}
			if (e.SourceStart == nil) != (e.SourceEnd == nil) {
				return bad("%s: source_start and source_end go together", where())
			}
			if e.SourceStart != nil && (*e.SourceStart < 0 || *e.SourceEnd < *e.SourceStart) {
				return bad("%s: offsets [%d, %d) are negative or inverted", where(), *e.SourceStart, *e.SourceEnd)
			}
		}
	}
	if citations > MaxCitations {
		return bad("%d citations, at most %d", citations, MaxCitations)
	}
	return nil
}

// CheckMetadata checks a request's free metadata (verify, resolve and
// upload requests carry the same): absent, null, or a JSON object of at
// most MaxMetadataBytes. Its content is the caller's.
func CheckMetadata(m json.RawMessage) error {
	t := bytes.TrimSpace(m)
	switch {
	case len(t) == 0 || string(t) == "null":
		return nil
	case len(m) > MaxMetadataBytes:
		return fmt.Errorf("metadata of %d bytes, at most %d", len(m), MaxMetadataBytes)
	case t[0] != '{' || !json.Valid(t):
		return errors.New("metadata must be a JSON object")
	}
	return nil
}
