package resolve_test

import (
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestCachesNeverServeStale: every answer reflects the store as it is now,
// however warm the caches (decoded headers, layouts, checked spans) are
// from answers before it: an access list taken away, a newer version, a
// delete and a restore are each answered from the store, never from what
// the caches held.
func TestCachesNeverServeStale(t *testing.T) {
	db := storetest.Open(t)
	const reader, other = "analyst@example.com", "intern@example.com"
	v1 := storetest.NewVersion("policy", policy, 20)
	v1.ACL = []string{reader, other}
	put(t, db, v1)
	id := store.ChunkID(v1.Version.ID, 1)
	want := string([]rune(policy)[20:40])
	resolveAs := func(principal string, wantStatus resolve.Status) *resolve.Resolution {
		t.Helper()
		var r *resolve.Resolution
		for range 3 { // warm every cache, then answer from it
			var err error
			if r, err = resolve.Chunk(db, id, principal); err != nil {
				t.Fatal(err)
			}
		}
		if r.Status != wantStatus {
			t.Fatalf("%s: got %s, want %s", principal, r.Status, wantStatus)
		}
		if r.Served() != (r.Text != "") || (r.Served() && r.Text != want) {
			t.Fatalf("%s: got %s with text %q, want %q", principal, r.Status, r.Text, want)
		}
		return r
	}
	resolveAs(other, resolve.StatusOK)

	// The access list changes: the version header's copy has other bytes,
	// of the same length first, then shorter.
	for _, acl := range [][]string{{reader, "intern@example.org"}, {reader}} {
		again := storetest.NewVersion("policy", policy, 20)
		again.ACL = acl
		put(t, db, again)
		resolveAs(other, resolve.StatusForbidden)
		resolveAs(reader, resolve.StatusOK)
	}

	// A new version supersedes v1.
	v2 := storetest.NewVersion("policy", strings.Replace(policy, "14", "30", 1), 20)
	put(t, db, v2)
	if r := resolveAs(reader, resolve.StatusSuperseded); r.CurrentVersion != v2.Version.ID {
		t.Errorf("current version: got %q, want %q", r.CurrentVersion, v2.Version.ID)
	}

	// Deleted: no text, though its span and layout were read a moment ago.
	if _, err := db.Delete("policy", v1.Version.ID); err != nil {
		t.Fatal(err)
	}
	resolveAs(reader, resolve.StatusDeleted)
	if r, err := resolve.Range(db, v1.Version.ID, 20, 40, reader); err != nil || r.Status != resolve.StatusDeleted || r.Text != "" {
		t.Fatalf("range of a deleted version: got %+v, %v, want deleted without text", r, err)
	}

	// Restored: stored again under the same version id, current again.
	back := storetest.NewVersion("policy", policy, 20)
	back.Undelete = true
	put(t, db, back)
	r := resolveAs(reader, resolve.StatusOK)
	if r.Page != 2 {
		t.Errorf("restored: page %d, want 2", r.Page)
	}
}
