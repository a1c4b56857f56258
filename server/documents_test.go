package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
	"github.com/evidence-rag/evidence/verify"
)

// localRecords are the chunk records `evidence chunks` exports for a
// document's version (its current one when version is "").
func localRecords(t *testing.T, db *store.DB, doc, version string) []*resolve.ChunkRecord {
	t.Helper()
	var out []*resolve.ChunkRecord
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(doc)
		if err != nil {
			return err
		}
		if version == "" {
			version = d.Current
		}
		v, err := tx.Version(version)
		if err != nil {
			return err
		}
		return resolve.Export(tx, v, d, func(r *resolve.ChunkRecord) error { out = append(out, r); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// listChunks pages through GET /v1/documents/{id}/chunks with limit and
// returns the records and the number of pages.
func listChunks(t *testing.T, e *testEnv, r request, limit int) ([]*resolve.ChunkRecord, int) {
	t.Helper()
	var all []*resolve.ChunkRecord
	base := r.path
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	cursor, pages := "", 0
	c := newSchemaChecker(t, openAPIJSON)
	for {
		r.path = fmt.Sprintf("%s%slimit=%d", base, sep, limit)
		if cursor != "" {
			r.path += "&cursor=" + url.QueryEscape(cursor)
		}
		resp := e.do(r)
		if resp.status != 200 {
			t.Fatalf("GET %s: %d %s", r.path, resp.status, resp.body)
		}
		c.body(t, "ChunkPage", resp.body)
		var page chunkPage
		resp.decode(t, &page)
		if len(page.Chunks) > limit {
			t.Fatalf("a page of %d records, limit %d", len(page.Chunks), limit)
		}
		all = append(all, page.Chunks...)
		pages++
		if page.NextCursor == "" {
			break
		}
		if len(page.Chunks) != limit {
			t.Fatalf("page %d: %d records and a next cursor, want full pages before the last", pages, len(page.Chunks))
		}
		cursor = page.NextCursor
	}
	for _, err := range c.errs {
		t.Error(err)
	}
	return all, pages
}

// TestServeDocumentChunks: the listing pages through exactly what the
// export holds (quarantined chunks left out), external ids included; the
// access list only for an administrator; a document the caller may not
// read is not found; bad pages and deleted documents are errors.
func TestServeDocumentChunks(t *testing.T) {
	e := newTestEnv(t, true)
	want := localRecords(t, e.db, "expense-policy.md", "")
	if len(want) < 4 {
		t.Fatalf("the sample's expense policy has %d chunks, want 4 or more", len(want))
	}
	got, pages := listChunks(t, e, request{path: "/v1/documents/expense-policy.md/chunks", token: serviceToken}, 3)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("administrator's listing differs from the export (-export +listing):\n%s", diff)
	}
	if wantPages := (len(want) + 2) / 3; pages != wantPages {
		t.Errorf("%d records in %d pages of 3, want %d pages", len(want), pages, wantPages)
	}
	if got[0].ACL == nil || len(got[0].ACL) != 0 {
		t.Errorf("an administrator gets acl [] for a document everyone may read, got %v", got[0].ACL)
	}
	// A principal sees the same records without the access list.
	got, _ = listChunks(t, e, request{path: "/v1/documents/expense-policy.md/chunks", token: internToken}, 100)
	for _, w := range want {
		w.ACL = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("principal's listing (-want +got):\n%s", diff)
	}

	// The secret document: its reader gets it, without the list; an
	// administrator with the list; anyone else a 404 like no document.
	got, _ = listChunks(t, e, request{path: "/v1/documents/secret.md/chunks", token: analystToken}, 10)
	if len(got) != 1 || got[0].ChunkID != e.secret || got[0].ACL != nil || !strings.Contains(got[0].Text, "BLUEHERON") {
		t.Errorf("the analyst's secret.md: got %+v", got)
	}
	got, _ = listChunks(t, e, request{path: "/v1/documents/secret.md/chunks", token: serviceToken}, 10)
	if len(got) != 1 || !slicesEqual(got[0].ACL, []string{"analyst@example.com"}) {
		t.Errorf("the administrator's secret.md: acl %v, want [analyst@example.com]", got[0].ACL)
	}
	missing := e.do(request{path: "/v1/documents/no-such.md/chunks", token: internToken})
	for _, r := range []request{
		{path: "/v1/documents/secret.md/chunks", token: internToken},
		{path: "/v1/documents/secret.md/chunks", token: serviceToken, principal: "intern@example.com"},
	} {
		resp := e.do(r)
		if resp.status != 404 || resp.errorCode(t) != "not_found" || strings.ReplaceAll(string(resp.body), "secret.md", "no-such.md") != string(missing.body) {
			t.Errorf("%+v: got %d %s, want the 404 of a document that does not exist (%s)", r, resp.status, resp.body, missing.body)
		}
		assertNoSecret(t, resp.body)
	}

	// Quarantined chunks are skipped, across page boundaries too; an
	// imported chunk carries its external id.
	nv := storetest.NewVersion("imported.txt", "Alpha beta gamma delta epsilon zeta eta theta iota kappa.", 6)
	for _, q := range []int{1, 2, 5} {
		nv.Chunks[q].Quarantine, nv.Chunks[q].SpanHash = &store.Quarantine{Reason: resolve.ReasonTextMismatch}, store.ID{}
	}
	nv.Version.Quarantined = 3
	for i := range nv.Chunks {
		nv.Chunks[i].ExternalID = fmt.Sprintf("vec-%d", i)
	}
	if _, err := e.db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	want = localRecords(t, e.db, "imported.txt", "")
	got, _ = listChunks(t, e, request{path: "/v1/documents/imported.txt/chunks", token: serviceToken}, 1)
	if diff := cmp.Diff(want, got); diff != "" || len(got) != len(nv.Chunks)-3 {
		t.Errorf("listing with quarantined chunks (-export +listing), %d records:\n%s", len(got), diff)
	}
	if got[1].ExternalID != "vec-3" {
		t.Errorf("second servable chunk: external_id %q, want vec-3", got[1].ExternalID)
	}

	// A document id with slashes is one escaped segment; unescaped, the
	// answer says how.
	up := e.do(request{method: "POST", path: "/v1/documents?filename=travel.md&id=policies/travel.md", token: serviceToken, body: []byte("# Travel\n\nThe meal allowance is EUR 75 per day.\n")})
	if up.status != 201 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	got, _ = listChunks(t, e, request{path: "/v1/documents/" + url.PathEscape("policies/travel.md") + "/chunks", token: serviceToken}, 10)
	if len(got) != 1 || got[0].DocumentID != "policies/travel.md" {
		t.Errorf("policies%%2Ftravel.md: got %+v", got)
	}
	if r := e.do(request{path: "/v1/documents/policies/travel.md/chunks", token: serviceToken}); r.status != 405 || !strings.Contains(string(r.body), "%2F") {
		t.Errorf("unescaped slash: got %d %s, want a 405 naming %%2F", r.status, r.body)
	}

	// An older version by version=, its cursor staying in it.
	v1 := up
	var res ingest.Result
	v1.decode(t, &res)
	e.do(request{method: "POST", path: "/v1/documents?filename=travel.md&id=policies/travel.md", token: serviceToken, body: []byte("# Travel\n\nThe meal allowance is EUR 80 per day.\n")})
	old := e.do(request{path: "/v1/documents/policies%2Ftravel.md/chunks?version=" + res.DocumentVersion, token: serviceToken})
	var page chunkPage
	old.decode(t, &page)
	if old.status != 200 || page.VersionStatus != store.StatusSuperseded || len(page.Chunks) != 1 || !strings.Contains(page.Chunks[0].Text, "EUR 75") {
		t.Errorf("version=%s: got %d %s", res.DocumentVersion, old.status, old.body)
	}

	otherVersion := strings.Repeat("a", 32)
	for _, tt := range []struct {
		path, code string
		status     int
	}{
		{"/v1/documents/expense-policy.md/chunks?limit=0", "bad_request", 400},
		{"/v1/documents/expense-policy.md/chunks?limit=1001", "bad_request", 400},
		{"/v1/documents/expense-policy.md/chunks?cursor=page-2", "bad_request", 400},
		{"/v1/documents/expense-policy.md/chunks?version=" + res.DocumentVersion + "&cursor=" + otherVersion + "-1", "bad_request", 400},
		{"/v1/documents/expense-policy.md/chunks?version=" + res.DocumentVersion, "not_found", 404},
		{"/v1/documents/expense-policy.md/chunks?cursor=" + otherVersion + "-0", "not_found", 404},
	} {
		if r := e.do(request{path: tt.path, token: serviceToken}); r.status != tt.status || r.errorCode(t) != tt.code {
			t.Errorf("%s: got %d %s, want %d %s", tt.path, r.status, r.body, tt.status, tt.code)
		}
	}
	if _, err := e.db.Delete("imported.txt", ""); err != nil {
		t.Fatal(err)
	}
	if r := e.do(request{path: "/v1/documents/imported.txt/chunks", token: serviceToken}); r.status != http.StatusGone || r.errorCode(t) != "deleted" {
		t.Errorf("deleted document: got %d %s, want 410 deleted", r.status, r.body)
	}
}

func slicesEqual(a, b []string) bool { return cmp.Equal(a, b) }

// isErrorBody reports whether a body is an error object.
func isErrorBody(b []byte) bool { return bytes.HasPrefix(b, []byte(`{"error":{`)) }

// errorMessage is the message of an error answer.
func errorMessage(t *testing.T, r response) string {
	t.Helper()
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	r.decode(t, &e)
	return e.Error.Message
}

// formPart is one part of a multipart upload: a file part when filename
// is set, else a field.
type formPart struct{ name, filename, body string }

func multipartBody(t *testing.T, parts ...formPart) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var err error
		if p.filename != "" {
			w, cerr := mw.CreateFormFile(p.name, p.filename)
			if cerr != nil {
				t.Fatal(cerr)
			}
			_, err = w.Write([]byte(p.body))
		} else {
			err = mw.WriteField(p.name, p.body)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

func importFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mustSample(t), "..", "..", "ingest", "testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeImport: POST /v1/documents with a manifest part validates
// another pipeline's chunks as ingest --chunks does: accepted, rejected by
// the gate, let past it (max_quarantined), repaired, forced offsets, the
// pipeline's own text, a dry run that writes nothing, and bad parts.
func TestServeImport(t *testing.T) {
	e := newTestEnv(t, true)
	source, err := os.ReadFile(filepath.Join(mustSample(t), "credit-agreement-summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	post := func(parts ...formPart) (response, uploadResult) {
		t.Helper()
		ct, body := multipartBody(t, append([]formPart{{"file", "credit-agreement-summary.txt", string(source)}, {"id", "", "credit.txt"}}, parts...)...)
		r := e.do(request{method: "POST", path: "/v1/documents", token: serviceToken, contentType: ct, body: body})
		var res uploadResult
		if !isErrorBody(r.body) {
			r.decode(t, &res)
		}
		if bytes.Contains(r.body, []byte(os.TempDir())) {
			t.Errorf("the answer names a temporary path: %s", r.body)
		}
		return r, res
	}
	c := newSchemaChecker(t, openAPIJSON)
	current := func() string {
		var v string
		_ = e.db.View(func(tx *store.Tx) error {
			if d, err := tx.Document("credit.txt"); err == nil {
				v = d.Current
			}
			return nil
		})
		return v
	}

	langchain := importFixture(t, "credit-agreement-summary.txt.langchain.jsonl")
	drift := importFixture(t, "drift-langchain.jsonl")
	// A dry run reports the import and stores nothing.
	r, res := post(formPart{"manifest", "chunks.jsonl", langchain}, formPart{"dry_run", "", "true"}, formPart{"metadata", "", `{"job":"nightly-7"}`})
	c.body(t, "IngestResult", r.body)
	if r.status != 200 || !res.DryRun || res.Status != ingest.Ingested || res.Chunks != 11 || current() != "" || string(res.Metadata) != `{"job":"nightly-7"}` {
		t.Fatalf("dry run: got %d %s, stored %q", r.status, r.body, current())
	}
	r, res = post(formPart{"manifest", "chunks.jsonl", langchain})
	c.body(t, "IngestResult", r.body)
	if r.status != 201 || res.Status != ingest.Ingested || res.Chunks != 11 || res.Quarantined != 0 || res.ChunksFormat != ingest.FormatLangChain || res.Offsets != ingest.OffsetsPage || res.PageBase == nil || *res.PageBase != 0 {
		t.Fatalf("langchain import: got %d %s", r.status, r.body)
	}
	accepted := current()
	// Drift: the gate rejects it (422), nothing stored, with the reasons.
	r, res = post(formPart{"manifest", "drift.jsonl", drift})
	c.body(t, "IngestResult", r.body)
	if r.status != 422 || res.Status != ingest.Rejected || res.Quarantined != 5 || res.QuarantineReasons["text_mismatch"] != 3 || current() != accepted ||
		!strings.Contains(res.Error, "over max_quarantined 0") || !strings.Contains(res.Hint, "repair=true re-anchors") || strings.Contains(res.Hint+res.Error, "--") {
		t.Errorf("drift: got %d %s, current %s (want %s)", r.status, r.body, current(), accepted)
	}
	r, res = post(formPart{"manifest", "drift.jsonl", drift}, formPart{"max_quarantined", "", "5"})
	if r.status != 201 || res.Chunks != 6 || res.Quarantined != 5 {
		t.Errorf("drift with max_quarantined=5: got %d %s", r.status, r.body)
	}
	r, res = post(formPart{"manifest", "drift.jsonl", drift}, formPart{"repair", "", "true"}, formPart{"max_quarantined", "", "1"})
	if r.status != 201 || res.Chunks != 10 || res.Quarantined != 1 || res.Repaired != 4 {
		t.Errorf("drift repaired: got %d %s", r.status, r.body)
	}
	// offsets=page forced on a document-relative manifest: one convention
	// for all of it, so the gate rejects it.
	r, res = post(formPart{"manifest", "whole.jsonl", importFixture(t, "credit-agreement-summary.txt.whole.jsonl")}, formPart{"offsets", "", "page"})
	if r.status != 422 || res.Status != ingest.Rejected || res.Offsets != ingest.OffsetsPage || res.Quarantined != 7 {
		t.Errorf("offsets=page: got %d %s", r.status, r.body)
	}
	// The pipeline's own canonical text.
	r, res = post(formPart{"manifest", "chunks.jsonl", langchain}, formPart{"text", "text.txt", string(source)}, formPart{"chunks_format", "", "langchain"})
	if r.status != 201 || res.Chunks != 11 || res.Quarantined != 0 {
		t.Errorf("with a text part: got %d %s", r.status, r.body)
	}
	// The import's chunks list with their external ids, when the manifest had ids.
	manifest := ""
	for i, rec := range localRecords(t, e.db, "expense-policy.md", "") {
		b, _ := json.Marshal(map[string]any{"chunk_id": fmt.Sprintf("pipeline-%d", i), "text": rec.Text, "source_start": rec.Start, "source_end": rec.End, "page_number": rec.Page, "section_path": rec.SectionPath})
		manifest += string(b) + "\n"
	}
	policy, err := os.ReadFile(filepath.Join(mustSample(t), "expense-policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	ct, body := multipartBody(t, formPart{"file", "expense-policy.md", string(policy)}, formPart{"id", "", "imported/policy.md"}, formPart{"manifest", "m.jsonl", manifest})
	if r := e.do(request{method: "POST", path: "/v1/documents", token: serviceToken, contentType: ct, body: body}); r.status != 201 {
		t.Fatalf("generic import: %d %s", r.status, r.body)
	}
	recs, _ := listChunks(t, e, request{path: "/v1/documents/imported%2Fpolicy.md/chunks", token: serviceToken}, 100)
	if len(recs) == 0 || recs[0].ExternalID != "pipeline-0" || recs[len(recs)-1].ExternalID != fmt.Sprintf("pipeline-%d", len(recs)-1) {
		t.Errorf("imported records: want external ids pipeline-0.., got %+v", recs)
	}
	for _, err := range c.errs {
		t.Error(err)
	}

	// Bad input: a clear error naming the item, nothing stored.
	before := current()
	r, res = post(formPart{"manifest", "chunks.jsonl", `[{"page_content": "x"}]`})
	if r.status != 422 || res.Status != ingest.Failed || res.Reason != ingest.ReasonMalformed || !strings.Contains(res.Error, "ingest: manifest: malformed") || !strings.Contains(res.Error, "unknown shape") {
		t.Errorf("a manifest that is not JSON Lines: got %d %s, want 422 malformed naming the manifest", r.status, r.body)
	}
	// A line that is not JSON is quarantined as malformed, and the gate
	// rejects the import.
	r, res = post(formPart{"manifest", "chunks.jsonl", "{\"page_content\": \"KESTREL HARBOR GROUP LTD\", \"metadata\": {\"start_index\": 0}}\nnot json\n"})
	if r.status != 422 || res.Status != ingest.Rejected || res.QuarantineReasons[ingest.ReasonMalformed] != 1 {
		t.Errorf("a line that is not JSON: got %d %s, want 422 rejected with a malformed chunk", r.status, r.body)
	}
	for _, tt := range []struct {
		name  string
		parts []formPart
		want  string
	}{
		{"text without manifest", []formPart{{"text", "t.txt", "x"}}, "text part goes with a manifest part"},
		{"repair without manifest", []formPart{{"repair", "", "true"}}, "repair reads an imported manifest"},
		{"bad offsets", []formPart{{"manifest", "m.jsonl", langchain}, {"offsets", "", "chapter"}}, `offsets="chapter"`},
		{"bad format", []formPart{{"manifest", "m.jsonl", langchain}, {"chunks_format", "", "pinecone"}}, `chunks_format="pinecone"`},
		{"bad gate", []formPart{{"manifest", "m.jsonl", langchain}, {"max_quarantined", "", "lots"}}, `max_quarantined "lots"`},
		{"bad bool", []formPart{{"dry_run", "", "yes"}}, `dry_run="yes"`},
		{"two manifests", []formPart{{"manifest", "a.jsonl", langchain}, {"manifest", "b.jsonl", langchain}}, `"manifest" given twice`},
		{"unknown field", []formPart{{"colour", "", "blue"}}, `"colour": want one of file, manifest, text`},
		{"metadata not an object", []formPart{{"metadata", "", `["a"]`}}, "metadata must be a JSON object"},
		{"metadata too large", []formPart{{"metadata", "", `{"a":"` + strings.Repeat("x", verify.MaxMetadataBytes) + `"}`}}, "longer than"},
	} {
		r, _ := post(tt.parts...)
		if r.status != 400 || r.errorCode(t) != "bad_request" || !strings.Contains(errorMessage(t, r), tt.want) {
			t.Errorf("%s: got %d %s, want 400 saying %q", tt.name, r.status, r.body, tt.want)
		}
	}
	if current() != before {
		t.Errorf("bad uploads changed the current version")
	}
}

// TestServeRebuild: POST /v1/documents/{id}/rebuild cuts a new current
// version from the stored text; the old chunks stay resolvable as
// superseded; the same settings again change nothing; a dry run writes
// nothing; bad settings and documents the caller may not read are refused.
func TestServeRebuild(t *testing.T) {
	e := newTestEnv(t, true)
	old := e.chunkIDs("expense-policy.md")
	post := func(token, principal, id, body string) (response, uploadResult) {
		t.Helper()
		r := e.do(request{method: "POST", path: "/v1/documents/" + url.PathEscape(id) + "/rebuild", token: token, principal: principal, body: []byte(body)})
		var res uploadResult
		if !isErrorBody(r.body) {
			r.decode(t, &res)
		}
		return r, res
	}
	r, res := post(serviceToken, "", "expense-policy.md", `{"chunk_size": 300, "overlap": 30, "dry_run": true}`)
	if r.status != 200 || !res.DryRun || res.Status != ingest.Ingested || e.chunkIDs("expense-policy.md")[0] != old[0] {
		t.Fatalf("dry run: got %d %s", r.status, r.body)
	}
	r, res = post(serviceToken, "", "expense-policy.md", `{"chunk_size": 300, "overlap": 30}`)
	newIDs := e.chunkIDs("expense-policy.md")
	if r.status != 201 || res.Status != ingest.Ingested || res.Superseded == "" || newIDs[0] == old[0] || len(newIDs) <= len(old) {
		t.Fatalf("rebuild: got %d %s; %d chunks before, %d after", r.status, r.body, len(old), len(newIDs))
	}
	newSchemaChecker(t, openAPIJSON).body(t, "IngestResult", r.body)
	var was servedBody
	e.do(request{path: "/v1/chunks/" + old[0], token: internToken}).decode(t, &was)
	if was.Status != resolve.StatusSuperseded || !was.TextUnchanged {
		t.Errorf("an old chunk after the rebuild: %s text_unchanged %v, want superseded with its text unchanged", was.Status, was.TextUnchanged)
	}
	if r, res := post(serviceToken, "", "expense-policy.md", `{"chunk_size": 300, "overlap": 30}`); r.status != 200 || res.Status != ingest.Unchanged {
		t.Errorf("the same settings again: got %d %s, want 200 unchanged", r.status, r.body)
	}
	// An empty body rebuilds with the defaults: back to the first version.
	if r, res := post(serviceToken, "", "expense-policy.md", ""); r.status != 201 || res.DocumentVersion != strings.Split(old[0], "-")[0] {
		t.Errorf("default settings: got %d %s, want the first version %s back", r.status, r.body, old[0])
	}
	for _, tt := range []struct {
		name, token, principal, id, body string
		status                           int
	}{
		{"chunk size 0", serviceToken, "", "expense-policy.md", `{"chunk_size": 0}`, 400},
		{"overlap too large", serviceToken, "", "expense-policy.md", `{"chunk_size": 100, "overlap": 60}`, 400},
		{"unknown field", serviceToken, "", "expense-policy.md", `{"chunk": 100}`, 400},
		{"unknown document", serviceToken, "", "no-such.md", `{}`, 404},
		{"secret for the intern", serviceToken, "intern@example.com", "secret.md", `{}`, 404},
		{"principal's token", analystToken, "", "secret.md", `{}`, 403},
	} {
		if r, _ := post(tt.token, tt.principal, tt.id, tt.body); r.status != tt.status {
			t.Errorf("%s: got %d %s, want %d", tt.name, r.status, r.body, tt.status)
		}
	}
	if r, res := post(serviceToken, "analyst@example.com", "secret.md", `{"chunk_size": 40, "overlap": 0}`); r.status != 201 || res.Chunks < 2 {
		t.Errorf("the analyst's service rebuilding secret.md: got %d %s", r.status, r.body)
	}
	if _, err := e.db.Delete("secret.md", ""); err != nil {
		t.Fatal(err)
	}
	if r, _ := post(serviceToken, "", "secret.md", `{}`); r.status != http.StatusGone || r.errorCode(t) != "deleted" {
		t.Errorf("deleted document: got %d %s, want 410", r.status, r.body)
	}
}

// TestServeDeleteAdminOnly: only an administrator deletes: not a
// principal's token, nor a service acting for an end user, with tokens or
// without.
func TestServeDeleteAdminOnly(t *testing.T) {
	e := newTestEnv(t, true)
	for _, r := range []request{
		{method: "DELETE", path: "/v1/documents/secret.md", token: analystToken},
		{method: "DELETE", path: "/v1/documents/secret.md", token: serviceToken, principal: "analyst@example.com"},
	} {
		if resp := e.do(r); resp.status != 403 || resp.errorCode(t) != "forbidden" {
			t.Errorf("%+v: got %d %s, want 403", r, resp.status, resp.body)
		}
	}
	if len(e.chunkIDs("secret.md")) != 1 {
		t.Fatal("a refused delete deleted")
	}
	if r := e.do(request{method: "DELETE", path: "/v1/documents/secret.md", token: serviceToken}); r.status != 200 {
		t.Errorf("administrator: got %d %s", r.status, r.body)
	}
	if r := e.do(request{method: "DELETE", path: "/v1/documents/", token: serviceToken}); r.status != 400 {
		t.Errorf("no id: got %d %s, want 400", r.status, r.body)
	}
	open := newTestEnv(t, false)
	if r := open.do(request{method: "DELETE", path: "/v1/documents/expense-policy.md", principal: "analyst@example.com"}); r.status != 403 {
		t.Errorf("without tokens, naming a principal: got %d %s, want 403", r.status, r.body)
	}
	if r := open.do(request{method: "DELETE", path: "/v1/documents/" + url.PathEscape("expense-policy.md")}); r.status != 200 {
		t.Errorf("without tokens, naming no one: got %d %s, want 200", r.status, r.body)
	}
}

// TestServeEveryWrongMethod: every route answers every method it does not
// serve with a JSON 405 and an Allow header naming what it serves; what
// the mux would redirect (a missing trailing slash, an unclean path) gets
// a JSON 405 or 404, never an empty 307.
func TestServeEveryWrongMethod(t *testing.T) {
	e := newTestEnv(t, true)
	id := e.chunkIDs("expense-policy.md")[0]
	version := strings.Split(id, "-")[0]
	concrete := strings.NewReplacer("{chunk_id}", id, "{version}", version, "{id}", "expense-policy.md", "{id...}", "expense-policy.md", "{trace_id}", "0123")
	allowed := map[string][]string{}
	for _, r := range e.srv.routes() {
		method, path, _ := strings.Cut(r, " ")
		path = concrete.Replace(path)
		allowed[path] = append(allowed[path], method)
		if method == "GET" {
			allowed[path] = append(allowed[path], "HEAD")
		}
	}
	for path := range allowed {
		if strings.HasPrefix(path, "/v1/documents/") && !contains(allowed[path], "DELETE") {
			// DELETE /v1/documents/{id...}: ids may hold slashes, so
			// DELETE .../chunks deletes the document "expense-policy.md/chunks".
			allowed[path] = append(allowed[path], "DELETE")
		}
	}
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	for path, ok := range allowed {
		for _, m := range methods {
			if contains(ok, m) {
				continue
			}
			r := e.do(request{method: m, path: path, token: serviceToken})
			if r.status != 405 {
				t.Errorf("%s %s: got %d, want 405", m, path, r.status)
				continue
			}
			for _, want := range ok {
				if !strings.Contains(r.header.Get("Allow"), want) {
					t.Errorf("%s %s: Allow %q lacks %s", m, path, r.header.Get("Allow"), want)
				}
			}
			if m != "HEAD" && (r.header.Get("Content-Type") != "application/json; charset=utf-8" || r.errorCode(t) != "method_not_allowed") {
				t.Errorf("%s %s: got %s %s, want a JSON method_not_allowed", m, path, r.header.Get("Content-Type"), r.body)
			}
		}
	}
	// What the mux would answer with a redirect.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"DELETE", "/v1/documents", 405, "GET, HEAD, POST"},
		{"PUT", "/v1/documents", 405, "GET, HEAD, POST"},
		{"GET", "/v1//chunks/" + id, 404, ""},
		{"GET", "/v1/chunks/../chunks/" + id, 404, ""},
		{"DELETE", "/v1/documents/./expense-policy.md", 404, ""},
		{"GET", "/v1/nothing/", 404, ""},
	} {
		req, _ := http.NewRequest(tt.method, e.ts.URL+tt.path, nil)
		req.URL.Opaque = tt.path // sent as written, dots and slashes included
		req.Header.Set("Authorization", "Bearer "+serviceToken)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		derr := json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || resp.Header.Get("Allow") != tt.allow || derr != nil || body.Error.Message == "" {
			t.Errorf("%s %s: got %d Allow %q (%v %+v), want %d Allow %q with a JSON error", tt.method, tt.path, resp.StatusCode, resp.Header.Get("Allow"), derr, body, tt.status, tt.allow)
		}
	}
	if len(e.chunkIDs("expense-policy.md")) == 0 {
		t.Error("a wrong method deleted the document")
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestServeMetadata: a request's metadata object is echoed in the report
// (and the resolve answer) and kept in the trace; anything but an object,
// or one too large, is refused.
func TestServeMetadata(t *testing.T) {
	e := newTestEnv(t, false)
	req := verifyRequest(t, e, 1)
	req.Metadata = json.RawMessage(`{"conversation":"c-41","model":{"name":"m","temperature":0.2}}`)
	r := e.do(request{method: "POST", path: "/v1/verify", body: jsonBody(t, req)})
	var rep verify.Report
	r.decode(t, &rep)
	if r.status != 200 || string(rep.Metadata) != string(req.Metadata) {
		t.Fatalf("verify: got %d metadata %s, want %s", r.status, rep.Metadata, req.Metadata)
	}
	c := newSchemaChecker(t, openAPIJSON)
	c.body(t, "VerifyRequest", jsonBody(t, req))
	c.body(t, "VerifyReport", r.body)
	tr := e.do(request{path: "/v1/traces/" + rep.TraceID})
	var trace struct {
		Request struct{ Metadata json.RawMessage }
		Report  struct{ Metadata json.RawMessage }
	}
	tr.decode(t, &trace)
	if string(trace.Request.Metadata) != string(req.Metadata) || string(trace.Report.Metadata) != string(req.Metadata) {
		t.Errorf("trace: request metadata %s, report metadata %s", trace.Request.Metadata, trace.Report.Metadata)
	}
	id := e.chunkIDs("expense-policy.md")[0]
	r = e.do(request{method: "POST", path: "/v1/resolve", body: []byte(`{"citations":[{"chunk_id":"` + id + `"}],"metadata":{"batch":7}}`)})
	if r.status != 200 || !bytes.Contains(r.body, []byte(`"metadata":{"batch":7}`)) {
		t.Errorf("resolve: got %d %s", r.status, r.body)
	}
	for _, c := range []string{`"metadata":[1]`, `"metadata":"x"`, `"metadata":{"a":"` + strings.Repeat("x", verify.MaxMetadataBytes) + `"}`} {
		for _, path := range []string{"/v1/verify", "/v1/resolve"} {
			body := `{"citations":[],` + c + `}`
			if path == "/v1/verify" {
				body = `{"request_id":"m",` + c + `}`
			}
			e.srv.maxBody = 1 << 20
			if r := e.do(request{method: "POST", path: path, body: []byte(body)}); r.status != 400 || !strings.Contains(string(r.body), "metadata") {
				t.Errorf("%s with %.40s: got %d %s, want 400 naming metadata", path, c, r.status, r.body)
			}
		}
	}
}
