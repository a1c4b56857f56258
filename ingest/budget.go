package ingest

import "sync"

// maxPendingBytes bounds the text of prepared versions that wait for the
// writer: enough that the workers go on extracting while a commit waits
// for its fsyncs (3 to 90 ms on the development machine's virtual disk),
// few enough that a batch never sits in memory whole.
const maxPendingBytes = 4 * maxGroupBytes

// budget is a byte count that workers take from and the writer gives back
// once what it took is committed.
type budget struct {
	mu   sync.Mutex
	cond sync.Cond
	free int
	max  int
}

func newBudget(max int) *budget {
	b := &budget{free: max, max: max}
	b.cond.L = &b.mu
	return b
}

// take waits until n bytes are free and takes them, and returns what it
// took: a version larger than the whole budget takes all of it, waiting
// until nothing else is pending.
func (b *budget) take(n int) int {
	n = min(max(n, 0), b.max)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	return n
}

// give returns n bytes taken before.
func (b *budget) give(n int) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}
