package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestDeletedStaysDeleted: after a version is deleted, a put that would make
// its bytes current again is refused with PutDeleted and writes nothing,
// whatever the settings; a rebuild of a current version that holds the same
// bytes is not; Undelete stores it.
func TestDeletedStaysDeleted(t *testing.T) {
	const text = "Submit all expense reports within 14 calendar days."
	db := openStore(t)
	v1 := storetest.NewVersion("doc", text, 20)
	v2 := storetest.NewVersionWith("doc", text, 30, "test/rebuilt")
	put(t, db, v1, store.PutIngested)
	put(t, db, v2, store.PutIngested) // a rebuild: v1 superseded

	// Deleting the current version: neither it nor v1, the same bytes cut
	// otherwise, comes back.
	if _, err := db.Delete("doc", v2.Version.ID); err != nil {
		t.Fatal(err)
	}
	for _, nv := range []*store.NewVersion{storetest.NewVersion("doc", text, 20), storetest.NewVersionWith("doc", text, 30, "test/rebuilt"),
		storetest.NewVersionWith("doc", text, 40, "test/third")} {
		r, err := db.PutVersion(nv)
		if err != nil || r.Status != store.PutDeleted || r.Reason != store.ReasonVersionDeleted {
			t.Errorf("put %s after deleting v2: got %+v, %v, want deleted (%s)", nv.Version.Fingerprint, r, err, store.ReasonVersionDeleted)
		}
	}
	if doc := getDocument(t, db, "doc"); doc.Current != "" {
		t.Errorf("current version after refused puts: got %q, want none", doc.Current)
	}
	checkDeleted(t, db, v2.Version.ID)

	// Other bytes of the document are a new version.
	v3 := storetest.NewVersion("doc", text+" Updated.", 20)
	put(t, db, v3, store.PutIngested)

	// Undelete makes v1 current again.
	again := storetest.NewVersion("doc", text, 20)
	again.Undelete = true
	put(t, db, again, store.PutRestored)

	// A deleted older version whose bytes the current version holds does
	// not stop a rebuild of the current version.
	db2 := openStore(t)
	a1 := storetest.NewVersion("doc", text, 20)
	a2 := storetest.NewVersionWith("doc", text, 30, "test/rebuilt")
	put(t, db2, a1, store.PutIngested)
	put(t, db2, a2, store.PutIngested)
	if _, err := db2.Delete("doc", a1.Version.ID); err != nil {
		t.Fatal(err)
	}
	put(t, db2, storetest.NewVersionWith("doc", text, 40, "test/third"), store.PutIngested)
	// … but rebuilding back to the deleted version is refused.
	if r, err := db2.PutVersion(storetest.NewVersion("doc", text, 20)); err != nil || r.Status != store.PutDeleted {
		t.Errorf("put of the deleted version's id: got %+v, %v, want deleted", r, err)
	}
}

// TestPutMetadata: an unchanged version takes a new access list and, when
// the caller named it, a new source URL, each recorded with a time on the
// document and reported in PutResult.Updated, without a new version; the
// same metadata again writes nothing.
func TestPutMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	db := storetest.OpenPath(t, path, nil)
	v1 := storetest.NewVersion("doc", "Alpha text.", 0)
	v1.Version.SourceURL = "file:///old/doc.txt"
	v1.ACL = []string{"bob@example.com"}
	if r := put(t, db, v1, store.PutIngested); len(r.Updated) != 0 {
		t.Errorf("new document with an access list: got updated %v, want nothing (its first list is no update)", r.Updated)
	}
	if d := getDocument(t, db, "doc"); !d.ACLUpdated.IsZero() || !d.URLUpdated.IsZero() {
		t.Errorf("new document: got acl_updated %v source_url_updated %v, want neither", d.ACLUpdated, d.URLUpdated)
	}

	stored := func(url string, setURL bool, acl []string) *store.NewVersion {
		return &store.NewVersion{Stored: true, SetURL: setURL, ACL: acl, Version: store.Version{ID: v1.Version.ID,
			DocumentID: "doc", SourceHash: v1.Version.SourceHash, SourceURL: url}}
	}
	// A URL the caller did not name is not taken.
	if r := put(t, db, stored("file:///elsewhere/doc.txt", false, nil), store.PutUnchanged); len(r.Updated) != 0 {
		t.Errorf("unnamed URL: got updated %v, want nothing", r.Updated)
	}
	r := put(t, db, stored("https://intranet.example/doc", true, []string{"analyst@example.com"}), store.PutUnchanged)
	if want := []string{store.UpdatedACL, store.UpdatedSourceURL}; !slices.Equal(r.Updated, want) {
		t.Errorf("updated: got %v, want %v", r.Updated, want)
	}
	v := getVersion(t, db, v1.Version.ID)
	if v.SourceURL != "https://intranet.example/doc" || !slices.Equal(v.ACL, []string{"analyst@example.com"}) {
		t.Errorf("version after the update: got url %q acl %v", v.SourceURL, v.ACL)
	}
	d := getDocument(t, db, "doc")
	if d.ACLUpdated.IsZero() || d.URLUpdated.IsZero() || len(d.Versions) != 1 {
		t.Errorf("document after the update: got acl_updated %v source_url_updated %v, %d versions, want both times, 1 version",
			d.ACLUpdated, d.URLUpdated, len(d.Versions))
	}

	// The same again: nothing written, the file untouched.
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := put(t, db, stored("https://intranet.example/doc", true, []string{"analyst@example.com"}), store.PutUnchanged); len(r.Updated) != 0 {
		t.Errorf("same metadata again: got updated %v, want nothing", r.Updated)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("same metadata again: the store file changed")
	}

	// A superseded version restored by a stored put takes the URL named.
	put(t, db, storetest.NewVersion("doc", "Beta text.", 0), store.PutIngested)
	r = put(t, db, stored("https://intranet.example/doc-v1", true, nil), store.PutRestored)
	if !slices.Equal(r.Updated, []string{store.UpdatedSourceURL}) || getVersion(t, db, v1.Version.ID).SourceURL != "https://intranet.example/doc-v1" {
		t.Errorf("restored with a URL: got updated %v, url %q", r.Updated, getVersion(t, db, v1.Version.ID).SourceURL)
	}

	// A stored put of a version that is not stored writes nothing.
	gone := stored("x", true, nil)
	gone.Version.ID = storetest.NewVersion("doc", "never stored", 0).Version.ID
	if _, err := db.PutVersion(gone); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("stored put of an unknown version: got %v, want ErrNotFound", err)
	}
}

// TestVersionsOfSource: the source index finds every version of the same
// bytes, across documents and tombstones included, and a store written
// before the index (the format 1 fixture) gets it on its first writable
// open; a read-only open of such a store scans instead.
func TestVersionsOfSource(t *testing.T) {
	db := openStore(t)
	a := storetest.NewVersion("a.md", "same bytes", 0)
	b := storetest.NewVersion("docs/a.md", "same bytes", 0)
	c := storetest.NewVersion("c.md", "other bytes", 0)
	for _, nv := range []*store.NewVersion{a, b, c} {
		put(t, db, nv, store.PutIngested)
	}
	if _, err := db.Delete("a.md", ""); err != nil {
		t.Fatal(err)
	}
	got := sourceDocs(t, db, a.Version.SourceHash)
	if want := []string{"a.md deleted", "docs/a.md current"}; !slices.Equal(got, want) {
		t.Errorf("VersionsOfSource: got %v, want %v", got, want)
	}

	fixture, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	a1, _, b1, _ := fixtureVersions()
	for _, readOnly := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "format1.db")
		if err := os.WriteFile(path, fixture, 0o644); err != nil {
			t.Fatal(err)
		}
		var old *store.DB
		if readOnly {
			old = storetest.OpenPath(t, path, &store.Options{ReadOnly: true})
		} else {
			old = openMigrated(t, path)
		}
		if got := sourceDocs(t, old, a1.Version.SourceHash); !slices.Equal(got, []string{"alpha superseded"}) {
			t.Errorf("fixture (read-only %v), source of a1: got %v, want [alpha superseded]", readOnly, got)
		}
		if got := sourceDocs(t, old, b1.Version.SourceHash); !slices.Equal(got, []string{"beta deleted"}) {
			t.Errorf("fixture (read-only %v), source of b1: got %v, want [beta deleted]", readOnly, got)
		}
	}
}

func sourceDocs(t *testing.T, db *store.DB, source store.ID) []string {
	t.Helper()
	var out []string
	view(t, db, func(tx *store.Tx) error {
		vs, err := tx.VersionsOfSource(source)
		for _, v := range vs {
			out = append(out, v.DocumentID+" "+string(v.Status))
		}
		return err
	})
	slices.Sort(out)
	return out
}
