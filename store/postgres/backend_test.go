package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// openBackend returns the backend of a new migrated database.
func openBackend(t *testing.T, dsn string) *backend {
	t.Helper()
	b, err := connect(dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// model is the reference a bucket is compared with: sorted keys.
type model map[string]string

func (m model) sorted() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// walk checks every move of a cursor against the model: First then Next
// to the end and one past it, Last then Prev, and Seeks each followed by
// a few steps either way.
func walk(t *testing.T, what string, c store.Cursor, m model, rng *rand.Rand) {
	t.Helper()
	keys := m.sorted()
	check := func(op string, k, v []byte, i int) {
		t.Helper()
		if i < 0 || i >= len(keys) {
			if k != nil || v != nil {
				t.Fatalf("%s: %s: got %q, want the end", what, op, k)
			}
			return
		}
		if string(k) != keys[i] || string(v) != m[keys[i]] {
			t.Fatalf("%s: %s: got %q=%q, want %q=%q", what, op, k, v, keys[i], m[keys[i]])
		}
	}
	k, v := c.First()
	check("First", k, v, 0)
	for i := 1; i <= len(keys); i++ {
		k, v = c.Next()
		check(fmt.Sprintf("Next to %d", i), k, v, i)
	}
	k, v = c.Next()
	check("Next past the end again", k, v, len(keys))
	k, v = c.Prev()
	check("Prev from past the end", k, v, len(keys)-1)
	k, v = c.Last()
	check("Last", k, v, len(keys)-1)
	for i := len(keys) - 2; i >= -1; i-- {
		k, v = c.Prev()
		check(fmt.Sprintf("Prev to %d", i), k, v, i)
	}
	k, v = c.Next()
	check("Next from before the start", k, v, 0)
	for range 20 {
		seek := fmt.Sprintf("k%05d", rng.IntN(1200))
		i, _ := slices.BinarySearch(keys, seek)
		k, v = c.Seek([]byte(seek))
		check("Seek "+seek, k, v, i)
		dir := 1 - 2*rng.IntN(2)
		for range rng.IntN(700) {
			if i+dir < -1 || i+dir > len(keys) {
				break
			}
			i += dir
			if dir > 0 {
				k, v = c.Next()
			} else {
				k, v = c.Prev()
			}
			check(fmt.Sprintf("step %+d after Seek %s", dir, seek), k, v, i)
		}
	}
}

// TestCursorPages checks cursors against a model over more keys than
// a page holds, in a read transaction and in a write transaction whose
// writes are pending (some sent before the cursor fetched, some after).
func TestCursorPages(t *testing.T) {
	b := openBackend(t, migrated(t))
	rng := rand.New(rand.NewPCG(1, 2))
	m := model{}
	tx, err := b.Begin(true)
	if err != nil {
		t.Fatal(err)
	}
	bk, err := tx.CreateBucketIfNotExists([]byte("pages"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1100 { // more than copyRows: the COPY path
		k, v := fmt.Sprintf("k%05d", i), strings.Repeat("v", rng.IntN(40))
		if err := bk.Put([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
		m[k] = v
	}
	if got := bk.Get([]byte("k00007")); string(got) != m["k00007"] {
		t.Fatalf("Get of a pending put: %q, want %q", got, m["k00007"])
	}
	walk(t, "write tx after the puts", bk.Cursor(), m, rng)
	// Writes after the cursor's fetch are overlaid on its page.
	c := bk.Cursor()
	c.First()
	for i := 0; i < 1100; i += 3 {
		k := fmt.Sprintf("k%05d", i)
		if i%2 == 0 {
			bk.Delete([]byte(k))
			delete(m, k)
		} else {
			bk.Put([]byte(k), []byte("changed"))
			m[k] = "changed"
		}
	}
	keys := m.sorted()
	n := 0
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if string(k) != keys[n] || string(v) != m[keys[n]] {
			t.Fatalf("key %d after changes: got %q=%q, want %q=%q", n, k, v, keys[n], m[keys[n]])
		}
		n++
	}
	if n != len(keys) {
		t.Fatalf("%d keys after changes, want %d", n, len(keys))
	}
	if _, err := bk.NextSequence(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	rtx, err := b.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	rb := rtx.Bucket([]byte("pages"))
	if rb == nil {
		t.Fatal("bucket pages: not there after the commit")
	}
	if s := rb.Sequence(); s != 1 {
		t.Errorf("Sequence: %d, want 1", s)
	}
	walk(t, "read tx", rb.Cursor(), m, rng)
	if err := rb.Put([]byte("x"), nil); err == nil {
		t.Error("Put in a read transaction: no error")
	}
	empty, err := rtx.CreateBucketIfNotExists([]byte("pages"))
	if err != nil || empty == nil {
		t.Errorf("CreateBucketIfNotExists of an existing bucket in a read transaction: %v", err)
	}
	if rtx.Bucket([]byte("no such bucket")) != nil {
		t.Error("Bucket of an unknown name: not nil")
	}
}

// TestReadSeesOneState checks that a read transaction keeps reading the
// state it began with while another connection commits, and that the
// commit counter (BackendTx.ID) moves with each commit.
func TestReadSeesOneState(t *testing.T) {
	b := openBackend(t, migrated(t))
	put := func(k, v string) {
		t.Helper()
		if err := b.Batch(func(tx store.BackendTx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("b"))
			if err != nil {
				return err
			}
			return bk.Put([]byte(k), []byte(v))
		}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "1")
	rtx, err := b.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	id := rtx.ID()
	if got := rtx.Bucket([]byte("b")).Get([]byte("a")); string(got) != "1" {
		t.Fatalf("a = %q, want 1", got)
	}
	put("a", "2")
	put("c", "3")
	if got := rtx.Bucket([]byte("b")).Get([]byte("a")); string(got) != "1" {
		t.Errorf("a after another commit, same read transaction: %q, want 1", got)
	}
	if k, _ := rtx.Bucket([]byte("b")).Cursor().Seek([]byte("b")); k != nil {
		t.Errorf("a key committed after the read began: %q", k)
	}
	rtx2, err := b.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer rtx2.Rollback()
	if got := rtx2.Bucket([]byte("b")).Get([]byte("a")); string(got) != "2" {
		t.Errorf("a in a new read transaction: %q, want 2", got)
	}
	if id2 := rtx2.ID(); id2 != id+2 {
		t.Errorf("ID after two commits: %d, want %d", id2, id+2)
	}
}

// TestSchemaChecks: an unmigrated database names evidence migrate; a
// newer schema is refused, by Open and by Migrate.
func TestSchemaChecks(t *testing.T) {
	dsn := storetest.Postgres(t)
	_, err := Open(dsn, nil)
	if !errors.Is(err, store.ErrNotStore) || !strings.Contains(err.Error(), "evidence migrate") {
		t.Errorf("Open of an unmigrated database: %v, want ErrNotStore naming evidence migrate", err)
	}
	rep, err := Migrate(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != 0 || rep.To != SchemaVersion() {
		t.Errorf("Migrate: schema %d to %d, want 0 to %d", rep.From, rep.To, SchemaVersion())
	}
	if rep, err = Migrate(dsn); err != nil || rep.From != rep.To {
		t.Errorf("Migrate again: %+v %v, want nothing to do", rep, err)
	}
	b := openBackend(t, dsn)
	if _, err := b.pool.Exec(context.Background(), `INSERT INTO evidence_schema (version, name) VALUES ($1, 'future')`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"Open":    func() error { _, err := Open(dsn, nil); return err }(),
		"Migrate": func() error { _, err := Migrate(dsn); return err }(),
	} {
		if !errors.Is(err, store.ErrFormat) || !strings.Contains(err.Error(), "newer build") {
			t.Errorf("%s of a newer schema: %v, want ErrFormat saying a newer build wrote it", what, err)
		}
	}
}

// TestUnavailable: a database that does not answer is ErrUnavailable, and
// no message carries the DSN's password.
func TestUnavailable(t *testing.T) {
	const secret = "s3cr3t-pw"
	dir := t.TempDir()
	for _, dsn := range []string{
		"postgres://evidence:" + secret + "@/nodb?host=" + dir + "&connect_timeout=2",
		"postgres://evidence@127.0.0.1:1/nodb?password=" + secret + "&connect_timeout=2",
	} {
		_, err := Open(dsn, nil)
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("Open(%s): %v, want ErrUnavailable", Redact(dsn), err)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows the password: %v", err)
		}
		if strings.Contains(Redact(dsn), secret) {
			t.Errorf("Redact(%s) keeps the password", Redact(dsn))
		}
	}
	if _, err := Open("postgres://u:"+secret+"@host:notaport/db", nil); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("a DSN that does not parse: %v, want an error without the password", err)
	}
}

// TestPoolExhausted: with every connection held, Begin waits
// pool_acquire_timeout, then fails with ErrUnavailable.
func TestPoolExhausted(t *testing.T) {
	dsn := migrated(t) + "&pool_max_conns=1&pool_acquire_timeout=300ms"
	b := openBackend(t, dsn)
	tx, err := b.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	start := time.Now()
	_, err = b.Begin(false)
	if !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), "pool_max_conns=1") {
		t.Errorf("Begin with the pool exhausted: %v, want ErrUnavailable naming pool_max_conns", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %s, want about 300ms", d)
	}
}

// TestConnectionLost: a session ended by the server mid-transaction makes
// the read an error (ErrUnavailable), never a missing record; a pooled
// connection that died before its transaction began is replaced, and the
// read goes through.
func TestConnectionLost(t *testing.T) {
	dsn := migrated(t)
	db, err := Open(dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nv := storetest.NewVersion("a.txt", "Some text to read back.", 8)
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	killer := openBackend(t, dsn)
	terminate := func() {
		t.Helper()
		if _, err := killer.pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
			t.Fatal(err)
		}
	}
	err = db.View(func(tx *store.Tx) error {
		if _, err := tx.Version(nv.Version.ID); err != nil { // the transaction has begun
			return fmt.Errorf("the first read: %w", err)
		}
		terminate()
		_, err := tx.Document(nv.Version.DocumentID)
		return err
	})
	if !errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrNotFound) || strings.Contains(err.Error(), "the first read") {
		t.Errorf("a read on a terminated session: %v, want ErrUnavailable", err)
	}
	// Every idle pooled connection dead (the server restarted): the read
	// that draws one is made on a new connection.
	for range 3 {
		terminate()
		if err := db.View(func(tx *store.Tx) error { _, err := tx.Version(nv.Version.ID); return err }); err != nil {
			t.Errorf("a read after the sessions were ended: %v", err)
		}
	}
}

// TestBigVersion writes a version of many chunks (the COPY path) and
// reads every span back, verified.
func TestBigVersion(t *testing.T) {
	db, err := Open(migrated(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := strings.Repeat("Every chunk of this text is read back and checked. ", 400)
	nv := storetest.NewVersion("big.txt", text, 20)
	if len(nv.Chunks) < copyRows {
		t.Fatalf("%d chunks: too few for the COPY path", len(nv.Chunks))
	}
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		v, err := tx.Version(nv.Version.ID)
		if err != nil {
			return err
		}
		for _, c := range nv.Chunks {
			got, err := tx.Chunk(v, c.Ordinal)
			if err != nil {
				return err
			}
			span, err := tx.Span(v, got)
			if err != nil {
				return err
			}
			want, _ := nv.Text.Slice(c.Start, c.End)
			if !bytes.Equal(span, want) {
				return fmt.Errorf("chunk %s: %q, want %q", c.ID(), span, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := db.Check()
	if err != nil || len(fs) > 0 {
		t.Errorf("Check: %v %v", fs, err)
	}
}

// TestValueCache: a large value read again comes from the cache only
// while its row is the one cached; written since — by this process or by
// another (a second backend on the same database) — it is read afresh,
// through Get and through a cursor's Seek; deleted, it is gone.
func TestValueCache(t *testing.T) {
	dsn := migrated(t)
	reader, writer := openBackend(t, dsn), openBackend(t, dsn)
	put := func(b *backend, v string, del bool) {
		t.Helper()
		if err := b.Batch(func(tx store.BackendTx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("big"))
			if err != nil {
				return err
			}
			if del {
				return bk.Delete([]byte("k"))
			}
			return bk.Put([]byte("k"), []byte(v))
		}); err != nil {
			t.Fatal(err)
		}
	}
	read := func() (get, seek string) {
		t.Helper()
		tx, err := reader.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		bk := tx.Bucket([]byte("big"))
		g := bk.Get([]byte("k"))
		k, s := bk.Cursor().Seek([]byte("k"))
		if k != nil && string(k) != "k" {
			t.Fatalf("Seek landed on %q", k)
		}
		return string(g), string(s)
	}
	for i, v := range []string{strings.Repeat("a", 3*cacheMin), strings.Repeat("b", 3*cacheMin), strings.Repeat("c", 3*cacheMin)} {
		who := reader
		if i%2 == 1 {
			who = writer // another process, as far as reader's cache knows
		}
		put(who, v, false)
		for range 2 { // the second read hits the cache
			if g, s := read(); g != v || s != v {
				t.Fatalf("after writing %c…: Get %.1q… Seek %.1q…", v[0], g, s)
			}
		}
	}
	if _, _, ok := reader.values.get(cacheKey([]byte("big"), []byte("k"))); !ok {
		t.Error("the large value is not in the cache")
	}
	put(writer, "", true)
	if g, s := read(); g != "" || s != "" {
		t.Errorf("after the delete: Get %.1q… Seek %.1q…, want nothing", g, s)
	}
}

// TestLargeTransaction: a write transaction that puts more than
// flushBytes sends some of it before the commit and still reads its own
// writes, commits all of it, or, rolled back, none.
func TestLargeTransaction(t *testing.T) {
	b := openBackend(t, migrated(t))
	val := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 1<<20) }
	const n = flushBytes>>20 + 8
	for _, commit := range []bool{false, true} {
		wtx, err := b.Begin(true)
		if err != nil {
			t.Fatal(err)
		}
		bk, err := wtx.CreateBucketIfNotExists([]byte("large"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := bk.Put([]byte(fmt.Sprintf("k%03d", i)), val(i)); err != nil {
				t.Fatal(err)
			}
		}
		if held := wtx.(*tx).held; held >= flushBytes {
			t.Errorf("%d bytes pending after %d MiB of puts, want fewer than %d", held, n, flushBytes)
		}
		if got := bk.Get([]byte("k000")); !bytes.Equal(got, val(0)) {
			t.Error("a put sent before the commit does not read back in its transaction")
		}
		if commit {
			err = wtx.Commit()
		} else {
			err = wtx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		rtx, err := b.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		if rb := rtx.Bucket([]byte("large")); rb != nil {
			c := rb.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if !bytes.Equal(v, val(count)) {
					t.Errorf("key %s: wrong value", k)
				}
				count++
			}
		}
		rtx.Rollback()
		if want := map[bool]int{false: 0, true: n}[commit]; count != want {
			t.Errorf("commit=%v: %d keys stored, want %d", commit, count, want)
		}
	}
}
