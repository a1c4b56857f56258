package store_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// newStoreFile writes a closed store with a few versions at dir/evidence.db
// and returns its path.
func newStoreFile(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "evidence.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range []string{"a.txt", "b.txt", "c.txt"} {
		text := strings.Repeat("Evidence text, página "+doc+".\n", 800*(i+1))
		if _, err := db.PutVersion(storetest.NewVersion(doc, text, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenFresh(t *testing.T) {
	db := storetest.Open(t)
	if _, err := os.Stat(db.Path()); err != nil {
		t.Fatalf("store file: %v", err)
	}
	err := db.View(func(tx *store.Tx) error {
		n := 0
		if err := tx.ForEachDocument(func(*store.Document) error { n++; return nil }); err != nil {
			return err
		}
		if n != 0 {
			t.Errorf("fresh store: got %d documents, want 0", n)
		}
		_, err := tx.Document("missing")
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Document(missing): got error %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Bolt().View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		if meta == nil {
			t.Fatal("no meta bucket")
		}
		if got := binary.BigEndian.Uint32(meta.Get([]byte("format"))); got != store.FormatVersion {
			t.Errorf("format: got %d, want %d", got, store.FormatVersion)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "evidence.db")
	nv := storetest.NewVersion("doc", "reopened text ✓", 5)
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []*store.Options{nil, {ReadOnly: true}} {
		func() {
			db, err := store.Open(path, opts)
			if err != nil {
				t.Fatalf("reopen %+v: %v", opts, err)
			}
			defer db.Close()
			err = db.View(func(tx *store.Tx) error {
				v, err := tx.Version(nv.Version.ID)
				if err != nil {
					return err
				}
				txt, err := tx.Text(v)
				if err != nil {
					return err
				}
				if got, want := string(txt.Bytes()), "reopened text ✓"; got != want {
					t.Errorf("text: got %q, want %q", got, want)
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
}

// writeBolt writes a bbolt file whose content fn creates.
func writeBolt(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenFormatMismatch(t *testing.T) {
	for _, format := range []uint32{0, store.FormatVersion + 1, 1 << 31} {
		path := newStoreFile(t, t.TempDir())
		writeBolt(t, path, func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("meta")).Put([]byte("format"), binary.BigEndian.AppendUint32(nil, format))
		})
		for _, opts := range []*store.Options{nil, {ReadOnly: true}} {
			db, err := store.Open(path, opts)
			if err == nil {
				db.Close()
			}
			if !errors.Is(err, store.ErrFormat) {
				t.Errorf("format %d, %+v: got error %v, want ErrFormat", format, opts, err)
			}
		}
	}
}

func TestOpenNotStore(t *testing.T) {
	foreign := func(t *testing.T, path string) {
		writeBolt(t, path, func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte("widgets"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte("v"))
		})
	}
	noFormat := func(t *testing.T, path string) {
		writeBolt(t, path, func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("meta"))
			return err
		})
	}
	file := func(content string) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		create func(*testing.T, string)
	}{
		{"foreign bbolt file", foreign},
		{"meta bucket without format", noFormat},
		{"text file", file(strings.Repeat("just some text, not a store\n", 500))},
		{"short text file", file("hello\n")},
		{"PNG header", file("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06\x00\x00\x00" + strings.Repeat("\x00", 8192))},
		{"zeros", file(strings.Repeat("\x00", 16384))},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "file")
			tt.create(t, path)
			before := fileBytes(t, path)
			for _, opts := range []*store.Options{nil, {ReadOnly: true}} {
				db, err := store.Open(path, opts)
				if err == nil {
					db.Close()
				}
				if !errors.Is(err, store.ErrNotStore) {
					t.Errorf("%+v: got error %v, want ErrNotStore", opts, err)
				}
			}
			if after := fileBytes(t, path); after != before {
				t.Errorf("Open changed a file that is not a store")
			}
		})
	}
}

// fileBytes returns the content of a file, or "" for a directory.
func fileBytes(t *testing.T, path string) string {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenEmptyFile(t *testing.T) {
	// An empty file is what os.Create leaves: bbolt initializes it, and so
	// does the store.
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	storetest.OpenPath(t, path, nil)
}

func TestOpenTruncated(t *testing.T) {
	path := newStoreFile(t, t.TempDir())
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	need, pageSize, ok := store.HighWaterMark(full)
	if !ok {
		t.Fatal("store file has no valid meta page")
	}
	tests := []struct {
		name string
		size int64
	}{
		{"half", int64(len(full)) / 2},
		{"one page short of the high-water mark", need - int64(pageSize)},
		{"one byte short of the high-water mark", need - 1},
		{"three pages", 3 * int64(pageSize)},
		{"one and a half pages", int64(pageSize) * 3 / 2},
		{"first meta page only", int64(pageSize)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.size >= need {
				t.Fatalf("test bug: %d bytes is not short of the high-water mark %d", tt.size, need)
			}
			p := filepath.Join(t.TempDir(), "truncated.db")
			if err := os.WriteFile(p, full[:tt.size], 0o644); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []*store.Options{nil, {ReadOnly: true}} {
				db, err := store.Open(p, opts)
				if err == nil {
					db.Close()
				}
				if !errors.Is(err, store.ErrCorrupt) {
					t.Errorf("%d of %d bytes, %+v: got error %v, want ErrCorrupt", tt.size, len(full), opts, err)
				}
			}
		})
	}
}

func TestOpenDamagedMeta(t *testing.T) {
	path := newStoreFile(t, t.TempDir())
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ps, ok := store.HighWaterMark(full)
	if !ok {
		t.Fatal("store file has no valid meta page")
	}
	zero := func(b []byte, from, to int) {
		for i := from; i < to; i++ {
			b[i] = 0
		}
	}
	tests := []struct {
		name   string
		damage func([]byte)
		opens  bool // bbolt recovers from the other meta page
	}{
		{"both meta pages zeroed", func(b []byte) { zero(b, 0, 2*ps) }, false},
		{"both checksums broken", func(b []byte) { b[16+60] ^= 1; b[ps+16+60] ^= 1 }, false},
		{"first checksum broken", func(b []byte) { b[16+60] ^= 1 }, true},
		{"second meta page zeroed", func(b []byte) { zero(b, ps, 2*ps) }, true},
		// bbolt opens this file from its second meta page; a torn write
		// of the first page must not make the store unreadable.
		{"first meta page zeroed", func(b []byte) { zero(b, 0, ps) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := append([]byte(nil), full...)
			tt.damage(b)
			p := filepath.Join(t.TempDir(), "damaged.db")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if bdb, err := bolt.Open(p, 0o644, &bolt.Options{ReadOnly: true, Timeout: time.Second}); err == nil {
				bdb.Close()
				if !tt.opens {
					t.Fatalf("test bug: bbolt opens the damaged file")
				}
			} else if tt.opens {
				t.Fatalf("test bug: bbolt does not open the damaged file: %v", err)
			}
			db, err := store.Open(p, &store.Options{ReadOnly: true})
			switch {
			case tt.opens && err != nil:
				t.Errorf("got error %v, want the store to open from the other meta page", err)
			case tt.opens:
				// The data is readable; Check may report the damaged page.
				err := db.View(func(tx *store.Tx) error {
					return tx.ForEachDocument(func(*store.Document) error { return nil })
				})
				if err != nil {
					t.Errorf("reading the documents: %v", err)
				}
				findings, err := db.Check()
				if err != nil {
					t.Errorf("Check: %v", err)
				}
				for _, f := range findings {
					if f.Kind != "bbolt" {
						t.Errorf("Check: got finding %s, want only bbolt findings", f)
					}
				}
				db.Close()
			case err == nil:
				db.Close()
				t.Errorf("got no error, want ErrCorrupt or ErrNotStore")
			case !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, store.ErrNotStore):
				t.Errorf("got error %v, want ErrCorrupt or ErrNotStore", err)
			}
		})
	}
}

func TestOpenReadOnlyMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.db")
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err == nil {
		db.Close()
		t.Fatal("got no error, want one")
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got error %v, want one matching fs.ErrNotExist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only open created the file: stat: %v", err)
	}
}

func TestReadOnlyRejectsWrites(t *testing.T) {
	path := newStoreFile(t, t.TempDir())
	db := storetest.OpenPath(t, path, &store.Options{ReadOnly: true})
	txBefore := db.TxID()
	writes := []struct {
		name string
		fn   func() error
	}{
		{"PutVersion", func() error { _, err := db.PutVersion(storetest.NewVersion("new", "new text", 0)); return err }},
		{"PutVersions", func() error {
			_, err := db.PutVersions([]*store.NewVersion{storetest.NewVersion("a.txt", "other", 0)})
			return err
		}},
		{"Delete", func() error { _, err := db.Delete("a.txt", ""); return err }},
		{"PutFailure", func() error {
			return db.PutFailure(&store.Failure{Path: "x.pdf", DocumentID: "x.pdf", Reason: "encrypted"})
		}},
		{"PutJudgment", func() error { return db.PutJudgment([]byte("k"), []byte("v")) }},
	}
	for _, w := range writes {
		if err := w.fn(); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("%s: got error %v, want ErrReadOnly", w.name, err)
		}
	}
	if got := db.TxID(); got != txBefore {
		t.Errorf("tx id: got %d, want %d", got, txBefore)
	}
	err := db.View(func(tx *store.Tx) error {
		doc, err := tx.Document("a.txt")
		if err != nil {
			return err
		}
		if doc.Current == "" || doc.Deleted {
			t.Errorf("a.txt: got current %q, deleted %v, want a current version", doc.Current, doc.Deleted)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTwoReadersShareTheStore(t *testing.T) {
	path := newStoreFile(t, t.TempDir())
	storetest.OpenPath(t, path, &store.Options{ReadOnly: true})
	storetest.OpenPath(t, path, &store.Options{ReadOnly: true, LockTimeout: 200 * time.Millisecond})
}

// TestLockedSameProcess: bbolt locks with flock, which binds the lock to the
// open file description, not the process, so a second Open in the same
// process waits for the first and gives up like another process would.
func TestLockedSameProcess(t *testing.T) {
	db := storetest.Open(t)
	for _, opts := range []*store.Options{{LockTimeout: 200 * time.Millisecond}, {ReadOnly: true, LockTimeout: 200 * time.Millisecond}} {
		start := time.Now()
		db2, err := store.Open(db.Path(), opts)
		if err == nil {
			db2.Close()
		}
		if !errors.Is(err, store.ErrLocked) {
			t.Errorf("second Open %+v in the same process: got error %v, want ErrLocked", opts, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("second Open %+v took %v, want about %v", opts, d, opts.LockTimeout)
		}
	}
}

const lockHelperEnv = "EVIDENCE_STORE_LOCK_HELPER"

// TestLockHelperProcess is not a test: TestLockedOtherProcess runs the test
// binary again with lockHelperEnv set to a store path, and this function
// then holds that store open until its standard input closes.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv(lockHelperEnv)
	if path == "" {
		t.Skip("helper process for TestLockedOtherProcess")
	}
	db, err := store.Open(path, nil)
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	db.Close()
	os.Exit(0)
}

func TestLockedOtherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a helper process")
	}
	path := newStoreFile(t, t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("helper process: %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("helper process did not exit")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper process: got %q, %v, want \"locked\"", line, err)
	}

	for _, opts := range []*store.Options{nil, {ReadOnly: true}} {
		start := time.Now()
		db, err := store.Open(path, opts)
		if err == nil {
			db.Close()
		}
		d := time.Since(start)
		if !errors.Is(err, store.ErrLocked) {
			t.Errorf("Open %+v while another process writes: got error %v, want ErrLocked", opts, err)
		}
		if d > 2*time.Second {
			t.Errorf("Open %+v gave up after %v, want within 2s", opts, d)
		}
	}

	// Once the other process lets go, the store opens.
	stdin.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		db, err := store.Open(path, &store.Options{LockTimeout: 100 * time.Millisecond})
		if err == nil {
			db.Close()
			break
		}
		if !errors.Is(err, store.ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("Open after the other process exited: %v", err)
		}
	}
}

// TestStoreFileNotWorldReadable: the store holds the text of documents
// whose access list may exclude other local users: it is created readable
// by its owner only.
func TestStoreFileNotWorldReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("store file mode %v, want no access for group and others", perm)
	}
}

// TestGuardRaisesProgramPanics: a panic of the caller's own making inside
// a View function (here a nil dereference) is raised again, not reported
// as a damaged store; the store stays usable after it.
func TestGuardRaisesProgramPanics(t *testing.T) {
	db := storetest.Open(t)
	var p *store.Version
	func() {
		defer func() {
			r := recover()
			if r == nil {
				t.Fatal("the nil dereference was swallowed")
			}
			if err, ok := r.(error); ok && errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("reported as damage: %v", err)
			}
		}()
		_ = db.View(func(*store.Tx) error {
			_ = p.ID // the caller's bug
			return nil
		})
		t.Fatal("View returned")
	}()
	if err := db.View(func(*store.Tx) error { return nil }); err != nil {
		t.Fatalf("the store after the panic: %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "the caller's" {
				t.Fatalf("recovered %v, want the caller's own panic value", r)
			}
		}()
		_ = db.View(func(*store.Tx) error { panic("the caller's") })
	}()
}
