package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// FormatVersion is the on-disk format this build reads and writes, kept in
// the meta bucket and checked on open.
//
// Changelog:
//
//	1: first format: documents, versions (with a copy of the document's
//	   access list), texts followed by their code-point index, layouts,
//	   chunks keyed by (version seq, ordinal), quarantine and repair
//	   indexes, failures, verification traces.
//	   Later, without a bump (see laterBuckets): judgments, reviews; the
//	   sources index (source hash -> versions, sources.go); document
//	   record version 3 (access list and source URL update times);
//	   evalruns; trace summaries.
const FormatVersion = 1

// Bucket names.
var (
	bucketMeta       = []byte("meta")       // "format" -> uint32
	bucketDocs       = []byte("docs")       // document id -> Document
	bucketVersions   = []byte("versions")   // version id -> Version (holds Seq)
	bucketTexts      = []byte("texts")      // seq -> canonical text (UTF-8), then its code-point index
	bucketLayouts    = []byte("layouts")    // seq -> Layout
	bucketChunks     = []byte("chunks")     // seq, ordinal -> Chunk
	bucketQuarantine = []byte("quarantine") // seq, ordinal -> "" (index of quarantined chunks)
	bucketRepaired   = []byte("repaired")   // seq, ordinal -> "" (index of re-anchored chunks)
	bucketFailures   = []byte("failures")   // document id -> Failure (JSON)
	bucketTraces     = []byte("traces")     // trace id -> verification trace (JSON)
	bucketJudgments  = []byte("judgments")  // BLAKE3 key -> model judge verdict (see judgment.go)
	bucketReviews    = []byte("reviews")    // trace id, 0x00, claim id -> Review (JSON)
	bucketSources    = []byte("sources")    // source BLAKE3, version id -> "" (sources.go)
	bucketEvalRuns   = []byte("evalruns")   // run id -> evaluation run record (JSON, see evalrun.go)
	allBuckets       = [][]byte{bucketMeta, bucketDocs, bucketVersions, bucketTexts,
		bucketLayouts, bucketChunks, bucketQuarantine, bucketRepaired, bucketFailures, bucketTraces}
	keyFormat = []byte("format")
)

// bucketTraceSummaries maps a trace id to a small summary of the trace,
// opaque here (verify's), which trace listings read instead of the trace.
var bucketTraceSummaries = []byte("trace_summaries")

// laterBuckets were added to format 1 after stores of it were written, so
// an existing file may lack them: a writable open creates them
// (createLaterBuckets), a read-only one reads a missing one as empty.
// Adding a bucket this way needs no format bump: older builds ignore it.
var laterBuckets = [][]byte{
	bucketJudgments,
	bucketReviews,
	bucketSources,
	bucketEvalRuns,
	bucketTraceSummaries,
}

func seqKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 12), seq)
}

func chunkKey(seq uint64, ordinal uint32) []byte {
	return binary.BigEndian.AppendUint32(seqKey(seq), ordinal)
}

// bbolt's meta page layout, read before bbolt maps the file: bbolt checks
// the meta checksum but faults through the mmap on a file shorter than its
// high-water mark, killing the process.
const (
	boltMagic      = 0xED0CDAED
	boltPageHeader = 16 // page id, flags, count, overflow
	boltMetaSize   = 64 // magic .. checksum
)

type boltMeta struct {
	pageSize uint32
	pgid     uint64 // high-water mark: pages in use
	txid     uint64
}

func parseBoltMeta(page []byte) (boltMeta, bool) {
	if len(page) < boltPageHeader+boltMetaSize {
		return boltMeta{}, false
	}
	m := page[boltPageHeader : boltPageHeader+boltMetaSize]
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != boltMagic {
		return boltMeta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return boltMeta{}, false
	}
	return boltMeta{pageSize: le.Uint32(m[8:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

// preflight checks an existing store file before bbolt maps it: it must be
// a bbolt file with a valid meta page, at least as long as its high-water mark.
// A missing or empty file passes: bbolt creates it.
func preflight(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%w: %s is a directory", ErrNotStore, path)
	}
	if fi.Size() == 0 {
		return nil
	}
	head := make([]byte, boltPageHeader+boltMetaSize)
	if _, err := io.ReadFull(f, head); err != nil {
		return fmt.Errorf("%w: %s: %d bytes is too short for a store", ErrNotStore, path, fi.Size())
	}
	magic0 := binary.LittleEndian.Uint32(head[boltPageHeader:]) == boltMagic
	best, ok := parseBoltMeta(head)
	// The second meta page sits one page in; without a valid first page,
	// its size is the OS page size bbolt would have used.
	pageSize := int64(os.Getpagesize())
	if ok {
		pageSize = int64(best.pageSize)
	}
	if pageSize < 512 || pageSize > 1<<20 {
		return fmt.Errorf("%w: %s: implausible page size %d", ErrCorrupt, path, pageSize)
	}
	second := make([]byte, boltPageHeader+boltMetaSize)
	magic1 := false
	if _, err := f.ReadAt(second, pageSize); err == nil {
		magic1 = binary.LittleEndian.Uint32(second[boltPageHeader:]) == boltMagic
		if m, ok2 := parseBoltMeta(second); ok2 && (!ok || m.txid > best.txid) {
			best, ok = m, true
		}
	}
	switch {
	case !ok && !magic0 && !magic1:
		return fmt.Errorf("%w: %s has no bbolt header", ErrNotStore, path)
	case !ok:
		return fmt.Errorf("%w: %s: both meta pages fail their checksum", ErrCorrupt, path)
	}
	if need := int64(best.pgid) * int64(best.pageSize); fi.Size() < need {
		return fmt.Errorf("%w: %s is truncated: %d bytes, high-water mark %d", ErrCorrupt, path, fi.Size(), need)
	}
	return nil
}
