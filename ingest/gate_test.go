package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

func TestParseQuarantineLimit(t *testing.T) {
	tests := []struct {
		in   string
		want QuarantineLimit
		err  string
	}{
		{"0", QuarantineLimit{}, ""},
		{"12", QuarantineLimit{Count: 12}, ""},
		{"5%", QuarantineLimit{Share: 0.05, IsShare: true}, ""},
		{"2.5%", QuarantineLimit{Share: 0.025, IsShare: true}, ""},
		{"100%", QuarantineLimit{Share: 1, IsShare: true}, ""},
		{"0.05", QuarantineLimit{Share: 0.05, IsShare: true}, ""},
		{"1.0", QuarantineLimit{Share: 1, IsShare: true}, ""},
		{"-1", QuarantineLimit{}, "at least 0"},
		{"101%", QuarantineLimit{}, "between 0% and 100%"},
		{"1.5", QuarantineLimit{}, "between 0 and 1"},
		{"five", QuarantineLimit{}, "not a number"},
		{"NaN%", QuarantineLimit{}, "not a number"},
		{"", QuarantineLimit{}, "not a number"},
	}
	for _, tt := range tests {
		got, err := ParseQuarantineLimit(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrOptions)):
			t.Errorf("%q: got error %v, want ErrOptions saying %q", tt.in, err, tt.err)
		case err == nil && got != tt.want:
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestQuarantineLimitExceeded(t *testing.T) {
	tests := []struct {
		limit              string
		quarantined, total int
		want               bool
	}{
		{"0", 0, 10, false},
		{"0", 1, 1000, true},
		{"3", 3, 10, false},
		{"3", 4, 10, true},
		{"5%", 5, 100, false}, // 5% of 100 allows 5
		{"5%", 6, 100, true},
		{"0.05", 1, 10, true},
		{"0.5", 5, 11, false},
		{"40%", 5, 11, true},
		{"100%", 11, 11, false},
	}
	for _, tt := range tests {
		l, err := ParseQuarantineLimit(tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Exceeded(tt.quarantined, tt.total); got != tt.want {
			t.Errorf("%s with %d of %d quarantined: got %v, want %v", tt.limit, tt.quarantined, tt.total, got, tt.want)
		}
	}
}

// currentOf is a document's current version and the number of versions it has.
func currentOf(t *testing.T, db *store.DB, id string) (string, int) {
	t.Helper()
	var cur string
	var n int
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(id)
		if err != nil {
			return err
		}
		cur, n = d.Current, len(d.Versions)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cur, n
}

// TestImportGate: an import over the limit is not stored, the current
// version stays current and keeps serving; the rejection is recorded as
// a failed ingest with the reason; within the limit it is stored.
func TestImportGate(t *testing.T) {
	db := storetest.Open(t)
	src := filepath.Join(sampleDir(t), "credit-agreement-summary.txt")
	drift := filepath.Join("testdata", "import", "drift-langchain.jsonl")
	good := resultFor(t, run(t, db, []string{src}, Options{}), "credit-agreement-summary.txt")

	sum := run(t, db, []string{src}, Options{Chunks: drift})
	r := sum.Results[0]
	if r.Status != Rejected || r.Reason != ReasonQuarantineLimit || r.Quarantined != 5 || sum.Rejected != 1 || sum.Ingested != 0 {
		t.Fatalf("got %+v, want rejected with 5 quarantined", r)
	}
	if r.QuarantineReasons[resolve.ReasonTextMismatch] != 3 || r.Offsets != OffsetsPage || r.PageBase == nil || *r.PageBase != 0 {
		t.Errorf("report: got reasons %v, %s, want 3 text_mismatch and offsets: page, pages from 0", r.QuarantineReasons, r.ImportConvention())
	}
	for _, want := range []string{"--text FILE", "--repair", "--offsets document|page", "--max-quarantined"} {
		if !strings.Contains(r.Hint, want) {
			t.Errorf("hint %q does not name %s", r.Hint, want)
		}
	}
	if !strings.Contains(r.Error, good.DocumentVersion+" stays current") {
		t.Errorf("error %q does not say the current version stays", r.Error)
	}
	if cur, n := currentOf(t, db, "credit-agreement-summary.txt"); cur != good.DocumentVersion || n != 1 {
		t.Errorf("after the rejection: current %s of %d versions, want %s of 1", cur, n, good.DocumentVersion)
	}
	if c, err := resolve.Chunk(db, store.ChunkID(good.DocumentVersion, 0), ""); err != nil || c.Status != resolve.StatusOK {
		t.Errorf("a chunk of the current version: got %v %v, want ok", c, err)
	}
	if c, err := resolve.Chunk(db, store.ChunkID(r.DocumentVersion, 0), ""); err != nil || c.Status != resolve.StatusNotFound {
		t.Errorf("a chunk of the rejected version: got %v %v, want not found", c, err)
	}
	var failures []*store.Failure
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachFailure(func(f *store.Failure) error { failures = append(failures, f); return nil })
	})
	if len(failures) != 1 || failures[0].Reason != ReasonQuarantineLimit {
		t.Errorf("failures: got %+v, want one quarantine_limit", failures)
	}

	// Within the limit: stored, current, and the failure record goes.
	r = run(t, db, []string{src}, Options{Chunks: drift, MaxQuarantined: &QuarantineLimit{Count: 5}}).Results[0]
	if r.Status != Ingested || r.Superseded != good.DocumentVersion {
		t.Fatalf("within the limit: got %+v, want ingested superseding %s", r, good.DocumentVersion)
	}
	failures = nil
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachFailure(func(f *store.Failure) error { failures = append(failures, f); return nil })
	})
	if len(failures) != 0 {
		t.Errorf("failures after a stored import: %+v", failures)
	}
	// Import settings need an import.
	if _, err := Run(context.Background(), db, []string{src}, Options{MaxQuarantined: &QuarantineLimit{}}); !errors.Is(err, ErrOptions) {
		t.Errorf("--max-quarantined without --chunks: got %v, want ErrOptions", err)
	}
	if _, err := Run(context.Background(), db, []string{src}, Options{Chunks: drift, Offsets: "pages"}); !errors.Is(err, ErrOptions) {
		t.Errorf("--offsets pages: got %v, want ErrOptions", err)
	}
}

// TestDryRun: a dry run of ingest and rebuild reports what would be
// stored, with the statuses a real run would give, and leaves the store
// file as it was.
func TestDryRun(t *testing.T) {
	db := storetest.Open(t)
	sample := sampleDir(t)
	src := filepath.Join(sample, "credit-agreement-summary.txt")
	sum := run(t, db, []string{sample}, Options{DryRun: true})
	if !sum.DryRun || sum.Ingested != 4 {
		t.Fatalf("dry run into an empty store: got %+v, want 4 would-be ingested", sum)
	}
	var docs int
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachDocument(func(*store.Document) error { docs++; return nil })
	})
	if docs != 0 {
		t.Fatalf("dry run stored %d documents", docs)
	}
	first := resultFor(t, run(t, db, []string{sample}, Options{}), "credit-agreement-summary.txt")
	before := fileDigest(t, db.Path())

	r := resultFor(t, run(t, db, []string{sample}, Options{DryRun: true, Chunk: ChunkOptions{Size: 300, Overlap: 30}}), "credit-agreement-summary.txt")
	if r.Status != Ingested || r.Superseded != first.DocumentVersion || r.Chunks <= first.Chunks {
		t.Errorf("new settings: got %+v, want a would-be version of more chunks superseding %s", r, first.DocumentVersion)
	}
	r = run(t, db, []string{src}, Options{DryRun: true, Chunks: filepath.Join("testdata", "import", "drift-langchain.jsonl")}).Results[0]
	if r.Status != Rejected {
		t.Errorf("import over the gate: got %s, want rejected", r.Status)
	}
	if after := fileDigest(t, db.Path()); after != before {
		t.Errorf("a dry run changed the store file")
	}
	// Back to the first settings after a real second version: restored.
	second := resultFor(t, run(t, db, []string{src}, Options{Chunk: ChunkOptions{Size: 300, Overlap: 30}}), "credit-agreement-summary.txt")
	before = fileDigest(t, db.Path())
	r = run(t, db, []string{src}, Options{DryRun: true, Chunk: DefaultChunkOptions}).Results[0]
	if r.Status != Ingested || !r.Restored || r.DocumentVersion != first.DocumentVersion || r.Superseded != second.DocumentVersion {
		t.Errorf("older settings again: got %+v, want %s restored superseding %s", r, first.DocumentVersion, second.DocumentVersion)
	}
	rs, err := Rebuild(context.Background(), db, []string{"credit-agreement-summary.txt"}, RebuildOptions{DryRun: true, Chunk: ChunkOptions{Size: 200, Overlap: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs.Results[0]; !rs.DryRun || r.Status != Ingested || r.Superseded != second.DocumentVersion {
		t.Errorf("rebuild: got %+v, want a would-be version superseding %s", r, second.DocumentVersion)
	}
	rs, err = Rebuild(context.Background(), db, []string{"credit-agreement-summary.txt"},
		RebuildOptions{DryRun: true, Chunks: filepath.Join("testdata", "import", "credit-agreement-summary.txt.whole.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	if r := rs.Results[0]; r.Status != Ingested || r.Quarantined != 0 || r.Offsets != OffsetsDocument {
		t.Errorf("rebuild with a manifest: got %+v, want 0 quarantined, offsets from the document", r)
	}
	if after := fileDigest(t, db.Path()); after != before {
		t.Errorf("a dry run changed the store file")
	}
	if cur, _ := currentOf(t, db, "credit-agreement-summary.txt"); cur != second.DocumentVersion {
		t.Errorf("current after dry runs: got %s, want %s", cur, second.DocumentVersion)
	}
}

// TestImportGateRealPDF: the case on real files. A manifest made
// over another extractor's text (pdftotext's, pypdf's), imported against
// our extraction of the PDF without --text, is rejected with the --text
// hint and the current version stays; given that text, it is accepted
// (pypdf's under PyPDFLoader's stripped convention).
func TestImportGateRealPDF(t *testing.T) {
	pdf, ok := corpus.Shared("pdf")
	if !ok {
		t.Skip("../shared/corpus not present: skipping the real-PDF import gate")
	}
	imp := filepath.Join("testdata", "import")
	for _, tc := range []struct {
		pdf, manifest, text string
		stripped            bool
	}{
		{"deb-lilypond-doc-pdf__changes.pdf", "deb-lilypond-doc-pdf__changes.pdftotext.txt.langchain.jsonl",
			filepath.Join(pdf, "deb-lilypond-doc-pdf__changes.pdftotext.txt"), false},
		// pypdf's text of pages 11-24 only: what the pipeline split, whatever the PDF holds besides.
		{"deb-python-reportlab-doc__reportlab-userguide.pdf", "reportlab-userguide-p11-24.txt.pypdf.jsonl",
			filepath.Join(imp, "reportlab-userguide-p11-24.txt"), true},
	} {
		t.Run(tc.pdf, func(t *testing.T) {
			db := storetest.Open(t)
			src := filepath.Join(pdf, tc.pdf)
			good := run(t, db, []string{src}, Options{Workers: 1}).Results[0]
			if good.Status != Ingested {
				t.Fatalf("plain ingest: %+v", good)
			}
			r := run(t, db, []string{src}, Options{Workers: 1, Chunks: filepath.Join(imp, tc.manifest)}).Results[0]
			if r.Status != Rejected || !strings.Contains(r.Hint, "--text FILE") || r.Quarantined*2 < r.Quarantined+r.Chunks {
				t.Fatalf("without --text: got %s, %d chunks, %d quarantined, hint %q; want rejected, most quarantined, --text named", r.Status, r.Chunks, r.Quarantined, r.Hint)
			}
			if cur, n := currentOf(t, db, good.DocumentID); cur != good.DocumentVersion || n != 1 {
				t.Errorf("current %s of %d versions, want %s of 1", cur, n, good.DocumentVersion)
			}
			r = run(t, db, []string{src}, Options{Workers: 1, Chunks: filepath.Join(imp, tc.manifest), TextFile: tc.text}).Results[0]
			if r.Status != Ingested || r.Quarantined != 0 || r.Offsets != OffsetsPage || r.PageStripped != tc.stripped {
				t.Errorf("with --text: got %s, %d quarantined, %s; want ingested, none quarantined, page-relative (stripped %v)", r.Status, r.Quarantined, r.ImportConvention(), tc.stripped)
			}
		})
	}
}
