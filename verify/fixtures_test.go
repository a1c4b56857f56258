package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

type fixture struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Documents   []fixtureDoc    `json:"documents"`
	ChunkSize   int             `json:"chunk_size"`
	Overlap     int             `json:"overlap"`
	DeleteAfter []string        `json:"delete_after"`
	Policy      json.RawMessage `json:"policy"`
	Request     verify.Request  `json:"request"`
	Expect      struct {
		Disposition    string                 `json:"disposition"`
		Claims         map[string]claimExpect `json:"claims"`
		Uncited        int                    `json:"uncited"`
		Metrics        map[string]float64     `json:"metrics"`
		Failures       map[string]int         `json:"failures"`
		RevealsNothing bool                   `json:"reveals_nothing"`
		// The cheaper contract and retrieval errors.
		Grounding string         `json:"grounding"`
		Reasons   []string       `json:"reasons"` // of the answer
		Sources   []sourceExpect `json:"sources"` // exactly these, in order, when given
		// HiddenDocuments are named nowhere in the report: not their id,
		// not a version id, not a chunk id (which holds the version's).
		HiddenDocuments []string `json:"hidden_documents"`
	} `json:"expect"`
}

// sourceExpect is one expected entry of a report's sources.
type sourceExpect struct {
	Document       string   `json:"document"` // its id; the version is Version-th (from 0), else the latest
	Version        *int     `json:"version"`
	VersionStatus  string   `json:"version_status"`
	Title          string   `json:"title"`
	LinkKind       string   `json:"link_kind"`
	URLContains    string   `json:"url_contains"` // the URL holds it
	PageNumber     int      `json:"page_number"`
	EffectiveDates []string `json:"effective_dates"`
	Chunks         []string `json:"chunks"` // chunk refs, as in the request
}

type fixtureDoc struct {
	ID   string   `json:"id"`
	Text string   `json:"text"`
	ACL  []string `json:"acl"`
	// ChunkSize and Overlap, when set, cut this version otherwise than the
	// fixture's: the same text again with them is a rebuild.
	ChunkSize int `json:"chunk_size"`
	Overlap   int `json:"overlap"`
}

type claimExpect struct {
	Status          string   `json:"status"`
	Disposition     string   `json:"disposition"`
	Match           string   `json:"match"`
	Reasons         []string `json:"reasons"`
	EvidenceReasons []string `json:"evidence_reasons"`
	AbsentReasons   []string `json:"absent_reasons"` // reasons the claim must not carry
	FoundInPage     int      `json:"found_in_page"`
	Elided          *bool    `json:"elided"`
}

func loadFixtures(t *testing.T) []fixture {
	root, err := corpus.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "corpus", "verify", "*.json"))
	if len(files) < 12 {
		t.Fatalf("found %d fixtures, want at least 12", len(files))
	}
	var out []fixture
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx fixture
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, fx)
	}
	return out
}

// setup ingests a fixture's documents and returns the store and, per
// document, its version ids in order.
func setup(t testing.TB, fx *fixture) (*store.DB, map[string][]string) {
	db := storetest.Open(t)
	dir := t.TempDir()
	versions := map[string][]string{}
	for i, d := range fx.Documents {
		p := filepath.Join(dir, strings.ReplaceAll(d.ID, "/", "_")+"-"+string(rune('a'+i))+filepath.Ext(d.ID))
		if err := os.WriteFile(p, []byte(d.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := ingest.Options{ID: d.ID, ACL: d.ACL, Chunk: ingest.ChunkOptions{Size: fx.ChunkSize, Overlap: fx.Overlap}}
		if fx.ChunkSize == 0 {
			opts.Chunk = ingest.ChunkOptions{Size: 300, Overlap: 30}
		}
		if d.ChunkSize > 0 {
			opts.Chunk = ingest.ChunkOptions{Size: d.ChunkSize, Overlap: d.Overlap}
		}
		sum, err := ingest.Run(context.Background(), db, []string{p}, opts)
		if err != nil || sum.Failed > 0 {
			t.Fatalf("ingest %s: %v %+v", d.ID, err, sum.Results[0])
		}
		versions[d.ID] = append(versions[d.ID], sum.Results[0].DocumentVersion)
	}
	return db, versions
}

// chunkRef turns "@DOC[#N]:NEEDLE" into the id of the chunk containing NEEDLE.
func chunkRef(t testing.TB, db *store.DB, versions map[string][]string, ref string) string {
	if !strings.HasPrefix(ref, "@") {
		return ref
	}
	doc, needle, _ := strings.Cut(ref[1:], ":")
	n := -1
	if d, v, ok := strings.Cut(doc, "#"); ok {
		doc = d
		n = int(v[0] - '0')
	}
	vs := versions[doc]
	if n < 0 {
		n = len(vs) - 1
	}
	var id string
	err := db.View(func(tx *store.Tx) error {
		v, err := tx.Version(vs[n])
		if err != nil {
			return err
		}
		return tx.ForEachChunk(v, func(c *store.Chunk) error {
			span, err := tx.Span(v, c)
			if err == nil && id == "" && strings.Contains(string(span), needle) {
				id = c.ID()
			}
			return err
		})
	})
	if err != nil || id == "" {
		t.Fatalf("no chunk of %s version %d contains %q (%v)", doc, n, needle, err)
	}
	return id
}

// prepareFixture ingests a fixture's documents, turns its chunk refs into
// chunk ids, applies delete_after and returns the store, the versions of
// each document, the request and the policy.
func prepareFixture(t *testing.T, fx *fixture) (*store.DB, map[string][]string, verify.Request, *verify.Policy) {
	t.Helper()
	db, versions := setup(t, fx)
	req := fx.Request
	req.Retrieved = slices.Clone(req.Retrieved)
	req.Claims = slices.Clone(req.Claims)
	for i := range req.Retrieved {
		req.Retrieved[i] = chunkRef(t, db, versions, req.Retrieved[i])
	}
	for i := range req.Claims {
		req.Claims[i].Evidence = slices.Clone(req.Claims[i].Evidence)
		for j := range req.Claims[i].Evidence {
			e := &req.Claims[i].Evidence[j]
			e.ChunkID = chunkRef(t, db, versions, e.ChunkID)
		}
	}
	for strings.Contains(req.Answer, "[@") {
		i := strings.Index(req.Answer, "[@")
		j := strings.IndexByte(req.Answer[i:], ']') + i
		req.Answer = req.Answer[:i+1] + chunkRef(t, db, versions, req.Answer[i+1:j]) + req.Answer[j:]
	}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, id := range fx.DeleteAfter {
		if _, err := db.Delete(id, ""); err != nil {
			t.Fatal(err)
		}
	}
	pol := verify.DefaultPolicy()
	if len(fx.Policy) > 0 {
		var err error
		if pol, err = verify.ParsePolicy(fx.Policy); err != nil {
			t.Fatal(err)
		}
	}
	return db, versions, req, pol
}

func TestFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		t.Run(fx.Name, func(t *testing.T) {
			db, versions, req, pol := prepareFixture(t, &fx)
			rep, err := verify.Check(context.Background(), db, &req, pol)
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, &fx, rep)
			if os.Getenv("FIXTURE_DUMP") == fx.Name {
				b, _ := json.MarshalIndent(rep, "", " ")
				t.Log(string(b))
			}
			checkGrounding(t, &fx, &req, rep, db, versions)
			// Deterministic: the same request gives the same report.
			again, _ := verify.Check(context.Background(), db, &req, pol)
			a, _ := json.Marshal(rep)
			b, _ := json.Marshal(again)
			if string(a) != string(b) {
				t.Errorf("two runs gave different reports")
			}
		})
	}
}

func checkReport(t *testing.T, fx *fixture, rep *verify.Report) {
	t.Helper()
	out, _ := json.MarshalIndent(rep, "", " ")
	if rep.Disposition != fx.Expect.Disposition {
		t.Errorf("answer disposition: got %s, want %s\n%s", rep.Disposition, fx.Expect.Disposition, out)
	}
	for _, cr := range rep.Claims {
		want, ok := fx.Expect.Claims[cr.ClaimID]
		if !ok {
			continue
		}
		if cr.Status != want.Status || cr.Disposition != want.Disposition {
			t.Errorf("claim %s: got %s/%s %v, want %s/%s", cr.ClaimID, cr.Status, cr.Disposition, cr.Reasons, want.Status, want.Disposition)
		}
		for _, r := range want.Reasons {
			if !contains(cr.Reasons, r) {
				t.Errorf("claim %s: reasons %v lack %s", cr.ClaimID, cr.Reasons, r)
			}
		}
		for _, r := range want.AbsentReasons {
			if contains(cr.Reasons, r) {
				t.Errorf("claim %s: reasons %v hold %s", cr.ClaimID, cr.Reasons, r)
			}
		}
		for _, r := range want.EvidenceReasons {
			if len(cr.Evidence) == 0 || !contains(cr.Evidence[0].Reasons, r) {
				t.Errorf("claim %s: evidence reasons lack %s: %+v", cr.ClaimID, r, cr.Evidence)
			}
		}
		if want.Match != "" && (len(cr.Evidence) == 0 || cr.Evidence[0].Match != want.Match) {
			t.Errorf("claim %s: got match %+v, want %s", cr.ClaimID, cr.Evidence, want.Match)
		}
		if want.Elided != nil && (len(cr.Evidence) == 0 || cr.Evidence[0].Elided != *want.Elided) {
			t.Errorf("claim %s: evidence %+v, want elided %v", cr.ClaimID, cr.Evidence, *want.Elided)
		}
		if want.FoundInPage != 0 {
			if e := cr.Evidence[0]; e.FoundIn == nil || e.FoundIn.PageNumber != want.FoundInPage {
				t.Errorf("claim %s: found_in %+v, want page %d", cr.ClaimID, e.FoundIn, want.FoundInPage)
			}
		}
		for _, e := range cr.Evidence {
			if e.Status == verify.EvidenceOK && (e.DocumentVersion == "" || e.PageNumber == 0 || e.SourceEnd <= e.SourceStart) {
				t.Errorf("claim %s: accepted evidence without coordinates: %+v", cr.ClaimID, e)
			}
		}
	}
	if got := len(rep.UncitedSentences); got != fx.Expect.Uncited {
		t.Errorf("uncited sentences: got %d %v, want %d", got, rep.UncitedSentences, fx.Expect.Uncited)
	}
	m := map[string]float64{"citation_support_rate": rep.Metrics.CitationSupportRate, "claim_coverage_rate": rep.Metrics.ClaimCoverageRate}
	for k, v := range fx.Expect.Metrics {
		if m[k] != v {
			t.Errorf("metric %s: got %v, want %v", k, m[k], v)
		}
	}
	f := map[string]int{"support": rep.Failures.Support, "coverage": rep.Failures.Coverage, "resolution": rep.Failures.Resolution,
		"version": rep.Failures.Version, "permission": rep.Failures.Permission}
	for k, v := range fx.Expect.Failures {
		if f[k] != v {
			t.Errorf("failures %s: got %d, want %d", k, f[k], v)
		}
	}
	if fx.Expect.RevealsNothing {
		for _, d := range fx.Documents {
			for _, line := range strings.Split(d.Text, "\n") {
				if len(line) > 20 && strings.Contains(string(out), line[:20]) {
					t.Errorf("report reveals text of the forbidden source: %q", line[:20])
				}
			}
		}
		for _, cr := range rep.Claims {
			for _, e := range cr.Evidence {
				if e.DocumentID != "" || e.PageNumber != 0 || e.Text != "" {
					t.Errorf("forbidden evidence reveals %+v", e)
				}
			}
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s || strings.HasPrefix(x, s) {
			return true
		}
	}
	return false
}

// checkGrounding checks the grounding and sources of a report against the
// fixture, and what must hold of every report: a retrieval error or a
// request that is not grounded is never accepted, and only a request
// without claims lists sources.
func checkGrounding(t *testing.T, fx *fixture, req *verify.Request, rep *verify.Report, db *store.DB, versions map[string][]string) {
	t.Helper()
	out, _ := json.MarshalIndent(rep, "", " ")
	switch rep.Grounding {
	case verify.Grounded, verify.InsufficientEvidence, verify.RetrievalUnavailable:
	default:
		t.Errorf("grounding %q is none of the three", rep.Grounding)
	}
	if want := fx.Expect.Grounding; want != "" && rep.Grounding != want {
		t.Errorf("grounding: got %s, want %s\n%s", rep.Grounding, want, out)
	}
	// An answer whose claims need no evidence (a greeting) is accepted
	// ungrounded; any other accepted answer is grounded.
	if rep.Disposition == verify.AnswerAccept && rep.Grounding != verify.Grounded && (len(req.Claims) == 0 || rep.Metrics.ClaimsRequiringEvidence > 0) {
		t.Errorf("accepted an answer that is %s", rep.Grounding)
	}
	if req.RetrievalError != "" && (rep.Grounding != verify.RetrievalUnavailable || rep.Disposition == verify.AnswerAccept ||
		!contains(rep.Reasons, verify.RetrievalUnavailable)) {
		t.Errorf("retrieval_error %q: got %s, %s %v: want retrieval_unavailable, not accepted", req.RetrievalError, rep.Grounding, rep.Disposition, rep.Reasons)
	}
	if len(req.Claims) > 0 && len(rep.Sources) != 0 {
		t.Errorf("a request with claims lists sources: %+v", rep.Sources)
	}
	for _, r := range fx.Expect.Reasons {
		if !contains(rep.Reasons, r) {
			t.Errorf("answer reasons %v lack %s", rep.Reasons, r)
		}
	}
	if fx.Expect.Sources != nil && len(rep.Sources) != len(fx.Expect.Sources) {
		t.Fatalf("got %d sources, want %d\n%s", len(rep.Sources), len(fx.Expect.Sources), out)
	}
	for i, want := range fx.Expect.Sources {
		got := rep.Sources[i]
		vs := versions[want.Document]
		n := len(vs) - 1
		if want.Version != nil {
			n = *want.Version
		}
		var chunks []string
		for _, ref := range want.Chunks {
			chunks = append(chunks, chunkRef(t, db, versions, ref))
		}
		if got.Label != "["+strconv.Itoa(i+1)+"]" || got.DocumentID != want.Document || got.DocumentVersion != vs[n] ||
			got.VersionStatus != want.VersionStatus || got.Title != want.Title || got.LinkKind != want.LinkKind ||
			!strings.Contains(got.URL, want.URLContains) || got.PageNumber != want.PageNumber ||
			!slices.Equal(got.EffectiveDates, want.EffectiveDates) || !slices.Equal(got.ChunkIDs, chunks) {
			t.Errorf("source %d: got %+v, want %+v (version %s, chunks %v)", i, got, want, vs[n], chunks)
		}
		if want.URLContains != "" && !strings.HasPrefix(got.URL, "file://") {
			t.Errorf("source %d: url %q is not the file the version was ingested from", i, got.URL)
		}
	}
	for _, doc := range fx.Expect.HiddenDocuments {
		names := append([]string{doc}, versions[doc]...)
		for _, name := range names {
			if strings.Contains(string(out), name) {
				t.Errorf("the report names %s of the hidden document %s\n%s", name, doc, out)
			}
		}
	}
}
