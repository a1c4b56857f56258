package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRequestBadInput(t *testing.T) {
	ok := `{"request_id":"r","principal":"p","retrieved":["a-0"],"claims":[{"claim_id":"c1","text":"x","evidence":[{"chunk_id":"a-0","quote":"q"}]}]}`
	if _, err := ParseRequest(strings.NewReader(ok)); err != nil {
		t.Fatalf("valid request: %v", err)
	}
	tests := map[string]string{
		"malformed JSON":   `{"request_id":`,
		"unknown field":    `{"request_id":"r","claimz":[]}`,
		"missing claim id": `{"claims":[{"text":"x"}]}`,
		"duplicate claim":  `{"claims":[{"claim_id":"c","text":"x"},{"claim_id":"c","text":"y"}]}`,
		"missing chunk id": `{"claims":[{"claim_id":"c","evidence":[{"quote":"q"}]}]}`,
		"negative offset":  `{"claims":[{"claim_id":"c","evidence":[{"chunk_id":"a-0","source_start":-1,"source_end":3}]}]}`,
		"inverted offsets": `{"claims":[{"claim_id":"c","evidence":[{"chunk_id":"a-0","source_start":9,"source_end":3}]}]}`,
		"half offsets":     `{"claims":[{"claim_id":"c","evidence":[{"chunk_id":"a-0","source_start":1}]}]}`,
		"trailing data":    ok + ` {}`,
		"trailing brace":   `{} }`,
		"trailing NBSP":    ok + "\u00a0",
		"huge quote":       `{"claims":[{"claim_id":"c","evidence":[{"chunk_id":"a-0","quote":"` + strings.Repeat("x", MaxQuoteBytes+1) + `"}]}]}`,
		"wrong type":       `{"claims":"none"}`,
		// The cheaper contract: retrieval_error is a string, and unknown
		// fields are still rejected without claims.
		"retrieval_error a bool":    `{"retrieved":["a-0"],"retrieval_error":true}`,
		"retrieval_error a number":  `{"retrieved":["a-0"],"retrieval_error":504}`,
		"retrieval_error an object": `{"retrieved":[],"retrieval_error":{"code":"timeout"}}`,
		"retrieval_error blank":     `{"retrieved":[],"retrieval_error":"  "}`,
		"retrieval_error huge":      `{"retrieved":[],"retrieval_error":"` + strings.Repeat("x", MaxRetrievalErrorBytes+1) + `"}`,
		"misspelt retrieval_error":  `{"retrieved":[],"retrieval_eror":"timeout"}`,
		"unknown field, no claims":  `{"request_id":"r","retrieved":["a-0"],"scores":[0.9]}`,
		"retrieved not a list":      `{"retrieved":"a-0"}`,
	}
	for name, in := range tests {
		if _, err := ParseRequest(strings.NewReader(in)); !errors.Is(err, ErrRequest) {
			t.Errorf("%s: got %v, want ErrRequest", name, err)
		}
	}
	var many strings.Builder
	many.WriteString(`{"claims":[`)
	for i := 0; i <= MaxClaims; i++ {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"claim_id":"c` + strings.Repeat("1", 1) + string(rune('a'+i%26)) + itoa(i) + `"}`)
	}
	many.WriteString(`]}`)
	if _, err := ParseRequest(strings.NewReader(many.String())); !errors.Is(err, ErrRequest) {
		t.Errorf("too many claims: got %v, want ErrRequest", err)
	}
}

// TestParseRequestWithoutClaims: the cheaper contract's requests parse,
// claims absent or empty, retrieval_error kept as given.
func TestParseRequestWithoutClaims(t *testing.T) {
	for _, tt := range []struct {
		in         string
		errText    string
		nRetrieved int
	}{
		{`{"request_id":"r","principal":"p","retrieved":["a-0","b-1"]}`, "", 2},
		{`{"request_id":"r","retrieved":["a-0"],"claims":[],"retrieval_error":""}`, "", 1},
		{`{"request_id":"r","retrieved":[],"retrieval_error":"timeout"}`, "timeout", 0},
		{`{"request_id":"r","retrieved":["a-0"],"retrieval_error":"shard 3: deadline exceeded"}`, "shard 3: deadline exceeded", 1},
	} {
		req, err := ParseRequest(strings.NewReader(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if req.RetrievalError != tt.errText || len(req.Retrieved) != tt.nRetrieved || len(req.Claims) != 0 {
			t.Errorf("%s: got retrieval_error %q, %d retrieved, %d claims", tt.in, req.RetrievalError, len(req.Retrieved), len(req.Claims))
		}
	}
	ids := make([]string, MaxRetrieved+1)
	for i := range ids {
		ids[i] = "a-0"
	}
	b, _ := json.Marshal(Request{Retrieved: ids})
	if _, err := DecodeRequest(b); !errors.Is(err, ErrRequest) || !strings.Contains(err.Error(), "retrieved") {
		t.Errorf("%d retrieved ids: got %v, want an ErrRequest naming retrieved", len(ids), err)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func FuzzParseRequest(f *testing.F) {
	f.Add(`{"request_id":"r","principal":"p","retrieved":["a-0"],"answer":"x [a-0].","claims":[{"claim_id":"c1","text":"x","evidence":[{"chunk_id":"a-0","quote":"q","source_start":1,"source_end":2}]}]}`)
	f.Add(`{"claims":[{"claim_id":"c","text":"caf\u00e9 \ud800 \xff","evidence":[]}]}`)
	f.Add(`{"Request_ID":"r","claims":null}`)
	f.Add(`{"request_id":"r","retrieved":["a-0"],"retrieval_error":"timeout"}`)
	f.Fuzz(func(t *testing.T, in string) {
		req, err := ParseRequest(strings.NewReader(in))
		// The decoder is segmentio's, for speed; it must read what
		// encoding/json reads, strictly, the same way.
		var want Request
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		stdErr := dec.Decode(&want)
		if stdErr == nil && strings.Trim(in[dec.InputOffset():], " \t\r\n") != "" {
			stdErr = errors.New("trailing data")
		}
		if stdErr == nil {
			stdErr = want.Validate()
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("ParseRequest error %v, encoding/json %v", err, stdErr)
		}
		if err == nil && !reflect.DeepEqual(*req, want) {
			t.Fatalf("ParseRequest read %+v, encoding/json %+v", *req, want)
		}
		if err != nil {
			if !errors.Is(err, ErrRequest) {
				t.Fatalf("error %v is not ErrRequest", err)
			}
			return
		}
		for _, c := range req.Claims {
			for _, e := range c.Evidence {
				if e.SourceStart != nil && (*e.SourceStart < 0 || *e.SourceEnd < *e.SourceStart) {
					t.Fatalf("invalid offsets accepted")
				}
			}
		}
		r := []rune(req.Answer)
		for _, s := range UncitedSentences(req.Answer) {
			if s.Start < 0 || s.End > len(r) || s.Start > s.End || string(r[s.Start:s.End]) != s.Text {
				t.Fatalf("sentence %q at [%d, %d) of %q", s.Text, s.Start, s.End, req.Answer)
			}
		}
	})
}

func TestUncitedSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Reports are due in 14 days [a-1]. The CFO signs late ones. Maybe ask your manager?", []string{"The CFO signs late ones."}},
		{"Reports are due in 14 days. [a-1] Thanks!", nil},
		{"You should keep receipts. It might take 3 days.", nil},
		{"The policy applies to all employees of the group worldwide.", []string{"The policy applies to all employees of the group worldwide."}},
		{"Café au lait costs EUR 4 in Zürich.", []string{"Café au lait costs EUR 4 in Zürich."}},
		// Abbreviations do not end sentences: the marker covers all of it.
		{"The margin was −3.5% (see p. 47) [r-1]. The U.S. office of Kestrel Ltd. closed in 2025 [r-2].", nil},
		{"Employees file within 14 days [a-1]. Dr. Smith approved the policy on 1 March 2025.", []string{"Dr. Smith approved the policy on 1 March 2025."}},
		{"Net leverage is 3.25x (cf. Art. 7, i.e. the covenant) [c-1]. The rate is 3.5. The cap is EUR 4 [c-2].", []string{"The rate is 3.5."}},
		{"See example.com. It lists 7 banks [c-3].", nil},
		// "per cent." abbreviates, as contracts write it: the sentence goes on,
		// and its marker covers it all; a capital after it starts the next.
		{"The Margin is 3.5 per cent. per annum [c-1]. At least 50 per cent. of the Lenders must agree [c-2].", nil},
		{"The Margin is 3.5 per cent. The fee is 1 per cent. [c-1]", []string{"The Margin is 3.5 per cent."}},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range UncitedSentences(tt.in) {
			got = append(got, s.Text)
			if r := []rune(tt.in); string(r[s.Start:s.End]) != s.Text {
				t.Errorf("%q: offsets [%d,%d) give %q, not %q", tt.in, s.Start, s.End, string(r[s.Start:s.End]), s.Text)
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("UncitedSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEncodeTrace: a trace assembled from an encoded policy and report is
// byte for byte the trace Answer stores.
func TestEncodeTrace(t *testing.T) {
	req := &Request{RequestID: "r <1> & 2", Principal: "p", Retrieved: []string{"a-0"},
		Claims: []Claim{{ClaimID: "c", Text: "x < y", Evidence: []Evidence{{ChunkID: "a-0", Quote: "q & r"}}}}}
	rep := &Report{RequestID: req.RequestID, TraceID: "t", Disposition: AnswerAccept, Claims: []ClaimReport{{ClaimID: "c",
		Status: Supported, Disposition: Accept, Reasons: []string{}, Evidence: []EvidenceReport{{ChunkID: "a-0", Text: "<b>q & r</b>"}}}}}
	pol := DefaultPolicy()
	at := time.Date(2026, 11, 30, 1, 2, 3, 456789000, time.UTC)
	want, err := json.Marshal(&Trace{TraceID: "t", Time: at, StoreSequence: 7, Policy: pol, Request: req, Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	policyJSON, _ := json.Marshal(pol)
	var report bytes.Buffer // as the server sends it: no HTML escaping, a newline
	enc := json.NewEncoder(&report)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	got, err := EncodeTrace("t", at, 7, policyJSON, req, report.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("EncodeTrace:\n%s\nwant\n%s", got, want)
	}
}

// FuzzUncitedSentences: every sentence reported is the answer's text at
// its offsets, trimmed, whatever the prose.
func FuzzUncitedSentences(f *testing.F) {
	f.Add("The margin was −3.5% (see p. 47) [r-1]. Dr. Smith approved it on 1 March 2025.\n\nThe U.S. office closed [a, b].")
	f.Fuzz(func(t *testing.T, answer string) {
		r := []rune(answer)
		for _, s := range UncitedSentences(answer) {
			if s.Start < 0 || s.End > len(r) || s.Start > s.End || strings.TrimSpace(string(r[s.Start:s.End])) != s.Text {
				t.Fatalf("sentence %q at [%d, %d) of %q", s.Text, s.Start, s.End, answer)
			}
		}
	})
}
