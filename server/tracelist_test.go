package server

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// forbiddenVerification has the intern's answer cite the secret document,
// which the intern may not read: a permission failure, then abstention.
func forbiddenVerification(t *testing.T, e *testEnv, r request, id string) string {
	t.Helper()
	req := verify.Request{RequestID: id, Retrieved: []string{e.secret}, Claims: []verify.Claim{{
		ClaimID: "c1", Text: "The merger codename is BLUEHERON.", Evidence: []verify.Evidence{{ChunkID: e.secret}}}}}
	r.method, r.path, r.body = "POST", "/v1/verify", jsonBody(t, req)
	var rep verify.Report
	resp := e.do(r)
	resp.decode(t, &rep)
	if resp.status != 200 || rep.Disposition != verify.AnswerAbstain {
		t.Fatalf("verify: got %d, %s: want 200, abstain", resp.status, rep.Disposition)
	}
	return rep.TraceID
}

// listTraces pages through GET /v1/traces as the caller, a page of two at
// a time, and returns the trace ids, newest first.
func listTraces(t *testing.T, e *testEnv, r request, query url.Values) []string {
	t.Helper()
	ids := []string{}
	q := url.Values{"limit": {"2"}}
	for k, v := range query {
		q[k] = v
	}
	for pages := 0; ; pages++ {
		r.path = "/v1/traces?" + q.Encode()
		resp := e.do(r)
		if resp.status != 200 {
			t.Fatalf("GET %s: got %d: %s", r.path, resp.status, resp.body)
		}
		assertNoSecret(t, resp.body)
		newSchemaChecker(t, openAPIJSON).body(t, "TraceList", resp.body)
		var page verify.TracePage
		resp.decode(t, &page)
		for _, s := range page.Traces {
			ids = append(ids, s.TraceID)
		}
		if page.NextCursor == "" {
			return ids
		}
		if pages > 10 {
			t.Fatalf("GET /v1/traces: no end of pages")
		}
		q.Set("cursor", page.NextCursor)
	}
}

func traceStatsOf(t *testing.T, e *testEnv, r request, query string) *verify.TraceStats {
	t.Helper()
	r.path = "/v1/traces/stats?" + query
	resp := e.do(r)
	if resp.status != 200 {
		t.Fatalf("GET %s: got %d: %s", r.path, resp.status, resp.body)
	}
	assertNoSecret(t, resp.body)
	c := newSchemaChecker(t, openAPIJSON)
	c.body(t, "TraceStats", resp.body)
	for _, err := range c.errs {
		t.Error(err)
	}
	var st verify.TraceStats
	resp.decode(t, &st)
	return &st
}

func group(st *verify.TraceStats, key string) verify.TraceGroup {
	for _, g := range st.Groups {
		if g.Key == key {
			return g
		}
	}
	return verify.TraceGroup{}
}

// TestServeTraceList: GET /v1/traces and /v1/traces/stats list and count
// only the traces the caller may read: a principal's own (made with its
// token or by a service acting for it), every trace for an administrator;
// another principal's are never listed or counted, and naming another
// principal is refused. Summaries hold no stored text. In both trace
// write modes every trace is stored with its summary.
func TestServeTraceList(t *testing.T) {
	const analyst, intern = "analyst@example.com", "intern@example.com"
	for _, mode := range []string{TraceSync, TraceAsync} {
		t.Run(mode, func(t *testing.T) {
			e := newTestEnvWith(t, true, func(c *serverConfig) { c.traceWrites = mode })
			a1 := secretVerification(t, e, request{token: analystToken})
			a2 := secretVerification(t, e, request{token: serviceToken, principal: analyst})
			i1 := forbiddenVerification(t, e, request{token: internToken}, "r-i1")
			i2 := forbiddenVerification(t, e, request{token: serviceToken, principal: intern}, "r-i2")
			admin := request{token: serviceToken}
			deadline := time.Now().Add(10 * time.Second)
			for len(listTraces(t, e, admin, nil)) < 4 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond) // async: stored behind the responses
			}
			for _, tt := range []struct {
				name  string
				r     request
				query url.Values
				want  []string
			}{
				{"administrator", admin, nil, []string{i2, i1, a2, a1}},
				{"administrator, one principal", admin, url.Values{"principal": {intern}}, []string{i2, i1}},
				{"analyst", request{token: analystToken}, nil, []string{a2, a1}},
				{"analyst naming itself", request{token: analystToken}, url.Values{"principal": {analyst}}, []string{a2, a1}},
				{"intern", request{token: internToken}, nil, []string{i2, i1}},
				{"service for the analyst", request{token: serviceToken, principal: analyst}, nil, []string{a2, a1}},
				{"service for the intern", request{token: serviceToken, principal: intern}, nil, []string{i2, i1}},
				{"intern, by category", request{token: internToken}, url.Values{"category": {verify.FailPermission}}, []string{i2, i1}},
				{"analyst, by category", request{token: analystToken}, url.Values{"category": {verify.FailPermission}}, []string{}},
				{"administrator, by request", admin, url.Values{"request_id": {"r-i1"}}, []string{i1}},
				{"administrator, by disposition", admin, url.Values{"disposition": {verify.AnswerAccept}}, []string{a2, a1}},
				{"administrator, by reason", admin, url.Values{"reason": {"forbidden"}}, []string{i2, i1}},
				{"administrator, by document", admin, url.Values{"document": {"secret.md"}}, []string{a2, a1}},
				{"administrator, since", admin, url.Values{"since": {"1h"}}, []string{i2, i1, a2, a1}},
				{"administrator, until", admin, url.Values{"until": {"1h"}}, []string{}},
			} {
				// Newest first by id: to the millisecond, then by the id's random part.
				slices.SortFunc(tt.want, func(a, b string) int { return strings.Compare(b, a) })
				if got := listTraces(t, e, tt.r, tt.query); !slices.Equal(got, tt.want) {
					t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
				}
			}

			if st := traceStatsOf(t, e, admin, "by=category"); st.Traces != 4 || group(st, verify.FailPermission).Traces != 2 {
				t.Errorf("administrator's stats: %+v", st)
			}
			if st := traceStatsOf(t, e, request{token: analystToken}, "by=category"); st.Traces != 2 || group(st, verify.FailPermission).Traces != 0 ||
				st.Dispositions[verify.AnswerAbstain] != 0 {
				t.Errorf("the analyst's stats count the intern's traces: %+v", st)
			}
			st := traceStatsOf(t, e, request{token: internToken}, "by=reason&since=1h")
			if st.Traces != 2 || group(st, "forbidden").Traces != 2 || group(st, "no_claim_supported").Traces != 2 || st.Since == nil {
				t.Errorf("the intern's stats by reason: %+v", st)
			}
			if st := traceStatsOf(t, e, request{token: serviceToken, principal: analyst}, "by=document"); st.Traces != 2 || group(st, "secret.md").Traces != 2 {
				t.Errorf("the analyst's stats by document, through a service: %+v", st)
			}
			if st := traceStatsOf(t, e, request{token: internToken}, "by=document"); len(st.Groups) != 0 {
				t.Errorf("the intern's stats name a document it may not read: %+v", st.Groups)
			}
			if st := traceStatsOf(t, e, admin, "by=policy&top=1"); len(st.Groups) != 1 || st.Groups[0].Key != "default" || st.Groups[0].Traces != 4 {
				t.Errorf("stats by policy: %+v", st)
			}

			// Every trace the server stored carries its summary.
			n := 0
			if err := e.db.View(func(tx *store.Tx) error {
				return tx.ForEachTraceSummary("", func(id, summary []byte, _ func() ([]byte, error)) error {
					n++
					if !bytes.HasPrefix(summary, []byte(`{"v":1,`)) {
						t.Errorf("trace %s stored without a summary: %q", id, summary)
					}
					return nil
				})
			}); err != nil {
				t.Fatal(err)
			}
			if n != 4 {
				t.Errorf("%d traces stored, want 4", n)
			}
		})
	}
}

// TestServeTraceListRefused: naming another principal is refused, bad
// parameters are 400 naming the parameter, no token is 401.
func TestServeTraceListRefused(t *testing.T) {
	e := newTestEnv(t, true)
	for _, tt := range []struct {
		r      request
		status int
		code   string
	}{
		{request{path: "/v1/traces?principal=intern@example.com", token: analystToken}, 403, "forbidden"},
		{request{path: "/v1/traces/stats?principal=intern@example.com", token: analystToken}, 403, "forbidden"},
		{request{path: "/v1/traces?principal=", token: analystToken}, 403, "forbidden"},
		{request{path: "/v1/traces?principal=analyst@example.com", token: serviceToken, principal: "intern@example.com"}, 403, "forbidden"},
		{request{path: "/v1/traces?principal=intern@example.com", token: internToken, principal: "analyst@example.com"}, 403, "forbidden"},
		{request{path: "/v1/traces?disposition=accepted", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces?category=meaning", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces?since=yesterday", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces?since=1h&until=2h", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces?limit=1001", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces/stats?by=colour", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces/stats?top=-1", token: serviceToken}, 400, "bad_request"},
		{request{path: "/v1/traces"}, 401, "unauthorized"},
		{request{path: "/v1/traces/stats"}, 401, "unauthorized"},
	} {
		r := e.do(tt.r)
		if r.status != tt.status || r.errorCode(t) != tt.code {
			t.Errorf("GET %s: got %d %s, want %d %s", tt.r.path, r.status, r.body, tt.status, tt.code)
		}
	}
	var e1 struct{ Error struct{ Message string } }
	if err := json.Unmarshal(e.do(request{path: "/v1/traces?disposition=accepted", token: serviceToken}).body, &e1); err != nil ||
		!bytes.Contains([]byte(e1.Error.Message), []byte(`disposition "accepted"`)) {
		t.Errorf("a bad filter's message does not name it: %q", e1.Error.Message)
	}
}

// TestServeTraceListNoTokens: without tokens a caller naming a principal
// lists only its traces; one naming none is the administrator.
func TestServeTraceListNoTokens(t *testing.T) {
	const analyst = "analyst@example.com"
	e := newTestEnv(t, false)
	a := secretVerification(t, e, request{principal: analyst})
	i := forbiddenVerification(t, e, request{principal: "intern@example.com"}, "r-i")
	if got := listTraces(t, e, request{principal: analyst}, nil); !slices.Equal(got, []string{a}) {
		t.Errorf("analyst: got %v, want %v", got, []string{a})
	}
	if got := listTraces(t, e, request{}, nil); len(got) != 2 || !slices.Contains(got, a) || !slices.Contains(got, i) {
		t.Errorf("administrator: got %v, want %v and %v", got, i, a)
	}
	if st := traceStatsOf(t, e, request{principal: analyst}, ""); st.Traces != 1 || st.By != verify.ByCategory || len(st.Groups) != len(verify.Categories) {
		t.Errorf("analyst's stats: %+v", st)
	}
}
