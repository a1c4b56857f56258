package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

func sampleDir(t *testing.T) string {
	t.Helper()
	dir, err := corpus.SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(t *testing.T, db Store, paths []string, opts Options) *Summary {
	t.Helper()
	sum, err := Run(context.Background(), db, paths, withWorker(opts))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

func resultFor(t *testing.T, sum *Summary, id string) *Result {
	t.Helper()
	for _, r := range sum.Results {
		if r.DocumentID == id {
			return r
		}
	}
	t.Fatalf("no result for document %q", id)
	return nil
}

// TestRunSample ingests the sample corpus, checks every chunk resolves to
// its stored span, and that a second run writes nothing.
func TestRunSample(t *testing.T) {
	db := storetest.Open(t)
	dir := sampleDir(t)
	sum := run(t, db, []string{dir}, Options{Workers: 2})
	if sum.Failed != 0 || sum.Ingested != len(sum.Results) || sum.Ingested < 4 {
		t.Fatalf("got %d ingested, %d failed of %d, want all of at least 4 ingested", sum.Ingested, sum.Failed, len(sum.Results))
	}
	if sum.Quarantined != 0 {
		t.Errorf("got %d quarantined chunks of our own chunker, want 0", sum.Quarantined)
	}
	pages := resultFor(t, sum, "credit-agreement-summary.txt").Pages
	if pages != 3 {
		t.Errorf("credit-agreement-summary.txt: got %d pages, want 3 (two form feeds)", pages)
	}
	// Every chunk resolves to canonical_text[start:end] of its version.
	n := 0
	err := db.View(func(tx *store.Tx) error {
		return tx.ForEachDocument(func(d *store.Document) error {
			v, err := tx.Version(d.Current)
			if err != nil {
				return err
			}
			txt, err := tx.Text(v)
			if err != nil {
				return err
			}
			runes := []rune(string(txt.Bytes()))
			return tx.ForEachChunk(v, func(c *store.Chunk) error {
				r, err := resolve.ChunkTx(tx, c.ID(), "")
				if err != nil {
					return err
				}
				if r.Status != resolve.StatusOK || r.Text != string(runes[c.Start:c.End]) {
					t.Errorf("%s: got status %s text %q, want ok and %q", c.ID(), r.Status, r.Text, string(runes[c.Start:c.End]))
				}
				n++
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != sum.Chunks {
		t.Errorf("resolved %d chunks, summary says %d", n, sum.Chunks)
	}

	before := fileDigest(t, db.Path())
	again := run(t, db, []string{dir}, Options{Workers: 2})
	if again.Unchanged != len(sum.Results) {
		t.Errorf("second run: got %d unchanged of %d, want all", again.Unchanged, len(again.Results))
	}
	if after := fileDigest(t, db.Path()); after != before {
		t.Errorf("second run changed the store file")
	}
}

func fileDigest(t *testing.T, path string) store.ID {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return store.Hash(b)
}

func TestRunSupersedeAndRestore(t *testing.T) {
	db := storetest.Open(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "policy.md")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# Policy\n\nSubmit reports within 14 days.\n")
	v1 := resultFor(t, run(t, db, []string{p}, Options{}), "policy.md")
	write("# Policy\n\nSubmit reports within 30 days.\n")
	r2 := resultFor(t, run(t, db, []string{p}, Options{}), "policy.md")
	if r2.Status != Ingested || r2.Superseded != v1.DocumentVersion || r2.DocumentVersion == v1.DocumentVersion {
		t.Fatalf("changed bytes: got status %s superseding %q as %s, want a new version superseding %s", r2.Status, r2.Superseded, r2.DocumentVersion, v1.DocumentVersion)
	}
	old, err := resolve.Chunk(db, store.ChunkID(v1.DocumentVersion, 0), "")
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != resolve.StatusSuperseded || !strings.Contains(old.Text, "14 days") || old.CurrentVersion != r2.DocumentVersion {
		t.Errorf("old chunk: got %s %q current %s, want superseded text with 14 days and current %s", old.Status, old.Text, old.CurrentVersion, r2.DocumentVersion)
	}
	// New chunk settings are a new version too.
	r3 := resultFor(t, run(t, db, []string{p}, Options{Chunk: ChunkOptions{Size: 20, Overlap: 5}}), "policy.md")
	if r3.Status != Ingested || r3.DocumentVersion == r2.DocumentVersion || r3.Chunks < 2 {
		t.Errorf("rebuild with other settings: got %s %s with %d chunks, want a new version of several chunks", r3.Status, r3.DocumentVersion, r3.Chunks)
	}
	// Back to the first bytes and settings (explicit: a plain ingest cuts
	// as the current version was, size 20).
	write("# Policy\n\nSubmit reports within 14 days.\n")
	r4 := resultFor(t, run(t, db, []string{p}, Options{Chunk: DefaultChunkOptions}), "policy.md")
	if r4.Status != Ingested || !r4.Restored || r4.DocumentVersion != v1.DocumentVersion {
		t.Errorf("back to the first bytes: got %s restored=%v %s, want ingested, restored, %s", r4.Status, r4.Restored, r4.DocumentVersion, v1.DocumentVersion)
	}
}

// TestRunBadInputs: every bad file fails with its reason and a message that
// names it; every good file of the same batch is stored; files of the walk
// of a type without an extractor are skipped, with their reason, not failed.
func TestRunBadInputs(t *testing.T) {
	db := storetest.Open(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"good.md":       []byte("# Good\n\nText.\n"),
		"good.txt":      []byte("page one\fpage two\n"),
		"binary.txt":    []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"),
		"latin1.md":     []byte("# Caf\xe9\n"),
		"empty.md":      {},
		"blank.txt":     []byte(" \n\t\n"),
		"script.html":   []byte("<html><script>var x = 1;</script></html>"),
		"report.pdf":    []byte("%PDF-1.7"),
		"notes.docx":    []byte("PK\x03\x04"),
		"notes.unknown": []byte("x"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "vanished.md")
	sum := run(t, db, []string{dir, missing, filepath.Join(dir, "notes.docx")}, Options{})
	want := map[string]string{
		"good.md": Ingested, "good.txt": Ingested,
	}
	reasons := map[string]string{
		"binary.txt": ReasonBinary, "latin1.md": ReasonInvalidUTF8, "empty.md": ReasonEmpty,
		"blank.txt": ReasonEmpty, "script.html": ReasonEmpty, "vanished.md": ReasonUnreadable, "notes.docx": ReasonUnsupported,
		"report.pdf": ReasonMalformed,
	}
	seen, skipped := map[string]bool{}, map[string]bool{}
	for _, r := range sum.Results {
		name := filepath.Base(r.Path)
		if r.Status == Skipped {
			skipped[name] = true
			if r.Reason != ReasonUnsupported || filepath.Dir(r.Path) != dir || !strings.Contains(r.Error, name) {
				t.Errorf("%s: skipped with reason %q, error %q, want unsupported, found in the walk, named", r.Path, r.Reason, r.Error)
			}
			continue
		}
		seen[name] = true
		if w, ok := want[name]; ok {
			if r.Status != w {
				t.Errorf("%s: got %s (%s), want %s", name, r.Status, r.Error, w)
			}
			continue
		}
		if r.Status != Failed || r.Reason != reasons[name] {
			t.Errorf("%s: got %s reason %q, want failed with %q", name, r.Status, r.Reason, reasons[name])
		}
		if !strings.Contains(r.Error, name) || strings.Contains(r.Error, "\n") {
			t.Errorf("%s: error %q does not name the file on one line", name, r.Error)
		}
	}
	for name := range reasons {
		if !seen[name] {
			t.Errorf("%s: no result", name)
		}
	}
	if sum.Ingested != 2 || sum.Failed != len(reasons) || sum.Skipped != 2 || !skipped["notes.docx"] || !skipped["notes.unknown"] {
		t.Errorf("got %d ingested %d failed, skipped %v, want 2, %d and notes.docx, notes.unknown", sum.Ingested, sum.Failed, skipped, len(reasons))
	}
	// Failures are recorded in the store.
	failures := 0
	if err := db.View(func(tx *store.Tx) error {
		return tx.ForEachFailure(func(*store.Failure) error { failures++; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if failures != len(reasons) {
		t.Errorf("got %d failure records, want %d", failures, len(reasons))
	}
}

// TestPrepareVanishedFile: a file removed between listing and reading fails
// cleanly with reason unreadable.
func TestPrepareVanishedFile(t *testing.T) {
	db := storetest.Open(t)
	p := prepare(db, source{path: filepath.Join(t.TempDir(), "gone.md"), id: "gone.md"}, Options{Chunk: DefaultChunkOptions, MaxBytes: DefaultMaxBytes})
	if p.version != nil || p.result.Status != Failed || p.result.Reason != ReasonUnreadable || !strings.Contains(p.result.Error, "gone.md") {
		t.Errorf("got %+v, want failed, unreadable, naming gone.md", p.result)
	}
}

func TestRunOptions(t *testing.T) {
	db := storetest.Open(t)
	dir := sampleDir(t)
	for _, opts := range []Options{
		{ID: "x", URL: ""}, // --id with a directory of several files
		{Chunk: ChunkOptions{Size: 100, Overlap: 100}}, // overlap must be below size
		{Chunk: ChunkOptions{Size: 100, Overlap: -1}},
	} {
		if _, err := Run(context.Background(), db, []string{dir}, opts); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: got %v, want ErrOptions", opts, err)
		}
	}
	// Too large: refused before reading.
	sum := run(t, db, []string{filepath.Join(dir, "expense-policy.md")}, Options{MaxBytes: 10})
	if r := sum.Results[0]; r.Reason != ReasonTooLarge {
		t.Errorf("got %s %q, want too_large", r.Status, r.Reason)
	}
	// Duplicate ids in one batch: the later file fails.
	sum = run(t, db, []string{filepath.Join(dir, "expense-policy.md"), filepath.Join(dir, "expense-policy.md")}, Options{})
	if sum.Failed != 1 || sum.Results[0].Reason+sum.Results[1].Reason != ReasonDuplicateID {
		t.Errorf("got %+v %+v, want one duplicate_id failure", sum.Results[0], sum.Results[1])
	}
}

// TestInjectedFaults injects wrong offsets, page, section and text into the
// claims of a real document before validation and checks that exactly those
// chunks are quarantined, with the right reason, and resolve says so.
func TestInjectedFaults(t *testing.T) {
	dir := sampleDir(t)
	src, err := os.ReadFile(filepath.Join(dir, "credit-agreement-summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "expense-policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Join a paged text and a sectioned one so every fault has something to miss.
	joined := append(append(md, '\f'), src...)
	ex, err := ExtractText(joined) // pages at form feeds
	if err != nil {
		t.Fatal(err)
	}
	exMD, err := ExtractMarkdown(joined) // sections from the Markdown headings
	if err != nil {
		t.Fatal(err)
	}
	ex.Layout.Sections = exMD.Layout.Sections
	txt := store.NewText([]byte(ex.Text))
	claims := OwnClaims(txt, &ex.Layout, Chunk(ex.Text, &ex.Layout, ChunkOptions{Size: 300, Overlap: 30}))
	if len(claims) < 10 || len(ex.Layout.PageStarts) < 2 || len(ex.Layout.Sections) < 3 {
		t.Fatalf("fixture too small: %d claims, %d pages, %d sections", len(claims), len(ex.Layout.PageStarts), len(ex.Layout.Sections))
	}
	faults := map[int]string{}
	inject := func(i int, reason string, f func(c *resolve.Claim)) {
		f(&claims[i])
		faults[i] = reason
	}
	inject(1, resolve.ReasonOutOfRange, func(c *resolve.Claim) { c.End = txt.Len() + 5 })
	inject(2, resolve.ReasonOutOfRange, func(c *resolve.Claim) { c.Start, c.End = -1, 10 })
	inject(3, resolve.ReasonTextMismatch, func(c *resolve.Claim) { c.Text = strings.Replace(c.Text, "e", "3", 1) })
	inject(4, resolve.ReasonTextMismatch, func(c *resolve.Claim) { c.Start++; c.End++ }) // stale offsets
	inject(5, resolve.ReasonPageMismatch, func(c *resolve.Claim) { c.Page++ })
	inject(6, resolve.ReasonSectionMismatch, func(c *resolve.Claim) { c.Section = []string{"Some other section"} })
	inject(7, resolve.ReasonPageLabelMismatch, func(c *resolve.Claim) { c.PageLabel = "iv" })
	last := len(claims) - 1
	inject(last, resolve.ReasonPageMismatch, func(c *resolve.Claim) { c.Page = 1 }) // a page-2 chunk claims page 1

	version := strings.Repeat("ab", store.VersionIDLen/2)
	chunks := BuildChunks(version, txt, &ex.Layout, claims)
	for i, c := range chunks {
		want, faulty := faults[i]
		switch {
		case faulty && (c.Quarantine == nil || c.Quarantine.Reason != want):
			t.Errorf("chunk %d: got quarantine %+v, want reason %s", i, c.Quarantine, want)
		case !faulty && c.Quarantine != nil:
			t.Errorf("chunk %d: got quarantined %+v, want accepted", i, c.Quarantine)
		}
	}

	// Stored and resolved: quarantined chunks answer quarantined, never text.
	db := storetest.Open(t)
	nv := &store.NewVersion{Version: store.Version{ID: version, DocumentID: "joined.md", SourceHash: store.Hash(md),
		TextHash: store.Hash(txt.Bytes()), MediaType: ex.MediaType, TextLen: txt.Len(), TextBytes: len(txt.Bytes()),
		Pages: len(ex.Layout.PageStarts)}, Text: txt, Layout: ex.Layout, Chunks: chunks}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	for i := range chunks {
		r, err := resolve.Chunk(db, store.ChunkID(version, uint32(i)), "")
		if err != nil {
			t.Fatal(err)
		}
		if want, faulty := faults[i]; faulty {
			if r.Status != resolve.StatusQuarantined || r.Reason != want || r.Text != "" {
				t.Errorf("resolve chunk %d: got %s %s %q, want quarantined %s without text", i, r.Status, r.Reason, r.Text, want)
			}
		} else if r.Status != resolve.StatusOK {
			t.Errorf("resolve chunk %d: got %s, want ok", i, r.Status)
		}
	}
	findings, _, err := resolve.Audit(db)
	if err != nil || len(findings) != 0 {
		t.Errorf("audit: got %v %v, want clean (quarantined chunks are known, not findings)", findings, err)
	}
}

// TestChunkTables is the golden table of chunks for the sample documents.
func TestChunkTables(t *testing.T) {
	dir := sampleDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			ex, err := extractTest(e.Name(), src)
			if err != nil {
				t.Fatal(err)
			}
			txt := store.NewText([]byte(ex.Text))
			var b strings.Builder
			fmt.Fprintf(&b, "# %s: %d code points, %d pages, %d sections\n# ordinal start end page page_end section | head\n",
				ex.MediaType, txt.Len(), len(ex.Layout.PageStarts), len(ex.Layout.Sections))
			claims := OwnClaims(txt, &ex.Layout, Chunk(ex.Text, &ex.Layout, ChunkOptions{Size: 400, Overlap: 40}))
			for _, c := range BuildChunks("v", txt, &ex.Layout, claims) {
				if c.Quarantine != nil {
					t.Errorf("chunk %d quarantined: %+v", c.Ordinal, c.Quarantine)
				}
				span, _ := txt.Slice(c.Start, c.End)
				head := []rune(string(span))
				head = head[:min(len(head), 40)]
				fmt.Fprintf(&b, "%d %d %d %d %d %q | %q\n", c.Ordinal, c.Start, c.End, c.Page, c.PageEnd,
					strings.Join(c.SectionPath, " > "), string(head))
			}
			checkGolden(t, filepath.Join("chunks", e.Name()+".golden"), []byte(b.String()))
		})
	}
}

// FuzzBuildChunks runs extraction, chunking and validation on arbitrary
// Markdown: no panic, every chunk our chunker cuts validates (none is
// quarantined), resolves to its text, and chunking again gives the same ids.
func FuzzBuildChunks(f *testing.F) {
	for _, name := range []string{"sample.md", "sample.txt"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b, 200, 20)
		}
	}
	f.Add([]byte("# a\n\nb é 東京\f## c\n\n"), 3, 1)
	f.Fuzz(func(t *testing.T, src []byte, size, overlap int) {
		size, overlap = 1+abs(size)%2000, abs(overlap)%1000
		if overlap >= size {
			overlap = size / 3
		}
		ex, err := ExtractMarkdown(src)
		if err != nil {
			return
		}
		txt := store.NewText([]byte(ex.Text))
		opts := ChunkOptions{Size: size, Overlap: overlap}
		chunks := BuildChunks("v", txt, &ex.Layout, OwnClaims(txt, &ex.Layout, Chunk(ex.Text, &ex.Layout, opts)))
		again := BuildChunks("v", txt, &ex.Layout, OwnClaims(txt, &ex.Layout, Chunk(ex.Text, &ex.Layout, opts)))
		if len(again) != len(chunks) {
			t.Fatalf("re-chunking gave %d chunks, first time %d", len(again), len(chunks))
		}
		for i, c := range chunks {
			if c.Quarantine != nil {
				t.Fatalf("chunk %d quarantined: %+v", i, c.Quarantine)
			}
			if again[i].Start != c.Start || again[i].End != c.End || again[i].SpanHash != c.SpanHash {
				t.Fatalf("chunk %d differs when re-chunked", i)
			}
			span, err := txt.Slice(c.Start, c.End)
			if err != nil || store.Hash(span) != c.SpanHash || string(txt.Bytes()[c.ByteStart:c.ByteEnd]) != string(span) {
				t.Fatalf("chunk %d does not resolve: %v", i, err)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
