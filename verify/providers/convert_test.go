package providers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

const secretText = "Board memo\n\nThe acquisition of Alder Street Bank closes on 30 June 2025 at EUR 410 million.\n"

// newStore ingests testdata/docs (ids policy.txt, handbook.txt) cut into
// chunks of size code points, and secret.txt readable by the analyst only.
func newStore(t testing.TB, size, overlap int) *store.DB {
	t.Helper()
	db := storetest.Open(t)
	for _, name := range []string{"policy.txt", "handbook.txt"} {
		opts := ingest.Options{ID: name, Chunk: ingest.ChunkOptions{Size: size, Overlap: overlap}}
		if sum, err := ingest.Run(context.Background(), db, []string{filepath.Join("testdata", "docs", name)}, opts); err != nil || sum.Failed > 0 {
			t.Fatalf("ingest %s: %v %+v", name, err, sum)
		}
	}
	p := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(p, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := ingest.Options{ID: "secret.txt", ACL: []string{"analyst@example.com"}, Chunk: ingest.ChunkOptions{Size: size, Overlap: overlap}}
	if sum, err := ingest.Run(context.Background(), db, []string{p}, opts); err != nil || sum.Failed > 0 {
		t.Fatalf("ingest secret: %v %+v", err, sum)
	}
	return db
}

func mapOf(t testing.TB, js string) Map {
	t.Helper()
	m, err := ParseMap([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func convert(t testing.TB, db *store.DB, f Format, file string, unit Unit, m Map, principal string) (*verify.Request, error) {
	t.Helper()
	a, err := Parse(f, readFixture(t, file), unit)
	if err != nil {
		t.Fatal(err)
	}
	return Convert(db, a, m, Options{Principal: principal})
}

// checkEvidence holds every evidence item to what the conversion promises:
// its chunk is retrieved and servable, its offsets lie in the chunk, and a
// quote given with offsets is the stored text there.
func checkEvidence(t *testing.T, db *store.DB, req *verify.Request) {
	checkEvidenceOf(t, db, req, true)
}

// checkEvidenceOf is checkEvidence; without exact, a quote may differ
// from the text at its offsets (a provider's range that does not hold its
// quote is passed on for the verifier to report).
func checkEvidenceOf(t *testing.T, db *store.DB, req *verify.Request, exact bool) {
	t.Helper()
	retrieved := map[string]bool{}
	for _, id := range req.Retrieved {
		retrieved[id] = true
	}
	for _, c := range req.Claims {
		if len(c.Evidence) == 0 {
			t.Errorf("claim %s has no evidence", c.ClaimID)
		}
		for i, e := range c.Evidence {
			if !retrieved[e.ChunkID] {
				t.Errorf("claim %s evidence[%d]: chunk %s not retrieved", c.ClaimID, i, e.ChunkID)
			}
			r, err := resolve.Chunk(db, e.ChunkID, req.Principal)
			if err != nil || !r.Served() {
				t.Errorf("claim %s evidence[%d]: chunk %s does not serve: %v %v", c.ClaimID, i, e.ChunkID, err, r)
				continue
			}
			if e.SourceStart == nil {
				continue
			}
			if *e.SourceStart < r.Start || *e.SourceEnd > r.End {
				t.Errorf("claim %s evidence[%d]: [%d, %d) outside chunk [%d, %d)", c.ClaimID, i, *e.SourceStart, *e.SourceEnd, r.Start, r.End)
				continue
			}
			at := string([]rune(r.Text)[*e.SourceStart-r.Start : *e.SourceEnd-r.Start])
			if exact && e.Quote != "" && at != e.Quote {
				t.Errorf("claim %s evidence[%d]: quote %q, stored text at [%d, %d) %q", c.ClaimID, i, e.Quote, *e.SourceStart, *e.SourceEnd, at)
			}
		}
	}
}

// quotes joins each claim's evidence quotes.
func quotes(req *verify.Request) []string { return quotesSep(req, "") }

func quotesSep(req *verify.Request, sep string) []string {
	var out []string
	for _, c := range req.Claims {
		var qs []string
		for _, e := range c.Evidence {
			qs = append(qs, e.Quote)
		}
		out = append(out, strings.Join(qs, sep))
	}
	return out
}

// accepted verifies the request under the default policy and fails the
// test for every claim not accepted.
func accepted(t *testing.T, db *store.DB, req *verify.Request) *verify.Report {
	t.Helper()
	rep, err := verify.Check(context.Background(), db, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Claims {
		if c.Disposition != verify.Accept {
			b, _ := json.MarshalIndent(c, "", " ")
			t.Errorf("claim %s: %s, want accept:\n%s", c.ClaimID, c.Disposition, b)
		}
	}
	return rep
}

// notBlocked fails the test for a claim blocked: a conversion may make a
// claim harder to support (a quote split across chunks), never block it.
func notBlocked(t *testing.T, db *store.DB, req *verify.Request) {
	t.Helper()
	rep, err := verify.Check(context.Background(), db, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Claims {
		if c.Disposition == verify.BlockClaim || c.Disposition == verify.BlockAnswer {
			t.Errorf("claim %s: %s %v", c.ClaimID, c.Disposition, c.Reasons)
		}
	}
}

func TestConvertAnthropicChar(t *testing.T) {
	c1 := "Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip."
	c2 := "Meals 🍽️ are reimbursed up to EUR 60 per day; the café rule q\u0303 applies to team dinners."
	c3 := "出張報告は14日以内に提出してください。"
	m := `{"0": {"document_id": "policy.txt"}}`
	for _, size := range []int{1000, 40} {
		db := newStore(t, size, size/10)
		req, err := convert(t, db, Anthropic, "anthropic-char.json", "", mapOf(t, m), "")
		if err != nil {
			t.Fatal(err)
		}
		checkEvidence(t, db, req)
		// A chunk that would hold only the space between two others is left out.
		if diff := cmp.Diff([]string{c1, c2, c3}, quotesSep(req, " "), cmpopts.AcyclicTransformer("words", strings.Fields)); diff != "" {
			t.Errorf("chunks of %d: the cited texts, split over chunks (-want +got):\n%s", size, diff)
		}
		if req.RequestID != "msg_01XFDUDYJgAACzvnptvVoYEL" || len(req.Retrieved) < 1 || !strings.Contains(req.Answer, "According to the travel policy") {
			t.Errorf("request id %q, %d retrieved, answer %q", req.RequestID, len(req.Retrieved), req.Answer)
		}
		if size == 1000 {
			for _, c := range req.Claims {
				if len(c.Evidence) != 1 {
					t.Errorf("claim %s: %d evidence items in a one-chunk document", c.ClaimID, len(c.Evidence))
				}
			}
			accepted(t, db, req)
		} else {
			if len(req.Claims[0].Evidence) < 2 {
				t.Errorf("chunks of 40: claim %s has %d evidence items, want the quote split", req.Claims[0].ClaimID, len(req.Claims[0].Evidence))
			}
			notBlocked(t, db, req)
		}

		// The same citations in UTF-16 code units: refused as code points,
		// naming the unit that fits, and equal to them when said so.
		_, err = convert(t, db, Anthropic, "anthropic-char-utf16.json", "", mapOf(t, m), "")
		want := `anthropic: content[1].citations[0]: offsets [36, 120) hold the cited text in "policy.txt" version `
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "counted in utf16, not in code_point: set offset_unit utf16") {
			t.Errorf("UTF-16 offsets read as code points: got %v, want %q… utf16", err, want)
		}
		req16, err := convert(t, db, Anthropic, "anthropic-char-utf16.json", UTF16, mapOf(t, m), "")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(req.Claims, req16.Claims); diff != "" {
			t.Errorf("UTF-16 offsets convert to other evidence (-code points +utf16):\n%s", diff)
		}
		// ... and as bytes they fall inside a character.
		if _, err := convert(t, db, Anthropic, "anthropic-char-utf16.json", Byte, mapOf(t, m), ""); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "counted in utf16, not in byte") {
			t.Errorf("UTF-16 offsets read as bytes: got %v", err)
		}
	}
}

func TestConvertAnthropicPagesAndBlocks(t *testing.T) {
	db := newStore(t, 1000, 100)
	m := mapOf(t, `{"1": {"document_id": "handbook.txt"}, "2": {"document_id": "policy.txt"}, "kb://travel/policy#4": {"document_id": "policy.txt"}}`)
	req, err := convert(t, db, Anthropic, "anthropic-page.json", "", m, "")
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	want := []string{"Chapter 2. Remote work 🏠 is allowed two days per week with the manager's approval.\n", "Chapter 3. Annual leave is 25 days per year;",
		"Hotels in Zürich are capped at CHF 240 per night", "Business class is allowed only for flights over six hours."}
	if diff := cmp.Diff(want, quotes(req)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	rep := accepted(t, db, req)
	for i, page := range []int{2, 3} {
		if got := rep.Claims[i].Evidence[0].PageNumber; got != page {
			t.Errorf("claim %s: evidence on page %d, want %d", rep.Claims[i].ClaimID, got, page)
		}
	}

	// A page the document does not have, and a quote not on the pages cited.
	b := readFixture(t, "anthropic-page.json")
	a, err := Parse(Anthropic, []byte(strings.Replace(string(b), `"start_page_number": 3,
          "end_page_number": 4`, `"start_page_number": 7,
          "end_page_number": 8`, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(db, a, m, Options{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `content[3].citations[0]: pages [7, 8) but "handbook.txt" version`) || !strings.Contains(err.Error(), "has 3 pages") {
		t.Errorf("page 7 of 3: got %v", err)
	}
	a.Claims[1].Citations[0].Pages = &Pages{1, 2}
	small := newStore(t, 60, 6)
	req, err = Convert(small, a, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err = verify.Check(context.Background(), small, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Claims[1]; c.Disposition == verify.Accept || c.Disposition == verify.BlockClaim || c.Disposition == verify.BlockAnswer {
		t.Errorf("a quote of page 3 cited on page 1: got %s %v, want it insufficient, not accepted nor blocked", c.Disposition, c.Reasons)
	}
}

func TestConvertOpenAI(t *testing.T) {
	db := newStore(t, 1000, 100)
	m := mapOf(t, `{"file-2dtbBZdjtDKS8eqWxqbgDi": {"document_id": "policy.txt"}}`)
	req, err := convert(t, db, OpenAI, "openai-responses.json", "", m, "")
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	accepted(t, db, req)
	want := []string{"Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip.", "Hotels in Zürich are capped at CHF 240 per night 🏨."}
	if diff := cmp.Diff(want, quotes(req)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Without the search results a citation names only the file: fine for a
	// one-chunk document, an error naming the way out for a longer one.
	req, err = convert(t, db, OpenAI, "openai-responses-noresults.json", "", m, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Claims) != 2 || len(req.Claims[0].Evidence) != 1 || req.Claims[0].Evidence[0].Quote != "" {
		t.Errorf("one-chunk file without results: got %+v", req.Claims)
	}
	small := newStore(t, 100, 10)
	_, err = convert(t, small, OpenAI, "openai-responses-noresults.json", "", m, "")
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "output[1].content[0].annotations[0]: cites \"policy.txt\" version") ||
		!strings.Contains(err.Error(), `map "file-2dtbBZdjtDKS8eqWxqbgDi" to one chunk_id, or ask for the file search results (include: ["file_search_call.results"])`) {
		t.Errorf("several chunks, no quote: got %v", err)
	}

	// Assistants: a v1 quote, and a file mapped to one chunk.
	remote := chunkHolding(t, db, "handbook.txt", "Remote work")
	m = mapOf(t, `{"file-policy": {"document_id": "policy.txt"}, "file-handbook-ch2": {"chunk_id": "`+remote+`"}}`)
	req, err = convert(t, db, OpenAI, "openai-assistants.json", "", m, "")
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	if got := req.Claims[1].Evidence; len(got) != 1 || got[0].ChunkID != remote || got[0].Quote != "" {
		t.Errorf("file mapped to a chunk: got %+v, want chunk %s without a quote", got, remote)
	}
	if req.Claims[0].Evidence[0].Quote != "Meals 🍽️ are reimbursed up to EUR 60 per day" {
		t.Errorf("v1 quote: got %+v", req.Claims[0].Evidence)
	}
	accepted(t, db, req)
}

// chunkHolding returns the id of the first servable chunk of a document's
// current version whose text holds s.
func chunkHolding(t testing.TB, db *store.DB, doc, s string) string {
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
			if err == nil && id == "" && strings.Contains(string(span), s) {
				id = c.ID()
			}
			return err
		})
	})
	if err != nil || id == "" {
		t.Fatalf("no chunk of %s holds %q: %v", doc, s, err)
	}
	return id
}

func TestConvertCohereGemini(t *testing.T) {
	db := newStore(t, 1000, 100)
	req, err := convert(t, db, Cohere, "cohere-v2.json", "", mapOf(t, `{"doc-expenses": {"document_id": "policy.txt"}, "doc-hotels": {"document_id": "policy.txt"}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	accepted(t, db, req)
	if diff := cmp.Diff([]string{"Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip.", "Hotels in Zürich are capped at CHF 240 per night 🏨."}, quotes(req)); diff != "" {
		t.Errorf("cohere (-want +got):\n%s", diff)
	}

	req, err = convert(t, db, Gemini, "gemini.json", "", mapOf(t, `{"gs://kestrel-kb/policy.txt": {"document_id": "policy.txt"}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	notBlocked(t, db, req)
	if diff := cmp.Diff([]string{"出張報告は14日以内に提出してください。", "4. Hotels in Zürich are capped at CHF 240 per night 🏨."}, quotes(req)); diff != "" {
		t.Errorf("gemini (-want +got):\n%s", diff)
	}
	if req.RequestID != "mE2vaJ2uKdqgz7IPj9DWoQs" || req.Claims[1].Text != "Hotels in Zürich are capped at CHF 240 per night 🏨." {
		t.Errorf("gemini: request %q, claim %q", req.RequestID, req.Claims[1].Text)
	}
}

// TestConvertQuotes: a quote in another normalization form is found; one
// the document lacks is left for the verifier, which removes the claim;
// one not at its offsets (nor at them in any unit) goes with them.
func TestConvertQuotes(t *testing.T) {
	db := newStore(t, 1000, 100)
	m := mapOf(t, `{"d": {"document_id": "policy.txt"}}`)
	cite := func(quote string, r *Range) *Answer {
		return &Answer{Format: Cohere, Claims: []Claim{{Item: "c", Text: "Meals are reimbursed up to EUR 60 per day at the café.",
			Citations: []Citation{{Item: "c.sources[0]", Keys: []string{"d"}, Quote: quote, Range: r}}}}}
	}
	nfd := "the cafe\u0301 rule q\u0303 applies" // é decomposed: stored NFC
	req, err := Convert(db, cite(nfd, nil), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	if e := req.Claims[0].Evidence; len(e) != 1 || e[0].Quote != "the café rule q\u0303 applies" || e[0].SourceStart == nil {
		t.Errorf("NFD quote: got %+v, want it found exactly, in NFC", e)
	}

	req, err = Convert(db, cite("Meals are free of charge on Fridays", nil), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Check(context.Background(), db, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Claims[0]; c.Disposition != verify.RemoveClaim || len(c.Evidence) != 1 || !strings.Contains(strings.Join(c.Evidence[0].Reasons, " "), "quote_not_found") {
		t.Errorf("quote the document lacks: got %s %+v, want remove_claim with quote_not_found", c.Disposition, c.Evidence)
	}

	// Offsets that hold another text in every unit: the verifier sees them.
	req, err = Convert(db, cite("Meals 🍽️ are reimbursed up to EUR 60 per day", &Range{0, 10, CodePoint}), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := req.Claims[0].Evidence; len(e) != 1 || *e[0].SourceStart != 0 || *e[0].SourceEnd != 10 {
		t.Errorf("mismatched offsets: got %+v, want them passed on", e)
	}
	rep, err = verify.Check(context.Background(), db, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Claims[0]; c.Disposition != verify.RemoveClaim {
		t.Errorf("mismatched offsets: got %s %v, want remove_claim", c.Disposition, c.Reasons)
	}
	if _, err := Convert(db, cite("x", &Range{0, 9999, CodePoint}), m, Options{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "c.sources[0]: offsets [0, 9999) do not fall on characters of the 371-code-point text") {
		t.Errorf("offsets past the end: got %v", err)
	}
}

// TestConvertAccess: for a principal outside the access list nothing of
// the text is read, so no content-dependent error or chunk choice can tell
// what it says; the verifier answers forbidden. A deleted version answers
// deleted.
func TestConvertAccess(t *testing.T) {
	db := newStore(t, 40, 5)
	m := mapOf(t, `{"0": {"document_id": "secret.txt"}}`)
	// Offsets in UTF-16 read as code points: an error for the analyst, who
	// may read the memo; for the intern the same evidence as any other input.
	for _, tt := range []struct {
		principal string
		fail      bool
	}{{"analyst@example.com", true}, {"intern@example.com", false}, {"", false}} {
		req, err := convert(t, db, Anthropic, "anthropic-char-utf16.json", "", m, tt.principal)
		if tt.fail != (err != nil) {
			t.Errorf("%q: got %v, want an error %v", tt.principal, err, tt.fail)
		}
		if err != nil {
			continue
		}
		first := strings.SplitN(req.Retrieved[0], "-", 2)[0] + "-0"
		for _, c := range req.Claims {
			if len(c.Evidence) != 1 || c.Evidence[0].ChunkID != first || c.Evidence[0].Quote != "" || c.Evidence[0].SourceStart != nil {
				t.Errorf("%q claim %s: got %+v, want only the version's first chunk", tt.principal, c.ClaimID, c.Evidence)
			}
		}
		rep, err := verify.Check(context.Background(), db, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failures.Permission != len(req.Claims) || rep.Claims[0].Disposition != verify.BlockClaim {
			t.Errorf("%q: got %d permission failures, %s, want %d, block_claim", tt.principal, rep.Failures.Permission, rep.Claims[0].Disposition, len(req.Claims))
		}
	}

	if _, err := db.Delete("policy.txt", ""); err != nil {
		t.Fatal(err)
	}
	req, err := convert(t, db, Anthropic, "anthropic-char.json", "", mapOf(t, `{"0": {"document_id": "policy.txt"}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Check(context.Background(), db, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Claims[0]; c.Disposition != verify.BlockClaim || !strings.Contains(strings.Join(c.Evidence[0].Reasons, " "), "deleted") {
		t.Errorf("deleted document: got %s %+v, want block_claim, deleted", c.Disposition, c.Evidence)
	}
}

func TestConvertBadMap(t *testing.T) {
	db := newStore(t, 1000, 100)
	a, err := Parse(Anthropic, readFixture(t, "anthropic-char.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	version := strings.Repeat("a", 32)
	for _, tt := range []struct{ m, want string }{
		{`{"1": {"document_id": "policy.txt"}}`, `anthropic: content[1].citations[0]: key "0" is not in the map (it holds "1")`},
		{`{}`, `key "0" is not in the map (the map is empty)`},
		{`{"0": {"document_id": "nope.txt"}}`, `map "0": no document "nope.txt" in the store`},
		{`{"0": {"document_id": "policy.txt", "document_version": "` + version + `"}}`, `map "0": no version ` + version + ` in the store`},
		{`{"0": {"chunk_id": "` + version + `-3"}}`, `map "0": no version ` + version},
		{`{"0": {"document_id": "policy.txt", "chunk_id": "` + chunkHolding(t, db, "handbook.txt", "Remote") + `"}}`, `is not of document "policy.txt"`},
	} {
		m, err := ParseMap([]byte(tt.m))
		if err == nil {
			_, err = Convert(db, a, m, Options{})
		}
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\ngot  %v\nwant %q", tt.m, err, tt.want)
		}
	}
	for _, tt := range []struct{ m, want string }{
		{`[]`, "map: want a JSON object"},
		{`null`, "map: null"},
		{`{"0": {"document": "x"}}`, `unknown field "document"`},
		{`{"0": {}}`, `map "0": names neither a document_id nor a chunk_id`},
		{`{"0": {"document_id": "x", "document_version": "v1"}}`, `map "0": document_version "v1" is not a version id`},
		{`{"0": {"chunk_id": "c1"}}`, `map "0": chunk_id "c1": want <version>-<ordinal>`},
		{`{"0": {"chunk_id": "` + version + `-1", "document_version": "` + strings.Repeat("b", 32) + `"}}`, "is not of document_version"},
		{`{"0": {"document_id": "x"}} {}`, "data after the map"},
	} {
		if _, err := ParseMap([]byte(tt.m)); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.m, err, tt.want)
		}
	}
}

func TestCover(t *testing.T) {
	ch := func(ord uint32, start, end int, quarantined bool) *store.Chunk {
		c := &store.Chunk{Version: strings.Repeat("a", 32), Ordinal: ord, Start: start, End: end}
		if quarantined {
			c.Quarantine = &store.Quarantine{Reason: "text_mismatch"}
		}
		return c
	}
	// Chunks [0,10) [8,20) quarantined [18,30), a gap [30,40), [40,50).
	chunks := []*store.Chunk{ch(0, 0, 10, false), ch(1, 8, 20, false), ch(2, 18, 30, true), ch(3, 40, 50, false)}
	type got struct {
		Ord        uint32
		Start, End int
		Gap        bool
	}
	for _, tt := range []struct {
		cs, ce int
		want   []got
	}{
		{2, 9, []got{{0, 2, 9, false}}},                                            // one chunk holds it
		{8, 10, []got{{0, 8, 10, false}}},                                          // the overlap: the first chunk
		{5, 15, []got{{0, 5, 10, false}, {1, 10, 15, false}}},                      // two chunks
		{15, 25, []got{{1, 15, 20, false}, {2, 20, 25, false}}},                    // a part only a quarantined chunk holds
		{25, 45, []got{{2, 25, 30, false}, {2, 30, 40, true}, {3, 40, 45, false}}}, // a gap, cited on the chunk before it
		{32, 45, []got{{2, 32, 40, true}, {3, 40, 45, false}}},                     // a gap at the start: the chunk before it
		{52, 55, []got{{3, 52, 55, true}}},                                         // past every chunk: the last one
	} {
		var out []got
		for _, p := range cover(chunks, tt.cs, tt.ce) {
			out = append(out, got{p.ch.Ordinal, p.start, p.end, p.gap})
		}
		if diff := cmp.Diff(tt.want, out); diff != "" {
			t.Errorf("[%d, %d) (-want +got):\n%s", tt.cs, tt.ce, diff)
		}
	}
	if cover(nil, 0, 5) != nil {
		t.Error("no chunks: want nothing")
	}
}

// TestConvertVersionsAndChunks: a map entry means the document's current
// version unless it names one; one naming a chunk counts the provider's
// offsets into that chunk's text.
func TestConvertVersionsAndChunks(t *testing.T) {
	db := newStore(t, 60, 6)
	old := strings.SplitN(chunkHolding(t, db, "policy.txt", "Meals"), "-", 2)[0]
	// A new version of the policy: the hotel cap changed.
	changed := strings.Replace(string(readFixture(t, "docs/policy.txt")), "CHF 240", "CHF 260", 1)
	p := filepath.Join(t.TempDir(), "policy.txt")
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := ingest.Run(context.Background(), db, []string{p}, ingest.Options{ID: "policy.txt", Chunk: ingest.ChunkOptions{Size: 60, Overlap: 6}}); err != nil || sum.Failed > 0 {
		t.Fatalf("ingest: %v %+v", err, sum)
	}
	current := strings.SplitN(chunkHolding(t, db, "policy.txt", "Meals"), "-", 2)[0]
	if current == old {
		t.Fatal("no new version")
	}
	versionOf := func(req *verify.Request) map[string]bool {
		vs := map[string]bool{}
		for _, c := range req.Claims {
			for _, e := range c.Evidence {
				vs[strings.SplitN(e.ChunkID, "-", 2)[0]] = true
			}
		}
		return vs
	}
	for _, tt := range []struct{ m, want string }{
		{`{"0": {"document_id": "policy.txt"}}`, current},
		{`{"0": {"document_id": "policy.txt", "document_version": "` + old + `"}}`, old},
	} {
		req, err := convert(t, db, Anthropic, "anthropic-char.json", "", mapOf(t, tt.m), "")
		if err != nil {
			t.Fatal(err)
		}
		checkEvidence(t, db, req)
		if vs := versionOf(req); len(vs) != 1 || !vs[tt.want] {
			t.Errorf("%s: evidence in versions %v, want %s only", tt.m, vs, tt.want)
		}
	}

	// The provider was given one chunk's text: offsets count into it.
	id := chunkHolding(t, db, "policy.txt", "Hotels in Zürich")
	r, err := resolve.Chunk(db, id, "")
	if err != nil {
		t.Fatal(err)
	}
	cited := "capped at CHF 260"
	i := strings.Index(r.Text, cited)
	if i < 0 {
		t.Fatalf("chunk %s: %q lacks %q", id, r.Text, cited)
	}
	start := len([]rune(r.Text[:i]))
	a := &Answer{Format: Anthropic, Claims: []Claim{{Item: "content[0]", Text: "Hotels in Zürich are capped at CHF 260 per night",
		Citations: []Citation{{Item: "content[0].citations[0]", Keys: []string{"3"}, Quote: cited, Range: &Range{start, start + len([]rune(cited)), CodePoint}}}}}}
	req, err := Convert(db, a, mapOf(t, `{"3": {"chunk_id": "`+id+`"}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	e := req.Claims[0].Evidence
	if len(e) != 1 || e[0].ChunkID != id || *e[0].SourceStart != r.Start+start || e[0].Quote != cited {
		t.Errorf("chunk entry: got %+v, want chunk %s at %d", e, id, r.Start+start)
	}
	if len(req.Retrieved) != 1 || req.Retrieved[0] != id {
		t.Errorf("chunk entry: retrieved %v, want only the chunk", req.Retrieved)
	}
}

// TestConvertAcrossParagraphs: a cited range over a paragraph break, in
// chunks the chunker cut at it, is evidence in both chunks; the break no
// chunk holds is left out, and the claim is not blocked.
func TestConvertAcrossParagraphs(t *testing.T) {
	db := newStore(t, 40, 0)
	policy := string(readFixture(t, "docs/policy.txt"))
	cited := "of the end of the trip.\n2. 出張報告は14日以内"
	r := cpRange(t, policy, cited, CodePoint)
	a := &Answer{Format: Anthropic, Claims: []Claim{{Item: "content[0]", Text: "Expense reports are due 14 days after the end of the trip.",
		Citations: []Citation{{Item: "content[0].citations[0]", Keys: []string{"0"}, Quote: cited, Range: r}}}}}
	req, err := Convert(db, a, mapOf(t, `{"0": {"document_id": "policy.txt"}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, db, req)
	if n := len(req.Claims[0].Evidence); n < 2 {
		t.Errorf("got %d evidence items, want the range split", n)
	}
	if got := strings.Join(strings.Fields(quotesSep(req, " ")[0]), " "); got != strings.Join(strings.Fields(cited), " ") {
		t.Errorf("quotes %q, want %q", got, cited)
	}
	notBlocked(t, db, req)
}
