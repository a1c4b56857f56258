package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/evidence-rag/evidence/verify"
)

// Request is one line the harness writes to a generator: a question, whom
// it is asked for, and, for a probe, the context the generator must answer
// from instead of retrieving (docs/eval.md#the-generator-protocol).
type Request struct {
	ID        string `json:"id"`
	Question  string `json:"question"`
	Principal string `json:"principal"`
	// Context is null for a question (the generator retrieves), and a
	// list, possibly empty, for a probe: the generator must answer from it
	// alone, and an empty one leaves it nothing to answer from.
	Context []ContextChunk `json:"context"`
}

// ContextChunk is a chunk given to the generator with its text; in a
// counterfactual probe the text is edited (and exists only in the request).
type ContextChunk struct {
	ChunkID    string `json:"chunk_id"`
	DocumentID string `json:"document_id"`
	Text       string `json:"text"`
}

// Answer is one line a generator writes back, and one line of a recorded
// answers file: the request of docs/contract.md#claims-in-verdicts-out
// (retrieved, answer prose, claims), whether the generator declined, and
// what it spent. The harness sets the request id and the principal.
type Answer struct {
	ID             string         `json:"id"`
	Retrieved      []string       `json:"retrieved"`
	Answer         string         `json:"answer,omitempty"`
	Claims         []verify.Claim `json:"claims"`
	RetrievalError string         `json:"retrieval_error,omitempty"`
	// Abstained says the generator declined to answer (an unanswerable
	// question must be declined); an abstained answer makes no claims.
	Abstained bool   `json:"abstained"`
	Usage     *Usage `json:"usage,omitempty"`
	// Error is the generator's own report that it failed (its model
	// timed out, say): the question is recorded with generator_error.
	Error string `json:"error,omitempty"`

	// RequestID and Principal are read and ignored, so that a generator
	// may echo a whole verification request.
	RequestID string `json:"request_id,omitempty"`
	Principal string `json:"principal,omitempty"`
}

// Usage is what answering cost: model calls and US dollars. Every answer
// counts at least one call against --max-calls (so the bound also bounds
// requests); a missing usage is one call and no cost.
type Usage struct {
	Calls   int     `json:"calls"`
	CostUSD float64 `json:"cost_usd"`
}

// MaxAnswerLine bounds one answer line: a verification request's limit
// and room for the rest.
const MaxAnswerLine = verify.MaxRequestBytes + 1<<20

// DecodeAnswer reads one answer line strictly: one JSON object of the
// fields of Answer and nothing else, an id, no negative usage, and claims
// the verifier accepts as a request.
func DecodeAnswer(b []byte) (*Answer, error) {
	var a Answer
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrAnswer, strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value on the line", ErrAnswer)
	}
	if strings.TrimSpace(a.ID) == "" {
		return nil, fmt.Errorf("%w: missing id", ErrAnswer)
	}
	if u := a.Usage; u != nil && (u.Calls < 0 || u.CostUSD < 0 || math.IsNaN(u.CostUSD) || math.IsInf(u.CostUSD, 0)) {
		return nil, fmt.Errorf("%w: %s: usage %+v: calls and cost_usd are counts, never negative", ErrAnswer, a.ID, *u)
	}
	return &a, nil
}

// calls is what the answer counts against --max-calls: at least one.
func (a *Answer) calls() int {
	if a.Usage == nil {
		return 1
	}
	return max(1, a.Usage.Calls)
}

func (a *Answer) cost() float64 {
	if a.Usage == nil {
		return 0
	}
	return a.Usage.CostUSD
}

// request is the verification request of an answer to q.
func (a *Answer) request(requestID, principal string) *verify.Request {
	retrieved := a.Retrieved
	if retrieved == nil {
		retrieved = []string{}
	}
	claims := a.Claims
	if claims == nil {
		claims = []verify.Claim{}
	}
	return &verify.Request{RequestID: requestID, Principal: principal, Retrieved: retrieved, Answer: a.Answer,
		Claims: claims, RetrievalError: a.RetrievalError}
}

// Answers is a recorded answers file (--answers): the answers by question
// id, and the lines that could not be used.
type Answers struct {
	ByID map[string]*Answer
	// Bad are answers that name a question but cannot be scored, by id
	// (recorded against the question).
	Bad map[string]string
	// Issues are lines that name no question (not JSON, no id).
	Issues []InvalidLine
}

// ParseAnswers reads a recorded answers file: JSON Lines of Answer.
func ParseAnswers(r io.Reader) (*Answers, error) {
	as := &Answers{ByID: map[string]*Answer{}, Bad: map[string]string{}}
	br := bufio.NewReaderSize(r, 64<<10)
	lineOf := map[string]int{}
	for n := 1; ; n++ {
		line, err := readLine(br, MaxAnswerLine)
		if err == io.EOF {
			break
		}
		if err == errLineTooLong {
			as.Issues = append(as.Issues, InvalidLine{Line: n, Reason: fmt.Sprintf("longer than %d bytes", MaxAnswerLine)})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrAnswer, n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		a, err := DecodeAnswer(line)
		if err != nil {
			var loose struct {
				ID any `json:"id"`
			}
			id := ""
			if json.Unmarshal(line, &loose) == nil {
				id, _ = loose.ID.(string)
			}
			if strings.TrimSpace(id) == "" {
				as.Issues = append(as.Issues, InvalidLine{Line: n, Reason: err.Error()})
				continue
			}
			as.Bad[id] = fmt.Sprintf("line %d: %v", n, err)
			continue
		}
		if first, dup := lineOf[a.ID]; dup {
			as.Bad[a.ID] = fmt.Sprintf("line %d: an answer for %s is given on line %d already", n, a.ID, first)
			continue
		}
		lineOf[a.ID] = n
		as.ByID[a.ID] = a
	}
	return as, nil
}
