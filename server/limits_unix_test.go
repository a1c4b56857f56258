//go:build unix

package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
)

// TestServeStalledReaders: clients that ask for a large text and never
// read the answer, and clients that never finish their headers, hold
// neither the server's memory nor its health checks. Before the limits,
// each stalled reader kept a handler and its encoded response (about twice
// the text) until the 2-minute write timeout: 100 of them held some 200 MB.
func TestServeStalledReaders(t *testing.T) {
	const readers, headerStalls = 100, 50
	e := newTestEnvWith(t, false, func(c *serverConfig) {
		c.limits = serveLimits{maxInFlight: 8, maxQueue: 8, queueTimeout: 20 * time.Millisecond, writeStall: 2 * time.Second, maxResponseBytes: 8 << 20}
	})
	path := filepath.Join(t.TempDir(), "big.md")
	if err := os.WriteFile(path, corpus.Markdown(7, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(context.Background(), e.db, []string{path}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var version string
	if err := e.db.View(func(tx *store.Tx) error {
		d, err := tx.Document("big.md")
		if err == nil {
			version = d.Current
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	addr := servedWithLimits(t, e, 1000)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()

	d := net.Dialer{Timeout: 30 * time.Second, Control: func(network, address string, c syscall.RawConn) error {
		var err error
		_ = c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return err
	}}
	for i := range readers + headerStalls {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if i < readers {
			fmt.Fprintf(c, "GET /v1/versions/%s/text HTTP/1.1\r\nHost: x\r\n\r\n", version)
		} else {
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		}
	}
	// The first requests' handlers are blocked writing (for the 2 s write
	// stall) and every other request was answered 503.
	waitFor(t, "the stalled requests to be answered or shed", func() bool {
		return e.srv.shed.Load() >= readers-8 && e.srv.lanes[laneAPI].queued.Load() == 0
	})
	held := heap() - min(before, heap())
	if held > 48<<20 {
		t.Errorf("%d stalled readers hold %d MiB of heap, want at most the %d in flight's", readers, held>>20, 8)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	var worst time.Duration
	for range 5 {
		start := time.Now()
		resp, err := client.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("healthz beside stalled clients: %v", err)
		}
		resp.Body.Close()
		worst = max(worst, time.Since(start))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("healthz beside stalled clients: got %d", resp.StatusCode)
		}
	}
	if worst > time.Second {
		t.Errorf("healthz beside stalled clients took %s", worst)
	}
	// The write stall abandons the stalled responses: their slots free and
	// the API answers again, and the heap is given back.
	id := e.chunkIDs("expense-policy.md")[0]
	var status int
	waitFor(t, "the API to answer beside stalled readers", func() bool {
		resp, err := client.Get("http://" + addr + "/v1/chunks/" + id)
		if err != nil {
			return false
		}
		resp.Body.Close()
		status = resp.StatusCode
		return status == http.StatusOK
	})
	waitFor(t, "the stalled responses to be abandoned", func() bool { return len(e.srv.lanes[laneAPI].slots) == 0 })
	if e.srv.responses.used.Load() != 0 {
		t.Errorf("%d bytes of responses still counted as held", e.srv.responses.used.Load())
	}
	if got := testutil.ToFloat64(e.srv.metrics.shed.WithLabelValues(laneAPI, "response_memory")); got == 0 {
		t.Error("no large response was refused for memory, with 100 stalled readers and room for 8 MiB")
	}
	if after := heap() - min(before, heap()); after > 16<<20 {
		t.Errorf("after the stalled responses were abandoned, %d MiB of heap still held", after>>20)
	}
}

// TestServeHealthBesideStalledReaders: health probes on the admin listener
// are never lost while stalled readers flood the API's listener past its
// connection limit: half ask for a large text and never read it, half
// never finish their headers. Before the admin listener a probe waited in
// the API listener's accept queue behind every stalled connection, and
// with the connection limit reached it could be closed for a newer one
// before its request was read; before the large-answer lane, 16 handlers
// encoding large texts kept the cores from the probes for seconds.
func TestServeHealthBesideStalledReaders(t *testing.T) {
	const stalled, maxConns, probes = 300, 200, 60
	e := newTestEnvWith(t, false, func(c *serverConfig) {
		c.limits = serveLimits{writeStall: 2 * time.Second}
	})
	version := ingestBig(t, e)
	addr, admin := servedWithAdmin(t, e, maxConns)

	// Probes every 25 ms, each on a new connection, from before the first
	// stalled connection to after the last.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Second}
	type probe struct {
		took time.Duration
		err  error
	}
	results := make(chan probe, probes)
	var wg sync.WaitGroup
	for i := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 25 * time.Millisecond)
			start := time.Now()
			resp, err := client.Get("http://" + admin + "/healthz")
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			results <- probe{time.Since(start), err}
		}()
	}
	d := net.Dialer{Timeout: 5 * time.Second, Control: smallReceiveBuffer}
	for i := range stalled {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if i%2 == 0 {
			fmt.Fprintf(c, "GET /v1/versions/%s/text HTTP/1.1\r\nHost: x\r\n\r\n", version)
		} else {
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		}
	}
	wg.Wait()
	close(results)
	var lost []string
	var worst time.Duration
	for p := range results {
		if p.err != nil {
			lost = append(lost, p.err.Error())
			continue
		}
		worst = max(worst, p.took)
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d health probes lost beside %d stalled connections: %v", len(lost), probes, stalled, lost)
	}
	t.Logf("%d probes beside %d stalled connections: slowest %s", probes, stalled, worst)
	if evicted := testutil.ToFloat64(e.srv.metrics.connsShed.WithLabelValues("evicted")); evicted == 0 {
		t.Errorf("no connection evicted with %d stalled and a limit of %d: the test did not reach the limit", stalled, maxConns)
	}
	if got := testutil.ToFloat64(e.srv.metrics.connsShed.WithLabelValues("admin_evicted")) + testutil.ToFloat64(e.srv.metrics.connsShed.WithLabelValues("admin_refused")); got != 0 {
		t.Errorf("%v admin connections closed: probes one at a time are within its limit", got)
	}
}

// smallReceiveBuffer gives a connection a 4 KiB receive buffer, so that a
// large response stalls the server's writes as a slow reader does.
func smallReceiveBuffer(network, address string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
		return cerr
	}
	return err
}
