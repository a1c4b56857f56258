package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/verify"
)

// schemaChecker holds real JSON against the schemas of docs/openapi.json:
// every key must be declared in its schema's properties (walked by $ref),
// required keys present, and types, enums and patterns kept. It is no
// general JSON Schema validator: it knows the keywords the document uses.
type schemaChecker struct {
	spec map[string]any
	errs []string
	seen map[string]bool // "Schema.key" for every declared key met
}

func newSchemaChecker(t *testing.T, doc []byte) *schemaChecker {
	t.Helper()
	var spec map[string]any
	if err := json.Unmarshal(doc, &spec); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return &schemaChecker{spec: spec, seen: map[string]bool{}}
}

func (c *schemaChecker) component(name string) map[string]any {
	schemas, _ := c.spec["components"].(map[string]any)["schemas"].(map[string]any)
	s, _ := schemas[name].(map[string]any)
	return s
}

func (c *schemaChecker) fail(at, format string, args ...any) {
	c.errs = append(c.errs, at+": "+fmt.Sprintf(format, args...))
}

// check holds v against schema; at is the JSON path, name the schema's
// name for seen (a component, or the path below the nearest one).
func (c *schemaChecker) check(schema map[string]any, v any, at, name string) {
	if ref, ok := schema["$ref"].(string); ok {
		name = strings.TrimPrefix(ref, "#/components/schemas/")
		if schema = c.component(name); schema == nil {
			c.fail(at, "unresolved $ref %s", ref)
			return
		}
	}
	if !typeMatches(schema["type"], v) {
		c.fail(at, "%s, want type %v", jsonKind(v), schema["type"])
		return
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		c.fail(at, "%v is not one of %v", v, enum)
	}
	if pattern, ok := schema["pattern"].(string); ok {
		if s, _ := v.(string); !regexp.MustCompile(pattern).MatchString(s) {
			c.fail(at, "%q does not match %s", s, pattern)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		if props == nil && extra == nil {
			return // an object the document leaves open
		}
		for _, r := range asSlice(schema["required"]) {
			if _, ok := v[r.(string)]; !ok {
				c.fail(at, "required key %q missing", r)
			}
		}
		for key, val := range v {
			switch p, ok := props[key].(map[string]any); {
			case ok:
				c.seen[name+"."+key] = true
				c.check(p, val, at+"."+key, name+"."+key)
			case extra != nil:
				c.check(extra, val, at+"."+key, name+".*")
			default:
				c.fail(at, "key %q is not declared in %s", key, name)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range v {
				c.check(items, e, fmt.Sprintf("%s[%d]", at, i), name)
			}
		}
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// typeMatches: a schema type (a name or a list of names; none means any)
// admits v; an integer is a number too.
func typeMatches(want, v any) bool {
	kind := jsonKind(v)
	names := asSlice(want)
	if s, ok := want.(string); ok {
		names = []any{s}
	}
	if want == nil {
		return true
	}
	return slices.ContainsFunc(names, func(n any) bool { return n == kind || n == "number" && kind == "integer" })
}

// body checks a JSON body against a component schema.
func (c *schemaChecker) body(t *testing.T, component string, b []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v: %s", component, err, b)
	}
	c.check(map[string]any{"$ref": "#/components/schemas/" + component}, v, component, component)
}

// chunkHolding returns the expense policy's chunk whose text holds s.
func chunkHolding(t *testing.T, e *testEnv, s string) string {
	t.Helper()
	for _, id := range e.chunkIDs("expense-policy.md") {
		r, err := resolve.Chunk(e.db, id, "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Text, s) {
			return id
		}
	}
	t.Fatalf("no chunk of expense-policy.md holds %q", s)
	return ""
}

// TestOpenAPIDescribesReport: real requests and reports of POST /v1/verify
// (judged, failing meaning and figure checks, citing the wrong chunk or a
// forbidden one, without claims, under a retrieval error, with a judge
// that fails) and a stored trace hold to the schemas of docs/openapi.json:
// every key they carry is declared, and a key dropped from a schema fails.
func TestOpenAPIDescribesReport(t *testing.T) {
	yes, _ := judgeServer(t, verify.JudgeSupported, "")
	withJudge := func(url string) func(*serverConfig) {
		return func(c *serverConfig) {
			c.policy = judgePolicy(t, url, 10)
			on := true
			c.policy.MeaningChecks = &on // the default, written out for the trace
		}
	}
	e := newTestEnvWith(t, true, withJudge(yes.URL))
	c := newSchemaChecker(t, openAPIJSON)

	const (
		deadline = "Submit all expense reports within 14 calendar days of the end of the trip"
		slip     = "A card slip showing only the total is not a receipt."
		receipt  = "Every claim above EUR 25 needs an itemized receipt."
		approver = "An approver may not approve a report that includes their own expenses"
	)
	deadlineID, receiptID, approverID := chunkHolding(t, e, deadline), chunkHolding(t, e, receipt), chunkHolding(t, e, approver)
	if deadlineID == receiptID {
		t.Fatal("the deadline and the receipt rule share a chunk: the misplaced quote needs two")
	}
	cite := func(id, quote string) []verify.Evidence { return []verify.Evidence{{ChunkID: id, Quote: quote}} }
	req := verify.Request{RequestID: "openapi", Retrieved: []string{deadlineID, receiptID, approverID, e.secret},
		Answer: "Kestrel Harbor Group reimburses hotel stays up to EUR 180 per night.",
		Claims: []verify.Claim{
			{ClaimID: "judged", Text: deadline + ".", Evidence: cite(deadlineID, deadline), Risk: "high"},
			{ClaimID: "polarity", Text: "A card slip showing only the total is a receipt.", Evidence: cite(receiptID, slip)},
			{ClaimID: "figures", Text: "Under Clause 9, every claim above EUR 30 and 25 bps needs an itemized receipt.", Evidence: cite(receiptID, receipt)},
			{ClaimID: "wrong-chunk", Text: receipt, Evidence: cite(deadlineID, receipt)},
			{ClaimID: "elided", Text: slip, Evidence: cite(receiptID, "A card slip showing only the total … a receipt.")},
			{ClaimID: "forbidden", Text: "The offer is approved.", Evidence: []verify.Evidence{{ChunkID: e.secret}}},
			{ClaimID: "uncited", Text: "Receipts are kept for ten years."},
		}}
	post := func(token string, body []byte) []byte {
		t.Helper()
		c.body(t, "VerifyRequest", body)
		r := e.do(request{method: "POST", path: "/v1/verify", token: token, body: body})
		if r.status != 200 {
			t.Fatalf("POST /v1/verify: got %d: %s", r.status, r.body)
		}
		c.body(t, "VerifyReport", r.body)
		return r.body
	}
	claimsReport := post(internToken, jsonBody(t, req))
	var rep verify.Report
	if err := json.Unmarshal(claimsReport, &rep); err != nil {
		t.Fatal(err)
	}
	judged := rep.Claims[0]
	if judged.Judge == nil || !strings.HasPrefix(judged.Entailment, verify.EntailmentJudge) || len(rep.Claims[1].Findings) == 0 {
		t.Fatalf("the report lacks what it must show: judged %+v, polarity findings %v", judged, rep.Claims[1].Findings)
	}

	outage := req
	outage.RequestID, outage.RetrievalError = "openapi-outage", "timeout"
	post(internToken, jsonBody(t, outage))
	post(internToken, []byte(`{"request_id":"openapi-no-claims","retrieved":["`+deadlineID+`","`+receiptID+`","`+e.secret+`"]}`))
	post(internToken, jsonBody(t, verify.Request{RequestID: "openapi-no-claims-go", Retrieved: []string{deadlineID}})) // claims null

	// The stored trace: request, report and the policy with its judge.
	tr := e.do(request{path: "/v1/traces/" + rep.TraceID, token: serviceToken})
	if tr.status != 200 {
		t.Fatalf("GET trace: got %d: %s", tr.status, tr.body)
	}
	var trace any
	if err := json.Unmarshal(tr.body, &trace); err != nil {
		t.Fatal(err)
	}
	paths := c.spec["paths"].(map[string]any)
	traceSchema := paths["/v1/traces/{trace_id}"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	c.check(traceSchema, trace, "trace", "Trace")

	// A judge that fails: the verdict carries its error.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusInternalServerError) }))
	t.Cleanup(broken.Close)
	e2 := newTestEnvWith(t, true, withJudge(broken.URL))
	failed := e2.do(request{method: "POST", path: "/v1/verify", token: internToken, body: jsonBody(t, verify.Request{RequestID: "openapi-judge-down",
		Retrieved: []string{deadlineID}, Claims: []verify.Claim{{ClaimID: "c", Text: deadline + ".", Evidence: cite(deadlineID, deadline)}}})})
	if failed.status != 200 {
		t.Fatalf("judge down: got %d: %s", failed.status, failed.body)
	}
	c.body(t, "VerifyReport", failed.body)

	for _, err := range c.errs {
		t.Error(err)
	}
	// The requests above must have shown every new part of the contract,
	// or the check proves nothing about it.
	for _, key := range []string{
		"VerifyRequest.retrieval_error", "VerifyRequest.claims.risk", "VerifyRequest.claims.evidence.quote",
		"VerifyReport.grounding", "VerifyReport.sources", "VerifyReport.uncited_sentences",
		"ClaimReport.checks", "ClaimReport.entailment", "ClaimReport.findings", "ClaimReport.judge", "ClaimReport.missing_figures",
		"EvidenceReport.checks", "EvidenceReport.findings", "EvidenceReport.found_in", "EvidenceReport.text", "EvidenceReport.viewer_url",
		"Finding.check", "Finding.reason", "Finding.claim", "Finding.evidence", "Finding.message",
		"Figure.kind", "Figure.value", "Figure.text", "Figure.basis_points", "Figure.reference",
		"JudgeVerdict.judge", "JudgeVerdict.label", "JudgeVerdict.score", "JudgeVerdict.fragment", "JudgeVerdict.latency_ms", "JudgeVerdict.error",
		"Source.label", "Source.document_id", "Source.title", "Source.url", "Source.link_kind", "Source.chunk_ids",
		"Location.chunk_id", "Sentence.text", "Policy.judge", "Policy.meaning_checks", "Policy.require_judge", "JudgeConfig.url",
	} {
		if !c.seen[key] {
			t.Errorf("no report held %s: the test no longer exercises it", key)
		}
	}
	if t.Failed() {
		var seen []string
		for k := range c.seen {
			seen = append(seen, k)
		}
		sort.Strings(seen)
		t.Logf("seen: %v\nreport: %s", seen, claimsReport)
	}

	// A field dropped from a schema is caught.
	drop := newSchemaChecker(t, openAPIJSON)
	delete(drop.component("ClaimReport")["properties"].(map[string]any), "findings")
	drop.body(t, "VerifyReport", claimsReport)
	if !slices.ContainsFunc(drop.errs, func(s string) bool { return strings.Contains(s, `"findings" is not declared in ClaimReport`) }) {
		t.Errorf("ClaimReport without findings: got %v, want findings undeclared", drop.errs)
	}
}

// TestVerifyRequestRejectsUnknownNestedFields: the schemas of a claim and
// a citation forbid other properties, as the server does.
func TestVerifyRequestRejectsUnknownNestedFields(t *testing.T) {
	e := newTestEnv(t, false)
	for _, body := range []string{
		`{"request_id":"x","claims":[{"claim_id":"c","text":"t","colour":1}]}`,
		`{"request_id":"x","claims":[{"claim_id":"c","text":"t","evidence":[{"chunk_id":"a","colour":1}]}]}`,
	} {
		if r := e.do(request{method: "POST", path: "/v1/verify", body: []byte(body)}); r.status != 400 {
			t.Errorf("%s: got %d, want 400: %s", body, r.status, r.body)
		}
	}
}
