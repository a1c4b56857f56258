package store

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func countingDecode(decodes map[string]int) func([]byte) (*string, error) {
	return func(b []byte) (*string, error) {
		s := string(b)
		decodes[s]++
		return &s, nil
	}
}

// TestCacheKeepsHotRecords: a record read in every round survives any
// number of cold records passing through a full cache, where a cache that
// starts over when full would decode it again after each fill; the bound
// in bytes holds all along.
func TestCacheKeepsHotRecords(t *testing.T) {
	c := recordCache[string]{maxBytes: 32 << 10}
	decodes := map[string]int{}
	decode := countingDecode(decodes)
	hot := []byte("hot")
	for i := range 5000 {
		if v, err := c.get(hot, hot, decode); err != nil || *v != "hot" {
			t.Fatalf("hot: %v %v", v, err)
		}
		cold := []byte("cold-" + strconv.Itoa(i))
		if _, err := c.get(cold, cold, decode); err != nil {
			t.Fatal(err)
		}
		if _, b := c.stats(); b > c.maxBytes {
			t.Fatalf("after %d records the cache holds %d bytes, more than its bound of %d", i, b, c.maxBytes)
		}
	}
	if decodes["hot"] != 1 {
		t.Errorf("the hot record was decoded %d times, want 1", decodes["hot"])
	}
	n, _ := c.stats()
	if per := entryBytes[string]([]byte("cold-1000"), []byte("cold-1000"), false); n < c.maxBytes/per/2 {
		t.Errorf("%d entries of about %d bytes in a cache of %d: it does not fill", n, per, c.maxBytes)
	}
	// Cold records were evicted: reading the first again decodes it.
	if _, err := c.get([]byte("cold-0"), []byte("cold-0"), decode); err != nil || decodes["cold-0"] != 2 {
		t.Errorf("cold-0 decoded %d times, want 2 (evicted once)", decodes["cold-0"])
	}
}

// TestCacheEvictsByBytes: the bound counts bytes, not records: one large
// record pushes out as many small ones as its size needs, never the
// referenced ones while unreferenced ones remain; a record larger than the
// whole bound is decoded and not kept.
func TestCacheEvictsByBytes(t *testing.T) {
	const limit = 16 << 10
	c := recordCache[string]{maxBytes: limit}
	decodes := map[string]int{}
	decode := countingDecode(decodes)
	small := func(i int) []byte { return []byte("small-" + strconv.Itoa(i)) }
	var n int
	for i := 0; ; i++ {
		if _, err := c.get(small(i), small(i), decode); err != nil {
			t.Fatal(err)
		}
		if decodes["small-0"] > 1 || i > 10000 {
			t.Fatalf("filling: small-0 decoded %d times after %d records", decodes["small-0"], i)
		}
		if m, _ := c.stats(); m == n { // the first eviction
			break
		} else {
			n = m
		}
	}
	// Reference the first half.
	for i := range n / 2 {
		if _, err := c.get(small(i), small(i), decode); err != nil {
			t.Fatal(err)
		}
	}
	before := map[string]int{}
	for k, v := range decodes {
		before[k] = v
	}
	big := bytes.Repeat([]byte("B"), limit/16) // entryBytes: about a quarter of the bound
	if _, err := c.get([]byte("big"), big, decode); err != nil {
		t.Fatal(err)
	}
	m, b := c.stats()
	if b > limit {
		t.Errorf("%d bytes cached, bound %d", b, limit)
	}
	if m >= n-1 {
		t.Errorf("%d entries after a record of %d bytes, %d before: it did not evict by size", m, entryBytes[string](nil, big, false), n)
	}
	// The referenced half is still there: reading it decodes nothing.
	for i := range n / 2 {
		if _, err := c.get(small(i), small(i), decode); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n / 2 {
		if k := "small-" + strconv.Itoa(i); decodes[k] != before[k] {
			t.Errorf("%s was evicted though referenced, while unreferenced records remained", k)
			break
		}
	}
	huge := bytes.Repeat([]byte("H"), limit)
	if v, err := c.get([]byte("huge"), huge, decode); err != nil || len(*v) != limit {
		t.Fatalf("huge: %v", err)
	}
	if _, err := c.get([]byte("huge"), huge, decode); err != nil || decodes[string(huge)] != 2 {
		t.Errorf("a record larger than the bound was kept (decoded %d times)", decodes[string(huge)])
	}
	if _, b := c.stats(); b > limit {
		t.Errorf("%d bytes cached, bound %d", b, limit)
	}
}

// TestCacheChangedRecord: the same key read with other bytes (a version
// deleted or superseded, an access list changed) is decoded afresh and
// replaces the entry; the old value is never returned again, and the
// bytes are counted once.
func TestCacheChangedRecord(t *testing.T) {
	c := recordCache[string]{}
	decodes := map[string]int{}
	decode := countingDecode(decodes)
	key := []byte("v1")
	for _, raw := range []string{"current", "deleted", "deleted", "current again"} {
		v, err := c.get(key, []byte(raw), decode)
		if err != nil || *v != raw {
			t.Fatalf("read %q: got %v, %v", raw, v, err)
		}
	}
	if decodes["deleted"] != 1 || decodes["current again"] != 1 {
		t.Errorf("decodes: %v", decodes)
	}
	n, b := c.stats()
	if want := entryBytes[string](key, []byte("current again"), false); n != 1 || b != want {
		t.Errorf("got %d entries of %d bytes, want 1 of %d", n, b, want)
	}
	// The value returned is a copy: changing it changes nothing cached.
	v, _ := c.get(key, []byte("current again"), decode)
	*v = "changed"
	if v, _ := c.get(key, []byte("current again"), decode); *v != "current again" {
		t.Errorf("the cached value changed through a returned copy: %q", *v)
	}
	// A record whose decode fails is not cached.
	bad := func([]byte) (*string, error) { return nil, ErrCorrupt }
	if _, err := c.get(key, []byte("damaged"), bad); err == nil {
		t.Error("damaged record: no error")
	}
	if _, err := c.get(key, []byte("damaged"), bad); err == nil {
		t.Error("damaged record served from the cache on a second read")
	}
}

// TestSpanChecksKeepHotSpans: a span read again and again survives many
// times the table's capacity of spans read once, the table stays within
// its bound, and other bytes never pass as a remembered span.
func TestSpanChecksKeepHotSpans(t *testing.T) {
	s := spanChecks{maxBytes: 64 * spanSetBytes} // 512 slots
	hot, span := ID{1}, []byte("the span")
	s.add(hot, span)
	capacity := 64 * spanWays
	for i := range 20 * capacity {
		h := Hash([]byte(strconv.Itoa(i)))
		s.add(h, []byte(strconv.Itoa(i)))
		if !s.passed(hot, span) {
			t.Fatalf("the hot span was forgotten after %d others", i)
		}
		if b := s.bytes(); b > s.maxBytes {
			t.Fatalf("the memo holds %d bytes, bound %d", b, s.maxBytes)
		}
	}
	if s.used > capacity {
		t.Errorf("%d slots used of %d", s.used, capacity)
	}
	if s.used < capacity/2 {
		t.Errorf("%d slots used of %d: the table does not fill", s.used, capacity)
	}
	if s.passed(hot, []byte("the spam")) {
		t.Error("other bytes passed as the hot span")
	}
	if s.passed(hot, []byte("the span ")) {
		t.Error("a longer span passed as the hot span")
	}
	// Spans read once were evicted, most of them.
	kept := 0
	for i := range 20 * capacity {
		if s.passed(Hash([]byte(strconv.Itoa(i))), []byte(strconv.Itoa(i))) {
			kept++
		}
	}
	if kept > capacity {
		t.Errorf("%d spans remembered by %d slots", kept, capacity)
	}
}

// TestSpanChecksGrow: the table starts small and grows as spans are added,
// keeping every span through each doubling, up to its bound.
func TestSpanChecksGrow(t *testing.T) {
	var s spanChecks
	if b := s.bytes(); b != 0 {
		t.Errorf("an unused memo holds %d bytes", b)
	}
	const n = 20000
	for i := range n {
		s.add(Hash([]byte(strconv.Itoa(i))), []byte(strconv.Itoa(i)))
	}
	if b := s.bytes(); b > defaultSpanCheckBytes || b < n*16 {
		t.Errorf("%d spans in %d bytes (bound %d)", n, b, defaultSpanCheckBytes)
	}
	for i := range n {
		if !s.passed(Hash([]byte(strconv.Itoa(i))), []byte(strconv.Itoa(i))) {
			t.Fatalf("span %d of %d lost while the table grew", i, n)
		}
	}
	big := spanChecks{maxBytes: 1}
	big.add(ID{2}, []byte(strings.Repeat("x", 10)))
	if !big.passed(ID{2}, []byte(strings.Repeat("x", 10))) || big.bytes() != spanSetBytes {
		t.Errorf("a bound below one set: %d bytes", big.bytes())
	}
}

// TestCachesConcurrent: readers and writers of both caches at once, for
// the race detector (make race), with the answers checked.
func TestCachesConcurrent(t *testing.T) {
	c := recordCache[string]{maxBytes: 8 << 10}
	s := spanChecks{maxBytes: 16 * spanSetBytes}
	decode := func(b []byte) (*string, error) { v := string(b); return &v, nil }
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := []byte(strconv.Itoa((i * (g + 1)) % 300))
				if v, err := c.get(k, k, decode); err != nil || *v != string(k) {
					t.Errorf("get %s: %v %v", k, v, err)
					return
				}
				h := Hash(k)
				if !s.passed(h, k) {
					s.add(h, k)
				}
				if s.passed(h, append(k, 'x')) {
					t.Errorf("other bytes passed as span %s", k)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, b := c.stats(); b > c.maxBytes {
		t.Errorf("%d bytes cached, bound %d", b, c.maxBytes)
	}
}

// BenchmarkSpanCheckHit is the span memo's hit path over 10k and 1M
// remembered spans read in random order: what a resolve pays to check a
// span read before. Flat in the number of spans but for the CPU cache.
func BenchmarkSpanCheckHit(b *testing.B) {
	span := bytes.Repeat([]byte("a span of about a kilobyte. "), 40)
	for _, n := range []int{10_000, 1_000_000} {
		b.Run("spans="+strconv.Itoa(n), func(b *testing.B) {
			var s spanChecks
			hashes := make([]ID, n)
			for i := range hashes {
				hashes[i] = Hash([]byte(strconv.Itoa(i)))
				s.add(hashes[i], span)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(span)))
			i, missed := 0, 0
			for b.Loop() {
				if !s.passed(hashes[(i*7919)%n], span) {
					missed++ // evicted by a set conflict: hashed again on a read
				}
				i++
			}
			b.ReportMetric(float64(s.bytes())/float64(n), "memo-B/span")
			b.ReportMetric(float64(missed)/float64(i), "miss-rate")
		})
	}
}

// BenchmarkRecordCacheHit is the record cache's hit path (map lookup,
// comparison of the stored bytes, copy of the value) over 1k and 100k
// cached version headers.
func BenchmarkRecordCacheHit(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			c := recordCache[Version]{maxBytes: 1 << 30}
			keys, raws := make([][]byte, n), make([][]byte, n)
			for i := range n {
				id := fmt.Sprintf("%032x", i)
				keys[i] = []byte(id)
				raws[i] = encodeVersion(&Version{ID: id, DocumentID: "docs/" + id + ".md", SourcePath: "docs/" + id + ".md",
					MediaType: "text/markdown", Fingerprint: "chunker/v1 size=1000", Status: StatusCurrent, ACL: []string{"analyst@example.com"}})
				if _, err := c.get(keys[i], raws[i], decodeVersion); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				j := (i * 7919) % n
				if _, err := c.get(keys[j], raws[j], decodeVersion); err != nil {
					b.Fatal(err)
				}
				i++
			}
			if m, _ := c.stats(); m != n {
				b.Fatalf("%d of %d records cached", m, n)
			}
		})
	}
}
