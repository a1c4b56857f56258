package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "evidence.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// raw replaces the stored value of key in bucket.
func raw(t *testing.T, db *DB, bucket, key []byte, change func([]byte) []byte) {
	t.Helper()
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		return b.Put(key, change(bytes.Clone(b.Get(key))))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestJSONRecordsSealed: a failure, a trace, a review and an evaluation
// run are refused on read when any bit of their stored bytes flips or
// they sit under another key, and a record written before seals (plain
// JSON) still reads.
func TestJSONRecordsSealed(t *testing.T) {
	db := openTemp(t)
	at := time.Unix(1700000000, 0).UTC()
	if err := db.PutFailure(&Failure{Path: "in/a.pdf", DocumentID: "a.pdf", Reason: "encrypted", Error: "pdf: encrypted", Time: at}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutTrace("0190-t", []byte(`{"trace_id":"0190-t","report":{"disposition":"accept"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutReviews([]Review{{TraceID: "0190-t", ClaimID: "c1", Judge: "j", JudgeLabel: "supported", HumanLabel: "supported", Recorded: at}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutEvalRun("0190-r", []byte(`{"run_id":"0190-r"}`)); err != nil {
		t.Fatal(err)
	}
	kinds := []struct {
		name        string
		bucket, key []byte
		read        func(tx *Tx) error
	}{
		{"failure", bucketFailures, []byte("a.pdf"), func(tx *Tx) error { return tx.ForEachFailure(func(*Failure) error { return nil }) }},
		{"trace", bucketTraces, []byte("0190-t"), func(tx *Tx) error { _, err := tx.Trace("0190-t"); return err }},
		{"trace scan", bucketTraces, []byte("0190-t"), func(tx *Tx) error { return tx.ForEachTrace("", func(_, _ []byte) error { return nil }) }},
		{"review", bucketReviews, reviewKey("0190-t", "c1"), func(tx *Tx) error { _, err := tx.Review("0190-t", "c1"); return err }},
		{"evaluation run", bucketEvalRuns, []byte("0190-r"), func(tx *Tx) error { _, err := tx.EvalRun("0190-r"); return err }},
	}
	for _, k := range kinds {
		var stored []byte
		_ = db.bolt.View(func(tx *bolt.Tx) error { stored = bytes.Clone(tx.Bucket(k.bucket).Get(k.key)); return nil })
		if len(stored) < 5 || stored[len(stored)-5] != 0 {
			t.Fatalf("%s: stored unsealed: %q", k.name, stored)
		}
		for i := range stored {
			for bit := range 8 {
				raw(t, db, k.bucket, k.key, func(b []byte) []byte { b[i] ^= 1 << bit; return b })
				err := db.View(k.read)
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s: bit %d of byte %d flipped: got %v, want ErrCorrupt", k.name, bit, i, err)
				}
				raw(t, db, k.bucket, k.key, func([]byte) []byte { return stored })
			}
		}
		if err := db.View(k.read); err != nil {
			t.Fatalf("%s restored: %v", k.name, err)
		}
		// Under another key: the seal covers the key.
		err := db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(k.bucket).Put(append(bytes.Clone(k.key), 'x'), stored) })
		if err != nil {
			t.Fatal(err)
		}
		findings, err := db.Check()
		if err != nil || len(findings) != 1 || findings[0].Kind != "checksum" {
			t.Errorf("%s under another key: Check %v %v, want one checksum finding", k.name, findings, err)
		}
		_ = db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(k.bucket).Delete(append(bytes.Clone(k.key), 'x')) })
		// As written before seals.
		raw(t, db, k.bucket, k.key, func([]byte) []byte { return stored[:len(stored)-5] })
		if err := db.View(k.read); err != nil {
			t.Errorf("%s written before seals: %v", k.name, err)
		}
		raw(t, db, k.bucket, k.key, func([]byte) []byte { return stored })
	}
	if findings, err := db.Check(); err != nil || len(findings) > 0 {
		t.Errorf("Check: %v %v", findings, err)
	}
}

// TestRecordUnderAnotherKey: a sealed record copied under another key
// (its key damaged) is refused, not served for the key asked.
func TestRecordUnderAnotherKey(t *testing.T) {
	db := openTemp(t)
	nv := &NewVersion{Version: Version{ID: strings.Repeat("a", 32), DocumentID: "doc", TextLen: 4, TextBytes: 4, Pages: 1, Chunks: 1,
		TextHash: Hash([]byte("text"))}, Text: NewText([]byte("text")), Layout: Layout{PageStarts: []int{0}},
		Chunks: []Chunk{{Version: strings.Repeat("a", 32), End: 4, Page: 1, PageEnd: 1, ByteEnd: 4, SpanHash: Hash([]byte("text"))}}}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	other := strings.Repeat("b", 32)
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketVersions).Put([]byte(other), tx.Bucket(bucketVersions).Get([]byte(nv.Version.ID))); err != nil {
			return err
		}
		if err := tx.Bucket(bucketDocs).Put([]byte("doc2"), tx.Bucket(bucketDocs).Get([]byte("doc"))); err != nil {
			return err
		}
		return tx.Bucket(bucketChunks).Put(chunkKey(1, 1), tx.Bucket(bucketChunks).Get(chunkKey(1, 0)))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *Tx) error {
		if _, err := tx.Version(other); !errors.Is(err, ErrCorrupt) {
			t.Errorf("version under another id: got %v, want ErrCorrupt", err)
		}
		if _, err := tx.Document("doc2"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("document under another id: got %v, want ErrCorrupt", err)
		}
		v, err := tx.Version(nv.Version.ID)
		if err != nil {
			return err
		}
		if err := tx.ForEachChunk(v, func(*Chunk) error { return nil }); !errors.Is(err, ErrCorrupt) {
			t.Errorf("a chunk key past the header's count: got %v, want ErrCorrupt", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := db.Check()
	kinds := map[string]int{}
	for _, f := range findings {
		kinds[f.Kind]++
	}
	if err != nil || kinds["key"] != 3 {
		t.Errorf("Check: %v %v, want 3 key findings", findings, err)
	}
}

// TestCheckPagesDamage: page damage that made bbolt's Tx.Check fault (an
// element offset past the file) or loop (an overflow count of billions), and
// a page that points at its own parent, give findings, not a dead or hung
// process.
func TestCheckPagesDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "evidence.db")
	db, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nvs []*NewVersion
	for i := range 40 { // enough chunks for a branch page
		text := strings.Repeat("Chunk text, long enough to fill pages. ", 30) + string(rune('A'+i%26))
		id := VersionID("doc"+string(rune('a'+i%26))+string(rune('a'+i/26)), Hash([]byte(text)), "f")
		txt := NewText([]byte(text))
		nv := &NewVersion{Version: Version{ID: id, DocumentID: "doc" + string(rune('a'+i%26)) + string(rune('a'+i/26)), SourceHash: Hash([]byte(text)),
			Fingerprint: "f", TextHash: Hash([]byte(text)), TextLen: txt.Len(), TextBytes: len(text), Pages: 1}, Text: txt, Layout: Layout{PageStarts: []int{0}}}
		for s := 0; s < txt.Len(); s += 40 {
			e := min(s+40, txt.Len())
			nv.Chunks = append(nv.Chunks, Chunk{Version: id, Ordinal: uint32(len(nv.Chunks)), Start: s, End: e, Page: 1, PageEnd: 1,
				ByteStart: s, ByteEnd: e, SpanHash: Hash([]byte(text[s:e]))})
		}
		nv.Version.Chunks = len(nv.Chunks)
		nvs = append(nvs, nv)
	}
	if _, err := db.PutVersions(nvs); err != nil {
		t.Fatal(err)
	}
	db.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	le := binary.LittleEndian
	var leaf, branch int = -1, -1
	for p := 2 * ps; p+ps <= len(orig); p += ps {
		switch le.Uint16(orig[p+8:]) {
		case 0x02:
			if leaf < 0 && le.Uint16(orig[p+10:]) > 1 {
				leaf = p
			}
		case 0x01:
			if branch < 0 {
				branch = p
			}
		}
	}
	if leaf < 0 || branch < 0 {
		t.Fatalf("no leaf or branch page (leaf %d, branch %d)", leaf, branch)
	}
	tests := []struct {
		name   string
		damage func(b []byte)
	}{
		{"overflow of billions", func(b []byte) { le.PutUint32(b[leaf+12:], 0xFFFFFFF0) }},
		{"element position past the file", func(b []byte) { le.PutUint32(b[leaf+16+4:], 0x7FFFFFF0) }},
		{"value size past the file", func(b []byte) { le.PutUint32(b[leaf+16+12:], 0x7FFFFFF0) }},
		{"element count past the page", func(b []byte) { le.PutUint16(b[leaf+10:], 0xFFFE) }},
		{"branch pointing at itself", func(b []byte) { le.PutUint64(b[branch+16+8:], uint64(branch/ps)) }},
		{"branch pointing past the file", func(b []byte) { le.PutUint64(b[branch+16+8:], 1<<40) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			tt.damage(b)
			p := filepath.Join(t.TempDir(), "damaged.db")
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(p, &Options{ReadOnly: true})
			if errors.Is(err, ErrCorrupt) {
				// The page was one open walks (the top-level tree: which
				// leaf comes first varies with the records' times), and
				// open refused it: as good as a finding.
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			done := make(chan struct{})
			var findings []Finding
			go func() {
				defer close(done)
				findings, err = db.Check()
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Check runs past 30 s")
			}
			if err != nil || len(findings) == 0 || findings[0].Kind != "bbolt" {
				t.Errorf("got %v, %v, want bbolt findings", findings, err)
			}
		})
	}
}

// TestOpenChecksTopLevel: a store whose top-level tree is damaged where
// bbolt would crash the process or loop (an inline bucket's element
// offsets, which bbolt follows in a heap copy; a bucket root naming a page
// that is no tree page) is refused on open.
func TestOpenChecksTopLevel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "evidence.db")
	db, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutFailure(&Failure{Path: "a.pdf", DocumentID: "a.pdf", Reason: "encrypted"}); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("A text long enough for a page of its own. ", 200) // the texts bucket is no inline bucket
	nv := &NewVersion{Version: Version{ID: strings.Repeat("a", 32), DocumentID: "doc", TextLen: len(text), TextBytes: len(text), Pages: 1,
		TextHash: Hash([]byte(text))}, Text: NewText([]byte(text)), Layout: Layout{PageStarts: []int{0}}}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	db.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	m0, _ := parseBoltRoot(orig)
	m1, _ := parseBoltRoot(orig[m0.pageSize:])
	m := m0
	if m1.txid > m0.txid {
		m = m1
	}
	ps := int(m.pageSize)
	root := int(m.root) * ps
	var inlineElem, bucketRoot, freelist = -1, -1, int(m.freelist) * ps
	for e := range int(le.Uint16(orig[root+10:])) {
		eo := root + 16 + 16*e
		if le.Uint32(orig[eo:])&1 == 0 {
			continue
		}
		v := eo + int(le.Uint32(orig[eo+4:])) + int(le.Uint32(orig[eo+8:]))
		if le.Uint64(orig[v:]) == 0 && le.Uint16(orig[v+16+10:]) > 0 && inlineElem < 0 {
			inlineElem = v + 16 + 16 // the first element of the inline page
		} else if le.Uint64(orig[v:]) != 0 && bucketRoot < 0 {
			bucketRoot = v
		}
	}
	if inlineElem < 0 || bucketRoot < 0 {
		t.Fatalf("no inline bucket or bucket root page in the top level (%d, %d)", inlineElem, bucketRoot)
	}
	for _, tt := range []struct {
		name   string
		damage func(b []byte)
	}{
		{"inline element value size", func(b []byte) { le.PutUint32(b[inlineElem+12:], 0x00FFFFFF) }},
		{"inline element position", func(b []byte) { le.PutUint32(b[inlineElem+4:], 0x00FFFFFF) }},
		{"bucket root names the freelist page", func(b []byte) { le.PutUint64(b[bucketRoot:], uint64(freelist/ps)) }},
		{"bucket root past the file", func(b []byte) { le.PutUint64(b[bucketRoot:], 1<<33) }},
	} {
		b := bytes.Clone(orig)
		tt.damage(b)
		p := filepath.Join(t.TempDir(), "damaged.db")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := Open(p, &Options{ReadOnly: true})
		if err == nil {
			db.Close()
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open got %v, want ErrCorrupt", tt.name, err)
		}
	}
}
