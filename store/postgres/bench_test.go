package postgres

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/evidence-rag/evidence/resolve"
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
	dsn := benchDSN(b)
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

// benchDBs numbers the databases benchDSN creates.
var benchDBs atomic.Int64

// benchDSN returns a new empty database: on the server named by
// EVIDENCE_BENCH_PG (a DSN of a database to connect to for CREATE
// DATABASE, e.g. postgres://postgres@127.0.0.1:5433/postgres for TCP
// loopback), else on the test server of storetest.Postgres (a Unix
// socket).
func benchDSN(b *testing.B) string {
	admin := os.Getenv("EVIDENCE_BENCH_PG")
	if admin == "" {
		return storetest.Postgres(b)
	}
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	name := fmt.Sprintf("bench_%d_%d", os.Getpid(), benchDBs.Add(1))
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err == nil {
			c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// reportLatency reports the p50, p99 and p99.9 of lat, and the process's
// CPU time per operation since cpu0 (the client's share: the database's
// own is in its processes).
func reportLatency(b *testing.B, lat []time.Duration, cpu0 time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)*999/1000].Microseconds()), "p99.9-µs")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(len(lat)), "cpu-µs/op")
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
			cpu0 := cpuTime()
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
			reportLatency(b, lat, cpu0)
		})
	}
}

// BenchmarkResolveServed resolves a chunk as GET /v1/chunks/{id} does:
// resolve.ChunkTx and resolve.Cite (the deep link, which reads the
// version and text again, and the context beside the span) in one read
// transaction, for a Markdown version and a superseded one (which also
// reads the document and the current version).
func BenchmarkResolveServed(b *testing.B) {
	for _, name := range []string{"bolt", "postgres"} {
		for _, kind := range []string{"current", "superseded"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				db := benchStores(b)[name]
				nv := storetest.NewVersion("r.md", "# Expenses\n\n"+benchText(64<<10, "r"), 1000)
				nv.Version.MediaType = "text/markdown"
				nv.Version.SourceURL = "https://example.com/r.md"
				if _, err := db.PutVersion(nv); err != nil {
					b.Fatal(err)
				}
				if kind == "superseded" {
					next := storetest.NewVersion("r.md", "# Expenses\n\n"+benchText(64<<10, "s"), 1000)
					next.Version.MediaType = "text/markdown"
					if _, err := db.PutVersion(next); err != nil {
						b.Fatal(err)
					}
				}
				var lat []time.Duration
				i := 0
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					start := time.Now()
					id := store.ChunkID(nv.Version.ID, uint32(i%len(nv.Chunks)))
					i++
					err := db.View(func(tx *store.Tx) error {
						res, err := resolve.ChunkTx(tx, id, "")
						if err != nil {
							return err
						}
						if !res.Served() {
							return fmt.Errorf("%s: %s %s", id, res.Status, res.Reason)
						}
						_, err = resolve.Cite(tx, res)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				reportLatency(b, lat, cpu0)
			})
		}
	}
}
