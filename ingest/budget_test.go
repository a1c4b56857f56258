package ingest

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestBudget: takers wait while the budget is spent and go on once it is
// given back; a take larger than the budget takes all of it.
func TestBudget(t *testing.T) {
	b := newBudget(100)
	if got := b.take(60); got != 60 {
		t.Fatalf("take(60) took %d", got)
	}
	var took atomic.Int64
	done := make(chan struct{})
	go func() {
		took.Store(int64(b.take(1000))) // more than the budget: waits for all of it
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	if took.Load() != 0 {
		t.Fatal("a take went through with the budget spent")
	}
	b.give(60)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the take still waits after the budget was given back")
	}
	if got := took.Load(); got != 100 {
		t.Errorf("take(1000) took %d, want the whole budget, 100", got)
	}
	b.give(100)
	if got := b.take(0); got != 0 || b.free != 100 {
		t.Errorf("take(0) took %d, %d free; want 0 and 100", got, b.free)
	}
}
