package server

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// canonicalText is a document's current canonical text: what an
// application sends a provider as a plain-text document.
func canonicalText(t *testing.T, e *testEnv, doc string) string {
	t.Helper()
	var s string
	err := e.db.View(func(tx *store.Tx) error {
		d, err := tx.Document(doc)
		if err != nil {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		txt, err := tx.Text(v)
		s = string(txt.Bytes())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// anthropicAnswer is a Messages API response with one text block citing
// sub of text, a plain-text document at document_index doc, in code points.
func anthropicAnswer(t *testing.T, claim, text, sub string, doc int) json.RawMessage {
	t.Helper()
	i := strings.Index(text, sub)
	if i < 0 {
		t.Fatalf("%q not in the document", sub)
	}
	start := utf8.RuneCountInString(text[:i])
	return jsonBody(t, map[string]any{"id": "msg_01Serve", "type": "message", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "The policy says: "},
		map[string]any{"type": "text", "text": claim, "citations": []any{map[string]any{"type": "char_location", "cited_text": sub,
			"document_index": doc, "document_title": "Expense policy", "start_char_index": start, "end_char_index": start + utf8.RuneCountInString(sub)}}},
	}})
}

// TestServeVerifyFrom: POST /v1/verify?from=FORMAT takes a provider's
// cited answer and its map in an envelope (ProviderVerifyRequest), converts
// it for the caller's principal and verifies it like a claims request;
// bad input is a 400 naming the item, and a principal's token cannot
// convert for another.
func TestServeVerifyFrom(t *testing.T) {
	e := newTestEnv(t, true)
	c := newSchemaChecker(t, openAPIJSON)
	text := canonicalText(t, e, "expense-policy.md")
	const deadline = "Submit all expense reports within 14 calendar days of the end of the trip"
	answer := anthropicAnswer(t, "Expense reports must be submitted within 14 calendar days of the end of the trip", text, deadline, 0)
	envelope := func(resp json.RawMessage, m string, extra map[string]any) []byte {
		env := map[string]any{"response": resp, "map": json.RawMessage(m)}
		for k, v := range extra {
			env[k] = v
		}
		b := jsonBody(t, env)
		c.body(t, "ProviderVerifyRequest", b)
		return b
	}
	policyMap := `{"0": {"document_id": "expense-policy.md"}}`

	r := e.do(request{method: "POST", path: "/v1/verify?from=anthropic", token: analystToken,
		body: envelope(answer, policyMap, map[string]any{"offset_unit": "code_point", "request_id": "r-provider"})})
	if r.status != 200 {
		t.Fatalf("got %d: %s", r.status, r.body)
	}
	c.body(t, "VerifyReport", r.body)
	var rep verify.Report
	r.decode(t, &rep)
	if rep.Disposition != verify.AnswerAccept || rep.RequestID != "r-provider" || len(rep.Claims) != 1 || rep.Claims[0].ClaimID != "content[1]" || rep.TraceID == "" {
		t.Fatalf("got %s, request %q, claims %+v, trace %q: want the one cited block accepted, traced", rep.Disposition, rep.RequestID, rep.Claims, rep.TraceID)
	}
	if ev := rep.Claims[0].Evidence[0]; ev.Match != "exact" || ev.DocumentID != "expense-policy.md" || ev.SourceStart != utf8.RuneCountInString(text[:strings.Index(text, deadline)]) {
		t.Errorf("evidence %+v: want the exact span of the deadline", ev)
	}
	// The trace keeps the converted request, for the principal it was made for.
	var trace []byte
	if err := e.db.View(func(tx *store.Tx) (err error) { trace, err = tx.Trace(rep.TraceID); return err }); err != nil ||
		!strings.Contains(string(trace), `"claim_id":"content[1]"`) || !strings.Contains(string(trace), `"principal":"analyst@example.com"`) {
		t.Errorf("trace %s: %v\n%.400s", rep.TraceID, err, trace)
	}

	// For a principal outside the secret memo's access list nothing of it is
	// read: the citation is blocked as a permission failure, nothing revealed.
	secret := canonicalText(t, e, "secret.md")
	memo := anthropicAnswer(t, "The merger codename is BLUEHERON", secret, "The merger codename is BLUEHERON", 0)
	r = e.do(request{method: "POST", path: "/v1/verify?from=anthropic&trace=false", token: internToken, body: envelope(memo, `{"0": {"document_id": "secret.md"}}`, nil)})
	rep = verify.Report{}
	r.decode(t, &rep)
	if r.status != 200 || rep.Failures.Permission != 1 || rep.Claims[0].Disposition != verify.BlockClaim {
		t.Errorf("intern citing the memo: got %d %s, permission failures %d: %s", r.status, rep.Claims[0].Disposition, rep.Failures.Permission, r.body)
	}
	for _, w := range []string{"Board minutes", "EUR 41"} {
		if strings.Contains(string(r.body), w) {
			t.Errorf("the intern's report reveals %q", w)
		}
	}

	for _, tt := range []struct {
		name, path, token string
		body              []byte
		status            int
		want              string
	}{
		{"unknown format", "/v1/verify?from=mistral", analystToken, envelope(answer, policyMap, nil), 400, `from: \"mistral\": want anthropic, openai, cohere or gemini`},
		{"no map", "/v1/verify?from=anthropic", analystToken, []byte(`{"response": {"content": []}}`), 400, "map: missing"},
		{"claims body", "/v1/verify?from=anthropic", analystToken, jsonBody(t, verifyRequest(t, e, 1)), 400, `unknown field`},
		{"key not mapped", "/v1/verify?from=anthropic", analystToken, envelope(answer, `{"7": {"document_id": "expense-policy.md"}}`, nil), 400,
			`anthropic: content[1].citations[0]: key \"0\" is not in the map (it holds \"7\")`},
		{"offsets past the end", "/v1/verify?from=anthropic", analystToken, envelope(
			json.RawMessage(strings.NewReplacer(`"start_char_index":`, `"start_char_index":9999`, `"end_char_index":`, `"end_char_index":9999`).Replace(string(answer))), policyMap, nil), 400,
			"content[1].citations[0]: offsets"},
		{"malformed answer", "/v1/verify?from=gemini", analystToken, envelope(json.RawMessage(`{"candidates": 3}`), policyMap, nil), 400, "gemini: field candidates"},
		{"unknown unit", "/v1/verify?from=anthropic", analystToken, jsonBody(t, map[string]any{"response": answer, "map": json.RawMessage(policyMap), "offset_unit": "rune"}), 400, `offset_unit: \"rune\"`},
		{"another principal", "/v1/verify?from=anthropic", internToken, envelope(answer, policyMap, map[string]any{"principal": "analyst@example.com"}), 403, "another principal"},
	} {
		r := e.do(request{method: "POST", path: tt.path, token: tt.token, body: tt.body})
		if r.status != tt.status || !strings.Contains(string(r.body), tt.want) {
			t.Errorf("%s: got %d %s, want %d with %q", tt.name, r.status, r.body, tt.status, tt.want)
		}
	}

	for _, err := range c.errs {
		t.Error(err)
	}
}
