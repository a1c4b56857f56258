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

var writeFixture = flag.Bool("write-fixture", false, "write testdata/formatN.db for this build's FormatVersion N (once, when the format is bumped)")

// fixtureFile is the kept fixture of format 1, which other tests copy.
const fixtureFile = "testdata/format1.db"

// fixtureHashes pins each kept fixture, testdata/formatN.db, by its
// BLAKE3: a fixture is written once, by the build that introduced its
// format (TestWriteFormatFixture -write-fixture), and never again, so
// that it stays a store of that format as released.
var fixtureHashes = map[int]string{
	1: "9557c4ba2f670fad228b27f8ee5212ed5ff3140f7d2ebcf1382851d5e43bc9d4",
	2: "d6fcc98657ba85eab5999328f55d05617cb980e6c6e325235271ae568c0c3c2e",
}

// Contents of each testdata/formatN.db:
//
//	alpha: a1 superseded; a2 current, 3 pages with labels and sections,
//	       chunk 1 quarantined (text_mismatch), access list [analyst@example.com]
//	beta:  b1 deleted (a tombstone); b2 current
//	failures: gamma.pdf (encrypted)
//	from format 2: a trace with its summary, a review, an evaluation run
//
// Sequence numbers follow the order of the puts: a1=1, a2=2, b1=3, b2=4.
// TestFormatFixtures reads a copy of each as it is, and migrated when it
// is older than FormatVersion. A change of the format that breaks old
// stores makes it fail: bump FormatVersion and migrate from the old one.
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
	file := fmt.Sprintf("testdata/format%d.db", store.FormatVersion)
	if !*writeFixture {
		t.Skip("run with -write-fixture to write " + file)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatalf("%s exists and is kept: a change of the format bumps FormatVersion and writes a new fixture", file)
	}
	tmp := filepath.Join(t.TempDir(), "fixture.db")
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
	if err := db.PutTraceRecord(store.TraceRecord{ID: fixtureTrace, Trace: []byte(fixtureTraceJSON), Summary: []byte(fixtureSummary)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutReviews([]store.Review{{TraceID: fixtureTrace, ClaimID: "c1", Judge: "j", JudgeLabel: "supported", HumanLabel: "unsupported"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutEvalRun(fixtureRun, []byte(fixtureRunJSON)); err != nil {
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
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s, BLAKE3 %s: pin it in fixtureHashes", file, store.Hash(b))
}

// The JSON records of the fixtures from format 2.
const (
	fixtureTrace     = "0190f3a2b4c5-fixture"
	fixtureTraceJSON = `{"trace_id":"0190f3a2b4c5-fixture","report":{"disposition":"accept"}}`
	fixtureSummary   = `{"v":1,"disposition":"accept"}`
	fixtureRun       = "0190f3a2b4c6-fixture"
	fixtureRunJSON   = `{"run_id":"0190f3a2b4c6-fixture","questions":1}`
)

// TestFormatFixturesKept: every kept fixture is there and unchanged, and
// there is one for this build's format.
func TestFormatFixturesKept(t *testing.T) {
	for f := 1; f <= store.FormatVersion; f++ {
		b, err := os.ReadFile(fmt.Sprintf("testdata/format%d.db", f))
		if err != nil {
			t.Errorf("format %d: %v (every format keeps its fixture)", f, err)
			continue
		}
		if got := store.Hash(b).String(); got != fixtureHashes[f] {
			t.Errorf("testdata/format%d.db has BLAKE3 %s, pinned %q: a kept fixture is never rewritten", f, got, fixtureHashes[f])
		}
	}
}

// TestFormatFixtures reads every kept fixture as it is (read-only, as
// this build reads an older format without migrating it), and migrated to
// this build's format, then writable.
func TestFormatFixtures(t *testing.T) {
	for f := 1; f <= store.FormatVersion; f++ {
		for _, migrate := range []bool{false, true} {
			t.Run(fmt.Sprintf("format%d/migrated=%v", f, migrate), func(t *testing.T) {
				b, err := os.ReadFile(fmt.Sprintf("testdata/format%d.db", f))
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "fixture.db")
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				opts := &store.Options{ReadOnly: true}
				if migrate {
					rep, err := store.Migrate(path, nil)
					if err != nil {
						t.Fatalf("Migrate: %v", err)
					}
					if rep.From != f || rep.To != store.FormatVersion {
						t.Errorf("Migrate: from %d to %d, want %d to %d", rep.From, rep.To, f, store.FormatVersion)
					}
					if f < 2 && (rep.Sealed["failures"] != 1 || rep.Texts != 3) {
						t.Errorf("Migrate from format %d sealed %v and %d texts, want the failure and the 3 live texts", f, rep.Sealed, rep.Texts)
					}
					if f == store.FormatVersion && (len(rep.Sealed) > 0 || rep.Texts > 0) {
						t.Errorf("Migrate of a current store did %+v, want nothing", rep)
					}
					opts = nil
				}
				db := storetest.OpenPath(t, path, opts)
				if migrate || f == store.FormatVersion {
					checkAllSealed(t, db)
				}
				checkFixture(t, db, f)
			})
		}
	}
}

// checkAllSealed: every JSON record and text index of db is sealed.
func checkAllSealed(t *testing.T, db *store.DB) {
	t.Helper()
	if unsealed := store.Unsealed(db); len(unsealed) > 0 {
		t.Errorf("unsealed records: %v", unsealed)
	}
}

func checkFixture(t *testing.T, db *store.DB, format int) {
	t.Helper()
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
	if diff := cmp.Diff(wantDocs, docs, cmpopts.IgnoreFields(store.Document{}, "Updated", "ACLUpdated", "URLUpdated"), cmpopts.EquateEmpty()); diff != "" {
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
	if format < 2 {
		return
	}
	view(t, db, func(tx *store.Tx) error {
		if tr, err := tx.Trace(fixtureTrace); err != nil || string(tr) != fixtureTraceJSON {
			t.Errorf("trace: got %q, %v", tr, err)
		}
		var summaries []string
		if err := tx.ForEachTraceSummary("", func(id, summary []byte, _ func() ([]byte, error)) error {
			summaries = append(summaries, string(id)+" "+string(summary))
			return nil
		}); err != nil {
			return err
		}
		if want := []string{fixtureTrace + " " + fixtureSummary}; !slices.Equal(summaries, want) {
			t.Errorf("trace summaries: got %q, want %q", summaries, want)
		}
		if r, err := tx.Review(fixtureTrace, "c1"); err != nil || r.HumanLabel != "unsupported" {
			t.Errorf("review: got %+v, %v", r, err)
		}
		if run, err := tx.EvalRun(fixtureRun); err != nil || string(run) != fixtureRunJSON {
			t.Errorf("evaluation run: got %q, %v", run, err)
		}
		return nil
	})
}

// openMigrated migrates the store at path to this build's format, as
// `evidence migrate` does, and opens it writable.
func openMigrated(t *testing.T, path string) *store.DB {
	t.Helper()
	if _, err := store.Migrate(path, nil); err != nil {
		t.Fatalf("Migrate %s: %v", path, err)
	}
	return storetest.OpenPath(t, path, nil)
}
