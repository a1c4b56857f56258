package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestChunkSettings: the settings read back from a fingerprint are those it
// was made with; imported chunks and foreign forms give none.
func TestChunkSettings(t *testing.T) {
	for _, o := range []ChunkOptions{DefaultChunkOptions, {Size: 600, Overlap: 0}, {Size: 1, Overlap: 0}, {Size: 123456, Overlap: 789}} {
		got, ok := chunkSettings(Fingerprint("markdown/1", o))
		if !ok || got != o {
			t.Errorf("chunkSettings(Fingerprint(%+v)) = %+v, %v", o, got, ok)
		}
	}
	imp := recipe{extractor: "text/1", imp: &importInput{format: FormatLangChain}}
	for _, fp := range []string{imp.fingerprint(), "", "test/1", "evidence/1;norm;text/1;chunk/1:size=x,overlap=1",
		"evidence/1;norm;text/1;chunk/1:size=10", "evidence/1;norm;text/1;chunk/1:size=10,overlap=1,window=3",
		"evidence/1;norm;text/1;chunk/1:size=0,overlap=0"} {
		if got, ok := chunkSettings(fp); ok {
			t.Errorf("chunkSettings(%q) = %+v, want none", fp, got)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildThenPlainIngest: after a rebuild with new settings, a plain
// ingest of the unchanged file is unchanged (the rebuild stays current),
// changed bytes are cut with the rebuild's settings, and explicit
// settings still make a new version.
func TestRebuildThenPlainIngest(t *testing.T) {
	db := storetest.Open(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "policy.md")
	writeFile(t, p, "# Policy\n\n"+strings.Repeat("Submit all expense reports within 14 calendar days. ", 60))
	first := run(t, db, []string{p}, Options{})
	v1 := first.Results[0].DocumentVersion
	rb, err := Rebuild(context.Background(), db, []string{"policy.md"}, RebuildOptions{Chunk: ChunkOptions{Size: 600, Overlap: 60}})
	if err != nil || rb.Results[0].Status != Ingested {
		t.Fatalf("rebuild: %v %+v", err, rb.Results[0])
	}
	v2 := rb.Results[0].DocumentVersion

	again := run(t, db, []string{p}, Options{}).Results[0]
	if again.Status != Unchanged || again.Restored || again.DocumentVersion != v2 {
		t.Fatalf("plain re-ingest after rebuild: got %s (restored %v) %s, want unchanged %s", again.Status, again.Restored, again.DocumentVersion, v2)
	}
	if cur := currentVersionOf(t, db, "policy.md"); cur.ID != v2 {
		t.Fatalf("current after plain re-ingest: got %s, want the rebuild %s", cur.ID, v2)
	}

	// Explicit default settings: the first version comes back, as asked.
	back := run(t, db, []string{p}, Options{Chunk: DefaultChunkOptions}).Results[0]
	if back.DocumentVersion != v1 || !back.Restored {
		t.Errorf("explicit default settings: got %s restored %v, want %s restored", back.DocumentVersion, back.Restored, v1)
	}
	// …and stay: a plain ingest is unchanged against them.
	if r := run(t, db, []string{p}, Options{}).Results[0]; r.Status != Unchanged || r.DocumentVersion != v1 {
		t.Errorf("plain ingest after explicit settings: got %s %s, want unchanged %s", r.Status, r.DocumentVersion, v1)
	}

	// Changed bytes are cut as the current version was.
	if _, err := Rebuild(context.Background(), db, []string{"policy.md"}, RebuildOptions{Chunk: ChunkOptions{Size: 600, Overlap: 60}}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "# Policy\n\n"+strings.Repeat("Submit all expense reports within 30 calendar days. ", 60))
	changed := run(t, db, []string{p}, Options{}).Results[0]
	cur := currentVersionOf(t, db, "policy.md")
	if changed.Status != Ingested || cur.ID != changed.DocumentVersion || cur.Fingerprint != Fingerprint(ExtractorFor(p), ChunkOptions{Size: 600, Overlap: 60}) {
		t.Errorf("changed bytes: got %s, fingerprint %q, want a new version cut with size 600", changed.Status, cur.Fingerprint)
	}
}

// TestImportThenPlainIngest: a current version of imported chunks is kept
// by a plain ingest of the same bytes (the manifest is not read again).
func TestImportThenPlainIngest(t *testing.T) {
	db := storetest.Open(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	writeFile(t, p, "First chunk text. Second chunk text.")
	m := filepath.Join(dir, "a.jsonl")
	writeFile(t, m, `{"page_content": "First chunk text.", "metadata": {"start_index": 0}}`+"\n"+
		`{"page_content": "Second chunk text.", "metadata": {"start_index": 18}}`+"\n")
	imp := run(t, db, []string{p}, Options{Chunks: m}).Results[0]
	if imp.Status != Ingested || imp.Chunks != 2 {
		t.Fatalf("import: %+v", imp)
	}
	if r := run(t, db, []string{p}, Options{}).Results[0]; r.Status != Unchanged || r.DocumentVersion != imp.DocumentVersion || r.Chunks != 2 {
		t.Errorf("plain ingest after import: got %s %s (%d chunks), want unchanged %s", r.Status, r.DocumentVersion, r.Chunks, imp.DocumentVersion)
	}
}

func currentVersionOf(t *testing.T, db *store.DB, id string) *store.Version {
	t.Helper()
	var v *store.Version
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(id)
		if err != nil {
			return err
		}
		v, err = tx.Version(d.Current)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDeletedSkipped: a deleted document, a deleted version's bytes and a
// deleted document's bytes under a new id are skipped with status deleted
// and a reason; Undelete stores them.
func TestDeletedSkipped(t *testing.T) {
	db := storetest.Open(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.md")
	writeFile(t, a, "# A\n\nAlpha text.\n")
	first := run(t, db, []string{dir}, Options{}).Results[0]
	if _, err := db.Delete("a.md", ""); err != nil {
		t.Fatal(err)
	}
	sum := run(t, db, []string{dir}, Options{})
	if r := sum.Results[0]; r.Status != Deleted || r.Reason != store.ReasonDocumentDeleted || r.Message == "" || sum.Deleted != 1 {
		t.Errorf("after delete: got %+v (summary deleted %d), want deleted (%s) with a message", r, sum.Deleted, store.ReasonDocumentDeleted)
	}
	// Changed bytes too.
	writeFile(t, a, "# A\n\nAlpha text, edited.\n")
	if r := run(t, db, []string{dir}, Options{}).Results[0]; r.Status != Deleted {
		t.Errorf("changed bytes after delete: got %s, want deleted", r.Status)
	}
	// The old bytes under another id (a moved file).
	writeFile(t, a, "# A\n\nAlpha text.\n")
	moved := filepath.Join(dir, "moved.md")
	writeFile(t, moved, "# A\n\nAlpha text.\n")
	if r := run(t, db, []string{moved}, Options{}).Results[0]; r.Status != Deleted || r.Reason != ReasonSourceDeleted || !strings.Contains(r.Message, `a.md`) {
		t.Errorf("deleted bytes under a new id: got %+v, want deleted (%s) naming a.md", r, ReasonSourceDeleted)
	}
	if err := os.Remove(moved); err != nil {
		t.Fatal(err)
	}
	r := run(t, db, []string{dir}, Options{Undelete: true}).Results[0]
	if r.Status != Ingested || r.DocumentVersion != first.DocumentVersion {
		t.Errorf("undelete: got %s %s, want ingested %s", r.Status, r.DocumentVersion, first.DocumentVersion)
	}
}

// TestMetadataUpdate: --url and --acl of unchanged bytes update the stored
// version without a new one, reported in MetadataUpdated; a file ingested
// without a URL keeps the one stored.
func TestMetadataUpdate(t *testing.T) {
	db := storetest.Open(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	writeFile(t, p, "# A\n\nAlpha text.\n")
	first := run(t, db, []string{p}, Options{}).Results[0]
	r := run(t, db, []string{p}, Options{URL: "https://intranet.example/a", ACL: []string{"analyst@example.com"}}).Results[0]
	if r.Status != Unchanged || r.DocumentVersion != first.DocumentVersion || !slices.Equal(r.MetadataUpdated, []string{"acl", "source_url"}) {
		t.Errorf("url and acl of unchanged bytes: got %s %s %v, want unchanged, acl and source_url updated", r.Status, r.DocumentVersion, r.MetadataUpdated)
	}
	if v := currentVersionOf(t, db, "a.md"); v.SourceURL != "https://intranet.example/a" || !slices.Equal(v.ACL, []string{"analyst@example.com"}) {
		t.Errorf("stored: url %q acl %v", v.SourceURL, v.ACL)
	}
	if r := run(t, db, []string{p}, Options{}).Results[0]; r.Status != Unchanged || len(r.MetadataUpdated) != 0 {
		t.Errorf("plain ingest: got %s %v, want unchanged, nothing updated", r.Status, r.MetadataUpdated)
	}
	if v := currentVersionOf(t, db, "a.md"); v.SourceURL != "https://intranet.example/a" {
		t.Errorf("plain ingest replaced the URL: %q", v.SourceURL)
	}
}

// TestBaseIDs: with a base, a directory argument and a file argument give
// one file one id; a store written with the old ids keeps them; a file
// outside the base without a stored document fails; the same bytes under
// two ids are warned about.
func TestBaseIDs(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "docs", "md", "a.md")
	writeFile(t, f, "# A\n\nAlpha text.\n")

	db := storetest.Open(t)
	byDir := run(t, db, []string{filepath.Join(dir, "docs")}, Options{Base: dir}).Results[0]
	byFile := run(t, db, []string{f}, Options{Base: dir}).Results[0]
	if byDir.DocumentID != "docs/md/a.md" || byFile.DocumentID != "docs/md/a.md" || byFile.Status != Unchanged {
		t.Errorf("ids: by directory %q, by file %q (%s), want docs/md/a.md both, the second unchanged", byDir.DocumentID, byFile.DocumentID, byFile.Status)
	}

	// A store of the old rule keeps its ids.
	old := storetest.Open(t)
	run(t, old, []string{filepath.Join(dir, "docs")}, Options{})
	r := run(t, old, []string{filepath.Join(dir, "docs")}, Options{Base: dir}).Results[0]
	if r.DocumentID != "md/a.md" || r.Status != Unchanged {
		t.Errorf("old store: got %q %s, want md/a.md unchanged", r.DocumentID, r.Status)
	}
	r = run(t, old, []string{f}, Options{Base: dir}).Results[0]
	if r.DocumentID != "md/a.md" || r.Status != Unchanged {
		t.Errorf("old store, file argument: got %q %s, want md/a.md unchanged", r.DocumentID, r.Status)
	}

	// Outside the base: refused in a store that has no document for it,
	// kept in one that has.
	sum := run(t, storetest.Open(t), []string{f}, Options{Base: filepath.Join(dir, "elsewhere")})
	if r := sum.Results[0]; r.Status != Failed || r.Reason != ReasonOutsideBase || !strings.Contains(r.Error, "base") {
		t.Errorf("outside the base: got %+v, want failed (%s)", r, ReasonOutsideBase)
	}
	if r := run(t, db, []string{f}, Options{Base: filepath.Join(dir, "elsewhere")}).Results[0]; r.DocumentID != "docs/md/a.md" || r.Status != Unchanged {
		t.Errorf("outside the base, stored before: got %q %s, want docs/md/a.md unchanged", r.DocumentID, r.Status)
	}

	// The same bytes under another id: stored, with a warning.
	r = run(t, db, []string{f}, Options{ID: "copy.md"}).Results[0]
	if r.Status != Ingested || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `"docs/md/a.md"`) {
		t.Errorf("same bytes under another id: got %s %v, want ingested with a warning naming docs/md/a.md", r.Status, r.Warnings)
	}
	// Two files of one batch with the same bytes.
	two := filepath.Join(dir, "two")
	writeFile(t, filepath.Join(two, "x.md"), "# X\n\nSame.\n")
	writeFile(t, filepath.Join(two, "y.md"), "# X\n\nSame.\n")
	sum = run(t, db, []string{two}, Options{Base: dir})
	warned := 0
	for _, r := range sum.Results {
		warned += len(r.Warnings)
	}
	if warned != 1 {
		t.Errorf("two files with the same bytes in one batch: got %d warnings, want 1", warned)
	}
}
