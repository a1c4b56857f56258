package verify_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evidence-rag/evidence/verify"
)

// TestEvidenceCoordinates: the page and section reported for a quote are
// those of the quote's own start, not of the chunk it sits in, when the
// quote follows a page break or a heading inside the chunk.
func TestEvidenceCoordinates(t *testing.T) {
	fx := &fixture{
		Documents: []fixtureDoc{
			{ID: "terms.md", Text: "# Terms\n\nIntro text.\n\n## Fees\n\nThe fee is 2% of the amount.\n"},
			{ID: "report.txt", Text: "Page one text.\fPage two says the limit is 7 days.\n"},
		},
		ChunkSize: 1000,
	}
	db, versions := setup(t, fx)
	md := chunkRef(t, db, versions, "@terms.md:Intro")
	txt := chunkRef(t, db, versions, "@report.txt:Page one")
	req := &verify.Request{RequestID: "r", Retrieved: []string{md, txt}, Claims: []verify.Claim{
		{ClaimID: "fee", Text: "The fee is 2%.", Evidence: []verify.Evidence{{ChunkID: md, Quote: "The fee is 2% of the amount."}}},
		{ClaimID: "limit", Text: "The limit is 7 days.", Evidence: []verify.Evidence{{ChunkID: txt, Quote: "the limit is 7 days"}}},
	}}
	rep, err := verify.Check(context.Background(), db, req, verify.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Claims[0].Evidence[0]; e.Status != verify.EvidenceOK || !slices.Equal(e.SectionPath, []string{"Terms", "Fees"}) {
		t.Errorf("fee: got %s section %v, want ok in [Terms Fees]", e.Status, e.SectionPath)
	}
	if e := rep.Claims[1].Evidence[0]; e.Status != verify.EvidenceOK || e.PageNumber != 2 || e.PageEnd != 2 {
		t.Errorf("limit: got %s pages %d–%d, want ok on page 2", e.Status, e.PageNumber, e.PageEnd)
	}
}
