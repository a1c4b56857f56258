package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/verify"
)

// TestDumpReports writes the reports of 15,000 generated one-claim answers
// (quotes exact, noisy and upper-cased; claims restating, paraphrasing,
// negating, weakening, flipping a bound and naming another party) to the
// file EVIDENCE_VERIFY_DUMP names, one JSON report a line. Run it on two
// builds and compare the files: an optimisation that changes any verdict,
// reason or finding shows as a difference (it is how the speed-ups of
// issue 14 were checked to change nothing):
//
//	EVIDENCE_VERIFY_DUMP=/tmp/new.jsonl go test ./verify -run TestDumpReports
//	cmp /tmp/old.jsonl /tmp/new.jsonl
func TestDumpReports(t *testing.T) {
	out := os.Getenv("EVIDENCE_VERIFY_DUMP")
	if out == "" {
		t.Skip("set EVIDENCE_VERIFY_DUMP=FILE to write the reports")
	}
	db, ids, texts := benchStore(t, 20, 256<<10, ingest.DefaultChunkOptions.Size)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	edits := []func(string) string{
		func(s string) string { return s },
		paraphrase,
		func(s string) string { return strings.Replace(s, " shall ", " shall not ", 1) },
		func(s string) string { return strings.Replace(s, " must ", " may ", 1) },
		func(s string) string { return strings.Replace(s, "below", "above", 1) },
		func(s string) string { return strings.Replace(s, "Lender", "Borrower", 1) },
	}
	quotes := []func(string) string{quote200, func(s string) string { return noisy(quote200(s)) }, func(s string) string { return strings.ToUpper(quote200(s)) }}
	for i := 0; i < 1500; i++ {
		for qi, q := range quotes {
			for ei, e := range edits {
				if qi > 0 && ei > 1 {
					continue
				}
				req := claimsAt(ids, texts, i, 1, q)
				req.Claims[0].Text = e(quote200(texts[(i*7919)%len(ids)]))
				rep, err := verify.Check(context.Background(), db, req, verify.DefaultPolicy())
				if err != nil {
					t.Fatal(err)
				}
				if err := enc.Encode(rep); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
