package main

import (
	"bytes"
	"testing"

	"github.com/evidence-rag/evidence/verify"
)

// secretVerification has the analyst's answer cite the secret document,
// so that its trace holds the document's words, and returns the trace id.
func secretVerification(t *testing.T, e *testEnv, r request) string {
	t.Helper()
	req := verify.Request{RequestID: "r-secret", Retrieved: []string{e.secret}, Claims: []verify.Claim{{
		ClaimID: "c1", Text: "The merger codename is BLUEHERON.",
		Evidence: []verify.Evidence{{ChunkID: e.secret, Quote: "The merger codename is BLUEHERON"}}}}}
	r.method, r.path, r.body = "POST", "/v1/verify", jsonBody(t, req)
	resp := e.do(r)
	var rep verify.Report
	resp.decode(t, &rep)
	if resp.status != 200 || rep.TraceID == "" || rep.Disposition != verify.AnswerAccept {
		t.Fatalf("verify: got %d, %s, trace %q: want 200, accept, a trace", resp.status, rep.Disposition, rep.TraceID)
	}
	return rep.TraceID
}

// TestServeTraceAccess: a trace is readable by its own principal, by a
// service acting for that principal and by an administrator (a service
// acting for no one, or a caller of a server without tokens that names no
// principal); anyone else, a service acting for another principal
// included, gets the 404 of a trace that does not exist, with no word of it.
func TestServeTraceAccess(t *testing.T) {
	const analyst, intern = "analyst@example.com", "intern@example.com"
	type access = traceAccess
	t.Run("tokens", func(t *testing.T) {
		e := newTestEnv(t, true)
		own := secretVerification(t, e, request{token: analystToken})
		byService := secretVerification(t, e, request{token: serviceToken, principal: analyst})
		for _, id := range []string{own, byService} {
			checkTraceAccess(t, e, id, []access{
				{"own principal", request{token: analystToken}, 200},
				{"own principal, header repeated", request{token: analystToken, principal: analyst}, 200},
				{"service acting for the principal", request{token: serviceToken, principal: analyst}, 200},
				{"administrator (service acting for no one)", request{token: serviceToken}, 200},
				{"other principal", request{token: internToken}, 404},
				{"service acting for another principal", request{token: serviceToken, principal: intern}, 404},
				{"other principal's token naming the owner", request{token: internToken, principal: analyst}, 403},
				{"no token", request{}, 401},
			})
		}
	})
	t.Run("no tokens", func(t *testing.T) {
		e := newTestEnv(t, false)
		id := secretVerification(t, e, request{principal: analyst})
		checkTraceAccess(t, e, id, []access{
			{"own principal", request{principal: analyst}, 200},
			{"administrator (no principal named)", request{}, 200},
			{"other principal", request{principal: intern}, 404},
		})
	})
}

// traceAccess is one caller asking for a trace, and the status it gets.
type traceAccess struct {
	name   string
	req    request
	status int
}

// checkTraceAccess asks for trace id as each caller; a 404 must read as
// the 404 of a trace that does not exist, byte for byte but the id.
func checkTraceAccess(t *testing.T, e *testEnv, id string, cases []traceAccess) {
	t.Helper()
	const absent = "0000000000000000000000000000"
	for _, tt := range cases {
		missing := tt.req
		missing.path = "/v1/traces/" + absent
		want404 := bytes.ReplaceAll(e.do(missing).body, []byte(absent), []byte(id))
		tt.req.path = "/v1/traces/" + id
		r := e.do(tt.req)
		if r.status != tt.status {
			t.Errorf("%s: got %d, want %d: %.200s", tt.name, r.status, tt.status, r.body)
			continue
		}
		switch r.status {
		case 200:
			if !bytes.Contains(r.body, []byte(`"trace_id":"`+id+`"`)) || !bytes.Contains(r.body, []byte("BLUEHERON")) {
				t.Errorf("%s: body is not the trace: %.200s", tt.name, r.body)
			}
		default:
			assertNoSecret(t, r.body)
			if r.status == 404 && !bytes.Equal(r.body, want404) {
				t.Errorf("%s: the 404 differs from a missing trace's:\ngot  %s\nwant %s", tt.name, r.body, want404)
			}
		}
	}
}
