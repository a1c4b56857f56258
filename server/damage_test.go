package server

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// flipInFile flips one bit of the store file under a running store, at
// the byte off bytes after each occurrence of needle (freed pages may
// hold old copies of a record), and returns a function that undoes it.
func flipInFile(t *testing.T, path string, needle []byte, off int) (restore func()) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(raw)
	n := 0
	for i := 0; ; {
		j := bytes.Index(raw[i:], needle)
		if j < 0 {
			break
		}
		damaged[i+j+off] ^= 0x04
		i += j + len(needle)
		n++
	}
	if n == 0 {
		t.Fatal("needle not in the store file")
	}
	write := func(b []byte) {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b, 0); err != nil {
			t.Fatal(err)
		}
	}
	write(damaged)
	return func() { write(raw) }
}

// TestServeCorruptRecordRefused: a chunk record that fails its seal is
// answered 500 with the reason, counted in the metric, and nothing of the
// chunk is served (the CLI exits 7: cmd/evidence TestResolveCorruptRecord).
func TestServeCorruptRecordRefused(t *testing.T) {
	e := newTestEnv(t, false)
	id := e.chunkIDs("expense-policy.md")[0]
	var hash store.ID
	var text string
	err := e.db.View(func(tx *store.Tx) error {
		version, ord, _ := store.ParseChunkID(id)
		v, err := tx.Version(version)
		if err != nil {
			return err
		}
		c, err := tx.Chunk(v, ord)
		if err != nil {
			return err
		}
		span, err := tx.Span(v, c)
		hash, text = c.SpanHash, string(span)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	restore := flipInFile(t, e.db.Path(), hash[:], len(hash)) // the byte offset after the span hash
	defer restore()
	r := e.do(request{path: "/v1/chunks/" + id})
	var body struct {
		Error struct{ Code, Message, Reason string } `json:"error"`
	}
	r.decode(t, &body)
	if r.status != 500 || body.Error.Code != "internal" || body.Error.Reason != store.CorruptChecksum {
		t.Errorf("damaged chunk record: got %d %+v, want 500 internal with reason checksum", r.status, body.Error)
	}
	if bytes.Contains(r.body, []byte(text[:min(20, len(text))])) {
		t.Errorf("the answer holds the chunk's text: %s", r.body)
	}
	m := e.do(request{path: "/metrics"})
	if !bytes.Contains(m.body, []byte(`evidence_store_corrupt_reads_total{reason="checksum"} 1`)) {
		t.Errorf("metrics lack one checksum refusal:\n%s", grepLines(m.body, "corrupt"))
	}
}

func grepLines(b []byte, word string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestServeRefusesReversedRangeAndNull: a reversed range is a 400, not an
// empty 200; a null body is refused like any body that is not an object.
func TestServeRefusesReversedRangeAndNull(t *testing.T) {
	e := newTestEnv(t, false)
	version, _, _ := store.ParseChunkID(e.chunkIDs("expense-policy.md")[0])
	if r := e.do(request{path: "/v1/versions/" + version + "/text?start=10&end=5"}); r.status != 400 || r.errorCode(t) != "bad_request" {
		t.Errorf("start=10&end=5: got %d %s, want 400", r.status, r.body)
	}
	if r := e.do(request{path: "/v1/versions/" + version + "/text?start=10&end=10"}); r.status != 200 {
		t.Errorf("start=10&end=10 (empty, not reversed): got %d %s, want 200", r.status, r.body)
	}
	for _, path := range []string{"/v1/resolve", "/v1/verify"} {
		for _, body := range []string{"null", " null\n"} {
			if r := e.do(request{method: "POST", path: path, body: []byte(body)}); r.status != 400 || r.errorCode(t) != "bad_request" {
				t.Errorf("%s %q: got %d %s, want 400", path, body, r.status, r.body)
			}
		}
	}
}

// TestServeUploadCancelled: an upload whose client has gone before the
// response stores nothing.
func TestServeUploadCancelled(t *testing.T) {
	e := newTestEnv(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/v1/documents?filename=gone.md&id=gone.md", strings.NewReader("# Gone\n\nNever stored.\n"))
	w := httptest.NewRecorder()
	e.srv.ServeHTTP(w, req)
	err := e.db.View(func(tx *store.Tx) error {
		if _, err := tx.Document("gone.md"); err == nil {
			t.Errorf("the cancelled upload was stored (status %d)", w.Code)
		}
		return tx.ForEachFailure(func(f *store.Failure) error {
			t.Errorf("failure recorded for a cancelled upload: %+v", f)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mountTiny mounts a tmpfs of size bytes at a new directory, or skips the
// test where the machine does not allow it.
func mountTiny(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v): the disk-full tests need root on Linux", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file into dir until the file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			return
		}
	}
}

// TestServeUploadDiskFull: an upload's document, and an import's manifest
// and text, are kept in memory (ingest.RunSource takes them as bytes), so a
// full temporary directory stops neither (before, an import's parts went
// to files there, and a full directory was a 503); one the store cannot
// write is a failed ingest whose error names the store as "the store".
func TestServeUploadDiskFull(t *testing.T) {
	if _, err := exec.LookPath("mount"); err != nil && os.Getuid() != 0 {
		t.Skip("not root")
	}
	tmp := mountTiny(t, "64k")
	fill(t, tmp)
	e := newTestEnv(t, false)
	t.Setenv("TMPDIR", tmp)
	r := e.do(request{method: "POST", path: "/v1/documents?filename=big.md", body: bytes.Repeat([]byte("word "), 40<<10)})
	if r.status != http.StatusCreated {
		t.Errorf("full temporary directory, plain upload: got %d %s, want 201 (the document never goes to a file)", r.status, r.body)
	}
	ct, form := multipartBody(t, formPart{"file", "imported.md", "# imported\n\nsome text"},
		formPart{"manifest", "chunks.jsonl", strings.Repeat(`{"text":"some text","source_start":12,"source_end":21}`+"\n", 2<<10)}) // more than the 64 KiB directory holds
	r = e.do(request{method: "POST", path: "/v1/documents", contentType: ct, body: form})
	if r.status != http.StatusCreated {
		t.Errorf("full temporary directory, import: got %d %s, want 201 (the parts never go to a file)", r.status, r.body)
	}
	if bytes.Contains(r.body, []byte(tmp)) || bytes.Contains(r.body, []byte(e.db.Path())) {
		t.Errorf("the answer names a server path: %s", r.body)
	}

	// The store on a full file system: the ingest fails, reason store.
	dir := mountTiny(t, "512k")
	db := storetest.OpenPath(t, filepath.Join(dir, "evidence.db"), nil)
	fill(t, dir)
	t.Setenv("TMPDIR", t.TempDir())
	s := newServer(db, serverConfig{maxBody: 64 << 10, maxUpload: 4 << 20, errlog: &bytes.Buffer{}})
	defer s.close()
	req := httptest.NewRequest("POST", "/v1/documents?filename=big.md", bytes.NewReader(bytes.Repeat([]byte("many words here. "), 60<<10)))
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	body := w.Body.String()
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(body, `"reason":"`+ingest.ReasonStore+`"`) {
		t.Errorf("full store: got %d %s, want 422 with reason store", w.Code, body)
	}
	if strings.Contains(body, dir) {
		t.Errorf("the answer names the store's path: %s", body)
	}
}
