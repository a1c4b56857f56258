package postgres

import (
	"bytes"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"
)

// cursor walks a bucket a page of keys at a time: one round trip fetches
// the next page in the direction of travel, never a round trip a key nor
// the whole bucket. A Seek, often a lookup of the first key of a prefix,
// fetches one key; each later page is four times the last, up to
// maxPage keys, and shrinks again when its values are large (texts).
// In a write transaction the cursor sends the pending writes before it
// fetches, and overlays those made since on the page it holds.
type cursor struct {
	bk            *bucket
	keys, vals    [][]byte // the page, in ascending key order
	i             int      // position in the page; -1 before it, len past it
	before, after bool     // the bucket may hold keys before keys[0], after the last
	anchor        []byte   // Seek's key, when its page came back empty
	n             int      // the next page's size
}

const (
	maxPage       = 512
	firstPage     = 16
	bigPageBytes  = 4 << 20  // a page this large does not grow
	hugePageBytes = 16 << 20 // and one this large shrinks
)

// fetch reads up to c.n keys from bound on, forward or back (desc);
// inclusive says whether bound itself counts; a nil bound is the end of
// the bucket. It returns them in ascending order and whether the page
// was full.
func (c *cursor) fetch(bound []byte, inclusive, desc bool) (keys, vals [][]byte, full bool) {
	t := c.bk.t
	t.flush()
	t.ensureBegun()
	var q string
	args := []any{c.bk.key}
	switch {
	case bound == nil && !desc:
		q = `SELECT key, value FROM evidence_kv WHERE bucket = $1 ORDER BY key LIMIT $2`
	case bound == nil:
		q = `SELECT key, value FROM evidence_kv WHERE bucket = $1 ORDER BY key DESC LIMIT $2`
	case !desc && inclusive:
		q = `SELECT key, value FROM evidence_kv WHERE bucket = $1 AND key >= $2 ORDER BY key LIMIT $3`
	case !desc:
		q = `SELECT key, value FROM evidence_kv WHERE bucket = $1 AND key > $2 ORDER BY key LIMIT $3`
	default:
		q = `SELECT key, value FROM evidence_kv WHERE bucket = $1 AND key < $2 ORDER BY key DESC LIMIT $3`
	}
	if bound != nil {
		args = append(args, bound)
	}
	n := max(c.n, 1)
	args = append(args, n)
	rows, err := t.conn.Query(bg, q, args...)
	if err != nil {
		t.fault(err)
	}
	size := 0
	var k, v []byte
	_, err = pgx.ForEachRow(rows, []any{&k, &v}, func() error {
		if v == nil {
			v = []byte{}
		}
		keys, vals = append(keys, k), append(vals, v)
		size += len(k) + len(v)
		k, v = nil, nil // Scan into a nil slice allocates a new one
		return nil
	})
	if err != nil {
		t.fault(err)
	}
	if desc {
		slices.Reverse(keys)
		slices.Reverse(vals)
	}
	switch {
	case size > hugePageBytes:
		c.n = max(1, n/4)
	case size < bigPageBytes:
		c.n = min(n*4, maxPage)
	}
	return keys, vals, len(keys) == n
}

func (c *cursor) First() ([]byte, []byte) {
	c.n = firstPage
	c.keys, c.vals, c.after = c.fetch(nil, false, false)
	c.before, c.anchor, c.i = false, nil, 0
	return c.at(1)
}

func (c *cursor) Last() ([]byte, []byte) {
	c.n = firstPage
	c.keys, c.vals, c.before = c.fetch(nil, false, true)
	c.after, c.anchor, c.i = false, nil, len(c.keys)-1
	return c.at(-1)
}

func (c *cursor) Seek(key []byte) ([]byte, []byte) {
	c.n = 1
	if c.bk.t.writable {
		c.keys, c.vals, c.after = c.fetch(key, true, false)
	} else {
		c.keys, c.vals, c.after = c.seekCached(key)
	}
	c.before, c.anchor, c.i = true, nil, 0
	if len(c.keys) == 0 {
		c.anchor = slices.Clone(key)
	}
	return c.at(1)
}

func (c *cursor) Next() ([]byte, []byte) {
	c.step(1)
	return c.at(1)
}

func (c *cursor) Prev() ([]byte, []byte) {
	c.step(-1)
	return c.at(-1)
}

// step moves one key in direction dir, fetching the next page when it
// leaves this one and the bucket may hold more there. A fetch that finds
// nothing leaves the page as it was, the position past its end.
func (c *cursor) step(dir int) {
	c.i = max(-1, min(c.i+dir, len(c.keys)))
	switch {
	case dir > 0 && c.i == len(c.keys) && c.after:
		keys, vals, full := c.fetch(c.keys[len(c.keys)-1], false, false)
		c.after = full
		if len(keys) > 0 {
			c.keys, c.vals, c.before, c.i = keys, vals, true, 0
		}
	case dir < 0 && c.i == -1 && c.before:
		bound := c.anchor
		if len(c.keys) > 0 {
			bound = c.keys[0]
		}
		keys, vals, full := c.fetch(bound, false, true)
		c.before = full
		if len(keys) > 0 {
			c.keys, c.vals, c.after, c.i, c.anchor = keys, vals, true, len(keys)-1, nil
		}
	}
}

// at returns the key and value at the position, overlaid with the
// transaction's writes since the page was fetched: a key deleted since is
// passed over in direction dir, a key put since reads its new value.
func (c *cursor) at(dir int) ([]byte, []byte) {
	for {
		if c.i < 0 || c.i >= len(c.keys) {
			return nil, nil
		}
		k, v := c.keys[c.i], c.vals[c.i]
		o, ok := c.bk.pendingOp(k)
		if !ok {
			return k, v
		}
		if !o.del {
			return k, o.val
		}
		c.step(dir)
	}
}

// seekCached is the first fetch of a Seek in a read transaction, one row,
// through the cache of large values and the prefetched keys as Get's is:
// a caller may look a key up with a cursor's Seek.
func (c *cursor) seekCached(key []byte) (keys, vals [][]byte, full bool) {
	t := c.bk.t
	ck := cacheKey(c.bk.key, key)
	if f, ok := t.prefetched[ck]; ok && f.found { // a prefetched absent key says nothing of the keys after it
		c.n = 4
		return [][]byte{bytes.Clone(key)}, [][]byte{f.val}, true
	}
	rev, cv, ok := t.b.values.get(ck)
	if !ok {
		rev = -1
	}
	var k, v []byte
	var r int64
	var same bool
	err := t.queryRow(`SELECT key, rev, key = $2 AND rev = $3, CASE WHEN key = $2 AND rev = $3 THEN NULL ELSE value END FROM evidence_kv WHERE bucket = $1 AND key >= $2 ORDER BY key LIMIT 1`, c.bk.key, key, rev).Scan(&k, &r, &same, &v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		c.n = 4
		return nil, nil, false
	case err != nil:
		t.fault(err)
	case same:
		v = cv
	case v == nil:
		v = []byte{}
	}
	if !same && bytes.Equal(k, key) {
		t.b.values.put(ck, r, v)
	}
	c.n = 4
	return [][]byte{k}, [][]byte{v}, true
}
