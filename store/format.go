package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
)

// FormatVersion is the on-disk format this build writes, kept in the meta
// bucket and checked on open. Every change to how a record, key or
// required bucket is stored bumps it, with a changelog entry below and a
// fixture, testdata/formatN.db, written by the build that introduced the
// format and kept unchanged from then on (TestFormatFixturesKept). An
// older format is read as it is (read-only) and upgraded by Migrate;
// a writable open of it is refused with that advice. Only buckets that an
// older build can ignore are added without a bump (laterBuckets).
//
// Changelog:
//
//	1: documents, versions (with a copy of the document's access list),
//	   texts followed by their code-point index, layouts, chunks keyed by
//	   (version seq, ordinal), quarantine and repair indexes, failures,
//	   verification traces; binary records carry a CRC-32C. Later, without
//	   a bump (see laterBuckets): judgments, reviews; the sources index
//	   (source hash -> versions, sources.go); document record version 3;
//	   evalruns; trace summaries. Stores of development builds before the
//	   repaired and traces buckets are refused (checkEarlyFormat1).
//	2: JSON records (failures, traces, trace summaries, reviews,
//	   evaluation runs) sealed: a zero byte and the CRC-32C of key and
//	   record after the JSON (jsonrecord.go); each text's code-point index
//	   followed by a CRC-32C of every 4 KiB block of the text and a seal
//	   (text.go). Readers still accept the unsealed forms of format 1.
const FormatVersion = 2

// oldestFormat is the oldest format this build reads and migrates.
const oldestFormat = 1

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

// checkEarlyFormat1 refuses, as a format this build does not read rather
// than as damage, a format-1 store of a development build from before the
// repaired and traces buckets were required: it lacks one of them and
// holds no bucket this build does not know, other than the cpindex bucket
// those builds kept. (A damaged bucket name lacks one and adds another.)
func checkEarlyFormat1(tx BackendTx, path string, format uint32) error {
	if format != 1 {
		return nil
	}
	var missing []byte
	for _, name := range [][]byte{bucketRepaired, bucketTraces} {
		if tx.Bucket(name) == nil {
			missing = name
			break
		}
	}
	if missing == nil {
		return nil
	}
	known := map[string]bool{"cpindex": true}
	for _, name := range slices.Concat(allBuckets, laterBuckets) {
		known[string(name)] = true
	}
	unknown := false
	_ = tx.ForEachBucket(func(name []byte) error {
		unknown = unknown || !known[string(name)]
		return nil
	})
	if unknown {
		return nil // damage: the bucket checks that follow say so
	}
	return fmt.Errorf("%w: %s was written by a development build of format 1 (it has no %q bucket), which this build neither reads nor migrates: ingest its documents into a new store", ErrFormat, path, missing)
}
