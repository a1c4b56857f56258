package postgres

import (
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// parkFor is how long a connection whose read transaction ended may wait,
// still inside that transaction, for the next transaction of the process
// to take it, which then sends the ROLLBACK in the same round trip as its
// own BEGIN and first read. Past it the connection is rolled back and
// returned to the pool. It bounds how long an ended read holds its
// snapshot (which keeps VACUUM from removing rows deleted since) and its
// share locks on the tables (which a migration's ALTER waits for).
const parkFor = 50 * time.Millisecond

// parking holds the connections of ended read transactions that have not
// been rolled back yet: a busy process sends no ROLLBACK of its own, one
// write and one wake-up fewer on both sides for every read.
type parking struct {
	mu     sync.Mutex
	conns  []parked // oldest first
	timer  *time.Timer
	armed  bool
	closed bool
}

type parked struct {
	conn *pgxpool.Conn
	at   time.Time
}

// rollbackRelease ends a parked connection's transaction and returns it
// to the pool (which closes it if the ROLLBACK failed: the pool never
// hands out a connection inside a transaction).
func rollbackRelease(c *pgxpool.Conn) {
	c.Exec(bg, "ROLLBACK")
	c.Release()
}

// park keeps c, inside a read transaction that has ended for its caller,
// for the next transaction (unpark); a closed connection goes back to the
// pool at once, which drops it.
func (b *backend) park(c *pgxpool.Conn) {
	if c.Conn().IsClosed() {
		c.Release()
		return
	}
	p := &b.parking
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		rollbackRelease(c)
		return
	}
	p.conns = append(p.conns, parked{conn: c, at: time.Now()})
	if !p.armed {
		p.armed = true
		if p.timer == nil {
			p.timer = time.AfterFunc(parkFor, b.sweep)
		} else {
			p.timer.Reset(parkFor)
		}
	}
	p.mu.Unlock()
}

// unpark returns the connection parked last, nil for none: the ones
// parked longest are left to age out, so the connections a process keeps
// inside transactions follow the reads it runs at once.
func (b *backend) unpark() *pgxpool.Conn {
	p := &b.parking
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.conns); n > 0 {
		c := p.conns[n-1].conn
		p.conns = p.conns[:n-1]
		return c
	}
	return nil
}

// sweep rolls back the connections parked for parkFor or longer and
// returns them to the pool.
func (b *backend) sweep() {
	p := &b.parking
	p.mu.Lock()
	now := time.Now()
	i := 0
	for i < len(p.conns) && now.Sub(p.conns[i].at) >= parkFor {
		i++
	}
	stale := append([]parked(nil), p.conns[:i]...)
	p.conns = append(p.conns[:0], p.conns[i:]...)
	p.armed = len(p.conns) > 0
	if p.armed {
		p.timer.Reset(parkFor - now.Sub(p.conns[0].at))
	}
	p.mu.Unlock()
	for _, s := range stale {
		rollbackRelease(s.conn)
	}
}

// closeParking rolls back and returns every parked connection, and parks
// none from now on: the pool's Close waits for every connection taken
// from it.
func (b *backend) closeParking() {
	p := &b.parking
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, s := range conns {
		rollbackRelease(s.conn)
	}
}
