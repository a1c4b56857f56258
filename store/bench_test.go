package store_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// benchText returns about size bytes of mixed-script prose.
func benchText(size int, seed uint64) string {
	words := []string{"evidence", "the", "citation", "page", "policy", "within", "days", "résumé", "naïve",
		"Ελληνικά", "русский", "العربية", "日本語", "中文", "😀", "2024", "3,25", "250,000,000", ".\n", "\f"}
	r := rand.New(rand.NewPCG(seed, seed))
	var b strings.Builder
	b.Grow(size + 32)
	for b.Len() < size {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// chunked builds a version of text cut into exactly n chunks of equal
// length, dropping the code points past the last whole chunk.
func chunked(docID, text string, n int) *store.NewVersion {
	runes := []rune(text)
	size := len(runes) / n
	return storetest.NewVersion(docID, string(runes[:size*n]), size)
}

// renumber makes nv a version of document docID, keeping its content: the
// store writes the same bytes under a new version id.
func renumber(nv *store.NewVersion, docID string) {
	nv.Version.DocumentID = docID
	nv.Version.SourcePath = docID
	nv.Version.ID = store.VersionID(docID, nv.Version.SourceHash, storetest.Fingerprint)
	for i := range nv.Chunks {
		nv.Chunks[i].Version = nv.Version.ID
	}
}

// BenchmarkPutVersion writes one new version per iteration: about 1 MB of
// text and 1000 chunks, whose keys ascend.
func BenchmarkPutVersion(b *testing.B) {
	nv := chunked("bench", benchText(1<<20, 1), 1000)
	if len(nv.Chunks) != 1000 {
		b.Fatalf("got %d chunks, want 1000", len(nv.Chunks))
	}
	db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.SetBytes(int64(len(nv.Text.Bytes())))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		renumber(nv, fmt.Sprintf("doc-%d", i))
		res, err := db.PutVersion(nv)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != store.PutIngested {
			b.Fatalf("got %s, want ingested", res.Status)
		}
		i++
	}
}

// BenchmarkChunkRead resolves a random chunk of a warm store of 100,000
// chunks: in one read transaction, the version header, the chunk record and
// the document record.
func BenchmarkChunkRead(b *testing.B) {
	const versions, chunksPer = 100, 1000
	db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	nv := chunked("bench", benchText(64<<10, 2), chunksPer)
	ids := make([]string, versions)
	var batch []*store.NewVersion
	for v := range versions {
		c := *nv
		c.Chunks = append([]store.Chunk(nil), nv.Chunks...)
		renumber(&c, fmt.Sprintf("doc-%03d", v))
		ids[v] = c.Version.ID
		batch = append(batch, &c)
		if len(batch) == 20 || v == versions-1 {
			if _, err := db.PutVersions(batch); err != nil {
				b.Fatal(err)
			}
			batch = nil
		}
	}
	if total := versions * len(nv.Chunks); total < 100_000 {
		b.Fatalf("store holds %d chunks, want at least 100000", total)
	}
	r := rand.New(rand.NewPCG(3, 3))
	b.ReportAllocs()
	for b.Loop() {
		id := ids[r.IntN(len(ids))]
		ord := uint32(r.IntN(len(nv.Chunks)))
		err := db.View(func(tx *store.Tx) error {
			v, err := tx.Version(id)
			if err != nil {
				return err
			}
			c, err := tx.Chunk(v, ord)
			if err != nil {
				return err
			}
			doc, err := tx.Document(v.DocumentID)
			if err != nil {
				return err
			}
			if c.Ordinal != ord || doc.Current != v.ID {
				return fmt.Errorf("got chunk %s of document %s", c.ID(), doc.ID)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
