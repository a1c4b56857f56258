package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// TestPooled: requests go at the rate asked over the pool's connections
// (no more connections than the pool), every answer is counted by kind
// (2xx, 503 with Retry-After), and one not answered within the timeout
// is a timeout, not a hang.
func TestPooled(t *testing.T) {
	var n, slow, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.RawQuery != "trace=false" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		switch k := n.Add(1); {
		case k%10 == 0 && slow.Load() > 0:
			time.Sleep(300 * time.Millisecond)
			slow.Add(-1)
		case k%3 == 0:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := config{base: u, rate: 400, duration: time.Second, timeout: 100 * time.Millisecond, maxOutstanding: 1000,
		conns: 4, body: []byte(`{"request_id":"x"}`), path: "/v1/verify?trace=false"}
	slow.Store(2)
	s, err := pooled(c)
	if err != nil {
		t.Fatal(err)
	}
	answered := s.OK + s.Unavailable + s.Timeouts
	if s.Other != 0 || s.Errors != 0 || answered < 350 || answered > 410 {
		t.Errorf("got %+v, want some 400 requests answered 2xx, 503 or timed out, none other", s)
	}
	if s.Unavailable == 0 || s.RetryAfter != s.Unavailable || s.OK == 0 || s.Timeouts < 2 {
		t.Errorf("got %d 2xx, %d 503 (%d with Retry-After), %d timeouts: want each kind, every 503 with its Retry-After, 2 timeouts at least", s.OK, s.Unavailable, s.RetryAfter, s.Timeouts)
	}
	// Each timeout closes its connection, and the pool dials again.
	if got := conns.Load(); got < 4 || got > 4+s.Timeouts+s.Errors {
		t.Errorf("connections opened: %d, want the pool's 4 and one a timeout at most (%d timeouts)", got, s.Timeouts)
	}
	if s.P50 <= 0 || s.P99 < s.P50 {
		t.Errorf("latencies p50 %.3f p99 %.3f ms", s.P50, s.P99)
	}
}
