package verify_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

const judgeDoc = "Expense reports must be submitted within 30 days. The travel allowance is EUR 50 per day. " +
	"Receipts are required for every purchase. Managers approve reports every Monday."

// judgeClaimTexts are sentences of judgeDoc: each passes every
// deterministic check when it quotes itself.
var judgeClaimTexts = []string{
	"Expense reports must be submitted within 30 days.",
	"The travel allowance is EUR 50 per day.",
	"Receipts are required for every purchase.",
	"Managers approve reports every Monday.",
}

// judgeStore holds judgeDoc as one chunk.
func judgeStore(t *testing.T) (*store.DB, string) {
	t.Helper()
	db := storetest.Open(t)
	nv := storetest.NewVersion("policy.md", judgeDoc, 0)
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	return db, store.ChunkID(nv.Version.ID, 0)
}

// judgeRequest makes n claims (cycling through judgeClaimTexts), each
// quoting itself from chunk.
func judgeRequest(chunk string, n int) *verify.Request {
	req := &verify.Request{RequestID: "r-judge", Principal: "p", Retrieved: []string{chunk}}
	for i := range n {
		text := judgeClaimTexts[i%len(judgeClaimTexts)]
		req.Claims = append(req.Claims, verify.Claim{ClaimID: fmt.Sprintf("c%d", i+1), Text: text,
			Evidence: []verify.Evidence{{ChunkID: chunk, Quote: text}}})
	}
	return req
}

// fakeJudge is a deterministic judge server: answer decides each reply
// from what the judge was shown; it counts calls and calls in flight.
type fakeJudge struct {
	srv                   *httptest.Server
	calls                 atomic.Int32
	inflight, maxInflight atomic.Int32
	mu                    sync.Mutex
	seen                  []verify.JudgeInput
	answer                func(in verify.JudgeInput) (status int, body string, delay time.Duration)
}

func newFakeJudge(t *testing.T, answer func(in verify.JudgeInput) (int, string, time.Duration)) *fakeJudge {
	t.Helper()
	f := &fakeJudge{answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		n := f.inflight.Add(1)
		defer f.inflight.Add(-1)
		for {
			m := f.maxInflight.Load()
			if n <= m || f.maxInflight.CompareAndSwap(m, n) {
				break
			}
		}
		var in verify.JudgeInput
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "want a POSTed JudgeInput", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.seen = append(f.seen, in)
		f.mu.Unlock()
		status, body, delay := f.answer(in)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// says answers every claim with one verdict.
func says(label string) func(verify.JudgeInput) (int, string, time.Duration) {
	return func(verify.JudgeInput) (int, string, time.Duration) {
		return 200, `{"label":"` + label + `","score":0.75,"fragment":"within 30 days"}`, 0
	}
}

func judgePolicy(t *testing.T, cfg verify.JudgeConfig, mods ...func(*verify.Policy)) *verify.Policy {
	t.Helper()
	pol := verify.DefaultPolicy()
	pol.Judge = &cfg
	for _, m := range mods {
		m(pol)
	}
	j, err := verify.NewHTTPJudge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pol.WithJudge(j)
}

func check(t *testing.T, db verify.Viewer, req *verify.Request, pol *verify.Policy) *verify.Report {
	t.Helper()
	rep, err := verify.Check(context.Background(), db, req, pol)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestJudgeLabels: each label's effect on a claim that passed every
// deterministic check; supported is the positive twin: it is accepted,
// with the judge named in checks and entailment.
func TestJudgeLabels(t *testing.T) {
	db, chunk := judgeStore(t)
	for _, tt := range []struct {
		label, status, disposition, evidence, answer string
		reasons, checks                              []string
		entailment                                   string
	}{
		{verify.JudgeSupported, verify.Supported, verify.Accept, verify.EvidenceOK, verify.AnswerAccept,
			[]string{}, []string{"resolution", "quote", "figures", "qualifiers", "meaning", "judge"}, ""},
		{verify.JudgeContradicted, verify.Contradicted, verify.BlockAnswer, verify.EvidenceContradicts, verify.AnswerBlock,
			[]string{"judge_contradicted"}, []string{"resolution", "quote", "figures", "qualifiers", "meaning"}, ""},
		{verify.JudgeNotAddressed, verify.Unsupported, verify.RemoveClaim, verify.EvidenceInsufficient, verify.AnswerAbstain,
			[]string{"judge_not_addressed"}, []string{"resolution", "quote", "figures", "qualifiers", "meaning"}, ""},
	} {
		t.Run(tt.label, func(t *testing.T) {
			f := newFakeJudge(t, says(tt.label))
			pol := judgePolicy(t, verify.JudgeConfig{URL: f.srv.URL + "/judge"})
			req := judgeRequest(chunk, 1)
			rep := check(t, db, req, pol)
			cr := rep.Claims[0]
			id := "plain:" + strings.TrimPrefix(f.srv.URL, "http://") + "/judge"
			if tt.entailment == "" {
				tt.entailment = "judge:" + id
			}
			if cr.Status != tt.status || cr.Disposition != tt.disposition || rep.Disposition != tt.answer {
				t.Errorf("got %s/%s, answer %s; want %s/%s, answer %s", cr.Status, cr.Disposition, rep.Disposition, tt.status, tt.disposition, tt.answer)
			}
			if !slices.Equal(cr.Reasons, tt.reasons) || !slices.Equal(cr.Checks, tt.checks) || cr.Entailment != tt.entailment {
				t.Errorf("got reasons %v, checks %v, entailment %s; want %v, %v, %s", cr.Reasons, cr.Checks, cr.Entailment, tt.reasons, tt.checks, tt.entailment)
			}
			if e := cr.Evidence[0]; e.Status != tt.evidence || slices.Contains(e.Checks, "judge") != (tt.label == verify.JudgeSupported) {
				t.Errorf("evidence: got %s, checks %v; want %s", e.Status, e.Checks, tt.evidence)
			}
			want := &verify.JudgeVerdict{Judge: id, Label: tt.label, Score: 0.75, Fragment: "within 30 days"}
			if diff := cmp.Diff(want, cr.Judge, cmpopts.IgnoreFields(verify.JudgeVerdict{}, "LatencyMS")); diff != "" || cr.Judge.LatencyMS <= 0 {
				t.Errorf("verdict (-want +got):\n%s latency %v", diff, cr.Judge.LatencyMS)
			}
			if len(f.seen) != 1 || f.seen[0].Claim != req.Claims[0].Text || !slices.Equal(f.seen[0].Evidence, []string{req.Claims[0].Text}) ||
				f.seen[0].RequestID != "r-judge" || f.seen[0].ClaimID != "c1" {
				t.Errorf("the judge was shown %+v, want the claim and its own span", f.seen)
			}
		})
	}
}

// TestJudgeSeesOnlyItsOwnEvidence: the judge is shown a claim's accepted
// spans only, never another citation or claim, and a claim that failed a
// deterministic check is not sent at all: a judge that says supported to
// everything rescues nothing.
func TestJudgeSeesOnlyItsOwnEvidence(t *testing.T) {
	db, chunk := judgeStore(t)
	f := newFakeJudge(t, says(verify.JudgeSupported))
	pol := judgePolicy(t, verify.JudgeConfig{URL: f.srv.URL})
	req := judgeRequest(chunk, 1)
	req.Claims = append(req.Claims,
		verify.Claim{ClaimID: "figure", Text: "The travel allowance is EUR 60 per day.",
			Evidence: []verify.Evidence{{ChunkID: chunk, Quote: "The travel allowance is EUR 50 per day."}}},
		verify.Claim{ClaimID: "quote", Text: "Receipts are optional.", Evidence: []verify.Evidence{{ChunkID: chunk, Quote: "Receipts are optional."}}},
		verify.Claim{ClaimID: "unresolved", Text: "Managers approve reports every Monday.", Evidence: []verify.Evidence{{ChunkID: "nope-1"}}},
		verify.Claim{ClaimID: "mixed", Text: "Managers approve reports every Monday.", Evidence: []verify.Evidence{
			{ChunkID: chunk, Quote: "Managers approve reports every Monday."}, {ChunkID: chunk, Quote: "not in the text at all"}}},
	)
	rep := check(t, db, req, pol)
	if len(f.seen) != 1 || f.seen[0].ClaimID != "c1" || len(f.seen[0].Evidence) != 1 {
		t.Fatalf("the judge was asked about %+v, want c1 alone with its one span", f.seen)
	}
	for _, cr := range rep.Claims[1:] {
		if cr.Judge != nil || cr.Disposition == verify.Accept || slices.Contains(cr.Checks, "judge") {
			t.Errorf("claim %s: got %s, checks %v, verdict %+v: a failed claim must not be judged or rescued", cr.ClaimID, cr.Disposition, cr.Checks, cr.Judge)
		}
	}
	if got := rep.Claims[1]; got.Status != verify.Contradicted {
		t.Errorf("figure claim: got %s, want contradicted", got.Status)
	}
}

// TestJudgeBadAnswers: a judge that fails in any way sends the claim to
// review with a reason, in bounded time, and the answer is never accepted.
func TestJudgeBadAnswers(t *testing.T) {
	db, chunk := judgeStore(t)
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	reply := func(status int, body string, delay time.Duration) func(verify.JudgeInput) (int, string, time.Duration) {
		return func(verify.JudgeInput) (int, string, time.Duration) { return status, body, delay }
	}
	for _, tt := range []struct {
		name   string
		answer func(verify.JudgeInput) (int, string, time.Duration)
		url    string // instead of the fake server
		reason string
		errIs  string
	}{
		{"malformed JSON", reply(200, `{"label":"supported",`, 0), "", "judge_malformed", "unexpected end"},
		{"not JSON", reply(200, `Sure! The claim is supported.`, 0), "", "judge_malformed", "invalid character"},
		{"unknown label", reply(200, `{"label":"probably","score":0.9}`, 0), "", "judge_malformed", `label "probably"`},
		{"score above 1", reply(200, `{"label":"supported","score":7}`, 0), "", "judge_malformed", "score 7"},
		{"negative score", reply(200, `{"label":"supported","score":-0.1}`, 0), "", "judge_malformed", "score -0.1"},
		{"no score", reply(200, `{"label":"supported"}`, 0), "", "judge_malformed", "no score"},
		{"huge body", reply(200, `{"label":"supported","score":1,"fragment":"`+strings.Repeat("x", 2<<20)+`"}`, 0), "", "judge_malformed", "larger than 1048576 bytes"},
		{"server error", reply(500, `overloaded`, 0), "", "judge_unavailable", "500 Internal Server Error"},
		{"slow", reply(200, `{"label":"supported","score":1}`, 5*time.Second), "", "judge_unavailable", "no answer within 300ms"},
		{"connection refused", nil, refused, "judge_unavailable", "refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			if url == "" {
				url = newFakeJudge(t, tt.answer).srv.URL
			}
			// Only the slow judge is meant to time out: the others get
			// room for a loaded machine (the huge body takes a while).
			timeout := 5000
			if tt.name == "slow" {
				timeout = 300
			}
			pol := judgePolicy(t, verify.JudgeConfig{URL: url, TimeoutMS: timeout})
			start := time.Now()
			rep := check(t, db, judgeRequest(chunk, 3), pol)
			if d := time.Since(start); tt.name == "slow" && d > 2*time.Second {
				t.Errorf("took %s, want the timeout to bound it", d)
			}
			if rep.Disposition == verify.AnswerAccept {
				t.Errorf("answer accepted with a failing judge")
			}
			for _, cr := range rep.Claims {
				if cr.Disposition != verify.Review || !slices.Equal(cr.Reasons, []string{tt.reason}) || slices.Contains(cr.Checks, "judge") ||
					cr.Entailment != verify.EntailmentMeaning {
					t.Errorf("claim %s: got %s %v checks %v entailment %s, want review [%s]", cr.ClaimID, cr.Disposition, cr.Reasons, cr.Checks, cr.Entailment, tt.reason)
				}
				if cr.Judge == nil || cr.Judge.Label != "" || !strings.Contains(strings.ToLower(cr.Judge.Error), strings.ToLower(tt.errIs)) {
					t.Errorf("claim %s: verdict %+v, want an error holding %q", cr.ClaimID, cr.Judge, tt.errIs)
				} else if len(cr.Judge.Error) > 2000 {
					t.Errorf("claim %s: error of %d bytes, want it bounded", cr.ClaimID, len(cr.Judge.Error))
				}
			}
		})
	}
}

// TestJudgeContextCancelled: a request whose context ends sends its
// claims to review at once instead of waiting for the judge.
func TestJudgeContextCancelled(t *testing.T) {
	db, chunk := judgeStore(t)
	f := newFakeJudge(t, func(verify.JudgeInput) (int, string, time.Duration) {
		return 200, `{"label":"supported","score":1}`, 10 * time.Second
	})
	pol := judgePolicy(t, verify.JudgeConfig{URL: f.srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	rep, err := verify.Check(ctx, db, judgeRequest(chunk, 2), pol)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s after the context ended", d)
	}
	for _, cr := range rep.Claims {
		if cr.Disposition != verify.Review || !slices.Contains(cr.Reasons, "judge_unavailable") || !strings.Contains(cr.Judge.Error, "the request ended first") {
			t.Errorf("claim %s: got %s %v %+v, want review judge_unavailable", cr.ClaimID, cr.Disposition, cr.Reasons, cr.Judge)
		}
	}
}

// TestJudgeBudget: past max_calls claims, the rest are not judged and go
// to review; the first claims in request order are the ones judged.
func TestJudgeBudget(t *testing.T) {
	db, chunk := judgeStore(t)
	f := newFakeJudge(t, says(verify.JudgeSupported))
	pol := judgePolicy(t, verify.JudgeConfig{URL: f.srv.URL, MaxCalls: 3})
	rep := check(t, db, judgeRequest(chunk, 5), pol)
	if n := f.calls.Load(); n != 3 {
		t.Errorf("got %d calls, want 3", n)
	}
	for i, cr := range rep.Claims {
		judged := i < 3
		if judged && (cr.Disposition != verify.Accept || cr.Judge.Label != verify.JudgeSupported) {
			t.Errorf("claim %s: got %s %+v, want accepted by the judge", cr.ClaimID, cr.Disposition, cr.Judge)
		}
		if !judged && (cr.Disposition != verify.Review || !slices.Equal(cr.Reasons, []string{"judge_unavailable"}) ||
			cr.Judge == nil || !strings.Contains(cr.Judge.Error, "budget of 3")) {
			t.Errorf("claim %s: got %s %v %+v, want review for the spent budget", cr.ClaimID, cr.Disposition, cr.Reasons, cr.Judge)
		}
	}
	if rep.Disposition != verify.AnswerReview || !slices.Equal(rep.Reasons, []string{"judge_unavailable"}) {
		t.Errorf("answer: got %s %v, want review [judge_unavailable]", rep.Disposition, rep.Reasons)
	}
}

// TestJudgeConcurrency: no more calls in flight than the limit, and the
// report does not depend on the order in which the calls finish.
func TestJudgeConcurrency(t *testing.T) {
	db, chunk := judgeStore(t)
	labels := []string{verify.JudgeSupported, verify.JudgeNotAddressed, verify.JudgeContradicted, verify.JudgeSupported}
	f := newFakeJudge(t, func(in verify.JudgeInput) (int, string, time.Duration) {
		k := slices.Index(judgeClaimTexts, in.Claim)
		// Later claims answer sooner, so calls finish out of order.
		delay := time.Duration(12-len(in.ClaimID)-k) * 15 * time.Millisecond
		return 200, fmt.Sprintf(`{"label":%q,"score":0.5,"fragment":%q}`, labels[k], in.ClaimID), delay
	})
	pol := judgePolicy(t, verify.JudgeConfig{URL: f.srv.URL, Concurrency: 3})
	req := judgeRequest(chunk, 12)
	var first *verify.Report
	for range 3 {
		rep := check(t, db, req, pol)
		for i, cr := range rep.Claims {
			if want := labels[i%4]; cr.Judge == nil || cr.Judge.Label != want || cr.Judge.Fragment != cr.ClaimID {
				t.Fatalf("claim %s: got verdict %+v, want %s about itself", cr.ClaimID, cr.Judge, want)
			}
		}
		if first == nil {
			first = rep
		} else if diff := cmp.Diff(first, rep, cmpopts.IgnoreFields(verify.JudgeVerdict{}, "LatencyMS"), cmpopts.IgnoreUnexported(verify.Report{})); diff != "" {
			t.Errorf("reports differ between runs (-first +again):\n%s", diff)
		}
	}
	if m := f.maxInflight.Load(); m > 3 || m < 2 {
		t.Errorf("at most %d calls were in flight, want 2 to 3 (the limit)", m)
	}
}

// judgmentMap is an in-memory JudgmentCache; failing makes every method fail.
type judgmentMap struct {
	mu      sync.Mutex
	m       map[string][]byte
	failing bool
}

func (c *judgmentMap) Judgment(key []byte) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failing {
		return nil, false, errors.New("cache down")
	}
	v, ok := c.m[string(key)]
	return v, ok, nil
}

func (c *judgmentMap) PutJudgment(key, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failing {
		return errors.New("cache down")
	}
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[string(key)] = v
	return nil
}

// TestJudgeCache: a repeat is answered from the store with no call and
// gives the same report, the verdict marked cached; a changed span or
// claim is a miss; failures are not cached; a failing cache still lets
// the judge answer.
func TestJudgeCache(t *testing.T) {
	db, chunk := judgeStore(t)
	failNext := atomic.Bool{}
	f := newFakeJudge(t, func(in verify.JudgeInput) (int, string, time.Duration) {
		if failNext.Load() {
			return 503, "busy", 0
		}
		return says(verify.JudgeSupported)(in)
	})
	cfg := verify.JudgeConfig{URL: f.srv.URL}
	j, err := verify.NewHTTPJudge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pol := verify.DefaultPolicy().WithJudge(verify.CachedJudge(j, db))
	req := judgeRequest(chunk, 4)
	first := check(t, db, req, pol)
	if n := f.calls.Load(); n != 4 {
		t.Fatalf("first run: %d calls, want 4", n)
	}
	again := check(t, db, req, pol)
	if n := f.calls.Load(); n != 4 {
		t.Errorf("repeat: %d more calls, want none", n-4)
	}
	for _, cr := range again.Claims {
		if !cr.Judge.Cached {
			t.Errorf("claim %s: verdict not marked cached", cr.ClaimID)
		}
	}
	if diff := cmp.Diff(first, again, cmpopts.IgnoreFields(verify.JudgeVerdict{}, "Cached"), cmpopts.IgnoreUnexported(verify.Report{})); diff != "" {
		t.Errorf("repeat report differs (-first +repeat):\n%s", diff)
	}
	// Another claim text over the same span is not the same question.
	other := judgeRequest(chunk, 1)
	other.Claims[0].Text = "Expense reports must be submitted within 30 days!"
	check(t, db, other, pol)
	if n := f.calls.Load(); n != 5 {
		t.Errorf("changed claim: %d calls, want 5", n)
	}
	// A failure is not remembered: the next request asks again.
	failNext.Store(true)
	other.Claims[0].Text = "Expense reports must be submitted within 30 days?"
	if rep := check(t, db, other, pol); rep.Claims[0].Disposition != verify.Review {
		t.Errorf("failing judge: got %s", rep.Claims[0].Disposition)
	}
	failNext.Store(false)
	if rep := check(t, db, other, pol); rep.Claims[0].Disposition != verify.Accept || rep.Claims[0].Judge.Cached || f.calls.Load() != 7 {
		t.Errorf("after a failure: got %s cached %v, %d calls; want a fresh call", rep.Claims[0].Disposition, rep.Claims[0].Judge.Cached, f.calls.Load())
	}
	// A cache that fails costs calls, never a verification.
	broken := &judgmentMap{failing: true}
	rep := check(t, db, req, verify.DefaultPolicy().WithJudge(verify.CachedJudge(j, broken)))
	if rep.Disposition != verify.AnswerAccept || f.calls.Load() != 11 {
		t.Errorf("broken cache: got %s after %d calls, want accept after 4 more", rep.Disposition, f.calls.Load())
	}
	// The verdict is stored under the judge's id: another judge asks.
	mem := &judgmentMap{}
	cj := verify.CachedJudge(j, mem)
	check(t, db, req, verify.DefaultPolicy().WithJudge(cj))
	j2, _ := verify.NewHTTPJudge(verify.JudgeConfig{URL: f.srv.URL + "/other"})
	check(t, db, req, verify.DefaultPolicy().WithJudge(verify.CachedJudge(j2, mem)))
	if n := f.calls.Load(); n != 19 || len(mem.m) != 8 {
		t.Errorf("two judges: %d calls, %d entries, want 19 and 8", n, len(mem.m))
	}
}

// TestRequireJudge: require_judge none, high_risk and all, with and
// without a judge: a claim the policy wants confirmed goes to review when
// no judge is configured, and is accepted when a judge confirms it.
func TestRequireJudge(t *testing.T) {
	db, chunk := judgeStore(t)
	f := newFakeJudge(t, says(verify.JudgeSupported))
	for _, require := range []string{"none", "high_risk", "all"} {
		for _, withJudge := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/judge=%v", require, withJudge), func(t *testing.T) {
				pol, err := verify.ParsePolicy([]byte(`{"name":"t","require_judge":"` + require + `"}`))
				if err != nil {
					t.Fatal(err)
				}
				if withJudge {
					j, _ := verify.NewHTTPJudge(verify.JudgeConfig{URL: f.srv.URL})
					pol = pol.WithJudge(j)
				}
				req := judgeRequest(chunk, 2)
				req.Claims[1].Risk = "high"
				rep := check(t, db, req, pol)
				for i, cr := range rep.Claims {
					required := require == "all" || require == "high_risk" && i == 1
					want, reasons := verify.Accept, []string{}
					if required && !withJudge {
						want, reasons = verify.Review, []string{"judge_required"}
					}
					if cr.Disposition != want || !slices.Equal(cr.Reasons, reasons) {
						t.Errorf("claim %s (risk %q): got %s %v, want %s %v", cr.ClaimID, req.Claims[i].Risk, cr.Disposition, cr.Reasons, want, reasons)
					}
					if required && !withJudge && (rep.Disposition != verify.AnswerReview || !slices.Equal(rep.Reasons, []string{"judge_required"})) {
						t.Errorf("answer: got %s %v, want review [judge_required]", rep.Disposition, rep.Reasons)
					}
					if judged := cr.Judge != nil; judged != withJudge || judged && cr.Entailment != "judge:"+plainJudge(t, f).ID() {
						t.Errorf("claim %s: verdict %+v entailment %s", cr.ClaimID, cr.Judge, cr.Entailment)
					}
				}
			})
		}
	}
}

func plainJudge(t *testing.T, f *fakeJudge) verify.Judge {
	t.Helper()
	j, err := verify.NewHTTPJudge(verify.JudgeConfig{URL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestJudgeVerdictInTrace: the verdict is in the stored trace, since the
// trace holds the report.
func TestJudgeVerdictInTrace(t *testing.T) {
	db, chunk := judgeStore(t)
	f := newFakeJudge(t, says(verify.JudgeNotAddressed))
	pol := judgePolicy(t, verify.JudgeConfig{URL: f.srv.URL})
	rep, err := verify.Answer(context.Background(), db, judgeRequest(chunk, 1), pol)
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := db.View(func(tx *store.Tx) (err error) { raw, err = tx.Trace(rep.TraceID); return err }); err != nil {
		t.Fatal(err)
	}
	var tr verify.Trace
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	v := tr.Report.Claims[0].Judge
	if v == nil || v.Label != verify.JudgeNotAddressed || v.Judge != plainJudge(t, f).ID() || v.Score != 0.75 || v.Fragment != "within 30 days" || v.LatencyMS <= 0 {
		t.Errorf("trace verdict: got %+v", v)
	}
	if tr.Policy.Judge == nil || tr.Policy.Judge.URL != f.srv.URL {
		t.Errorf("trace policy: judge config %+v, want the judge's url", tr.Policy.Judge)
	}
}

// TestJudgeOpenAI: the chat completions format: the request it sends, a
// JSON answer (fenced, after a reasoning block), and a MiniCheck-style
// Yes or No scored from logprobs.
func TestJudgeOpenAI(t *testing.T) {
	db, chunk := judgeStore(t)
	var got struct {
		path string
		body map[string]any
		auth string
	}
	var mu sync.Mutex
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got.path, got.auth = r.URL.Path, r.Header.Get("Authorization")
		got.body = nil
		_ = json.NewDecoder(r.Body).Decode(&got.body)
		_, _ = w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	chat := func(content, logprobs string) string {
		c, _ := json.Marshal(content)
		if logprobs == "" {
			logprobs = "null"
		}
		return `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) + `},"logprobs":` + logprobs + `}]}`
	}
	for _, tt := range []struct {
		name, answer string
		label        string
		score        float64
		reason       string
	}{
		{"json", chat(`{"label":"supported","score":0.9,"fragment":"30 days"}`, ""), verify.JudgeSupported, 0.9, ""},
		{"fenced json after thinking", chat("<think>hmm</think>\n```json\n{\"label\":\"contradicted\",\"score\":0.1}\n```", ""), verify.JudgeContradicted, 0.1, "judge_contradicted"},
		{"yes", chat("Yes", ""), verify.JudgeSupported, 1, ""},
		{"no.", chat("No.", ""), verify.JudgeNotAddressed, 0, "judge_not_addressed"},
		{"yes with logprobs", chat("Yes", `{"content":[{"token":"Yes","logprob":-0.2231,"top_logprobs":[{"token":"Yes","logprob":-0.2231},{"token":"No","logprob":-1.6094},{"token":" yes","logprob":-4.6052}]}]}`),
			verify.JudgeSupported, 0.80, ""},
		{"prose", chat("I think the claim is right.", ""), "", 0, "judge_malformed"},
		{"no choices", `{"choices":[]}`, "", 0, "judge_malformed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			answer = tt.answer
			mu.Unlock()
			cfg := verify.JudgeConfig{URL: srv.URL + "/v1", Format: "openai", Model: "minicheck", APIKey: "sk-test"}
			rep := check(t, db, judgeRequest(chunk, 1), judgePolicy(t, cfg))
			cr := rep.Claims[0]
			if cr.Judge == nil || cr.Judge.Judge != "openai:minicheck" || cr.Judge.Label != tt.label || abs(cr.Judge.Score-tt.score) > 0.005 {
				t.Errorf("got verdict %+v, want %s score %.2f", cr.Judge, tt.label, tt.score)
			}
			wantReasons := []string{}
			if tt.reason != "" {
				wantReasons = []string{tt.reason}
			}
			if !slices.Equal(cr.Reasons, wantReasons) {
				t.Errorf("reasons: got %v, want %v", cr.Reasons, wantReasons)
			}
			mu.Lock()
			defer mu.Unlock()
			msgs, _ := got.body["messages"].([]any)
			if got.path != "/v1/chat/completions" || got.auth != "Bearer sk-test" || got.body["model"] != "minicheck" ||
				got.body["temperature"] != 0.0 || got.body["logprobs"] != true || len(msgs) != 2 {
				t.Fatalf("request: %s auth %q body %v", got.path, got.auth, got.body)
			}
			user, _ := msgs[1].(map[string]any)["content"].(string)
			if system, _ := msgs[0].(map[string]any)["content"].(string); system != verify.JudgeSystemPrompt ||
				user != "Document: "+judgeClaimTexts[0]+"\nClaim: "+judgeClaimTexts[0] {
				t.Errorf("messages: %v", msgs)
			}
		})
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestNewHTTPJudgeConfig: a configuration that cannot work is refused
// with a reason, also from a policy file; a good one gets its id.
func TestNewHTTPJudgeConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg     verify.JudgeConfig
		id, err string
	}{
		{verify.JudgeConfig{URL: "http://127.0.0.1:8000/judge"}, "plain:127.0.0.1:8000/judge", ""},
		{verify.JudgeConfig{URL: "https://judge.example", Format: "plain"}, "plain:judge.example", ""},
		{verify.JudgeConfig{URL: "http://127.0.0.1:11434/v1", Format: "openai", Model: "bespoke-minicheck"}, "openai:bespoke-minicheck", ""},
		{verify.JudgeConfig{URL: "http://h/v1/chat/completions", Format: "openai", Model: "m"}, "openai:m", ""},
		{verify.JudgeConfig{}, "", "a url is required"},
		{verify.JudgeConfig{URL: "ftp://h/x"}, "", "want an http:// or https:// URL"},
		{verify.JudgeConfig{URL: "127.0.0.1:8000"}, "", `url "127.0.0.1:8000"`},
		{verify.JudgeConfig{URL: "http://user:pw@h/"}, "", "no query, fragment or user name"},
		{verify.JudgeConfig{URL: "http://h/", Format: "grpc"}, "", `format "grpc": want plain or openai`},
		{verify.JudgeConfig{URL: "http://h/", Format: "openai"}, "", "needs a model"},
		{verify.JudgeConfig{URL: "http://h/", TimeoutMS: -1}, "", "timeout_ms -1"},
		{verify.JudgeConfig{URL: "http://h/", MaxCalls: 1e6}, "", "max_calls 1000000"},
		{verify.JudgeConfig{URL: "http://h/", Concurrency: 1000}, "", "concurrency 1000"},
	} {
		j, err := verify.NewHTTPJudge(tt.cfg)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%+v: got error %v, want one holding %q", tt.cfg, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("%+v: %v", tt.cfg, err)
		case tt.err == "" && j.ID() != tt.id:
			t.Errorf("%+v: id %s, want %s", tt.cfg, j.ID(), tt.id)
		}
	}
	pol, err := verify.ParsePolicy([]byte(`{"name":"p","judge":{"url":"http://127.0.0.1:9/j","timeout_ms":500}}`))
	if err != nil || pol.ModelJudge() == nil || pol.ModelJudge().ID() != "plain:127.0.0.1:9/j" {
		t.Errorf("policy with a judge: %v, %v", err, pol)
	}
	if _, err := verify.ParsePolicy([]byte(`{"name":"p","judge":{"url":"http://h/","format":"openai"}}`)); !errors.Is(err, verify.ErrPolicy) ||
		!strings.Contains(err.Error(), "needs a model") {
		t.Errorf("policy with a bad judge: got %v, want ErrPolicy naming the model", err)
	}
	if pol := verify.DefaultPolicy(); pol.ModelJudge() != nil {
		t.Errorf("the default policy has a judge")
	}
}

// TestObservedJudge: the observer sees each call's result and the cache hits.
func TestObservedJudge(t *testing.T) {
	db, chunk := judgeStore(t)
	f := newFakeJudge(t, func(in verify.JudgeInput) (int, string, time.Duration) {
		if in.ClaimID == "c2" {
			return 200, `{"label":"maybe","score":1}`, 0
		}
		return says(verify.JudgeContradicted)(in)
	})
	var mu sync.Mutex
	seen := map[string]int{}
	obs := func(judge, result string, d time.Duration) {
		mu.Lock()
		seen[result]++
		mu.Unlock()
	}
	j := verify.ObservedJudge(verify.CachedJudge(plainJudge(t, f), &judgmentMap{}), obs)
	pol := verify.DefaultPolicy().WithJudge(j)
	req := judgeRequest(chunk, 2)
	check(t, db, req, pol)
	check(t, db, req, pol)
	if want := map[string]int{"contradicted": 1, "malformed": 2, "cached": 1}; !cmp.Equal(seen, want) {
		t.Errorf("observed %v, want %v", seen, want)
	}
}
