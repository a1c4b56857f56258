package verify_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// groundingStore holds a Markdown policy with a title heading and a plain
// text note with none.
func groundingStore(t *testing.T) (func(ref string) string, func(*verify.Request, *verify.Policy) *verify.Report) {
	fx := &fixture{Documents: []fixtureDoc{
		{ID: "terms.md", Text: "# Terms of Service\n\nThe fee is 2% of the amount, effective 1 March 2025.\n"},
		{ID: "note.txt", Text: "Refunds are paid within 30 days of the request.\n"},
	}, ChunkSize: 1000}
	db, versions := setup(t, fx)
	ref := func(r string) string { return chunkRef(t, db, versions, r) }
	check := func(req *verify.Request, pol *verify.Policy) *verify.Report {
		t.Helper()
		rep, err := verify.Check(context.Background(), db, req, pol)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	return ref, check
}

// TestGroundingWithoutClaims: the cheaper contract's dispositions beyond
// the fixtures: a high-risk policy reviews what it cannot check, the
// answer prose is not split into uncited sentences, a plain-text source is
// titled by its file name with a bare URL.
func TestGroundingWithoutClaims(t *testing.T) {
	ref, check := groundingStore(t)
	md, txt := ref("@terms.md:fee"), ref("@note.txt:Refunds")
	req := &verify.Request{RequestID: "r", Retrieved: []string{txt, md},
		Answer: "Refunds take 30 days. The fee is 2 percent since March 2025."}
	rep := check(req, verify.DefaultPolicy())
	if rep.Disposition != verify.AnswerAccept || rep.Grounding != verify.Grounded || len(rep.UncitedSentences) != 0 {
		t.Errorf("got %s, %s, %d uncited sentences: want accept, grounded, none (prose is not split without claims)",
			rep.Disposition, rep.Grounding, len(rep.UncitedSentences))
	}
	if len(rep.Sources) != 2 {
		t.Fatalf("got %d sources, want 2: %+v", len(rep.Sources), rep.Sources)
	}
	note, terms := rep.Sources[0], rep.Sources[1]
	if note.Label != "[1]" || !strings.HasPrefix(note.Title, "note.txt") || note.LinkKind != "none" ||
		!strings.HasPrefix(note.URL, "file://") || strings.Contains(note.URL, "#") || len(note.EffectiveDates) != 0 {
		t.Errorf("plain-text source: got %+v, want [1] titled by its file name, link none, a bare file URL, no dates", note)
	}
	if terms.Label != "[2]" || terms.Title != "Terms of Service" || terms.LinkKind != "heading" ||
		!strings.HasSuffix(terms.URL, "#terms-of-service") || len(terms.EffectiveDates) != 1 || terms.EffectiveDates[0] != "2025-03-01" {
		t.Errorf("Markdown source: got %+v, want [2] titled by its heading, its anchor, effective 2025-03-01", terms)
	}

	high, err := verify.ParsePolicy([]byte(`{"name":"high","risk":"high"}`))
	if err != nil {
		t.Fatal(err)
	}
	if rep := check(req, high); rep.Disposition != verify.AnswerReview || rep.Grounding != verify.Grounded || !contains(rep.Reasons, "high_risk_policy") {
		t.Errorf("high-risk policy: got %s %v, %s: want review (high_risk_policy), grounded", rep.Disposition, rep.Reasons, rep.Grounding)
	}
	// A policy with no effective_date qualifier reports no dates.
	bare, err := verify.ParsePolicy([]byte(`{"name":"bare","extends":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	if rep := check(req, bare); rep.Disposition != verify.AnswerAccept || len(rep.Sources) != 2 || len(rep.Sources[1].EffectiveDates) != 0 {
		t.Errorf("policy without qualifiers: got %s %+v, want accept and no effective dates", rep.Disposition, rep.Sources)
	}
}

// TestGroundingWithClaims: a request with claims is grounded only by a
// supported claim with an accepted citation; a citation that resolves but
// whose quote is not there grounds nothing.
func TestGroundingWithClaims(t *testing.T) {
	ref, check := groundingStore(t)
	md := ref("@terms.md:fee")
	claim := func(quote string) *verify.Request {
		return &verify.Request{RequestID: "r", Retrieved: []string{md}, Claims: []verify.Claim{
			{ClaimID: "c1", Text: "The fee is 2% of the amount.", Evidence: []verify.Evidence{{ChunkID: md, Quote: quote}}}}}
	}
	if rep := check(claim("The fee is 2% of the amount"), verify.DefaultPolicy()); rep.Grounding != verify.Grounded || len(rep.Sources) != 0 {
		t.Errorf("supported claim: got %s, %d sources, want grounded and no sources (the evidence carries them)", rep.Grounding, len(rep.Sources))
	}
	if rep := check(claim("The fee is waived"), verify.DefaultPolicy()); rep.Grounding != verify.InsufficientEvidence || rep.Disposition == verify.AnswerAccept {
		t.Errorf("quote not found: got %s, %s, want insufficient_evidence, not accepted", rep.Grounding, rep.Disposition)
	}
	no := false
	greeting := &verify.Request{RequestID: "r", Retrieved: []string{md}, Claims: []verify.Claim{{ClaimID: "hi", Text: "Happy to help.", RequiresEvidence: &no}}}
	if rep := check(greeting, verify.DefaultPolicy()); rep.Grounding != verify.InsufficientEvidence || rep.Disposition != verify.AnswerAccept {
		t.Errorf("greeting: got %s, %s, want insufficient_evidence and accept (it needs no evidence)", rep.Grounding, rep.Disposition)
	}
}

func TestGroundingCanceled(t *testing.T) {
	fx := &fixture{Documents: []fixtureDoc{{ID: "note.txt", Text: "Refunds are paid within 30 days.\n"}}}
	db, versions := setup(t, fx)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := &verify.Request{Retrieved: []string{chunkRef(t, db, versions, "@note.txt:Refunds")}}
	if _, err := verify.Check(ctx, db, req, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: got %v, want context.Canceled", err)
	}
}

// FuzzGroundWithoutClaims: any list of retrieved ids, real or not, with or
// without a retrieval error, gives a report and no error; the answer is
// accepted exactly when it is grounded, and the forbidden document is named
// nowhere.
func FuzzGroundWithoutClaims(f *testing.F) {
	fx := &fixture{Documents: []fixtureDoc{
		{ID: "terms.md", Text: "# Terms\n\nThe fee is 2% of the amount, effective 1 March 2025.\n\n## Refunds\n\nRefunds are paid within 30 days.\n"},
		{ID: "board.md", Text: "# Board\n\nThe codename is BLUEHERON.\n", ACL: []string{"treasury@example.com"}},
	}, ChunkSize: 40, Overlap: 5}
	f.Add("@0,@1,@2", "")
	f.Add("@2,x,@0,@0", "timeout")
	f.Add(",-1,0123456789abcdef0123456789abcdef-0", "")
	db, versions := setup(f, fx)
	ids := []string{chunkRef(f, db, versions, "@terms.md:fee"), chunkRef(f, db, versions, "@terms.md:Refunds"),
		chunkRef(f, db, versions, "@board.md:BLUEHERON")}
	hidden := versions["board.md"][0]
	f.Fuzz(func(t *testing.T, list, retrievalError string) {
		req := &verify.Request{RequestID: "f", Principal: "intern@example.com", RetrievalError: retrievalError}
		for _, id := range strings.Split(list, ",") {
			if len(id) == 2 && id[0] == '@' && id[1] >= '0' && id[1] <= '2' {
				id = ids[id[1]-'0']
			}
			req.Retrieved = append(req.Retrieved, id)
		}
		if req.Validate() != nil {
			return
		}
		rep, err := verify.Check(context.Background(), db, req, verify.DefaultPolicy())
		if err != nil {
			t.Fatal(err)
		}
		if (rep.Disposition == verify.AnswerAccept) != (rep.Grounding == verify.Grounded) ||
			(retrievalError != "") != (rep.Grounding == verify.RetrievalUnavailable) {
			t.Fatalf("retrieval_error %q: got %s, %s", retrievalError, rep.Disposition, rep.Grounding)
		}
		out, _ := json.Marshal(rep)
		if strings.Contains(string(out), hidden) || strings.Contains(string(out), "board.md") || strings.Contains(string(out), "BLUEHERON") {
			t.Fatalf("the report names the forbidden document: %s", out)
		}
	})
}

// TestGroundingQuarantined: a quarantined chunk grounds nothing and makes
// no source; beside a servable chunk of the same version it is left out of
// the source's chunk_ids.
func TestGroundingQuarantined(t *testing.T) {
	db := storetest.Open(t)
	nv := storetest.NewVersion("doc", "Refunds are paid within 30 days of the request. Fees are 2% of the amount.", 30)
	nv.Chunks[1].Quarantine = &store.Quarantine{Reason: resolve.ReasonTextMismatch}
	nv.Chunks[1].SpanHash = store.ID{}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	good, bad := store.ChunkID(nv.Version.ID, 0), store.ChunkID(nv.Version.ID, 1)
	rep, err := verify.Check(context.Background(), db, &verify.Request{Retrieved: []string{bad}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Grounding != verify.InsufficientEvidence || rep.Disposition != verify.AnswerAbstain || len(rep.Sources) != 0 || rep.Failures.Resolution != 1 {
		t.Errorf("quarantined only: got %s, %s, %d sources, failures %+v: want insufficient_evidence, abstain, none, one resolution failure",
			rep.Grounding, rep.Disposition, len(rep.Sources), rep.Failures)
	}
	rep, err = verify.Check(context.Background(), db, &verify.Request{Retrieved: []string{bad, good}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Grounding != verify.Grounded || len(rep.Sources) != 1 || !slices.Equal(rep.Sources[0].ChunkIDs, []string{good}) {
		t.Errorf("quarantined beside servable: got %s, %+v: want grounded, one source of %s only", rep.Grounding, rep.Sources, good)
	}
}
