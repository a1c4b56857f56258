package store_test

import (
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestLayoutCacheAfterRestore: a tombstoned version stored again reuses its
// sequence number; the layout read afterwards is the one stored last, not
// the one cached before the deletion, though of the same length.
func TestLayoutCacheAfterRestore(t *testing.T) {
	db := storetest.Open(t)
	nv := storetest.NewVersion("doc", "Page one.\fPage two.", 0)
	nv.Layout.Sections = []store.Section{{Start: 0, End: nv.Version.TextLen, Path: []string{"Original"}}}
	layoutOf := func() *store.Layout {
		var l *store.Layout
		err := db.View(func(tx *store.Tx) error {
			v, err := tx.Version(nv.Version.ID)
			if err != nil {
				return err
			}
			l, err = tx.Layout(v)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if _, err := db.PutVersions([]*store.NewVersion{nv}); err != nil {
		t.Fatal(err)
	}
	if got := layoutOf().Sections; len(got) != 1 || got[0].Path[0] != "Original" {
		t.Fatalf("sections before: %v", got)
	}
	if _, err := db.Delete("doc", ""); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond) // a later creation time
	again := storetest.NewVersion("doc", "Page one.\fPage two.", 0)
	again.Layout.Sections = []store.Section{{Start: 0, End: again.Version.TextLen, Path: []string{"Restored"}}}
	if _, err := db.PutVersions([]*store.NewVersion{again}); err != nil {
		t.Fatal(err)
	}
	if got := layoutOf().Sections; len(got) != 1 || got[0].Path[0] != "Restored" {
		t.Errorf("sections after the version was stored again: got %v, want the new layout's", got)
	}
}
