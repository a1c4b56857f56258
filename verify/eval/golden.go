package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Question is one line of a golden set (docs/eval.md#the-golden-set, schema
// docs/golden.schema.json).
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Split is SplitTest (held out: the only split that gates) or SplitDev.
	Split string `json:"split"`
	// Answerable is false for a question whose answer is deliberately
	// absent from the documents: the generator must decline it.
	Answerable bool `json:"answerable"`
	// ExpectedValues are the key values a correct answer must contain
	// (amounts, dates, durations, ids), compared with the verifier's
	// figure reader; a value without a figure is compared as folded text.
	ExpectedValues []string `json:"expected_values,omitempty"`
	// ExpectedEvidence are the passages that hold the answer.
	ExpectedEvidence []ExpectedEvidence `json:"expected_evidence,omitempty"`
	Risk             string             `json:"risk,omitempty"` // low, medium, high: high is probed first
	Tags             []string           `json:"tags,omitempty"`
	Principal        string             `json:"principal,omitempty"` // whom the question is asked for
}

// ExpectedEvidence names a passage by its document and its words; the run
// resolves it against the document's current version.
type ExpectedEvidence struct {
	DocumentID string `json:"document_id"`
	Quote      string `json:"quote"`
}

// Splits.
const (
	SplitTest = "test"
	SplitDev  = "dev"
)

// Golden is a parsed golden set: the valid questions in file order, and
// the lines that are not.
type Golden struct {
	Questions []Question
	Invalid   []InvalidLine
}

// InvalidLine is a golden line that is not a valid question, with what
// could be read of it (its id and split, when it has them) and why.
type InvalidLine struct {
	Line   int    `json:"line"` // from 1
	ID     string `json:"id,omitempty"`
	Split  string `json:"split,omitempty"`
	Reason string `json:"reason"`
}

// MaxGoldenLine bounds one golden line.
const MaxGoldenLine = 1 << 20

// ParseGolden reads a golden set strictly: every line is a JSON object of
// the fields of Question and nothing else (blank lines are skipped). A bad
// line is kept in Invalid with its reason, and the rest is read on. err is
// set when the input cannot be read or holds no question at all.
func ParseGolden(r io.Reader) (*Golden, error) {
	g := &Golden{}
	seen := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br, MaxGoldenLine)
		if err == io.EOF {
			break
		}
		if err != nil && err != errLineTooLong {
			return nil, fmt.Errorf("%w: line %d: %v", ErrGolden, n, err)
		}
		if err == errLineTooLong {
			g.Invalid = append(g.Invalid, InvalidLine{Line: n, Reason: fmt.Sprintf("longer than %d bytes", MaxGoldenLine)})
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		q, err := parseQuestion(line)
		if err == nil {
			if first, dup := seen[q.ID]; dup {
				err = fmt.Errorf("id %q is given on line %d already", q.ID, first)
			}
		}
		if err != nil {
			bad := InvalidLine{Line: n, Reason: err.Error()}
			var loose struct {
				ID    any `json:"id"`
				Split any `json:"split"`
			}
			if json.NewDecoder(bytes.NewReader(line)).Decode(&loose) == nil {
				bad.ID, _ = loose.ID.(string)
				bad.Split, _ = loose.Split.(string)
			}
			g.Invalid = append(g.Invalid, bad)
			continue
		}
		seen[q.ID] = n
		g.Questions = append(g.Questions, *q)
	}
	if len(g.Questions)+len(g.Invalid) == 0 {
		return nil, fmt.Errorf("%w: no questions", ErrGolden)
	}
	return g, nil
}

// goldenLine is a Question as read, with answerable required.
type goldenLine struct {
	Question
	Answerable *bool `json:"answerable"`
}

func parseQuestion(line []byte) (*Question, error) {
	if !utf8.Valid(line) {
		return nil, fmt.Errorf("not valid UTF-8")
	}
	var gl goldenLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gl); err != nil {
		return nil, fmt.Errorf("not a question: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	q := gl.Question
	switch {
	case strings.TrimSpace(q.ID) == "":
		return nil, fmt.Errorf("missing id")
	case strings.ContainsAny(q.ID, "/\n\t") || len(q.ID) > 200:
		return nil, fmt.Errorf("id %q: at most 200 bytes, without / or control characters", q.ID)
	case strings.TrimSpace(q.Question) == "":
		return nil, fmt.Errorf("%s: missing question", q.ID)
	case q.Split != SplitTest && q.Split != SplitDev:
		return nil, fmt.Errorf("%s: split %q: want %q or %q", q.ID, q.Split, SplitTest, SplitDev)
	case gl.Answerable == nil:
		return nil, fmt.Errorf("%s: missing answerable (true or false)", q.ID)
	}
	q.Answerable = *gl.Answerable
	switch q.Risk {
	case "", "low", "medium", "high":
	default:
		return nil, fmt.Errorf("%s: risk %q: want low, medium or high", q.ID, q.Risk)
	}
	if !q.Answerable && (len(q.ExpectedValues) > 0 || len(q.ExpectedEvidence) > 0) {
		return nil, fmt.Errorf("%s: an unanswerable question expects no values and no evidence", q.ID)
	}
	for i, v := range q.ExpectedValues {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("%s: expected_values[%d] is empty", q.ID, i)
		}
	}
	for i, e := range q.ExpectedEvidence {
		if strings.TrimSpace(e.DocumentID) == "" || strings.TrimSpace(e.Quote) == "" {
			return nil, fmt.Errorf("%s: expected_evidence[%d] needs a document_id and a quote", q.ID, i)
		}
	}
	return &q, nil
}

var errLineTooLong = fmt.Errorf("line too long")

// readLine reads one line without its newline (and a CR before it). A
// line longer than max is read to its end and errLineTooLong returned; the
// last line may lack a newline. io.EOF only when nothing is left.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	long := false
	for {
		frag, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(frag) > max+2 {
				long, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && (len(line) > 0 || long) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		if long {
			return nil, errLineTooLong
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		return bytes.TrimSuffix(line, []byte("\r")), nil
	}
}
