package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidence-rag/evidence/verify"
)

const judgeClaim = "Expense reports must be submitted within 30 days."

// judgeServer is a deterministic plain-format judge that says label to
// every claim and counts its calls; with want set, it answers 400 to
// another claim.
func judgeServer(t *testing.T, label, want string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var in verify.JudgeInput
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || want != "" && in.Claim != want || len(in.Evidence) != 1 {
			http.Error(w, "unexpected input", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"label":"` + label + `","score":0.9,"fragment":"30 days"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// judgePolicy is the default policy with the plain judge at url, asked
// about at most maxCalls claims a request, as serve --judge URL makes it.
func judgePolicy(t *testing.T, url string, maxCalls int) *verify.Policy {
	t.Helper()
	cfg := verify.JudgeConfig{URL: url, MaxCalls: maxCalls}
	j, err := verify.NewHTTPJudge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pol := verify.DefaultPolicy().WithJudge(j)
	pol.Judge = &cfg
	return pol
}

// TestServeJudge: the server asks its judge about the claims that pass
// the deterministic checks only, caches the verdicts in its store, and
// counts calls and cache hits in its metrics.
func TestServeJudge(t *testing.T) {
	yes, calls := judgeServer(t, verify.JudgeSupported, "")
	e := newTestEnvWith(t, true, func(c *serverConfig) { c.policy = judgePolicy(t, yes.URL, 5) })
	req := verifyRequest(t, e, 3)
	req.Claims = append(req.Claims, verify.Claim{ClaimID: "not-quoted", Text: judgeClaim,
		Evidence: []verify.Evidence{{ChunkID: req.Retrieved[0], Quote: "words the chunk does not hold"}}})
	for run := range 2 {
		r := e.do(request{method: "POST", path: "/v1/verify", token: analystToken, body: jsonBody(t, req)})
		var rep verify.Report
		r.decode(t, &rep)
		for _, cr := range rep.Claims[:3] {
			if cr.Disposition != verify.Accept || cr.Judge == nil || cr.Judge.Label != verify.JudgeSupported || cr.Judge.Cached != (run == 1) {
				t.Errorf("run %d, claim %s: got %s, verdict %+v", run, cr.ClaimID, cr.Disposition, cr.Judge)
			}
		}
		if cr := rep.Claims[3]; cr.Judge != nil || cr.Disposition == verify.Accept {
			t.Errorf("a claim whose quote fails: got %s, verdict %+v", cr.Disposition, cr.Judge)
		}
	}
	if calls.Load() != 3 {
		t.Errorf("got %d judge calls, want 3: the repeat is answered from the store", calls.Load())
	}
	metrics := string(e.do(request{path: "/metrics", token: serviceToken}).body)
	id := "plain:" + strings.TrimPrefix(yes.URL, "http://")
	for _, want := range []string{
		`evidence_judge_calls_total{judge="` + id + `",result="supported"} 3`,
		`evidence_judge_calls_total{judge="` + id + `",result="cached"} 3`,
		`evidence_judge_call_seconds_count{judge="` + id + `"} 3`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
