package postgres

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// benchStores opens an empty store of each backend, bbolt and PostgreSQL,
// so that one run measures both on the same inputs.
func benchStores(b *testing.B) map[string]*store.DB {
	b.Helper()
	bolt, err := store.Open(filepath.Join(b.TempDir(), "e.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	dsn := storetest.Postgres(b)
	if _, err := Migrate(dsn); err != nil {
		b.Fatal(err)
	}
	pg, err := Open(dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bolt.Close(); pg.Close() })
	return map[string]*store.DB{"bolt": bolt, "postgres": pg}
}

// benchText is a document of about size bytes.
func benchText(size int, salt string) string {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "Paragraph %d of %s: expense reports are submitted within %d days, with receipts attached.\n\n", i, salt, i%90)
	}
	return sb.String()
}

// BenchmarkPutVersion stores versions of 1 MB in 1,000-code-point chunks
// (a version a transaction): the store's share of ingest, in MB/s.
func BenchmarkPutVersion(b *testing.B) {
	for _, name := range []string{"bolt", "postgres"} {
		b.Run(name, func(b *testing.B) {
			db := benchStores(b)[name]
			i := 0
			b.ReportAllocs()
			b.SetBytes(1 << 20)
			for b.Loop() {
				i++
				nv := storetest.NewVersion(fmt.Sprintf("d%d.txt", i), benchText(1<<20, fmt.Sprint(i)), 1000)
				if _, err := db.PutVersion(nv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResolveChunk reads one chunk as resolve does — document,
// version, chunk record, verified span — in a read transaction of its
// own, and reports the p50 and p99 latency.
func BenchmarkResolveChunk(b *testing.B) {
	for _, name := range []string{"bolt", "postgres"} {
		b.Run(name, func(b *testing.B) {
			db := benchStores(b)[name]
			nv := storetest.NewVersion("r.txt", benchText(64<<10, "r"), 1000)
			if _, err := db.PutVersion(nv); err != nil {
				b.Fatal(err)
			}
			var lat []time.Duration
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				ord := uint32(i % len(nv.Chunks))
				i++
				err := db.View(func(tx *store.Tx) error {
					if _, err := tx.Document("r.txt"); err != nil {
						return err
					}
					v, err := tx.Version(nv.Version.ID)
					if err != nil {
						return err
					}
					c, err := tx.Chunk(v, ord)
					if err != nil {
						return err
					}
					_, err = tx.Span(v, c)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
