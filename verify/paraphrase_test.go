package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// paraphrases are claims written as an outside reader writes them, in
// other words than their quotes, on the sample corpus's credit agreement
// and expense policy: the correct ones must pass (precision), the wrong
// ones must give the reason.
var paraphrases = []struct {
	doc, claim, quote, disposition, reason string
}{
	// correct: other words, the same meaning
	{"credit-agreement-summary.txt", "The Interest Coverage Ratio must be at least 4.00 to 1.00.", "The Interest Coverage Ratio shall not be less than\n4.00 to 1.00.", "accept", ""},
	{"credit-agreement-summary.txt", "The Net Leverage Ratio may not exceed 3.25 to 1.00.", "The Net Leverage Ratio shall not exceed 3.25 to 1.00.", "accept", ""},
	{"credit-agreement-summary.txt", "Shareholders can cure a covenant breach by contributing cash within 15 business days after the compliance certificate is due.", "If a covenant is breached, the shareholders may contribute\ncash within 15 business days after the compliance certificate is due.", "accept", ""},
	{"credit-agreement-summary.txt", "An equity cure may be used at most 2 times in any four consecutive quarters.", "An equity cure may be used no more than 2 times in any four consecutive quarters", "accept", ""},
	{"credit-agreement-summary.txt", "The auditor's report must not be qualified as to going concern.", "the\nauditor's report, which must not be qualified as to going concern", "accept", ""},
	{"credit-agreement-summary.txt", "Covenant calculations are kept for 10 years after final maturity.", "Compliance certificates and covenant calculations are kept by\nTreasury for 10 years after final maturity", "accept", ""},
	{"credit-agreement-summary.txt", "Amendment No. 1 reduced the commitment fee from 0.40% to 0.35% per year.", "Amendment No. 1, dated 2025-02-14, raised the Revolving Credit Facility from\nUSD 60,000,000 to USD 75,000,000 and reduced the commitment fee from 0.40% to\n0.35% per year.", "accept", ""},
	{"credit-agreement-summary.txt", "After an event of default the Required Lenders may instruct the Administrative Agent to cancel the commitments.", "the Required Lenders (Lenders holding more than 50%\nof the commitments) may instruct the Administrative Agent to cancel the\ncommitments", "accept", ""},
	{"credit-agreement-summary.txt", "The CFO signs the quarterly compliance certificate.", "a compliance\ncertificate signed by the Chief Financial Officer", "accept", ""},
	{"expense-policy.md", "Expense reports have to be submitted within 14 calendar days of the end of the trip.", "Submit all expense reports within 14 calendar days of the end of the trip", "accept", ""},
	{"expense-policy.md", "Claims above EUR 25 need an itemized receipt.", "Every claim above EUR 25 needs an itemized receipt.", "accept", ""},
	{"expense-policy.md", "A card slip that shows only the total does not count as a receipt.", "A card slip showing only\nthe total is not a receipt.", "accept", ""},
	{"expense-policy.md", "An approver cannot approve a report that includes their own expenses.", "An approver may not approve a report that includes their own expenses", "accept", ""},
	{"expense-policy.md", "Rail journeys over 3 hours may be taken in first class.", "Rail: first class is allowed for journeys over 3 hours.", "accept", ""},
	{"expense-policy.md", "Reports submitted after 60 calendar days are only reimbursed with the CFO's written approval.", "Reports submitted after 60 calendar days are reimbursed only with the\nwritten approval of the Chief Financial Officer.", "accept", ""},
	{"credit-agreement-summary.txt", "Kestrel Harbor must deliver audited statements within 120 days after the end of each fiscal year.", "Audited consolidated financial statements and a compliance\ncertificate within 120 days after the end of each fiscal year", "accept", ""},
	{"expense-policy.md", "At Kestrel Harbor Group, claims above EUR 25 need an itemized receipt.", "Every claim above EUR 25 needs an itemized receipt.", "accept", ""},
	// correct but narrower than said: the passage attaches a condition
	{"expense-policy.md", "Bookings made outside the travel portal are reimbursed up to the fare the portal offered.", "Bookings made\nelsewhere are reimbursed only up to the fare the portal offered on the day of\nbooking", "clarify", "qualifier_missing:exception"},
	{"data-retention.md", "Approved expense reports and receipts must be retained for seven years.", "Approved expense reports and their receipts are kept for 7 years", "accept", ""}, // "seven" is no figure to compare: nothing to hold against it
	{"data-retention.md", "Approved expense reports and their receipts are retained for 7 years.", "Approved expense reports and their receipts are kept for 7 years", "accept", ""},
	{"data-retention.md", "Paper receipts can be destroyed once a scanned copy is attached to an approved report.", "The\noriginal paper receipt may be destroyed once the scanned copy has been\nattached to an approved report", "accept", ""},
	{"data-retention.md", "Authentication and access logs are retained for 13 months.", "Authentication and access logs are kept for 13 months", "accept", ""},
	{"data-retention.md", "Logs that belong to an open incident are kept until it is closed and for 12 more months.", "Logs that\nare part of an open incident are kept until the incident is closed and then for\na further 12 months.", "accept", ""},
	{"data-retention.md", "Copies of compliance certificates in e-mail are not records.", "copies in e-mail are not records", "accept", ""},
	{"data-retention.md", "Treasury keeps the master copy of the compliance certificates.", "Treasury\nholds the master copy", "accept", ""},
	{"security-faq.html", "Passwords of normal accounts need at least 14 characters.", "At least 14 characters for a normal account", "accept", ""},
	{"security-faq.html", "Administrator accounts need a password of at least 20 characters.", "20 characters for an\nadministrator account", "accept", ""},
	{"security-faq.html", "SMS codes are no longer accepted as a second factor.", "Text messages are not accepted for any account since 2024-10-01.", "accept", ""},
	{"security-faq.html", "Administrators are required to use a hardware key.", "Administrators must use a hardware key.", "accept", ""},
	{"security-faq.html", "A lost laptop must be reported to the Security desk within an hour.", "Report it to the Security desk within 1 hour", "accept", ""},
	{"security-faq.html", "A replacement key is issued within 2 business days.", "a replacement key is issued within 2 business days.", "accept", ""},
	{"security-faq.html", "USB drives are never approved for customer data.", "Personal devices, personal cloud\naccounts and USB drives are never approved.", "accept", ""},
	// wrong: the passage says otherwise
	{"credit-agreement-summary.txt", "The Interest Coverage Ratio must not exceed 4.00 to 1.00.", "The Interest Coverage Ratio shall not be less than\n4.00 to 1.00.", "block_answer", "direction_contradicted"},
	{"credit-agreement-summary.txt", "The Net Leverage Ratio must be at least 3.25 to 1.00.", "The Net Leverage Ratio shall not exceed 3.25 to 1.00.", "block_answer", "direction_contradicted"},
	{"credit-agreement-summary.txt", "Amendment No. 1 increased the commitment fee to 0.35% per year.", "Amendment No. 1, dated 2025-02-14, raised the Revolving Credit Facility from\nUSD 60,000,000 to USD 75,000,000 and reduced the commitment fee from 0.40% to\n0.35% per year.", "block_answer", "direction_contradicted"},
	{"credit-agreement-summary.txt", "Amendment No. 1 increased the Revolving Credit Facility to USD 75,000,000.", "Amendment No. 1, dated 2025-02-14, raised the Revolving Credit Facility from\nUSD 60,000,000 to USD 75,000,000 and reduced the commitment fee from 0.40% to\n0.35% per year.", "accept", ""},
	{"credit-agreement-summary.txt", "The commitment fee of 0.35% is paid monthly.", "A commitment fee of 0.35% per year accrues on the unused revolving\ncommitments and is paid quarterly in arrears.", "block_answer", "period_contradicted"},
	{"credit-agreement-summary.txt", "The shareholders must contribute cash within 15 business days after the compliance certificate is due.", "the shareholders may contribute\ncash within 15 business days after the compliance certificate is due.", "remove_claim", "modality_differs"},
	{"credit-agreement-summary.txt", "Under the facility, Birch Capital must deliver audited statements within 120 days after the end of each fiscal year.", "Audited consolidated financial statements and a compliance\ncertificate within 120 days after the end of each fiscal year", "remove_claim", "name_unsupported:Birch"},
	{"credit-agreement-summary.txt", "The compliance certificate is signed by the Chief Executive Officer.", "a compliance\ncertificate signed by the Chief Financial Officer", "remove_claim", "name_unsupported"},
	{"expense-policy.md", "An approver may approve a report that includes their own expenses.", "An approver may not approve a report that includes their own expenses", "block_answer", "polarity_contradicted"},
	{"expense-policy.md", "A card slip showing only the total is a receipt.", "A card slip showing only\nthe total is not a receipt.", "block_answer", "polarity_contradicted"},
	{"security-faq.html", "Text messages are accepted as a second factor.", "Text messages are not accepted for any account since 2024-10-01.", "block_answer", "polarity_contradicted"},
	{"data-retention.md", "Authentication and access logs are kept for 13 years.", "Authentication and access logs are kept for 13 months", "remove_claim", "figure_missing"}, // years and months are not one unit (docs/contract.md#figures)
}

func TestParaphrases(t *testing.T) {
	dir, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t)
	var paths []string
	for _, name := range []string{"credit-agreement-summary.txt", "expense-policy.md", "data-retention.md", "security-faq.html"} {
		paths = append(paths, filepath.Join(dir, name))
	}
	if _, err := ingest.Run(context.Background(), db, paths, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	pol := verify.DefaultPolicy()
	for _, p := range paraphrases {
		id := chunkHolding(t, db, p.doc, p.quote)
		req := &verify.Request{RequestID: "p", Retrieved: []string{id}, Claims: []verify.Claim{{ClaimID: "c",
			Text: p.claim, Evidence: []verify.Evidence{{ChunkID: id, Quote: p.quote}}}}}
		rep, err := verify.Check(context.Background(), db, req, pol)
		if err != nil {
			t.Fatal(err)
		}
		cr := rep.Claims[0]
		ok := cr.Disposition == p.disposition
		if p.reason != "" {
			ok = ok && contains(cr.Reasons, p.reason)
		}
		if !ok {
			t.Errorf("%q: got %s %v %v, want %s %s", p.claim, cr.Disposition, cr.Reasons, cr.Findings, p.disposition, p.reason)
		}
	}
}

// chunkHolding returns the id of the chunk of a document's current version
// whose text holds the quote.
func chunkHolding(t *testing.T, db *store.DB, doc, quote string) string {
	t.Helper()
	var id string
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(doc)
		if err != nil {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		return tx.ForEachChunk(v, func(c *store.Chunk) error {
			span, err := tx.Span(v, c)
			if err == nil && id == "" && strings.Contains(squash(string(span)), squash(quote)) {
				id = c.ID()
			}
			return err
		})
	})
	if err != nil || id == "" {
		b, _ := os.ReadFile(filepath.Join("..", "corpus", "sample", doc))
		t.Fatalf("no chunk of %s holds %q (%v; in the file: %v)", doc, quote, err, strings.Contains(squash(string(b)), squash(quote)))
	}
	return id
}

// squash collapses whitespace, as a quote's whitespace match level does.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestParaphraseTwoCitations: a claim that joins two facts, each from its
// own citation, passes, and the same claim with one fact turned around is
// contradicted, whether ";" or ", and" joins them.
func TestParaphraseTwoCitations(t *testing.T) {
	dir, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t)
	if _, err := ingest.Run(context.Background(), db, []string{filepath.Join(dir, "expense-policy.md")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	q1, q2 := "Submit all expense reports within 14 calendar days of the end of the trip", "Every claim above EUR 25 needs an itemized receipt."
	a, b := chunkHolding(t, db, "expense-policy.md", q1), chunkHolding(t, db, "expense-policy.md", q2)
	for _, tc := range []struct{ claim, disposition, reason string }{
		{"Expense reports are due within 14 calendar days of the end of the trip, and claims above EUR 25 need an itemized receipt.", "accept", ""},
		{"Expense reports are due within 14 calendar days of the end of the trip; claims above EUR 25 do not need an itemized receipt.", "block_answer", "polarity_contradicted"},
		{"Expense reports are due within 14 calendar days of the end of the trip, and claims above EUR 25 do not need an itemized receipt.", "block_answer", "polarity_contradicted"},
	} {
		req := &verify.Request{RequestID: "two", Retrieved: []string{a, b}, Claims: []verify.Claim{{ClaimID: "c", Text: tc.claim,
			Evidence: []verify.Evidence{{ChunkID: a, Quote: q1}, {ChunkID: b, Quote: q2}}}}}
		rep, err := verify.Check(context.Background(), db, req, verify.DefaultPolicy())
		if err != nil {
			t.Fatal(err)
		}
		cr := rep.Claims[0]
		if cr.Disposition != tc.disposition || tc.reason != "" && !contains(cr.Reasons, tc.reason) {
			t.Errorf("%q: got %s %v %v, want %s %s", tc.claim, cr.Disposition, cr.Reasons, cr.Findings, tc.disposition, tc.reason)
		}
	}
}
