package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// tripCounter counts the round trips of a pool's connections: queries
// and batches, a ROLLBACK apart (a read transaction sends it after its
// caller has the answer).
type tripCounter struct{ trips, rollbacks atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if d.SQL == "ROLLBACK" {
		c.rollbacks.Add(1)
	} else {
		c.trips.Add(1)
	}
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trips.Add(1)
	return ctx
}
func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestPrefetch: once a process has read a version's header, a resolve of
// one of its chunks as GET /v1/chunks/{id} makes it (resolve.ChunkTx and
// resolve.Cite in one read transaction) costs one round trip before its
// answer, current or superseded, and what it serves is still checked: a
// damaged chunk record or text is refused.
func TestPrefetch(t *testing.T) {
	dsn := migrated(t)
	var tc tripCounter
	b, err := connectWith(dsn, nil, func(c *pgxpool.Config) { c.ConnConfig.Tracer = &tc })
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenBackend(b.name, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := "# Expenses\n\n" + strings.Repeat("Reports are submitted within 30 days, with receipts. ", 120)
	nv := storetest.NewVersion("p.md", text, 200)
	nv.Version.MediaType = "text/markdown"
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	served := func(ord uint32) (*resolve.Cited, int64, error) {
		t.Helper()
		var out *resolve.Cited
		tc.trips.Store(0)
		err := db.View(func(tx *store.Tx) error {
			res, err := resolve.ChunkTx(tx, store.ChunkID(nv.Version.ID, ord), "")
			if err != nil {
				return err
			}
			out, err = resolve.Cite(tx, res)
			return err
		})
		return out, tc.trips.Load(), err
	}
	check := func(what string, ord uint32, status resolve.Status, maxTrips int64) {
		t.Helper()
		c, trips, err := served(ord)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := text[nv.Chunks[ord].ByteStart:nv.Chunks[ord].ByteEnd]
		if c.Status != status || c.Text != want || c.Link == nil {
			t.Fatalf("%s: %s %q (link %v), want %s %q", what, c.Status, c.Text, c.Link, status, want)
		}
		if trips > maxTrips {
			t.Errorf("%s: %d round trips before the answer, want at most %d", what, trips, maxTrips)
		}
	}
	check("the first resolve", 0, resolve.StatusOK, 10)
	check("a resolve of a version read before", 1, resolve.StatusOK, 1)
	check("again", 2, resolve.StatusOK, 1)

	next := storetest.NewVersion("p.md", text+"More.", 200)
	next.Version.MediaType = "text/markdown"
	if _, err := db.PutVersion(next); err != nil {
		t.Fatal(err)
	}
	check("the first resolve of the superseded version", 1, resolve.StatusSuperseded, 10) // the header changed
	check("a superseded version", 2, resolve.StatusSuperseded, 1)

	// Damage, below the store: the chunk record of ordinal 3 (its seal), and
	// the text (a new rev, so that no cached copy stands in for it).
	admin := openBackend(t, dsn)
	exec := func(sql string) {
		t.Helper()
		tag, err := admin.pool.Exec(context.Background(), sql)
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("%s: %v (%d rows)", sql, err, tag.RowsAffected())
		}
	}
	check("before the damage", 3, resolve.StatusSuperseded, 1)
	exec(`UPDATE evidence_kv SET value = overlay(value placing '\xff'::bytea from length(value) - 6 for 1) WHERE bucket = 'chunks' AND key = '\x0000000000000001'::bytea || '\x00000003'::bytea`)
	if _, trips, err := served(3); !errors.Is(err, store.ErrCorrupt) || trips != 1 {
		t.Errorf("a damaged chunk record: %v after %d round trips, want ErrCorrupt after 1", err, trips)
	}
	exec(fmt.Sprintf(`UPDATE evidence_kv SET value = overlay(value placing 'X'::bytea from %d for 1), rev = rev + 1000 WHERE bucket = 'texts' AND key = '\x0000000000000001'::bytea`, nv.Chunks[2].ByteStart+6))
	_, trips, err := served(2)
	var hm *store.HashMismatchError
	if !errors.As(err, &hm) || !strings.Contains(hm.What, "span of chunk") || trips != 1 {
		t.Errorf("a damaged text: %v after %d round trips, want a hash mismatch after 1", err, trips)
	}
}

// TestParking: a read transaction's connection is parked inside it, and
// the next transaction sends the ROLLBACK with its own BEGIN, so it still
// reads what was committed since (a new snapshot); a parked connection
// left alone is rolled back and pooled after parkFor; Close does not wait
// for one.
func TestParking(t *testing.T) {
	dsn := migrated(t)
	b := openBackend(t, dsn)
	db, err := store.OpenBackend(b.name, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	writer, err := Open(dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	admin := openBackend(t, dsn)
	idleInTx := func() int {
		t.Helper()
		var n int
		if err := admin.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	read := func(id string) error {
		return db.View(func(tx *store.Tx) error { _, err := tx.Version(id); return err })
	}
	first := storetest.NewVersion("a.txt", "The first text.", 8)
	if _, err := writer.PutVersion(first); err != nil {
		t.Fatal(err)
	}
	if err := read(first.Version.ID); err != nil {
		t.Fatal(err)
	}
	if n := parkedConns(b); n != 1 || idleInTx() != 1 {
		t.Fatalf("after a read: %d parked, %d sessions idle in a transaction; want 1 and 1", n, idleInTx())
	}
	second := storetest.NewVersion("b.txt", "The second text.", 8)
	if _, err := writer.PutVersion(second); err != nil {
		t.Fatal(err)
	}
	if err := read(second.Version.ID); err != nil { // on the parked connection
		t.Fatalf("a read after a commit, on a parked connection: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for idleInTx() != 0 || parkedConns(b) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still idle in a transaction %s after the last read", idleInTx(), 5*time.Second)
		}
		time.Sleep(parkFor)
	}
	if err := read(first.Version.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- db.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waits with a connection parked")
	}
}

func parkedConns(b *backend) int {
	b.parking.mu.Lock()
	defer b.parking.mu.Unlock()
	return len(b.parking.conns)
}

// TestPrefetchWrites: a group commit of many new versions reads what it
// needs of the stored ones in a fixed number of round trips, whatever
// their number; in a write transaction a prefetched key still reads the
// transaction's own later writes, before and after they are sent.
func TestPrefetchWrites(t *testing.T) {
	dsn := migrated(t)
	var tc tripCounter
	b, err := connectWith(dsn, nil, func(c *pgxpool.Config) { c.ConnConfig.Tracer = &tc })
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenBackend(b.name, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	group := func(n int, salt string) int64 {
		t.Helper()
		var nvs []*store.NewVersion
		for i := range n {
			nvs = append(nvs, storetest.NewVersion(fmt.Sprintf("d%d.txt", i), fmt.Sprintf("Text %d of %s.", i, salt), 4))
		}
		tc.trips.Store(0)
		res, err := db.PutVersions(nvs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.Status != store.PutIngested || (salt != "a" && i < 2) != (r.Superseded != "") {
				t.Fatalf("%s: version %d: %+v", salt, i, r)
			}
		}
		return tc.trips.Load()
	}
	few, many := group(2, "a"), group(40, "b") // the second supersedes what it finds
	if many > few+2 || many > 12 {
		t.Errorf("a commit of 40 versions made %d round trips, of 2 %d: the reads are not grouped", many, few)
	}

	put := func(tx store.BackendTx, k, v string) {
		t.Helper()
		bk, err := tx.CreateBucketIfNotExists([]byte("w"))
		if err != nil {
			t.Fatal(err)
		}
		if err := bk.Put([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Batch(func(tx store.BackendTx) error { put(tx, "k", "stored"); put(tx, "gone", "x"); return nil }); err != nil {
		t.Fatal(err)
	}
	err = b.Batch(func(btx store.BackendTx) error {
		tx := btx.(*tx)
		tx.Prefetch([]store.KeyRef{{Bucket: []byte("w"), Key: []byte("k")}, {Bucket: []byte("w"), Key: []byte("gone")}, {Bucket: []byte("w"), Key: []byte("new")}})
		bk := tx.Bucket([]byte("w"))
		if g := string(bk.Get([]byte("k"))); g != "stored" {
			t.Errorf("a prefetched key: %q", g)
		}
		put(tx, "k", "mine")
		put(tx, "new", "made")
		if err := bk.Delete([]byte("gone")); err != nil {
			return err
		}
		check := func(when string) {
			if g, n, d := string(bk.Get([]byte("k"))), string(bk.Get([]byte("new"))), bk.Get([]byte("gone")); g != "mine" || n != "made" || d != nil {
				t.Errorf("%s: k %q, new %q, gone %q; want mine, made, nothing", when, g, n, d)
			}
		}
		check("pending")
		bk.Cursor().First() // sends the pending writes
		check("sent")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPlans: the queries that read many keys at once probe the primary
// key once a key even on a table without statistics (a new store being
// filled), where a join would scan the whole table, and a prepared
// statement would keep that plan.
func TestPlans(t *testing.T) {
	b := openBackend(t, migrated(t))
	conn, err := b.pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(context.Background(), `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]struct{ sql, types, args string }{
		"prefetchSQL": {prefetchSQL, "bytea[], bytea[], bigint[]", `ARRAY['docs'::bytea, 'meta'], ARRAY['a'::bytea, 'b'], ARRAY[-1, -1]::bigint[]`},
		"storedSQL":   {storedSQL, "bytea[], bytea[]", `ARRAY['docs'::bytea, 'meta'], ARRAY['a'::bytea, 'b']`},
	} {
		// A prepared statement's generic plan, as pgx's statement cache
		// comes to use (the arrays' lengths unknown).
		if _, err := conn.Exec(context.Background(), "PREPARE "+strings.ToLower(name)+" ("+q.types+") AS "+q.sql); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows, err := conn.Query(context.Background(), "EXPLAIN EXECUTE "+strings.ToLower(name)+" ("+q.args+")", pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(lines, "\n")
		if strings.Contains(all, "Seq Scan on evidence_kv") || !strings.Contains(all, "evidence_kv_pkey") {
			t.Errorf("%s on a table without statistics:\n%s", name, all)
		}
	}
}
