// Package storetest holds helpers for tests that use a store: a store in a
// temporary directory that checks its own integrity when the test ends, and
// a builder of valid versions from a document id and a text.
//
// Like bbolt's internal/btesting, every test that opens its store through
// Open also tests the store's consistency: the cleanup runs DB.Check and
// fails the test on any finding. Production code never imports this package.
package storetest

import (
	"path/filepath"
	"testing"

	"github.com/evidence-rag/evidence/store"
)

// Fingerprint is the pipeline fingerprint of the versions NewVersion builds.
const Fingerprint = "test/1"

// Open opens a new store in t.TempDir(). See OpenPath.
func Open(t testing.TB) *store.DB {
	t.Helper()
	return OpenPath(t, filepath.Join(t.TempDir(), "evidence.db"), nil)
}

// OpenPath opens the store at path and registers a cleanup that runs
// DB.Check, reports each finding with t.Errorf, then closes the store. The
// test must not close the store itself.
func OpenPath(t testing.TB, path string, opts *store.Options) *store.DB {
	t.Helper()
	db, err := store.Open(path, opts)
	if err != nil {
		t.Fatalf("store.Open(%q): %v", path, err)
	}
	t.Cleanup(func() {
		findings, err := db.Check()
		if err != nil {
			t.Errorf("Check %s: %v", path, err)
		}
		for _, f := range findings {
			t.Errorf("Check %s: %s", path, f)
		}
		if err := db.Close(); err != nil {
			t.Errorf("Close %s: %v", path, err)
		}
	})
	return db
}

// NewVersion builds a valid version of document docID whose source bytes
// and canonical text are both text: source and text hash, version id
// (fingerprint Fingerprint), one page per form feed-separated part, and
// chunks cut every chunkLen code points (one chunk for the whole text when
// chunkLen <= 0; none for an empty text), each with its pages and span hash.
func NewVersion(docID, text string, chunkLen int) *store.NewVersion {
	return NewVersionWith(docID, text, chunkLen, Fingerprint)
}

// NewVersionWith is NewVersion with another pipeline fingerprint: the same
// source bytes cut otherwise, as a rebuild makes them.
func NewVersionWith(docID, text string, chunkLen int, fingerprint string) *store.NewVersion {
	b := []byte(text)
	src := store.HashString(text)
	id := store.VersionID(docID, src, fingerprint)
	txt := store.NewText(b)
	n := txt.Len()

	layout := store.Layout{PageStarts: []int{0}}
	cp := 0
	for _, r := range text {
		cp++
		if r == '\f' {
			layout.PageStarts = append(layout.PageStarts, cp)
		}
	}

	if chunkLen <= 0 {
		chunkLen = max(n, 1)
	}
	var chunks []store.Chunk
	for start := 0; start < n; start += chunkLen {
		end := min(start+chunkLen, n)
		span, err := txt.Slice(start, end)
		if err != nil {
			panic(err) // start and end are in range by construction
		}
		chunks = append(chunks, store.Chunk{
			Version:   id,
			Ordinal:   uint32(len(chunks)),
			Start:     start,
			End:       end,
			Page:      layout.PageAt(start),
			PageEnd:   layout.PageAt(end - 1),
			SpanHash:  store.Hash(span),
			ByteStart: txt.ByteOffset(start),
			ByteEnd:   txt.ByteOffset(start) + len(span),
		})
	}

	return &store.NewVersion{
		Version: store.Version{
			ID:          id,
			DocumentID:  docID,
			SourceHash:  src,
			TextHash:    src,
			Fingerprint: fingerprint,
			MediaType:   "text/plain",
			SourcePath:  docID,
			SourceBytes: int64(len(b)),
			TextLen:     n,
			TextBytes:   len(b),
			Pages:       len(layout.PageStarts),
		},
		Text:   txt,
		Layout: layout,
		Chunks: chunks,
	}
}
