package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidence-rag/evidence/store"
)

// backend is a store.Backend over the tables of migrations/: a pool of
// connections, each transaction on one of them.
type backend struct {
	pool        *pgxpool.Pool
	name, dsn   string // name is dsn redacted
	acquireWait time.Duration
	maxConns    int32
	values      valueCache
	parking     parking
	reads       *backend // a read replica's, which read transactions use; nil for none

	mu    sync.Mutex
	known map[string]bool // buckets known to exist: the store never drops one
}

var errReadOnly = errors.New("store: postgres: write in a read transaction")

// Begin takes a pooled connection, waiting at most acquireWait, and
// starts a transaction on it. A read transaction is REPEATABLE READ READ
// ONLY: every read sees the one committed state its first read saw. A
// write transaction is READ COMMITTED and first takes the store's write
// lock (pg_advisory_xact_lock), held until it ends: write transactions of
// every process run one at a time, each seeing all that the one before
// committed, which is the single writer the store's rules assume (bbolt's
// file lock). The lock dies with its session, so a killed writer leaves
// neither the lock nor half a transaction.
func (b *backend) Begin(writable bool) (store.BackendTx, error) {
	if !writable && b.reads != nil {
		return b.reads.Begin(false)
	}
	t := &tx{b: b, writable: writable}
	if t.conn = b.unpark(); t.conn != nil {
		t.parked = true // still inside the read transaction that parked it
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), b.acquireWait)
		conn, err := b.pool.Acquire(ctx)
		cancel()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("%w: %s: no pooled connection free after %s (pool_max_conns=%d; raise it, or pool_acquire_timeout)", store.ErrUnavailable, b.name, b.acquireWait, b.maxConns)
			}
			return nil, b.fail(err)
		}
		t.conn = conn
	}
	conn := t.conn
	if !writable {
		return t, nil // BEGIN goes with the first read (tx.queryRow)
	}
	t.begun = true
	begin := fmt.Sprintf("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(%d)", lockWrite)
	if t.parked {
		begin, t.parked = "ROLLBACK; "+begin, false
	}
	if _, err := conn.Exec(context.Background(), begin); err != nil { // no arguments: one round trip
		conn.Release()
		return nil, b.fail(err)
	}
	if writable {
		t.pending = map[string]map[string]op{}
		t.seqs = map[string]uint64{}
		t.seqDirty = map[string]bool{}
		t.created = map[string]bool{}
	}
	return t, nil
}

// Batch runs fn in a transaction of its own: PostgreSQL's group commit
// already shares the log flush of concurrent commits.
func (b *backend) Batch(fn func(store.BackendTx) error) error {
	t, err := b.Begin(true)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if err := fn(t); err != nil {
		return err
	}
	return t.Commit()
}

func (b *backend) Close() error {
	b.closeParking()
	b.pool.Close()
	if b.reads != nil {
		b.reads.closeParking()
		b.reads.pool.Close()
	}
	return nil
}

// tx is a transaction on one connection. A write transaction keeps its
// puts and deletes in pending and sends them in one round trip (COPY for
// many) when it commits, or before it next reads through a cursor; Get
// reads pending first, so the transaction reads its own writes.
type tx struct {
	b        *backend
	conn     *pgxpool.Conn
	writable bool
	begun    bool // BEGIN was sent
	parked   bool // conn is still inside an ended read transaction: ROLLBACK goes before BEGIN
	done     bool

	id     uint64
	haveID bool

	// prefetched holds what Prefetch read, by cacheKey: a read
	// transaction's later Get or Seek of one of those keys is answered
	// from it, in the same snapshot, without a round trip.
	prefetched map[string]fetched

	pending  map[string]map[string]op // bucket -> key -> the last write
	held     int                      // bytes of keys and values in pending
	seqs     map[string]uint64        // bucket sequences read or set
	seqDirty map[string]bool
	created  map[string]bool // buckets this transaction created
}

// op is a pending write: a value to put, or a delete.
type op struct {
	val []byte
	del bool
}

var bg = context.Background()

// fault raises a failed read as a store.Fault, which the store's guard
// returns as the transaction's error.
func (t *tx) fault(err error) {
	panic(&store.Fault{Err: t.b.fail(err)})
}

func (t *tx) end() {
	if !t.done {
		t.done = true
		t.conn.Release() // a connection left inside a transaction is closed, not pooled
	}
}

func (t *tx) Commit() error {
	if t.done || !t.writable {
		return errReadOnly
	}
	batch := t.flushBatch()
	batch.Queue(`UPDATE evidence_commits SET n = n + 1`)
	batch.Queue(`COMMIT`)
	err := t.conn.SendBatch(bg, batch).Close()
	if err != nil {
		t.Rollback()
		return t.b.fail(err)
	}
	t.b.mu.Lock()
	for name := range t.created {
		t.b.known[name] = true
	}
	t.b.mu.Unlock()
	t.end()
	return nil
}

func (t *tx) Rollback() error {
	if t.done {
		return nil
	}
	if !t.writable && (t.begun || t.parked) {
		// A read transaction has nothing to undo: its connection is
		// parked, and its ROLLBACK goes with the next transaction's first
		// round trip (or after parkFor), never in the caller's way.
		t.done = true
		t.b.park(t.conn)
		return nil
	}
	if !t.begun { // a read transaction that read nothing
		t.end()
		return nil
	}
	_, err := t.conn.Exec(bg, "ROLLBACK")
	lost := t.conn.Conn().IsClosed() // the transaction ended with its session
	t.end()
	if err != nil && !lost {
		return t.b.fail(err)
	}
	return nil
}

// beginRead starts a read transaction: REPEATABLE READ, so that every
// read sees the snapshot its first read took.
const beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

// ensureBegun sends BEGIN now, before a read that returns rows.
func (t *tx) ensureBegun() {
	if t.begun {
		return
	}
	t.begun = true
	begin := beginRead
	if t.parked {
		begin, t.parked = "ROLLBACK; "+begin, false
	}
	if _, err := t.conn.Exec(bg, begin); err != nil {
		t.fault(err)
	}
}

// queryRow runs a query of one row. The first read of a read transaction
// sends BEGIN with it, in one round trip.
func (t *tx) queryRow(sql string, args ...any) pgx.Row {
	if t.begun {
		return t.conn.QueryRow(bg, sql, args...)
	}
	br, err := t.beginWith(sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{br: br, row: br.QueryRow()}
}

// beginWith sends BEGIN and a read transaction's first query in one
// round trip and returns the results of the query to read. A connection
// that turns out to have died while idle in the pool (the server
// restarted, or ended the session) is replaced by a new one, once: the
// transaction had not begun on it, so nothing was read in another
// snapshot, and a read transaction that begins now on the new connection
// is what the caller asked for. A connection lost once the transaction
// has begun fails its reads (store.ErrUnavailable), as before.
func (t *tx) beginWith(sql string, args []any) (pgx.BatchResults, error) {
	t.begun = true
	for retry := true; ; retry = false {
		batch := &pgx.Batch{}
		rollback := t.parked
		if rollback {
			batch.Queue("ROLLBACK") // the parked transaction's
			t.parked = false
		}
		batch.Queue(beginRead)
		batch.Queue(sql, args...)
		br := t.conn.SendBatch(bg, batch)
		_, err := br.Exec()
		if err == nil && rollback {
			_, err = br.Exec()
		}
		if err == nil {
			return br, nil
		}
		br.Close()
		if !retry || !t.conn.Conn().IsClosed() || !unreachable(err) {
			return nil, err
		}
		t.conn.Release() // closed: the pool drops it
		ctx, cancel := context.WithTimeout(bg, t.b.acquireWait)
		conn, aerr := t.b.pool.Acquire(ctx)
		cancel()
		if aerr != nil {
			t.done = true // no connection to release
			return nil, err
		}
		t.conn = conn
	}
}

// fetched is a key Prefetch read: its value, or that it is not stored.
type fetched struct {
	val   []byte
	found bool
}

// Prefetch reads keys in one round trip (with BEGIN, when it is the
// transaction's first read), in the transaction's snapshot, and keeps them
// for the later reads of the transaction (store.Prefetcher). A read
// transaction reads through the cache of large values, as Get does. In a
// write transaction its pending writes still come first (Get looks at
// them before), a key written is not read, and what was read is dropped
// when the pending writes are sent (flush): nobody else writes meanwhile
// (the write lock), so the rows read stay the rows stored until then.
func (t *tx) Prefetch(keys []store.KeyRef) {
	if t.prefetched == nil {
		t.prefetched = make(map[string]fetched, len(keys))
	}
	var bs, ks [][]byte
	var revs []int64
	var cks []string
	var cached [][]byte
	for _, kr := range keys {
		ck := cacheKey(kr.Bucket, kr.Key)
		if _, ok := t.prefetched[ck]; ok || slices.Contains(cks, ck) {
			continue
		}
		var rev int64 = -1
		var cv []byte
		if t.writable {
			if _, ok := t.pending[string(kr.Bucket)][string(kr.Key)]; ok {
				continue
			}
		} else if r, v, ok := t.b.values.get(ck); ok {
			rev, cv = r, v
		}
		bs, ks, revs, cks, cached = append(bs, kr.Bucket), append(ks, kr.Key), append(revs, rev), append(cks, ck), append(cached, cv)
	}
	if len(ks) == 0 {
		return
	}
	found := make([]bool, len(ks))
	vals := make([][]byte, len(ks))
	var i, r int64
	var same bool
	var v []byte
	err := t.queryRows(prefetchSQL, []any{bs, ks, revs}, []any{&i, &r, &same, &v}, func() error {
		j := int(i) - 1
		if j < 0 || j >= len(ks) {
			return fmt.Errorf("prefetch: row %d of %d keys", i, len(ks))
		}
		found[j] = true
		switch {
		case same:
			vals[j] = cached[j]
		case v == nil:
			vals[j] = []byte{}
		default:
			vals[j] = v
			if !t.writable {
				t.b.values.put(cks[j], r, v)
			}
		}
		v = nil // Scan into a nil slice allocates a new one
		return nil
	})
	if err != nil {
		t.fault(err)
	}
	for j, ck := range cks {
		t.prefetched[ck] = fetched{val: vals[j], found: found[j]}
	}
}

// prefetchSQL reads the rows of keys ($1 buckets, $2 keys) by primary
// key, each with its rev and its value unless rev is the cached one ($3,
// -1 for none), numbered by their place in the arrays; a key not stored
// has no row. The LIMIT keeps the LATERAL subquery from being pulled up
// into a join, which on a table without statistics yet (a new store
// being filled) plans as a hash join over a scan of the whole table, and
// a prepared statement keeps that plan: it is one index probe a key
// whatever the statistics say.
const prefetchSQL = `SELECT u.i, e.rev, e.rev = u.r, CASE WHEN e.rev = u.r THEN NULL ELSE e.value END
FROM unnest($1::bytea[], $2::bytea[], $3::bigint[]) WITH ORDINALITY AS u(b, k, r, i)
CROSS JOIN LATERAL (SELECT rev, value FROM evidence_kv WHERE bucket = u.b AND key = u.k LIMIT 1) e`

// queryRows runs a query and calls fn with each row scanned into dest;
// the first read of a read transaction sends BEGIN with it, in one round
// trip.
func (t *tx) queryRows(sql string, args, dest []any, fn func() error) error {
	if t.begun {
		rows, err := t.conn.Query(bg, sql, args...)
		if err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, dest, fn)
		return err
	}
	br, err := t.beginWith(sql, args)
	if err != nil {
		return err
	}
	rows, err := br.Query()
	if err == nil {
		_, err = pgx.ForEachRow(rows, dest, fn)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// batchRow is the row of queryRow's batch, which Scan closes.
type batchRow struct {
	br  pgx.BatchResults
	row pgx.Row
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil || errors.Is(err, pgx.ErrNoRows) && cerr != nil {
		err = cerr
	}
	return err
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t *tx) ID() uint64 {
	if !t.haveID {
		var n int64
		if err := t.queryRow(`SELECT n FROM evidence_commits`).Scan(&n); err != nil {
			t.fault(err)
		}
		t.id, t.haveID = uint64(n), true
	}
	return t.id
}

func (t *tx) hasBucket(name []byte) bool {
	t.b.mu.Lock()
	known := t.b.known[string(name)]
	t.b.mu.Unlock()
	if known || t.created[string(name)] {
		return true
	}
	var exists bool
	if err := t.queryRow(`SELECT EXISTS (SELECT 1 FROM evidence_buckets WHERE name = $1)`, name).Scan(&exists); err != nil {
		t.fault(err)
	}
	if exists {
		t.b.mu.Lock()
		t.b.known[string(name)] = true
		t.b.mu.Unlock()
	}
	return exists
}

func (t *tx) Bucket(name []byte) store.Bucket {
	if !t.hasBucket(name) {
		return nil
	}
	return &bucket{t: t, name: string(name), key: bytes.Clone(name)}
}

func (t *tx) CreateBucketIfNotExists(name []byte) (store.Bucket, error) {
	if !t.hasBucket(name) {
		if !t.writable {
			return nil, errReadOnly
		}
		if _, err := t.conn.Exec(bg, `INSERT INTO evidence_buckets (name) VALUES ($1) ON CONFLICT DO NOTHING`, name); err != nil {
			return nil, t.b.fail(err)
		}
		t.created[string(name)] = true
	}
	return &bucket{t: t, name: string(name), key: bytes.Clone(name)}, nil
}

func (t *tx) ForEachBucket(fn func(name []byte) error) error {
	t.ensureBegun()
	rows, err := t.conn.Query(bg, `SELECT name FROM evidence_buckets ORDER BY name`)
	if err != nil {
		return t.b.fail(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return t.b.fail(err)
	}
	for _, n := range names {
		if err := fn(n); err != nil {
			return err
		}
	}
	return nil
}

// copyRows is the number of pending puts from which a flush sends the
// new keys among them (a version's chunks, its text and layout, the index
// entries) with COPY straight into evidence_kv, and only the keys stored
// already (a document record, a superseded version header) as arrays of
// one INSERT … ON CONFLICT, which is what fewer puts all go by.
const copyRows = 256

// flushBatch returns a batch that applies the pending writes, clearing
// them; with copyRows puts or more, the new keys are copied first.
// Keys go in byte order, which fills the primary key's pages in order.
func (t *tx) flushBatch() *pgx.Batch {
	batch := &pgx.Batch{}
	var pb, pk, pv, db, dk [][]byte
	for _, name := range slices.Sorted(maps.Keys(t.pending)) {
		ops := t.pending[name]
		for _, k := range slices.Sorted(maps.Keys(ops)) {
			o := ops[k]
			if o.del {
				db, dk = append(db, []byte(name)), append(dk, []byte(k))
			} else {
				pb, pk, pv = append(pb, []byte(name)), append(pk, []byte(k)), append(pv, o.val)
			}
		}
	}
	clear(t.pending)
	clear(t.prefetched) // what the writes sent change is read afresh
	t.held = 0
	if len(dk) > 0 {
		batch.Queue(`DELETE FROM evidence_kv k USING unnest($1::bytea[], $2::bytea[]) AS d(bucket, key) WHERE k.bucket = d.bucket AND k.key = d.key`, db, dk)
	}
	if len(pk) >= copyRows {
		pb, pk, pv = t.copyNew(pb, pk, pv)
	}
	if len(pk) > 0 {
		batch.Queue(`INSERT INTO evidence_kv (bucket, key, value, rev) SELECT b, k, v, (SELECT n + 1 FROM evidence_commits) FROM unnest($1::bytea[], $2::bytea[], $3::bytea[]) AS u(b, k, v) ON CONFLICT (bucket, key) DO UPDATE SET value = EXCLUDED.value, rev = EXCLUDED.rev`, pb, pk, pv)
	}
	if len(t.seqDirty) > 0 {
		var names [][]byte
		var seqs []int64
		for name := range t.seqDirty {
			names, seqs = append(names, []byte(name)), append(seqs, int64(t.seqs[name]))
		}
		clear(t.seqDirty)
		batch.Queue(`UPDATE evidence_buckets b SET seq = s.seq FROM unnest($1::bytea[], $2::bigint[]) AS s(name, seq) WHERE b.name = s.name`, names, seqs)
	}
	return batch
}

// storedSQL numbers the keys ($1 buckets, $2 keys) that are stored: one
// index probe a key, as prefetchSQL's, whatever the statistics (a join
// planned without them scans the whole table every commit).
const storedSQL = `SELECT u.i FROM unnest($1::bytea[], $2::bytea[]) WITH ORDINALITY AS u(b, k, i) CROSS JOIN LATERAL (SELECT FROM evidence_kv e WHERE e.bucket = u.b AND e.key = u.k LIMIT 1) e`

// copyNew copies the puts whose keys are not stored yet into evidence_kv
// with COPY, under the rev the commit will give them, and returns the
// others. The write lock keeps anyone else from storing those keys
// between the look and the copy.
func (t *tx) copyNew(b, k, v [][]byte) (ob, ok, ov [][]byte) {
	batch := &pgx.Batch{}
	batch.Queue(`SELECT n + 1 FROM evidence_commits`)
	batch.Queue(storedSQL, b, k)
	br := t.conn.SendBatch(bg, batch)
	var rev int64
	err := br.QueryRow().Scan(&rev)
	stored := map[int]bool{}
	if err == nil {
		var rows pgx.Rows
		rows, err = br.Query()
		if err == nil {
			var i int64
			_, err = pgx.ForEachRow(rows, []any{&i}, func() error { stored[int(i)-1] = true; return nil })
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.fault(err)
	}
	for i := range k {
		if stored[i] {
			ob, ok, ov = append(ob, b[i]), append(ok, k[i]), append(ov, v[i])
		}
	}
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		for i < len(k) && stored[i] {
			i++
		}
		if i == len(k) {
			return nil, nil
		}
		i++
		return []any{b[i-1], k[i-1], v[i-1], rev}, nil
	})
	if _, err := t.conn.CopyFrom(bg, pgx.Identifier{"evidence_kv"}, []string{"bucket", "key", "value", "rev"}, src); err != nil {
		t.fault(err)
	}
	return ob, ok, ov
}

// flush sends the pending writes now, before a read that the database
// answers for more than one key.
func (t *tx) flush() {
	if !t.writable || (len(t.pending) == 0 && len(t.seqDirty) == 0) {
		return
	}
	if err := t.conn.SendBatch(bg, t.flushBatch()).Close(); err != nil {
		t.fault(err)
	}
}

// bucket is a bucket as one transaction sees it.
type bucket struct {
	t    *tx
	name string
	key  []byte
}

func (bk *bucket) pendingOp(key []byte) (op, bool) {
	if bk.t.pending == nil {
		return op{}, false
	}
	o, ok := bk.t.pending[bk.name][string(key)]
	return o, ok
}

func (bk *bucket) Get(key []byte) []byte {
	if o, ok := bk.pendingOp(key); ok {
		if o.del {
			return nil
		}
		return o.val
	}
	if !bk.t.writable {
		return bk.getCached(key)
	}
	if f, ok := bk.t.prefetched[cacheKey(bk.key, key)]; ok {
		if !f.found {
			return nil
		}
		return f.val
	}
	var v []byte
	err := bk.t.conn.QueryRow(bg, `SELECT value FROM evidence_kv WHERE bucket = $1 AND key = $2`, bk.key, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		bk.t.fault(err)
	}
	if v == nil {
		v = []byte{}
	}
	return v
}

// getCached is Get in a read transaction: the row's rev comes back with
// its value, and no value when rev is that of the copy in the process's
// cache of large values, which is then the value (see valueCache).
func (bk *bucket) getCached(key []byte) []byte {
	ck := cacheKey(bk.key, key)
	if f, ok := bk.t.prefetched[ck]; ok {
		if !f.found {
			return nil
		}
		return f.val
	}
	rev, cv, ok := bk.t.b.values.get(ck)
	if !ok {
		rev = -1
	}
	var r int64
	var same bool
	var v []byte
	err := bk.t.queryRow(`SELECT rev, rev = $3, CASE WHEN rev = $3 THEN NULL ELSE value END FROM evidence_kv WHERE bucket = $1 AND key = $2`, bk.key, key, rev).Scan(&r, &same, &v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		bk.t.fault(err)
	}
	if same {
		return cv
	}
	if v == nil {
		v = []byte{}
	}
	bk.t.b.values.put(ck, r, v)
	return v
}

func (bk *bucket) write(key []byte, o op) error {
	if !bk.t.writable {
		return errReadOnly
	}
	if len(key) == 0 {
		return errors.New("store: postgres: empty key")
	}
	ops := bk.t.pending[bk.name]
	if ops == nil {
		ops = map[string]op{}
		bk.t.pending[bk.name] = ops
	}
	ops[string(key)] = o
	bk.t.held += len(key) + len(o.val)
	if bk.t.held > flushBytes {
		bk.t.flush() // a large transaction (a migration) does not hold all it writes in memory
	}
	return nil
}

// flushBytes bounds the pending writes of a transaction: past it they are
// sent before the commit, still inside the transaction.
const flushBytes = 32 << 20

func (bk *bucket) Put(key, value []byte) error {
	v := bytes.Clone(value)
	if v == nil {
		v = []byte{}
	}
	return bk.write(key, op{val: v})
}

func (bk *bucket) Delete(key []byte) error { return bk.write(key, op{del: true}) }

func (bk *bucket) Sequence() uint64 {
	if bk.t.seqs != nil {
		if s, ok := bk.t.seqs[bk.name]; ok {
			return s
		}
	}
	var s int64
	err := bk.t.queryRow(`SELECT seq FROM evidence_buckets WHERE name = $1`, bk.key).Scan(&s)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		bk.t.fault(err)
	}
	if bk.t.seqs != nil {
		bk.t.seqs[bk.name] = uint64(s)
	}
	return uint64(s)
}

func (bk *bucket) SetSequence(v uint64) error {
	if !bk.t.writable {
		return errReadOnly
	}
	bk.t.seqs[bk.name] = v
	bk.t.seqDirty[bk.name] = true
	return nil
}

func (bk *bucket) NextSequence() (uint64, error) {
	if !bk.t.writable {
		return 0, errReadOnly
	}
	s := bk.Sequence() + 1
	return s, bk.SetSequence(s)
}

func (bk *bucket) ForEach(fn func(k, v []byte) error) error {
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (bk *bucket) Cursor() store.Cursor { return &cursor{bk: bk} }
