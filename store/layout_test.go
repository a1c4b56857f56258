package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestLayoutCacheAfterRestore: a tombstoned version stored again reuses its
// sequence number; the layout read afterwards is the one stored last, not
// the one cached before the deletion, though of the same length.
func TestLayoutCacheAfterRestore(t *testing.T) {
	db := openStore(t)
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
	again.Undelete = true
	if _, err := db.PutVersions([]*store.NewVersion{again}); err != nil {
		t.Fatal(err)
	}
	if got := layoutOf().Sections; len(got) != 1 || got[0].Path[0] != "Restored" {
		t.Errorf("sections after the version was stored again: got %v, want the new layout's", got)
	}
}

// TestLayoutPlace: a span's place is the page of its start, the page of its
// last code point (an empty span: its start's), the first page's printed
// label and the section at its start.
func TestLayoutPlace(t *testing.T) {
	l := &store.Layout{PageStarts: []int{0, 10, 20}, PageLabels: []string{"i", "ii", "1"},
		Sections: []store.Section{{Start: 5, End: 25, Path: []string{"A"}}, {Start: 12, End: 18, Path: []string{"A", "B"}}}}
	for _, tt := range []struct {
		start, end int
		want       store.Place
	}{
		{0, 5, store.Place{Page: 1, PageEnd: 1, PageLabel: "i"}},
		{5, 10, store.Place{Page: 1, PageEnd: 1, PageLabel: "i", SectionPath: []string{"A"}}}, // ends where page 2 starts
		{8, 21, store.Place{Page: 1, PageEnd: 3, PageLabel: "i", SectionPath: []string{"A"}}},
		{12, 12, store.Place{Page: 2, PageEnd: 2, PageLabel: "ii", SectionPath: []string{"A", "B"}}},
	} {
		if got := l.Place(tt.start, tt.end); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Place(%d, %d) = %+v, want %+v", tt.start, tt.end, got, tt.want)
		}
	}
}
