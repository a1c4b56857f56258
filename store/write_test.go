package store_test

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// Bucket names and keys of format 1, spelled out so that a test notices
// when they change.
const (
	bucketDocs     = "docs"
	bucketVersions = "versions"
	bucketTexts    = "texts"

	bucketLayouts    = "layouts"
	bucketChunks     = "chunks"
	bucketQuarantine = "quarantine"
	bucketFailures   = "failures"
)

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func chunkKey(seq uint64, ordinal uint32) []byte {
	return binary.BigEndian.AppendUint32(seqKey(seq), ordinal)
}

const sampleText = "Expense policy\n\nSubmit all expense reports within 14 calendar days.\f" +
	"Página dos: reembolsos en 30 días, 3,25 €.\f" +
	"第三ページ: 日本語のテキスト 😀 and some more ASCII to end the third page."

func view(t *testing.T, db *store.DB, fn func(*store.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

func getVersion(t *testing.T, db *store.DB, id string) (v *store.Version) {
	t.Helper()
	view(t, db, func(tx *store.Tx) (err error) { v, err = tx.Version(id); return err })
	return v
}

func getDocument(t *testing.T, db *store.DB, id string) (d *store.Document) {
	t.Helper()
	view(t, db, func(tx *store.Tx) (err error) { d, err = tx.Document(id); return err })
	return d
}

func bucketLen(t *testing.T, db *store.DB, name string) (n int) {
	t.Helper()
	err := db.RawView(func(tx store.BackendTx) error {
		return tx.Bucket([]byte(name)).ForEach(func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func put(t *testing.T, db *store.DB, nv *store.NewVersion, want store.PutStatus) store.PutResult {
	t.Helper()
	res, err := db.PutVersion(nv)
	if err != nil {
		t.Fatalf("PutVersion %s: %v", nv.Version.DocumentID, err)
	}
	if res.Status != want || res.Version != nv.Version.ID {
		t.Fatalf("PutVersion %s: got %s %s, want %s %s", nv.Version.DocumentID, res.Status, res.Version, want, nv.Version.ID)
	}
	return res
}

// checkContent reads a version back and compares it with what was put.
func checkContent(t *testing.T, db *store.DB, nv *store.NewVersion) {
	t.Helper()
	runes := []rune(string(nv.Text.Bytes()))
	view(t, db, func(tx *store.Tx) error {
		v, err := tx.Version(nv.Version.ID)
		if err != nil {
			return err
		}
		txt, err := tx.Text(v)
		if err != nil {
			return err
		}
		if got, want := string(txt.Bytes()), string(nv.Text.Bytes()); got != want {
			t.Errorf("text: got %q, want %q", got, want)
		}
		if err := store.VerifyText(v, txt); err != nil {
			t.Errorf("VerifyText: %v", err)
		}
		l, err := tx.Layout(v)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(&nv.Layout, l, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("layout (-want +got):\n%s", diff)
		}
		var got []store.Chunk
		if err := tx.ForEachChunk(v, func(c *store.Chunk) error { got = append(got, *c); return nil }); err != nil {
			return err
		}
		if diff := cmp.Diff(nv.Chunks, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("chunks (-want +got):\n%s", diff)
		}
		for i, want := range nv.Chunks {
			c, err := tx.Chunk(v, uint32(i))
			if err != nil {
				return err
			}
			if diff := cmp.Diff(&want, c, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Chunk(%d) (-want +got):\n%s", i, diff)
			}
			span, err := txt.Slice(c.Start, c.End)
			if err != nil {
				return err
			}
			if got, want := string(span), string(runes[c.Start:c.End]); got != want {
				t.Errorf("chunk %d: got %q, want %q", i, got, want)
			}
			if store.Hash(span) != c.SpanHash {
				t.Errorf("chunk %d: span hash differs", i)
			}
		}
		if _, err := tx.Chunk(v, uint32(len(nv.Chunks))); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Chunk(%d) past the last: got error %v, want ErrNotFound", len(nv.Chunks), err)
		}
		return nil
	})
}

func TestPutVersion(t *testing.T) {
	db := openStore(t)
	nv := storetest.NewVersion("policies/expenses.txt", sampleText, 16)
	before := time.Now()
	res := put(t, db, nv, store.PutIngested)
	if res.Superseded != "" {
		t.Errorf("Superseded: got %q, want none", res.Superseded)
	}

	v := getVersion(t, db, nv.Version.ID)
	want := nv.Version
	want.Seq, want.Status, want.Chunks = 1, store.StatusCurrent, len(nv.Chunks)
	if diff := cmp.Diff(&want, v, cmpopts.IgnoreFields(store.Version{}, "Created")); diff != "" {
		t.Errorf("version (-want +got):\n%s", diff)
	}
	if v.Created.Before(before.Add(-time.Second)) || v.Created.After(time.Now().Add(time.Second)) {
		t.Errorf("Created: got %v, want about %v", v.Created, before)
	}
	if v.Pages != 3 || v.Chunks != (len([]rune(sampleText))+15)/16 || v.Quarantined != 0 {
		t.Errorf("counts: got %d pages, %d chunks, %d quarantined, want 3, %d, 0",
			v.Pages, v.Chunks, v.Quarantined, (len([]rune(sampleText))+15)/16)
	}
	checkContent(t, db, nv)

	doc := getDocument(t, db, "policies/expenses.txt")
	wantDoc := &store.Document{ID: "policies/expenses.txt", Current: nv.Version.ID, Versions: []string{nv.Version.ID}}
	if diff := cmp.Diff(wantDoc, doc, cmpopts.IgnoreFields(store.Document{}, "Updated")); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
	if doc.Updated.IsZero() {
		t.Errorf("document Updated: got the zero time, want the time of the put")
	}
}

func TestPutVersionEmptyText(t *testing.T) {
	db := openStore(t)
	nv := storetest.NewVersion("empty.txt", "", 10)
	put(t, db, nv, store.PutIngested)
	checkContent(t, db, nv)
}

func TestPutUnchanged(t *testing.T) {
	db := openStore(t)
	put(t, db, storetest.NewVersion("doc", sampleText, 30), store.PutIngested)
	id := storetest.NewVersion("doc", sampleText, 30).Version.ID
	docBefore, verBefore, txBefore := getDocument(t, db, "doc"), getVersion(t, db, id), db.TxID()

	res := put(t, db, storetest.NewVersion("doc", sampleText, 30), store.PutUnchanged)
	if res.Superseded != "" {
		t.Errorf("Superseded: got %q, want none", res.Superseded)
	}
	if diff := cmp.Diff(verBefore, getVersion(t, db, id)); diff != "" {
		t.Errorf("version record changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(docBefore, getDocument(t, db, "doc")); diff != "" {
		t.Errorf("document record changed (-before +after):\n%s", diff)
	}
	// "Re-ingesting identical bytes with the same settings ... writes nothing":
	// no bbolt transaction may be committed (each commit rewrites the meta
	// page and the freelist and syncs the file).
	if got := db.TxID(); got != txBefore {
		t.Errorf("bbolt tx id: got %d, want %d (a transaction was committed)", got, txBefore)
	}
}

func TestSupersedeAndRestore(t *testing.T) {
	db := openStore(t)
	v1 := storetest.NewVersion("doc", sampleText, 20)
	v2 := storetest.NewVersion("doc", strings.Replace(sampleText, "14 calendar days", "10 working days", 1), 20)
	put(t, db, v1, store.PutIngested)
	if res := put(t, db, v2, store.PutIngested); res.Superseded != v1.Version.ID {
		t.Errorf("Superseded: got %q, want %q", res.Superseded, v1.Version.ID)
	}
	status := func(want1, want2 store.Status) {
		t.Helper()
		if got := getVersion(t, db, v1.Version.ID).Status; got != want1 {
			t.Errorf("v1 status: got %s, want %s", got, want1)
		}
		if got := getVersion(t, db, v2.Version.ID).Status; got != want2 {
			t.Errorf("v2 status: got %s, want %s", got, want2)
		}
	}
	status(store.StatusSuperseded, store.StatusCurrent)
	checkContent(t, db, v1) // a superseded version stays resolvable
	checkContent(t, db, v2)
	doc := getDocument(t, db, "doc")
	if doc.Current != v2.Version.ID || !slices.Equal(doc.Versions, []string{v1.Version.ID, v2.Version.ID}) {
		t.Errorf("document: got current %s, versions %v, want %s, [%s %s]", doc.Current, doc.Versions, v2.Version.ID, v1.Version.ID, v2.Version.ID)
	}

	// The source goes back to the old bytes.
	seq := getVersion(t, db, v1.Version.ID).Seq
	if res := put(t, db, storetest.NewVersion("doc", sampleText, 20), store.PutRestored); res.Superseded != v2.Version.ID {
		t.Errorf("Superseded: got %q, want %q", res.Superseded, v2.Version.ID)
	}
	status(store.StatusCurrent, store.StatusSuperseded)
	if got := getVersion(t, db, v1.Version.ID).Seq; got != seq {
		t.Errorf("restored version seq: got %d, want %d", got, seq)
	}
	checkContent(t, db, v1)
	doc = getDocument(t, db, "doc")
	if doc.Current != v1.Version.ID || len(doc.Versions) != 2 {
		t.Errorf("document: got current %s, versions %v, want %s and 2 versions", doc.Current, doc.Versions, v1.Version.ID)
	}
}

// checkDeleted checks that version id is a tombstone whose content is gone.
func checkDeleted(t *testing.T, db *store.DB, id string) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		v, err := tx.Version(id)
		if err != nil {
			return err
		}
		if v.Status != store.StatusDeleted || v.Deleted.IsZero() {
			t.Errorf("version %s: got status %s, deleted %v, want deleted with a time", id, v.Status, v.Deleted)
		}
		if _, err := tx.Text(v); !errors.Is(err, store.ErrDeleted) {
			t.Errorf("Text: got error %v, want ErrDeleted", err)
		}
		if _, err := tx.Layout(v); !errors.Is(err, store.ErrDeleted) {
			t.Errorf("Layout: got error %v, want ErrDeleted", err)
		}
		if _, err := tx.Chunk(v, 0); !errors.Is(err, store.ErrDeleted) {
			t.Errorf("Chunk: got error %v, want ErrDeleted", err)
		}
		if err := tx.ForEachChunk(v, func(*store.Chunk) error { return nil }); !errors.Is(err, store.ErrDeleted) {
			t.Errorf("ForEachChunk: got error %v, want ErrDeleted", err)
		}
		return nil
	})
	// The content itself is removed from its buckets.
	seq := getVersion(t, db, id).Seq
	err := db.RawView(func(tx store.BackendTx) error {
		for _, name := range []string{bucketTexts, bucketLayouts} {
			if tx.Bucket([]byte(name)).Get(seqKey(seq)) != nil {
				t.Errorf("bucket %s still holds version %s", name, id)
			}
		}
		for _, name := range []string{bucketChunks, bucketQuarantine} {
			if k, _ := tx.Bucket([]byte(name)).Cursor().Seek(seqKey(seq)); k != nil && string(k[:8]) == string(seqKey(seq)) {
				t.Errorf("bucket %s still holds chunks of version %s", name, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func quarantine(nv *store.NewVersion, ordinal int, reason string) *store.NewVersion {
	c := &nv.Chunks[ordinal]
	c.Quarantine = &store.Quarantine{Reason: reason, Want: "claimed", Got: "found", ClaimedStart: c.Start + 1, ClaimedEnd: c.End + 1, ClaimedText: "claimed"}
	return nv
}

func TestDeleteDocument(t *testing.T) {
	db := openStore(t)
	v1 := storetest.NewVersion("doc", sampleText, 25)
	v2 := quarantine(storetest.NewVersion("doc", sampleText+" More.", 25), 1, "text_mismatch")
	other := storetest.NewVersion("other", "another document", 5)
	put(t, db, v1, store.PutIngested)
	put(t, db, v2, store.PutIngested)
	put(t, db, other, store.PutIngested)

	deleted, err := db.Delete("doc", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{v1.Version.ID, v2.Version.ID}; !slices.Equal(deleted, want) {
		t.Errorf("deleted: got %v, want %v", deleted, want)
	}
	checkDeleted(t, db, v1.Version.ID)
	checkDeleted(t, db, v2.Version.ID)
	doc := getDocument(t, db, "doc")
	if !doc.Deleted || doc.Current != "" || len(doc.Versions) != 2 {
		t.Errorf("document: got deleted %v, current %q, versions %v, want deleted, no current, 2 versions", doc.Deleted, doc.Current, doc.Versions)
	}
	// Only the other document's content is left.
	for name, want := range map[string]int{bucketTexts: 1, bucketLayouts: 1,
		bucketChunks: len(other.Chunks), bucketQuarantine: 0, bucketVersions: 3, bucketDocs: 2} {
		if got := bucketLen(t, db, name); got != want {
			t.Errorf("bucket %s: got %d keys, want %d", name, got, want)
		}
	}
	checkContent(t, db, other)
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEachQuarantined(func(v *store.Version, c *store.Chunk) error {
			t.Errorf("ForEachQuarantined after delete: got %s", c.ID())
			return nil
		})
	})

	// Deleting again deletes nothing and is no error.
	if deleted, err := db.Delete("doc", ""); err != nil || len(deleted) != 0 {
		t.Errorf("second Delete: got %v, %v, want nothing", deleted, err)
	}

	// Deleted stays deleted: the same bytes, or other bytes, are refused
	// and nothing is written.
	for _, text := range []string{sampleText + " More.", "new bytes"} {
		r, err := db.PutVersion(storetest.NewVersion("doc", text, 25))
		if err != nil || r.Status != store.PutDeleted || r.Reason != store.ReasonDocumentDeleted {
			t.Errorf("put %q after Delete: got %+v, %v, want deleted (%s)", text, r, err, store.ReasonDocumentDeleted)
		}
	}
	checkDeleted(t, db, v2.Version.ID)

	// Undelete writes it again.
	seq := getVersion(t, db, v2.Version.ID).Seq
	again := storetest.NewVersion("doc", sampleText+" More.", 25)
	again.Undelete = true
	put(t, db, again, store.PutIngested)
	v := getVersion(t, db, v2.Version.ID)
	if v.Status != store.StatusCurrent || v.Seq != seq || !v.Deleted.IsZero() {
		t.Errorf("re-ingested version: got status %s, seq %d, deleted %v, want current, seq %d, no deletion time", v.Status, v.Seq, v.Deleted, seq)
	}
	checkContent(t, db, storetest.NewVersion("doc", sampleText+" More.", 25))
	doc = getDocument(t, db, "doc")
	if doc.Deleted || doc.Current != v2.Version.ID || len(doc.Versions) != 2 {
		t.Errorf("document: got deleted %v, current %q, versions %v, want live, current %s, 2 versions", doc.Deleted, doc.Current, doc.Versions, v2.Version.ID)
	}
	checkDeleted(t, db, v1.Version.ID)
}

func TestDeleteVersion(t *testing.T) {
	db := openStore(t)
	var nvs []*store.NewVersion
	for i := range 3 {
		nv := storetest.NewVersion("doc", sampleText+strings.Repeat("!", i), 40)
		put(t, db, nv, store.PutIngested)
		nvs = append(nvs, nv)
	}
	ids := []string{nvs[0].Version.ID, nvs[1].Version.ID, nvs[2].Version.ID}

	deleted, err := db.Delete("doc", ids[0])
	if err != nil || !slices.Equal(deleted, ids[:1]) {
		t.Fatalf("Delete(v1): got %v, %v, want [%s]", deleted, err, ids[0])
	}
	checkDeleted(t, db, ids[0])
	checkContent(t, db, nvs[1])
	checkContent(t, db, nvs[2])
	if got, want := bucketLen(t, db, bucketChunks), len(nvs[1].Chunks)+len(nvs[2].Chunks); got != want {
		t.Errorf("chunks: got %d, want %d", got, want)
	}
	doc := getDocument(t, db, "doc")
	if doc.Deleted || doc.Current != ids[2] {
		t.Errorf("document: got deleted %v, current %q, want live with current %s", doc.Deleted, doc.Current, ids[2])
	}

	// Deleting the current version leaves no current version: the
	// superseded one is not promoted.
	if _, err := db.Delete("doc", ids[2]); err != nil {
		t.Fatal(err)
	}
	checkDeleted(t, db, ids[2])
	if doc := getDocument(t, db, "doc"); doc.Current != "" || doc.Deleted {
		t.Errorf("document: got current %q, deleted %v, want no current version and not deleted", doc.Current, doc.Deleted)
	}
	if got := getVersion(t, db, ids[1]).Status; got != store.StatusSuperseded {
		t.Errorf("v2 status: got %s, want superseded", got)
	}

	// Deleting a tombstone again is a no-op.
	if deleted, err := db.Delete("doc", ids[0]); err != nil || len(deleted) != 0 {
		t.Errorf("Delete of a tombstone: got %v, %v, want nothing", deleted, err)
	}
	// The superseded version comes back when its bytes are ingested again.
	put(t, db, storetest.NewVersion("doc", sampleText+"!", 40), store.PutRestored)
}

func TestDeleteNotFound(t *testing.T) {
	db := openStore(t)
	nv := storetest.NewVersion("doc", "text", 0)
	put(t, db, nv, store.PutIngested)
	other := storetest.NewVersion("other", "text", 0)
	put(t, db, other, store.PutIngested)
	tests := []struct {
		doc, version string
	}{
		{"missing", ""},
		{"missing", nv.Version.ID},
		{"doc", storetest.NewVersion("doc", "never stored", 0).Version.ID},
		{"doc", other.Version.ID}, // a version of another document
		{"doc", "not-a-version-id"},
	}
	for _, tt := range tests {
		if deleted, err := db.Delete(tt.doc, tt.version); !errors.Is(err, store.ErrNotFound) || len(deleted) != 0 {
			t.Errorf("Delete(%q, %q): got %v, %v, want ErrNotFound", tt.doc, tt.version, deleted, err)
		}
	}
	checkContent(t, db, nv)
	checkContent(t, db, other)
}

func TestQuarantined(t *testing.T) {
	db := openStore(t)
	a := quarantine(quarantine(storetest.NewVersion("a", sampleText, 10), 1, "text_mismatch"), 3, "page_mismatch")
	b := storetest.NewVersion("b", "clean document with no quarantine", 10)
	c := quarantine(storetest.NewVersion("c", "third document, one bad chunk", 10), 0, "out_of_range")
	for _, nv := range []*store.NewVersion{a, b, c} {
		put(t, db, nv, store.PutIngested)
		checkContent(t, db, nv)
	}
	if got := getVersion(t, db, a.Version.ID).Quarantined; got != 2 {
		t.Errorf("a: Quarantined got %d, want 2", got)
	}
	if got := getVersion(t, db, b.Version.ID).Quarantined; got != 0 {
		t.Errorf("b: Quarantined got %d, want 0", got)
	}
	type found struct {
		Version string
		Chunk   string
		Reason  string
	}
	var got []found
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEachQuarantined(func(v *store.Version, ch *store.Chunk) error {
			if ch.Version != v.ID {
				t.Errorf("chunk %s listed with version %s", ch.ID(), v.ID)
			}
			got = append(got, found{v.ID, ch.ID(), ch.Quarantine.Reason})
			return nil
		})
	})
	want := []found{
		{a.Version.ID, store.ChunkID(a.Version.ID, 1), "text_mismatch"},
		{a.Version.ID, store.ChunkID(a.Version.ID, 3), "page_mismatch"},
		{c.Version.ID, store.ChunkID(c.Version.ID, 0), "out_of_range"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ForEachQuarantined (-want +got):\n%s", diff)
	}
}

func TestPutVersionsAtomic(t *testing.T) {
	good := func() *store.NewVersion { return storetest.NewVersion("first", sampleText, 10) }
	tests := []struct {
		name string
		bad  func() *store.NewVersion
	}{
		{"invalid version id", func() *store.NewVersion {
			nv := storetest.NewVersion("second", "second text", 3)
			nv.Version.ID = "not-a-version"
			return nv
		}},
		{"no document id", func() *store.NewVersion {
			nv := storetest.NewVersion("second", "second text", 3)
			nv.Version.DocumentID = ""
			return nv
		}},
		{"text length differs from header", func() *store.NewVersion {
			nv := storetest.NewVersion("second", "second text", 3)
			nv.Version.TextLen++
			return nv
		}},
		{"chunk ordinal out of order", func() *store.NewVersion {
			nv := storetest.NewVersion("second", "second text", 3)
			nv.Chunks[1].Ordinal = 2
			return nv
		}},
		{"chunk of another version", func() *store.NewVersion {
			nv := storetest.NewVersion("second", "second text", 3)
			nv.Chunks[2].Version = good().Version.ID
			return nv
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openStore(t)
			txBefore := db.TxID()
			res, err := db.PutVersions([]*store.NewVersion{good(), tt.bad()})
			if err == nil || res != nil {
				t.Fatalf("PutVersions: got %v, %v, want an error and no results", res, err)
			}
			view(t, db, func(tx *store.Tx) error {
				if _, err := tx.Document("first"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("first document: got error %v, want ErrNotFound", err)
				}
				if _, err := tx.Version(good().Version.ID); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("first version: got error %v, want ErrNotFound", err)
				}
				return nil
			})
			for _, name := range []string{bucketDocs, bucketVersions, bucketTexts, bucketLayouts, bucketChunks, bucketFailures} {
				if n := bucketLen(t, db, name); n != 0 {
					t.Errorf("bucket %s: got %d keys, want 0", name, n)
				}
			}
			if got := db.TxID(); got != txBefore {
				t.Errorf("tx id: got %d, want %d", got, txBefore)
			}
			// The failed batch consumed no sequence number either.
			put(t, db, good(), store.PutIngested)
			if got := getVersion(t, db, good().Version.ID).Seq; got != 1 {
				t.Errorf("seq after a failed batch: got %d, want 1", got)
			}
		})
	}
}

func TestPutVersionsBatch(t *testing.T) {
	db := openStore(t)
	a1 := storetest.NewVersion("a", "first text of a", 4)
	put(t, db, a1, store.PutIngested)
	a2 := storetest.NewVersion("a", "second text of a", 4)
	b1 := storetest.NewVersion("b", "text of b", 4)
	res, err := db.PutVersions([]*store.NewVersion{a2, b1, storetest.NewVersion("a", "first text of a", 4)})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.PutResult{
		{Status: store.PutIngested, Version: a2.Version.ID, Superseded: a1.Version.ID},
		{Status: store.PutIngested, Version: b1.Version.ID},
		{Status: store.PutRestored, Version: a1.Version.ID, Superseded: a2.Version.ID},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	for _, nv := range []*store.NewVersion{a1, a2, b1} {
		checkContent(t, db, nv)
	}
}

func failures(t *testing.T, db *store.DB) (fs []store.Failure) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEachFailure(func(f *store.Failure) error { fs = append(fs, *f); return nil })
	})
	return fs
}

func TestFailures(t *testing.T) {
	db := openStore(t)
	now := time.Now().UTC().Truncate(time.Second)
	fx := store.Failure{Path: "in/x.pdf", DocumentID: "x.pdf", Reason: "encrypted", Error: "pdf: encrypted", Time: now}
	fy := store.Failure{Path: "in/y.bin", DocumentID: "y.bin", Reason: "binary", Error: "not text", Time: now}
	for _, f := range []store.Failure{fx, fy} {
		if err := db.PutFailure(&f); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]store.Failure{fx, fy}, failures(t, db)); diff != "" {
		t.Fatalf("failures (-want +got):\n%s", diff)
	}
	// A later successful ingest of x clears its failure.
	put(t, db, storetest.NewVersion("x.pdf", "x can be read now", 0), store.PutIngested)
	if diff := cmp.Diff([]store.Failure{fy}, failures(t, db)); diff != "" {
		t.Errorf("failures after ingesting x (-want +got):\n%s", diff)
	}
}

// TestFailureClearedByUnchangedIngest: a document ingested, then failing
// (say, unreadable for a while), then read again with the same bytes is
// ingested successfully: its failure record must go.
func TestFailureClearedByUnchangedIngest(t *testing.T) {
	db := openStore(t)
	put(t, db, storetest.NewVersion("z.txt", "stable text", 0), store.PutIngested)
	if err := db.PutFailure(&store.Failure{Path: "z.txt", DocumentID: "z.txt", Reason: "unreadable"}); err != nil {
		t.Fatal(err)
	}
	put(t, db, storetest.NewVersion("z.txt", "stable text", 0), store.PutUnchanged)
	if got := failures(t, db); len(got) != 0 {
		t.Errorf("failures after a successful unchanged ingest: got %v, want none", got)
	}
}

func TestACL(t *testing.T) {
	db := openStore(t)
	withACL := func(acl []string) *store.NewVersion {
		nv := storetest.NewVersion("doc", sampleText, 0)
		nv.ACL = acl
		return nv
	}
	steps := []struct {
		name   string
		acl    []string
		status store.PutStatus
		want   []string
	}{
		{"first ingest", []string{"alice"}, store.PutIngested, []string{"alice"}},
		{"unchanged, same list", []string{"alice"}, store.PutUnchanged, []string{"alice"}},
		{"unchanged, new list", []string{"alice", "bob"}, store.PutUnchanged, []string{"alice", "bob"}},
		{"unchanged, nil keeps the list", nil, store.PutUnchanged, []string{"alice", "bob"}},
		{"unchanged, empty list clears it", []string{}, store.PutUnchanged, nil},
	}
	for _, st := range steps {
		put(t, db, withACL(st.acl), st.status)
		doc := getDocument(t, db, "doc")
		if diff := cmp.Diff(st.want, doc.ACL, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: ACL (-want +got):\n%s", st.name, diff)
		}
	}
	doc := getDocument(t, db, "doc")
	if !doc.Allows("anyone") {
		t.Errorf("an empty access list: Allows got false, want true")
	}
}

// damagedStore writes a store with two versions (the first with a wide text
// and a quarantined chunk), closes it, applies damage with bbolt directly
// and opens it again. Seq 1 is the first version.
func damagedStore(t *testing.T, damage func(*bolt.Tx) error) (*store.DB, *store.NewVersion) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "evidence.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	nv := quarantine(storetest.NewVersion("doc", sampleText, 12), 2, "text_mismatch")
	for _, v := range []*store.NewVersion{nv, storetest.NewVersion("other", "other text", 4)} {
		if _, err := db.PutVersion(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	writeBolt(t, path, damage)
	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, nv
}

func TestCheck(t *testing.T) {
	b := func(tx *bolt.Tx, name string) *bolt.Bucket { return tx.Bucket([]byte(name)) }
	tests := []struct {
		name   string
		damage func(*bolt.Tx) error
		want   []string // kinds of the findings, sorted
	}{
		{"no damage", func(*bolt.Tx) error { return nil }, nil},
		{"text byte changed", func(tx *bolt.Tx) error {
			txt := slices.Clone(b(tx, bucketTexts).Get(seqKey(1)))
			i := strings.Index(string(txt), "14")
			txt[i] = '4' // same length, same code points, different hash
			return b(tx, bucketTexts).Put(seqKey(1), txt)
		}, []string{"text_hash"}},
		{"text removed", func(tx *bolt.Tx) error { return b(tx, bucketTexts).Delete(seqKey(1)) }, []string{"text_missing"}},
		{"text cut short", func(tx *bolt.Tx) error {
			txt := b(tx, bucketTexts).Get(seqKey(1))
			return b(tx, bucketTexts).Put(seqKey(1), slices.Clone(txt[:len(txt)-1]))
		}, []string{"text_missing"}},
		{"layout removed", func(tx *bolt.Tx) error { return b(tx, bucketLayouts).Delete(seqKey(1)) }, []string{"layout"}},
		{"last chunk removed", func(tx *bolt.Tx) error {
			c := b(tx, bucketChunks).Cursor()
			c.Seek(seqKey(2))
			k, _ := c.Prev() // the last chunk of seq 1
			return b(tx, bucketChunks).Delete(slices.Clone(k))
		}, []string{"count"}},
		{"extra chunk", func(tx *bolt.Tx) error {
			last := b(tx, bucketChunks).Get(chunkKey(2, 2))
			return b(tx, bucketChunks).Put(chunkKey(2, 3), slices.Clone(last))
		}, []string{"count", "key"}},
		{"chunk record garbage", func(tx *bolt.Tx) error {
			return b(tx, bucketChunks).Put(chunkKey(1, 0), []byte("garbage"))
		}, []string{"chunk", "count"}},
		{"document removed", func(tx *bolt.Tx) error { return b(tx, bucketDocs).Delete([]byte("other")) }, []string{"record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := damagedStore(t, tt.damage)
			findings, err := db.Check()
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			var kinds []string
			for _, f := range findings {
				kinds = append(kinds, f.Kind)
			}
			slices.Sort(kinds)
			if diff := cmp.Diff(tt.want, kinds, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("finding kinds (-want +got):\n%s\nfindings: %v", diff, findings)
			}
		})
	}
}

// TestTextHashMismatch: the text_hash damage is also caught on read, by
// VerifyText, with an error that matches ErrCorrupt.
func TestTextHashMismatch(t *testing.T) {
	db, nv := damagedStore(t, func(tx *bolt.Tx) error {
		txt := slices.Clone(tx.Bucket([]byte(bucketTexts)).Get(seqKey(1)))
		txt[0] ^= 0x20 // 'E' -> 'e'
		return tx.Bucket([]byte(bucketTexts)).Put(seqKey(1), txt)
	})
	findings, err := db.Check()
	if err != nil || len(findings) != 1 || findings[0].Kind != "text_hash" || findings[0].Version != nv.Version.ID {
		t.Errorf("Check: got %v, %v, want one text_hash finding for %s", findings, err, nv.Version.ID)
	}
	view(t, db, func(tx *store.Tx) error {
		v, err := tx.Version(nv.Version.ID)
		if err != nil {
			return err
		}
		txt, err := tx.Text(v)
		if err != nil {
			return err
		}
		err = store.VerifyText(v, txt)
		var hm *store.HashMismatchError
		if !errors.As(err, &hm) || !errors.Is(err, store.ErrCorrupt) || hm.Want != nv.Version.TextHash {
			t.Errorf("VerifyText: got %v, want a HashMismatchError matching ErrCorrupt", err)
		}
		return nil
	})
}

// TestCheckQuarantineIndex: the quarantine bucket is an index of the
// quarantined chunk records, and ForEachQuarantined (the quarantine audit)
// reads the index. Check must notice when index and records disagree, and
// ForEachQuarantined must never hand out a chunk without a Quarantine.
func TestCheckQuarantineIndex(t *testing.T) {
	tests := []struct {
		name   string
		damage func(*bolt.Tx) error
	}{
		// damagedStore quarantines chunk 2 of seq 1.
		{"index misses a quarantined chunk", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte(bucketQuarantine)).Delete(chunkKey(1, 2))
		}},
		{"index names a clean chunk", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte(bucketQuarantine)).Put(chunkKey(1, 0), nil)
		}},
		{"index names a missing chunk", func(tx *bolt.Tx) error {
			return tx.Bucket([]byte(bucketQuarantine)).Put(chunkKey(9, 0), nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := damagedStore(t, tt.damage)
			findings, err := db.Check()
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if len(findings) == 0 {
				t.Errorf("Check: got no findings, want one for the quarantine index")
			}
			err = db.View(func(tx *store.Tx) error {
				return tx.ForEachQuarantined(func(v *store.Version, c *store.Chunk) error {
					if c.Quarantine == nil {
						t.Errorf("ForEachQuarantined: got chunk %s without a Quarantine", c.ID())
					}
					return nil
				})
			})
			if err != nil && !errors.Is(err, store.ErrCorrupt) {
				t.Errorf("ForEachQuarantined: got error %v, want none or ErrCorrupt", err)
			}
		})
	}
}
