package resolve_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// benchStoreRev names the way the benchmark stores are built. The stores
// are cached between runs under the user's cache directory, in a folder
// named by it and the store format: bump it when the generator, the
// chunking or the stored records change, so that a stale store is rebuilt
// rather than measured.
const benchStoreRev = "resolve-r1"

// benchDocBytes is the size of every generated document: about 141 chunks
// at the default chunk settings, so the stores differ in how many
// documents they hold (and so how many versions a cache must keep), not in
// what a document looks like.
const benchDocBytes = 100 << 10

// benchSizes are the benchmark stores: name, documents, at least how many
// chunks. The largest is built only with EVIDENCE_BENCH_LARGE=1 (minutes,
// about 1 GB on disk, once).
var benchSizes = []struct {
	name      string
	docs      int
	minChunks int
	large     bool
}{
	{"10k", 72, 10_000, false},
	{"100k", 720, 100_000, false},
	{"1M", 7200, 1_000_000, true},
}

type benchStore struct {
	once sync.Once
	db   *store.DB
	ids  chunkIDs
	err  error
}

// chunkIDs holds a store's chunk ids in one string, so that the
// benchmark's heap holds no million pointers for the garbage collector to
// mark on every cycle, which a server's does not either.
type chunkIDs struct {
	all  string
	ends []int32
}

func (c *chunkIDs) len() int { return len(c.ends) }

func (c *chunkIDs) at(i int) string {
	start := int32(0)
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.all[start:c.ends[i]]
}

var benchStores = map[string]*benchStore{"10k": {}, "100k": {}, "1M": {}}

// benchCacheDir is where the benchmark stores are kept between runs:
// $EVIDENCE_BENCH_CACHE, else the user's cache directory (XDG_CACHE_HOME,
// ~/.cache) under evidence-bench, keyed by format and benchStoreRev.
func benchCacheDir() (string, error) {
	dir := os.Getenv("EVIDENCE_BENCH_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache directory for the benchmark stores (set EVIDENCE_BENCH_CACHE): %w", err)
		}
		dir = filepath.Join(base, "evidence-bench")
	}
	return filepath.Join(dir, fmt.Sprintf("format%d-%s", store.FormatVersion, benchStoreRev)), nil
}

// openBenchStore opens the cached store of the named size, building it
// first if it is missing or does not open.
func openBenchStore(b *testing.B, name string) (*store.DB, *chunkIDs) {
	var size = benchSizes[0]
	for _, s := range benchSizes {
		if s.name == name {
			size = s
		}
	}
	if size.large && os.Getenv("EVIDENCE_BENCH_LARGE") == "" {
		b.Skipf("the %s-chunk store is opt-in: EVIDENCE_BENCH_LARGE=1 (built once, minutes, ~1 GB in %s)", name, cacheDirOrDefault())
	}
	s := benchStores[name]
	s.once.Do(func() { s.db, s.ids, s.err = loadBenchStore(name, size.docs) })
	if s.err != nil {
		b.Fatal(s.err)
	}
	if s.ids.len() < size.minChunks {
		b.Fatalf("the %s store has %d chunks, want at least %d (bump benchStoreRev and rebuild)", name, s.ids.len(), size.minChunks)
	}
	return s.db, &s.ids
}

func cacheDirOrDefault() string {
	d, err := benchCacheDir()
	if err != nil {
		return "the cache directory"
	}
	return d
}

func loadBenchStore(name string, docs int) (*store.DB, chunkIDs, error) {
	dir, err := benchCacheDir()
	if err != nil {
		return nil, chunkIDs{}, err
	}
	path := filepath.Join(dir, "resolve-"+name+".db")
	db, err := store.Open(path, &store.Options{ReadOnly: true, LockTimeout: time.Minute})
	if err != nil {
		if err := buildBenchStore(dir, path, docs); err != nil {
			return nil, chunkIDs{}, fmt.Errorf("building the %s benchmark store in %s: %w", name, dir, err)
		}
		if db, err = store.Open(path, &store.Options{ReadOnly: true, LockTimeout: time.Minute}); err != nil {
			return nil, chunkIDs{}, err
		}
	}
	var all []byte
	var ids chunkIDs
	err = db.View(func(tx *store.Tx) error {
		return tx.ForEachVersion(func(v *store.Version) error {
			for ord := range v.Chunks {
				all = append(all, store.ChunkID(v.ID, uint32(ord))...)
				ids.ends = append(ids.ends, int32(len(all)))
			}
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, ids, err
	}
	ids.all = string(all)
	// Warm up as a server that has been answering for a while: every chunk
	// resolved once, in store order, so that the pages of the mapped file
	// are in the page cache and mapped into the process (a page's first
	// touch is a fault) and the caches hold what they keep.
	for i := range ids.len() {
		if r, err := resolve.Chunk(db, ids.at(i), ""); err != nil || r.Status != resolve.StatusOK {
			db.Close()
			return nil, ids, fmt.Errorf("warming up: %s: %v %v", ids.at(i), r, err)
		}
	}
	return db, ids, nil
}

// buildBenchStore ingests docs generated documents of benchDocBytes through
// the real pipeline into a new store at path, written beside it and renamed
// into place when complete, so an interrupted build leaves nothing that
// opens (and a killed one a file named for its process, to delete). The sources are written in batches next to it and removed.
func buildBenchStore(dir, path string, docs int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.building-%d", path, os.Getpid()) // two builds at once each finish their own
	db, err := store.Open(tmp, nil)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	src, err := os.MkdirTemp(dir, "src-")
	if err != nil {
		db.Close()
		return err
	}
	defer os.RemoveAll(src)
	const batch = 500
	for first := 0; first < docs; first += batch {
		sub := filepath.Join(src, fmt.Sprintf("b%03d", first/batch))
		paths, err := corpus.WriteMarkdown(sub, min(batch, docs-first), benchDocBytes, uint64(first)+1)
		if err != nil {
			db.Close()
			return err
		}
		if _, err := ingest.Run(context.Background(), db, paths, ingest.Options{Base: src}); err != nil {
			db.Close()
			return err
		}
		if err := os.RemoveAll(sub); err != nil {
			db.Close()
			return err
		}
	}
	if err := db.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// BenchmarkResolveChunk resolves random chunk ids in warm stores of 10k,
// 100k and (opt-in) 1M chunks over many documents: parse id, version and
// document reads, ACL check, chunk read, span slice and check, copy out.
// Latency is the figure: mean, p50, p99 and p99.9 of the calls; faults/op
// counts the pages first touched while timing (zero once warm), cpu-ns/op
// the CPU the process spent a call, which a shared machine moves less.
func BenchmarkResolveChunk(b *testing.B) {
	for _, size := range benchSizes {
		b.Run("chunks="+size.name, func(b *testing.B) {
			db, ids := openBenchStore(b, size.name)
			rng := rand.New(rand.NewPCG(1, 2))
			lat := make([]time.Duration, 0, 1<<20)
			var touch byte
			b.ReportAllocs()
			faults, cpu := minorFaults(), cpuTime()
			b.ResetTimer()
			for b.Loop() {
				id := ids.at(rng.IntN(ids.len()))
				// A request's id is in the CPU cache, where it was just
				// read; one of a million in this slice is not.
				touch += id[0] ^ id[len(id)-1]
				t0 := time.Now()
				r, err := resolve.Chunk(db, id, "")
				lat = append(lat, time.Since(t0))
				if err != nil || r.Status != resolve.StatusOK {
					b.Fatalf("%s: %v %v", id, r, err)
				}
			}
			if f := minorFaults(); faults >= 0 && f >= 0 {
				b.ReportMetric(float64(f-faults)/float64(len(lat)), "faults/op")
			}
			if c := cpuTime(); cpu >= 0 && c >= 0 {
				b.ReportMetric(float64((c-cpu).Nanoseconds())/float64(len(lat)), "cpu-ns/op")
			}
			reportLatency(b, lat)
			b.ReportMetric(float64(ids.len()), "chunks_in_store")
			benchSink = touch
		})
	}
}

var benchSink byte

// reportLatency reports the mean, median, 99th and 99.9th percentiles of
// the calls timed.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	slices.Sort(lat)
	at := func(q float64) float64 { return float64(lat[min(len(lat)-1, int(float64(len(lat))*q))].Nanoseconds()) }
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(lat)), "mean-ns")
	b.ReportMetric(at(0.5), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
	b.ReportMetric(at(0.999), "p99.9-ns")
}
