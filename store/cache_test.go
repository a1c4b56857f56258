package store

import (
	"strconv"
	"testing"
)

// TestCacheKeepsHotRecords: a record read in every round survives any
// number of cold records passing through the cache, where a cache that
// starts over when full would decode it again after each fill.
func TestCacheKeepsHotRecords(t *testing.T) {
	var c recordCache[string]
	decodes := map[string]int{}
	decode := func(b []byte) (*string, error) {
		s := string(b)
		decodes[s]++
		return &s, nil
	}
	hot := []byte("hot")
	for i := range 5 * maxCached {
		if _, err := c.get(hot, hot, decode); err != nil {
			t.Fatal(err)
		}
		cold := []byte("cold-" + strconv.Itoa(i))
		if _, err := c.get(cold, cold, decode); err != nil {
			t.Fatal(err)
		}
	}
	if decodes["hot"] != 1 {
		t.Errorf("the hot record was decoded %d times, want 1", decodes["hot"])
	}
	if n := len(c.cur) + len(c.old); n > 2*maxCached {
		t.Errorf("%d records cached, more than two generations of %d", n, maxCached)
	}
	// A changed record is decoded afresh, from either generation.
	v, err := c.get(hot, []byte("hot2"), decode)
	if err != nil || *v != "hot2" {
		t.Errorf("changed record: %v %v", v, err)
	}
}

func TestSpanChecksKeepHotSpans(t *testing.T) {
	var s spanChecks
	hot, span := ID{1}, []byte("the span")
	s.add(hot, span)
	for i := range 3 * maxSpanChecks {
		var h ID
		h[0], h[1], h[2], h[3] = 2, byte(i), byte(i>>8), byte(i>>16)
		s.add(h, span)
		if i%1000 == 0 && !s.passed(hot, span) {
			t.Fatalf("the hot span was forgotten after %d others", i)
		}
	}
	if !s.passed(hot, span) {
		t.Error("the hot span was forgotten")
	}
	if s.passed(hot, []byte("the spam")) {
		t.Error("other bytes passed as the hot span")
	}
}
