package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// TestServeVersionLifecycle holds the version lifecycle rules over HTTP:
// new chunk settings of the same text keep old citations valid
// (text_unchanged) unless the policy refuses them; a plain re-upload does not
// undo them; a URL named for unchanged bytes is recorded without a new
// version; the same bytes under another id are warned about; a deleted
// document is refused (409) until undelete=true.
func TestServeVersionLifecycle(t *testing.T) {
	e := newTestEnv(t, true)
	c := newSchemaChecker(t, openAPIJSON) // every answer holds to docs/openapi.json
	text := "# Travel\n\n## Meals\n\nThe meal allowance is EUR 75 per day. " + strings.Repeat("Receipts are kept for seven years. ", 8) + "\n"
	upload := func(query, body string) (response, ingest.Result) {
		t.Helper()
		r := e.do(request{method: "POST", path: "/v1/documents?filename=travel.md&id=travel.md" + query, token: serviceToken, body: []byte(body)})
		var res ingest.Result
		r.decode(t, &res)
		c.body(t, "IngestResult", r.body)
		return r, res
	}
	verifyOld := func(req verify.Request) verify.Report {
		t.Helper()
		r := e.do(request{method: "POST", path: "/v1/verify?trace=false", token: analystToken, body: jsonBody(t, req)})
		var rep verify.Report
		r.decode(t, &rep)
		c.body(t, "VerifyReport", r.body)
		return rep
	}
	r, first := upload("", text)
	if r.status != http.StatusCreated {
		t.Fatalf("upload: got %d %+v", r.status, first)
	}
	oldChunk := store.ChunkID(first.DocumentVersion, 0)

	// New chunk settings, same text: a new version; the old chunk stays valid.
	r, rebuilt := upload("&chunk_size=120&overlap=0", text)
	if r.status != http.StatusCreated || rebuilt.Superseded != first.DocumentVersion {
		t.Fatalf("new chunk settings: got %d %+v", r.status, rebuilt)
	}
	var old servedBody
	e.do(request{path: "/v1/chunks/" + oldChunk, token: analystToken}).decode(t, &old)
	if old.Status != resolve.StatusSuperseded || !old.TextUnchanged || old.CurrentVersion != rebuilt.DocumentVersion {
		t.Errorf("old chunk: got %s text_unchanged %v current %q, want superseded, text_unchanged, current %s", old.Status, old.TextUnchanged, old.CurrentVersion, rebuilt.DocumentVersion)
	}
	req := verify.Request{RequestID: "r-old", Retrieved: []string{oldChunk}, Claims: []verify.Claim{{ClaimID: "c1",
		Text: "The meal allowance is EUR 75 per day.", Evidence: []verify.Evidence{{ChunkID: oldChunk, Quote: "The meal allowance is EUR 75 per day."}}}}}
	rep := verifyOld(req)
	if ev := rep.Claims[0].Evidence[0]; rep.Disposition != verify.AnswerAccept || ev.Status != verify.EvidenceOK || !ev.TextUnchanged ||
		ev.VersionStatus != string(store.StatusSuperseded) || ev.CurrentVersion != rebuilt.DocumentVersion {
		t.Errorf("verify citing the old chunk: got %s, evidence %s text_unchanged %v version %s current %q, want accept, ok, text_unchanged, superseded, %s",
			rep.Disposition, ev.Status, ev.TextUnchanged, ev.VersionStatus, ev.CurrentVersion, rebuilt.DocumentVersion)
	}

	// A plain re-upload of the same bytes is unchanged against the new settings.
	r, plain := upload("", text)
	if r.status != http.StatusOK || plain.Status != ingest.Unchanged || plain.DocumentVersion != rebuilt.DocumentVersion {
		t.Errorf("plain re-upload: got %d %s %s, want 200 unchanged %s", r.status, plain.Status, plain.DocumentVersion, rebuilt.DocumentVersion)
	}

	// A URL named for unchanged bytes: recorded, no new version.
	r, moved := upload("&url=https://intranet.example/travel-2026.md", text)
	if r.status != http.StatusOK || moved.Status != ingest.Unchanged || !slices.Equal(moved.MetadataUpdated, []string{"source_url"}) {
		t.Errorf("url of unchanged bytes: got %d %s updated %v, want 200 unchanged, source_url updated", r.status, moved.Status, moved.MetadataUpdated)
	}
	var cur servedBody
	e.do(request{path: "/v1/chunks/" + store.ChunkID(rebuilt.DocumentVersion, 0), token: analystToken}).decode(t, &cur)
	if cur.SourceURL != "https://intranet.example/travel-2026.md" {
		t.Errorf("source_url after the update: got %q", cur.SourceURL)
	}

	// Changed text: the old chunk is stale again, and blocked.
	r, edited := upload("", strings.Replace(text, "EUR 75", "EUR 80", 1))
	if r.status != http.StatusCreated || edited.Status != ingest.Ingested {
		t.Fatalf("changed text: got %d %+v", r.status, edited)
	}
	rep = verifyOld(req)
	if ev := rep.Claims[0].Evidence[0]; ev.Status != verify.EvidenceStale || ev.TextUnchanged || rep.Claims[0].Disposition != verify.BlockClaim {
		t.Errorf("verify after the text changed: got evidence %s text_unchanged %v, claim %s, want stale, block_claim", ev.Status, ev.TextUnchanged, rep.Claims[0].Disposition)
	}

	// The same bytes under another id: stored, with a warning.
	r2 := e.do(request{method: "POST", path: "/v1/documents?filename=copy.md&id=copy.md", token: serviceToken, body: []byte(text)})
	var copied ingest.Result
	r2.decode(t, &copied)
	c.body(t, "IngestResult", r2.body)
	if r2.status != http.StatusCreated || len(copied.Warnings) != 1 || !strings.Contains(copied.Warnings[0], `"travel.md"`) {
		t.Errorf("same bytes under another id: got %d %+v, want 201 with a warning naming travel.md", r2.status, copied)
	}

	// Deleted stays deleted.
	if r := e.do(request{method: "DELETE", path: "/v1/documents/travel.md", token: serviceToken}); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	r, again := upload("", text)
	if r.status != http.StatusConflict || again.Status != ingest.Deleted || again.Reason != store.ReasonDocumentDeleted {
		t.Errorf("upload after delete: got %d %s (%s), want 409 deleted (%s)", r.status, again.Status, again.Reason, store.ReasonDocumentDeleted)
	}
	if r := e.do(request{path: "/v1/chunks/" + oldChunk, token: analystToken}); r.status != http.StatusGone {
		t.Errorf("old chunk after a refused upload: got %d, want 410", r.status)
	}
	r, undeleted := upload("&undelete=true", text)
	if r.status != http.StatusCreated || undeleted.Status != ingest.Ingested {
		t.Errorf("undelete=true: got %d %s, want 201 ingested", r.status, undeleted.Status)
	}

	for _, err := range c.errs {
		t.Error(err)
	}
	for _, key := range []string{"IngestResult.metadata_updated", "IngestResult.warnings", "IngestResult.message",
		"EvidenceReport.text_unchanged", "EvidenceReport.current_version"} {
		if !c.seen[key] {
			t.Errorf("no answer held %s: the test no longer exercises it", key)
		}
	}
}
