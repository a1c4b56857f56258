package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// storedVersion reads a document's current version, text, layout and
// chunks.
type storedVersion struct {
	version *store.Version
	text    []byte
	layout  *store.Layout
	chunks  []store.Chunk
}

func readStored(t *testing.T, db *store.DB, id string) storedVersion {
	t.Helper()
	var sv storedVersion
	err := db.View(func(tx *store.Tx) error {
		d, err := tx.Document(id)
		if err != nil {
			return err
		}
		if sv.version, err = tx.Version(d.Current); err != nil {
			return err
		}
		txt, err := tx.Text(sv.version)
		if err != nil {
			return err
		}
		sv.text = append([]byte(nil), txt.Bytes()...)
		if sv.layout, err = tx.Layout(sv.version); err != nil {
			return err
		}
		return tx.ForEachChunk(sv.version, func(c *store.Chunk) error {
			sv.chunks = append(sv.chunks, *c)
			return nil
		})
	})
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return sv
}

// TestRunSourceSameAsRun: RunSource of a file's bytes stores what a Run of
// the file stores (version id, hashes, fingerprint, text, layout, chunks),
// reports the same result, and writes no temporary file.
func TestRunSourceSameAsRun(t *testing.T) {
	dir := sampleDir(t)
	names := []string{"credit-agreement-summary.txt", "data-retention.md", "expense-policy.md", "security-faq.html"}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fromFile := storetest.Open(t)
			fileSum := run(t, fromFile, []string{path}, Options{Workers: 1})

			fromBytes := storetest.Open(t)
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			srcSum, err := RunSource(context.Background(), fromBytes, Source{Name: name, Bytes: b}, withWorker(Options{Workers: 1}))
			if err != nil {
				t.Fatalf("RunSource: %v", err)
			}
			if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
				t.Errorf("RunSource left %d entries in TMPDIR (%v), want none", len(left), err)
			}

			if len(fileSum.Results) != 1 || len(srcSum.Results) != 1 {
				t.Fatalf("got %d and %d results, want 1 each", len(fileSum.Results), len(srcSum.Results))
			}
			fr, sr := *fileSum.Results[0], *srcSum.Results[0]
			if sr.Status != Ingested || sr.Path != name || sr.DocumentID != name {
				t.Errorf("RunSource result: status %s, path %q, id %q: want ingested, %q, %q", sr.Status, sr.Path, sr.DocumentID, name, name)
			}
			fr.Path, sr.Path = "", ""
			if !reflect.DeepEqual(fr, sr) {
				t.Errorf("results differ:\nRun:       %+v\nRunSource: %+v", fr, sr)
			}
			if srcSum.Ingested != 1 || srcSum.Chunks != fileSum.Chunks || srcSum.SourceBytes != int64(len(b)) {
				t.Errorf("summary: %d ingested, %d chunks, %d bytes: want 1, %d, %d", srcSum.Ingested, srcSum.Chunks, srcSum.SourceBytes, fileSum.Chunks, len(b))
			}

			fv, sv := readStored(t, fromFile, name), readStored(t, fromBytes, name)
			if sv.version.SourcePath != name || sv.version.SourceURL != UploadURLPrefix+name {
				t.Errorf("source path %q, URL %q: want %q, %q", sv.version.SourcePath, sv.version.SourceURL, name, UploadURLPrefix+name)
			}
			// Where the bytes came from and when they were stored differ; nothing else may.
			for _, v := range []*store.Version{fv.version, sv.version} {
				v.SourcePath, v.SourceURL, v.Created = "", "", time.Time{}
			}
			if fv.version.ID == "" || !reflect.DeepEqual(fv.version, sv.version) {
				t.Errorf("versions differ:\nRun:       %+v\nRunSource: %+v", fv.version, sv.version)
			}
			if string(fv.text) != string(sv.text) || !reflect.DeepEqual(fv.layout, sv.layout) {
				t.Errorf("canonical text or layout differ")
			}
			if len(fv.chunks) == 0 || !reflect.DeepEqual(fv.chunks, sv.chunks) {
				t.Errorf("chunks differ: %d from the file, %d from the bytes", len(fv.chunks), len(sv.chunks))
			}
		})
	}
}

// TestRunSourceInput: bad names and options are refused naming the
// problem, an unsupported, empty or too large source is a failed result
// with its reason, and the id and URL options apply as for a file.
func TestRunSourceInput(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"", Options{}},
		{"..", Options{}},
		{"dir/a.md", Options{}},
		{`dir\a.md`, Options{}},
		{"a.md", Options{Base: "."}},
		{"a.md", Options{TextFile: "text.txt"}},
	} {
		if _, err := RunSource(ctx, db, Source{Name: tt.name, Bytes: []byte("# a\n\ntext")}, tt.opts); !errors.Is(err, ErrOptions) {
			t.Errorf("name %q, %+v: got %v, want ErrOptions", tt.name, tt.opts, err)
		}
	}
	for _, tt := range []struct {
		name, src, reason string
		max               int64
	}{
		{"a.exe", "MZ", ReasonUnsupported, 0},
		{"blank.md", "  \n\n ", ReasonEmpty, 0},
		{"nothing.md", "", ReasonEmpty, 0},
		{"big.md", "# big\n\nmore than ten bytes", ReasonTooLarge, 10},
	} {
		sum, err := RunSource(ctx, db, Source{Name: tt.name, Bytes: []byte(tt.src)}, Options{MaxBytes: tt.max})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if r := sum.Results[0]; r.Status != Failed || r.Reason != tt.reason || r.Path != tt.name {
			t.Errorf("%s: got %s %s path %q (%s), want failed %s path %q", tt.name, r.Status, r.Reason, r.Path, r.Error, tt.reason, tt.name)
		}
	}
	sum, err := RunSource(ctx, db, Source{Name: "p.md", Bytes: []byte("# p\n\nsome text")}, Options{ID: "policies/p.md", URL: "https://example.com/p"})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Results[0]; r.Status != Ingested || r.DocumentID != "policies/p.md" {
		t.Fatalf("with an id: got %s %q, want ingested policies/p.md", r.Status, r.DocumentID)
	}
	if v := readStored(t, db, "policies/p.md").version; v.SourceURL != "https://example.com/p" {
		t.Errorf("source URL %q, want the one given", v.SourceURL)
	}
	sum, err = RunSource(ctx, db, Source{Name: "q.md", Bytes: []byte("# q\n\nother text")}, Options{ID: "q b.md"})
	if err != nil {
		t.Fatal(err)
	}
	if v := readStored(t, db, "q b.md").version; sum.Ingested != 1 || v.SourceURL != UploadURLPrefix+"q%20b.md" {
		t.Errorf("without a URL: source URL %q, want %q", v.SourceURL, UploadURLPrefix+"q%20b.md")
	}
}

// TestRunSourceCanceled: once the context is done nothing is written, not
// the version and not a failure record.
func TestRunSourceCanceled(t *testing.T) {
	db := storetest.Open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"a.md", "a.exe"} {
		if _, err := RunSource(ctx, db, Source{Name: name, Bytes: []byte("# a\n\ntext")}, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %v, want context.Canceled", name, err)
		}
	}
	err := db.View(func(tx *store.Tx) error {
		if err := tx.ForEachDocument(func(d *store.Document) error { return errors.New("stored " + d.ID) }); err != nil {
			return err
		}
		return tx.ForEachFailure(func(f *store.Failure) error { return errors.New("recorded a failure of " + f.Path) })
	})
	if err != nil {
		t.Errorf("after the context was done: %v", err)
	}
}

// TestRunSourceImportInMemory: an import's manifest and text given to
// RunSource as bytes store what the same import from files stores (the
// version id, which hashes the manifest, and every chunk), with no file
// written; bad combinations are ErrOptions, and a broken manifest fails
// naming "manifest".
func TestRunSourceImportInMemory(t *testing.T) {
	const name = "data-retention.md"
	src, err := os.ReadFile(filepath.Join(sampleDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	manifestPath := filepath.Join("testdata", "import", name+".langchain.jsonl")
	manifest, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fromFile := storetest.Open(t)
	fileSum, err := RunSource(ctx, fromFile, Source{Name: name, Bytes: src}, Options{Chunks: manifestPath})
	if err != nil {
		t.Fatal(err)
	}
	fromBytes := storetest.Open(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	memSum, err := RunSource(ctx, fromBytes, Source{Name: name, Bytes: src, Manifest: manifest}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("an import in memory left %d entries in TMPDIR", len(left))
	}
	fr, mr := fileSum.Results[0], memSum.Results[0]
	if fr.Status != Ingested || mr.Status != Ingested || fr.DocumentVersion != mr.DocumentVersion || fr.Chunks != mr.Chunks || mr.ChunksFormat != FormatLangChain {
		t.Fatalf("from file %s %s (%d chunks), from memory %s %s (%d chunks, format %q): want one ingested version",
			fr.Status, fr.DocumentVersion, fr.Chunks, mr.Status, mr.DocumentVersion, mr.Chunks, mr.ChunksFormat)
	}
	if fc, mc := readStored(t, fromFile, name).chunks, readStored(t, fromBytes, name).chunks; !reflect.DeepEqual(fc, mc) {
		t.Errorf("the chunks differ between the import from a file and from memory")
	}

	for _, tt := range []struct {
		what string
		src  Source
		opts Options
	}{
		{"text without a manifest", Source{Name: name, Bytes: src, Text: src}, Options{}},
		{"a manifest in memory and in a file", Source{Name: name, Bytes: src, Manifest: manifest}, Options{Chunks: manifestPath}},
	} {
		if _, err := RunSource(ctx, storetest.Open(t), tt.src, tt.opts); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: got %v, want ErrOptions", tt.what, err)
		}
	}
	sum, err := RunSource(ctx, storetest.Open(t), Source{Name: name, Bytes: src, Manifest: []byte("not json\n")}, Options{MaxQuarantined: &QuarantineLimit{}})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Results[0]; r.Status == Ingested || !strings.Contains(r.Error, "manifest") {
		t.Errorf("a broken manifest in memory: got %s %q, want a failure naming the manifest", r.Status, r.Error)
	}
}
