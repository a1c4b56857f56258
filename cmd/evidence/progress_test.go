package main

import (
	"bytes"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/ingest"
)

// lockedBuffer is a bytes.Buffer safe for one writer goroutine and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressLog checks the line a batch writes without a terminal: the
// counts done so far and the rates, written while a file is still being
// extracted, and nothing after the batch ends.
func TestProgressLog(t *testing.T) {
	var buf lockedBuffer
	start := time.Now().Add(-2 * time.Second)
	observe, stop := progressLog(&buf, time.Millisecond, start)
	observe(1, 4, &ingest.Result{Pages: 1, Chunks: 1})
	observe(2, 4, &ingest.Result{Pages: 2, Chunks: 6})
	line := regexp.MustCompile(`(?m)^progress: 2 of 4 files, 3 pages, 7 chunks in 2s; (1\.0|0\.9) files/s, 1\.[45] pages/s$`)
	deadline := time.Now().Add(10 * time.Second)
	for !line.MatchString(buf.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line like %s in %q", line, buf.String())
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	stop() // idempotent
	n := len(buf.String())
	time.Sleep(20 * time.Millisecond)
	if got := buf.String(); len(got) != n {
		t.Errorf("progress written after stop: %q", got[n:])
	}

	var one lockedBuffer
	observe, stop = progressLog(&one, time.Millisecond, time.Now())
	observe(1, 1, &ingest.Result{Pages: 1, Chunks: 1})
	for !regexp.MustCompile(`progress: 1 of 1 file, 1 page, 1 chunk in`).MatchString(one.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no singular progress line in %q", one.String())
		}
		time.Sleep(time.Millisecond)
	}
	stop()
}
