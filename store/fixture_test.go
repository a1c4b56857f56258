package store_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

var updateFixture = flag.Bool("update-fixture", false, "regenerate testdata/format1.db (only when the format changes on purpose)")

const fixtureFile = "testdata/format1.db"

// Contents of testdata/format1.db, a store written by format 1:
//
//	alpha: a1 superseded; a2 current, 3 pages with labels and sections,
//	       chunk 1 quarantined (text_mismatch), access list [analyst@example.com]
//	beta:  b1 deleted (a tombstone); b2 current
//	failures: gamma.pdf (encrypted)
//
// Sequence numbers follow the order of the puts: a1=1, a2=2, b1=3, b2=4.
// The fixture is written once by TestWriteFormatFixture -update-fixture and
// committed; TestFormat1Fixture reads a copy of it. A change of the format
// that breaks old stores makes TestFormat1Fixture fail: bump FormatVersion
// and keep a reader for format 1, or write a migration.
var (
	fixtureA1 = "Alpha policy, first edition.\nSubmit expense reports within 30 days."
	fixtureA2 = "Alpha policy\n\nSubmit all expense reports within 14 calendar days.\f" +
		"Reembolsos: 3,25 € por kilómetro.\f" +
		"附則: 日本語の段落 😀 and the end."
	fixtureB1 = "Beta notes, draft."
	fixtureB2 = "Beta notes, final: the limit is 250,000,000 units."
)

// Version ids of the fixture, fixed: they are part of the stored data.
const (
	fixtureA1ID = "eefc709fee673d8887d4ca197ea16e39"
	fixtureA2ID = "d00e116578bfe57a503f15d18b988755"
	fixtureB1ID = "d24bb9290c23199a62d4e101327968b4"
	fixtureB2ID = "ae686cbca569348b2533a8fb91853946"
)

func fixtureVersions() (a1, a2, b1, b2 *store.NewVersion) {
	a1 = storetest.NewVersion("alpha", fixtureA1, 20)
	a2 = quarantine(storetest.NewVersion("alpha", fixtureA2, 20), 1, "text_mismatch")
	a2.ACL = []string{"analyst@example.com"}
	a2.Layout.PageLabels = []string{"i", "ii", "A-1"}
	a2.Layout.Sections = []store.Section{
		{Start: 0, End: 125, Path: []string{"Alpha policy"}},
		{Start: 66, End: 100, Path: []string{"Alpha policy", "Reembolsos"}},
		{Start: 100, End: 125, Path: []string{"Alpha policy", "附則"}},
	}
	a2.Layout.LowConfidence = []store.PageFlag{{Page: 3, Reason: "mixed_script"}}
	for i := range a2.Chunks {
		c := &a2.Chunks[i]
		c.PageLabel = a2.Layout.PageLabel(c.Page)
		c.SectionPath = a2.Layout.SectionAt(c.Start)
		c.ExternalID = "ext-" + store.ChunkID("a2", uint32(i))
	}
	a2.Chunks[2].Repair = &store.Repair{Reason: "text_mismatch", Method: "fuzzy", Distance: 2, ClaimedStart: 41, ClaimedEnd: 61,
		ClaimedPage: 1, ClaimedPageLabel: "1", ClaimedSection: []string{"Alpha"}}
	return a1, a2, storetest.NewVersion("beta", fixtureB1, 8), storetest.NewVersion("beta", fixtureB2, 8)
}

func TestWriteFormatFixture(t *testing.T) {
	if !*updateFixture {
		t.Skip("run with -update-fixture to regenerate " + fixtureFile)
	}
	tmp := filepath.Join(t.TempDir(), "format1.db")
	db, err := store.Open(tmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	a1, a2, b1, b2 := fixtureVersions()
	for _, nv := range []*store.NewVersion{a1, a2, b1, b2} {
		if _, err := db.PutVersion(nv); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", nv.Version.DocumentID, nv.Version.ID)
	}
	if _, err := db.Delete("beta", b1.Version.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.PutFailure(&store.Failure{Path: "in/gamma.pdf", DocumentID: "gamma.pdf", Reason: "encrypted",
		Error: "pdf: document is encrypted"}); err != nil {
		t.Fatal(err)
	}
	if findings, err := db.Check(); err != nil || len(findings) > 0 {
		t.Fatalf("Check: %v, %v", findings, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixtureFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFormat1Fixture(t *testing.T) {
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "format1.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenPath(t, path, nil)
	a1, a2, b1, b2 := fixtureVersions()
	for _, c := range []struct {
		nv   *store.NewVersion
		want string
	}{{a1, fixtureA1ID}, {a2, fixtureA2ID}, {b1, fixtureB1ID}, {b2, fixtureB2ID}} {
		if c.nv.Version.ID != c.want {
			t.Fatalf("VersionID(%q, ...) = %s, want %s: version ids are derived differently than in format 1",
				c.nv.Version.DocumentID, c.nv.Version.ID, c.want)
		}
	}

	wantDocs := []*store.Document{
		{ID: "alpha", Current: fixtureA2ID, Versions: []string{fixtureA1ID, fixtureA2ID}, ACL: []string{"analyst@example.com"}},
		{ID: "beta", Current: fixtureB2ID, Versions: []string{fixtureB1ID, fixtureB2ID}},
	}
	var docs []*store.Document
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEachDocument(func(d *store.Document) error { docs = append(docs, d); return nil })
	})
	if diff := cmp.Diff(wantDocs, docs, cmpopts.IgnoreFields(store.Document{}, "Updated"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}

	wantVersions := []struct {
		nv     *store.NewVersion
		seq    uint64
		status store.Status
		quar   int
	}{
		{a1, 1, store.StatusSuperseded, 0},
		{a2, 2, store.StatusCurrent, 1},
		{b1, 3, store.StatusDeleted, 0},
		{b2, 4, store.StatusCurrent, 0},
	}
	for _, w := range wantVersions {
		v := getVersion(t, db, w.nv.Version.ID)
		want := w.nv.Version
		want.Seq, want.Status, want.Chunks, want.Quarantined = w.seq, w.status, len(w.nv.Chunks), w.quar
		if want.ID == fixtureA2ID {
			want.Repaired = 1
		}
		if want.DocumentID == "alpha" { // every version carries the document's access list
			want.ACL = []string{"analyst@example.com"}
		}
		if diff := cmp.Diff(&want, v, cmpopts.IgnoreFields(store.Version{}, "Created", "Deleted")); diff != "" {
			t.Errorf("version %s (-want +got):\n%s", w.nv.Version.DocumentID, diff)
		}
		if v.Created.IsZero() {
			t.Errorf("version %s: Created is the zero time", v.ID)
		}
		// A live version has no deletion time. Format-1 files hold
		// time.Time{}.UnixNano() there (see TestRecordZeroTime): a reader
		// must decode that as the zero time.
		if deleted := v.Status == store.StatusDeleted; deleted == v.Deleted.IsZero() {
			t.Errorf("version %s (%s): Deleted got %v, want zero %v", v.ID, v.Status, v.Deleted, !deleted)
		}
		if w.status == store.StatusDeleted {
			checkDeleted(t, db, v.ID)
		} else {
			checkContent(t, db, w.nv)
		}
	}

	var quarantined []string
	view(t, db, func(tx *store.Tx) error {
		if err := tx.ForEachRepaired(func(v *store.Version, c *store.Chunk) error {
			if got := c.ID() + " " + c.Repair.Method + " " + fmt.Sprint(c.Repair.ClaimedStart); got != fixtureA2ID+"-2 fuzzy 41" {
				t.Errorf("repaired chunk: got %s, want %s-2 fuzzy 41", got, fixtureA2ID)
			}
			return nil
		}); err != nil {
			return err
		}
		return tx.ForEachQuarantined(func(v *store.Version, c *store.Chunk) error {
			quarantined = append(quarantined, c.ID()+" "+c.Quarantine.Reason)
			return nil
		})
	})
	if want := []string{store.ChunkID(fixtureA2ID, 1) + " text_mismatch"}; !slices.Equal(quarantined, want) {
		t.Errorf("quarantined: got %v, want %v", quarantined, want)
	}
	fs := failures(t, db)
	if len(fs) != 1 || fs[0].DocumentID != "gamma.pdf" || fs[0].Reason != "encrypted" {
		t.Errorf("failures: got %+v, want gamma.pdf encrypted", fs)
	}
}
