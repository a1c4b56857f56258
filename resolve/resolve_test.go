package resolve_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

const policy = "Intro.\fSubmit all expense reports within 14 calendar days.\fAppendix: café 東京 ☕ rules."

func put(t *testing.T, db *store.DB, nv *store.NewVersion) {
	t.Helper()
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
}

func TestChunkStatuses(t *testing.T) {
	db := storetest.Open(t)
	v1 := storetest.NewVersion("policy", policy, 20)
	v1.ACL = []string{"analyst@example.com"}
	put(t, db, v1)
	id0 := store.ChunkID(v1.Version.ID, 0)
	runes := []rune(policy)

	tests := []struct {
		name, chunk, principal string
		want                   resolve.Status
	}{
		{"ok", store.ChunkID(v1.Version.ID, 1), "analyst@example.com", resolve.StatusOK},
		{"forbidden", id0, "intern@example.com", resolve.StatusForbidden},
		{"anonymous is forbidden", id0, "", resolve.StatusForbidden},
		{"unknown ordinal", store.ChunkID(v1.Version.ID, 999), "analyst@example.com", resolve.StatusNotFound},
		{"unknown version", store.ChunkID(strings.Repeat("0", 32), 0), "", resolve.StatusNotFound},
		{"garbage id", "page-47", "", resolve.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := resolve.Chunk(db, tt.chunk, tt.principal)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tt.want {
				t.Fatalf("got %s, want %s", r.Status, tt.want)
			}
			if !r.Served() && (r.Text != "" || r.Page != 0 || r.SectionPath != nil) {
				t.Errorf("%s reveals text %q page %d section %v", r.Status, r.Text, r.Page, r.SectionPath)
			}
			if r.Status == resolve.StatusForbidden && (r.DocumentID != "" || r.DocumentVersion != "") {
				t.Errorf("forbidden reveals the document %q %q", r.DocumentID, r.DocumentVersion)
			}
		})
	}

	r, err := resolve.Chunk(db, store.ChunkID(v1.Version.ID, 1), "analyst@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if want := string(runes[20:40]); r.Text != want || r.Start != 20 || r.End != 40 || r.Page != 2 {
		t.Errorf("got %q [%d,%d) page %d, want %q [20,40) page 2", r.Text, r.Start, r.End, r.Page, want)
	}

	// A new version supersedes; the old chunk still resolves, saying so.
	v2 := storetest.NewVersion("policy", strings.Replace(policy, "14", "30", 1), 20)
	put(t, db, v2)
	r, err = resolve.Chunk(db, store.ChunkID(v1.Version.ID, 1), "analyst@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != resolve.StatusSuperseded || r.CurrentVersion != v2.Version.ID || r.Text != string(runes[20:40]) {
		t.Errorf("got %s current %s %q, want superseded, current %s, old text", r.Status, r.CurrentVersion, r.Text, v2.Version.ID)
	}

	// Deleting leaves a tombstone: deleted, never not_found, no text.
	if _, err := db.Delete("policy", v1.Version.ID); err != nil {
		t.Fatal(err)
	}
	r, err = resolve.Chunk(db, store.ChunkID(v1.Version.ID, 1), "analyst@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != resolve.StatusDeleted || r.Text != "" {
		t.Errorf("got %s %q, want deleted without text", r.Status, r.Text)
	}
	// Forbidden still wins over deleted: an outsider learns nothing.
	if r, _ := resolve.Chunk(db, store.ChunkID(v1.Version.ID, 1), "intern@example.com"); r.Status != resolve.StatusForbidden {
		t.Errorf("outsider on a tombstone: got %s, want forbidden", r.Status)
	}
}

func TestChunkQuarantined(t *testing.T) {
	db := storetest.Open(t)
	nv := storetest.NewVersion("doc", policy, 30)
	nv.Chunks[1].Quarantine = &store.Quarantine{Reason: resolve.ReasonTextMismatch, Want: `"x"`, Got: `"y"`}
	nv.Chunks[1].SpanHash = store.ID{}
	put(t, db, nv)
	r, err := resolve.Chunk(db, store.ChunkID(nv.Version.ID, 1), "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != resolve.StatusQuarantined || r.Reason != resolve.ReasonTextMismatch || r.Text != "" {
		t.Errorf("got %s %s %q, want quarantined text_mismatch, no text", r.Status, r.Reason, r.Text)
	}
}

// corruptText flips one byte of a stored text behind the store's back.
func corruptText(t *testing.T, path string, seq uint64, at int) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.Update(func(tx *bolt.Tx) error {
		k := binary.BigEndian.AppendUint64(nil, seq)
		texts := tx.Bucket([]byte("texts"))
		v := slices.Clone(texts.Get(k))
		v[at] ^= 0x20 // change case: same length, same code points
		return texts.Put(k, v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCorruptTextCaught: a stored text altered on disk is never served;
// resolve errors for the damaged span, serves the others, and audit reports it.
func TestCorruptTextCaught(t *testing.T) {
	path := t.TempDir() + "/evidence.db"
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	nv := storetest.NewVersion("doc", policy, 20)
	put(t, db, nv)
	var seq uint64
	_ = db.View(func(tx *store.Tx) error { v, _ := tx.Version(nv.Version.ID); seq = v.Seq; return nil })
	db.Close()
	corruptText(t, path, seq, 25) // inside chunk 1: [20, 40)

	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = resolve.Chunk(db, store.ChunkID(nv.Version.ID, 1), "")
	var hm *store.HashMismatchError
	if !errors.As(err, &hm) || !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("resolve damaged chunk: got %v, want a hash mismatch", err)
	}
	if r, err := resolve.Chunk(db, store.ChunkID(nv.Version.ID, 0), ""); err != nil || r.Status != resolve.StatusOK {
		t.Errorf("undamaged chunk: got %v %v, want ok", r, err)
	}
	if _, err := resolve.Range(db, nv.Version.ID, 0, 5, ""); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("range of a damaged text: got %v, want ErrCorrupt", err)
	}
	findings, chunks, err := resolve.Audit(db)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, f := range findings {
		kinds[f.Kind] = true
	}
	if !kinds["text_hash"] || !kinds["span_hash"] || chunks != len(nv.Chunks) {
		t.Errorf("audit: got %v over %d chunks, want text_hash and span_hash findings over %d", findings, chunks, len(nv.Chunks))
	}
}

func TestRange(t *testing.T) {
	db := storetest.Open(t)
	nv := storetest.NewVersion("doc", policy, 0)
	put(t, db, nv)
	runes := []rune(policy)
	n := len(runes)
	for _, tt := range [][2]int{{0, 0}, {0, n}, {n - 9, n}, {7, 63}} {
		r, err := resolve.Range(db, nv.Version.ID, tt[0], tt[1], "")
		if err != nil {
			t.Fatal(err)
		}
		if want := string(runes[tt[0]:tt[1]]); r.Text != want {
			t.Errorf("[%d,%d): got %q, want %q", tt[0], tt[1], r.Text, want)
		}
	}
	r, _ := resolve.Range(db, nv.Version.ID, n-3, n, "")
	if r.Page != 3 {
		t.Errorf("got page %d, want 3", r.Page)
	}
	for _, tt := range [][2]int{{-1, 3}, {5, 4}, {0, n + 1}} {
		if _, err := resolve.Range(db, nv.Version.ID, tt[0], tt[1], ""); !errors.Is(err, resolve.ErrInvalidRange) {
			t.Errorf("[%d,%d): got %v, want ErrInvalidRange", tt[0], tt[1], err)
		}
	}
}

func TestValidate(t *testing.T) {
	text := "# A\n\nalpha\f## B\n\nbeta ☕\n"
	txt := store.NewText([]byte(text))
	runes := []rune(text)
	layout := &store.Layout{
		PageStarts: []int{0, 11},
		PageLabels: []string{"i", "ii"},
		Sections:   []store.Section{{Start: 0, End: len(runes), Path: []string{"A"}}, {Start: 11, End: len(runes), Path: []string{"A", "B"}}},
	}
	ok := resolve.Claim{Start: 11, End: 23, Text: string(runes[11:23]), HasText: true, Page: 2, HasPage: true, PageLabel: "ii",
		Section: []string{"A", "B"}, HasSection: true}
	tests := []struct {
		name   string
		mutate func(*resolve.Claim)
		want   string
	}{
		{"exact", func(*resolve.Claim) {}, ""},
		{"end past text", func(c *resolve.Claim) { c.End = len(runes) + 1 }, resolve.ReasonOutOfRange},
		{"negative start", func(c *resolve.Claim) { c.Start = -1 }, resolve.ReasonOutOfRange},
		{"inverted", func(c *resolve.Claim) { c.Start, c.End = 5, 4 }, resolve.ReasonOutOfRange},
		{"text differs", func(c *resolve.Claim) { c.Text = strings.ToUpper(c.Text) }, resolve.ReasonTextMismatch},
		{"stale end", func(c *resolve.Claim) { c.End-- }, resolve.ReasonTextMismatch},
		{"page 0-based", func(c *resolve.Claim) { c.Page = 1 }, resolve.ReasonPageMismatch},
		{"printed label", func(c *resolve.Claim) { c.PageLabel = "2" }, resolve.ReasonPageLabelMismatch},
		{"section", func(c *resolve.Claim) { c.Section = []string{"A"} }, resolve.ReasonSectionMismatch},
		{"section not claimed", func(c *resolve.Claim) { c.Section, c.HasSection = nil, false }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mutate(&c)
			q := resolve.Validate(txt, layout, c)
			got := ""
			if q != nil {
				got = q.Reason
			}
			if got != tt.want {
				t.Errorf("got %q (%v), want %q", got, q, tt.want)
			}
		})
	}
}

// TestCorruptionAfterFirstReadCaught: a span already served once (so later
// reads check it against a remembered checksum, not a full BLAKE3 hash) is
// still refused when its bytes change on disk while the store is open.
func TestCorruptionAfterFirstReadCaught(t *testing.T) {
	path := t.TempDir() + "/evidence.db"
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nv := storetest.NewVersion("doc", policy, 20)
	put(t, db, nv)
	id := store.ChunkID(nv.Version.ID, 1)
	var first *resolve.Resolution
	for range 2 {
		if first, err = resolve.Chunk(db, id, ""); err != nil || first.Status != resolve.StatusOK {
			t.Fatalf("undamaged chunk: got %v %v, want ok", first, err)
		}
	}

	// Flip the case of one letter of the span wherever the file holds it
	// (copy-on-write leaves older pages with the same bytes); the store's
	// shared mapping sees the write.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	span := []byte(first.Text)
	k := slices.IndexFunc(span, func(b byte) bool { return 'a' <= b && b <= 'z' })
	flipped := 0
	for off := 0; ; {
		i := bytes.Index(raw[off:], span)
		if i < 0 {
			break
		}
		if _, err := f.WriteAt([]byte{span[k] ^ 0x20}, int64(off+i+k)); err != nil {
			t.Fatal(err)
		}
		off += i + len(span)
		flipped++
	}
	if flipped == 0 {
		t.Fatal("span bytes not found in the store file")
	}
	_, err = resolve.Chunk(db, id, "")
	var hm *store.HashMismatchError
	if !errors.As(err, &hm) || !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("resolve after damage: got %v, want a hash mismatch", err)
	}
}

// TestDamagedChunkRecordRefused: one flipped byte anywhere around a chunk
// record's coordinates (its page, section, offsets, all before and after
// the span hash it holds) and resolve refuses the chunk as corrupt instead
// of serving other offsets, another page or another section.
func TestDamagedChunkRecordRefused(t *testing.T) {
	for _, at := range []int{-3, -2, -1, 32, 33, 34} { // bytes before and after the span hash
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			path := t.TempDir() + "/evidence.db"
			db, err := store.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			nv := storetest.NewVersion("doc", policy, 20)
			put(t, db, nv)
			id := store.ChunkID(nv.Version.ID, 1)
			var hash store.ID
			if err := db.View(func(tx *store.Tx) error {
				v, err := tx.Version(nv.Version.ID)
				if err != nil {
					return err
				}
				c, err := tx.Chunk(v, 1)
				if err == nil {
					hash = c.SpanHash
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			db.Close()
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			flipped := 0
			for off := 0; ; {
				i := bytes.Index(raw[off:], hash[:])
				if i < 0 {
					break
				}
				raw[off+i+at] ^= 0x01
				off += i + len(hash)
				flipped++
			}
			if flipped == 0 {
				t.Fatal("chunk record not found in the store file")
			}
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err = store.Open(path, &store.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			r, err := resolve.Chunk(db, id, "")
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("resolve of a damaged chunk record: got %+v, %v; want ErrCorrupt", r, err)
			}
		})
	}
}
