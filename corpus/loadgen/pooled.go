package main

import (
	"bufio"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// pooled sends requests at c.rate for c.duration over c.conns keep-alive
// connections, as a client with a connection pool does (an application
// server, a gateway): a request due while every connection is busy waits
// for one, and that wait is part of its latency, which is measured from
// when it was due. A request still waiting when its -timeout has passed
// is counted as a timeout without being sent (its user gave up). Requests
// are written and answers read on the connections directly, so the
// generator costs little CPU a request: on a 2-core machine it shares the
// cores with the server, and net/http's client, a goroutine and a
// connection for every request outstanding, took as much CPU as the
// server it measured once the server fell behind.
func pooled(c config) (summary, error) {
	rec := &recorder{}
	rss := startRSS(c.pid)
	var hp *healthProber
	if c.health {
		hp = startHealth(c)
	}
	due := make(chan time.Time, c.maxOutstanding)
	var wg sync.WaitGroup
	for range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &wire{c: c}
			defer w.close()
			for d := range due {
				if time.Now().After(d.Add(c.timeout)) {
					rec.timeouts.Add(1)
					continue
				}
				status, ra, err := w.send(d)
				rec.add(status, ra, time.Since(d), err)
			}
		}()
	}
	interval := time.Duration(float64(time.Second) / c.rate)
	start := time.Now()
	end := start.Add(c.duration)
	var sent int64
	for n := int64(0); ; {
		now := time.Now()
		if !now.Before(end) {
			break
		}
		for d := start.Add(time.Duration(n) * interval); !d.After(now); d = start.Add(time.Duration(n) * interval) {
			n++
			select {
			case due <- d:
				sent++
			default:
				rec.notSent.Add(1)
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	elapsed := time.Since(start)
	close(due)
	wg.Wait()
	s := summary{Offered: c.rate, Sent: float64(sent) / elapsed.Seconds()}
	if hp != nil {
		hp.stop(&s)
	}
	rss.stop(&s)
	rec.fill(&s, elapsed)
	return s, nil
}

// wire is one keep-alive connection of the pool: it dials when it has
// none, and drops its connection on any error, as the server may close an
// idle one or one it shed.
type wire struct {
	c    config
	conn net.Conn
	br   *bufio.Reader
	req  []byte
}

// send writes one request and reads its whole answer, all by due plus
// the timeout.
func (w *wire) send(due time.Time) (int, bool, error) {
	deadline := due.Add(w.c.timeout)
	if w.conn == nil {
		conn, err := net.DialTimeout("tcp", w.c.base.Host, time.Until(deadline))
		if err != nil {
			return 0, false, err
		}
		w.conn = conn
		if w.br == nil {
			w.br = bufio.NewReaderSize(conn, 32<<10)
		} else {
			w.br.Reset(conn)
		}
	}
	if err := w.conn.SetDeadline(deadline); err != nil {
		w.close()
		return 0, false, err
	}
	w.req = w.request(w.req[:0])
	if _, err := w.conn.Write(w.req); err != nil {
		w.close()
		return 0, false, err
	}
	resp, err := http.ReadResponse(w.br, nil)
	if err != nil {
		w.close()
		return 0, false, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.Close {
		w.close()
	}
	if err != nil {
		return 0, false, err
	}
	return resp.StatusCode, resp.Header.Get("Retry-After") != "", nil
}

// request appends the next request's bytes to b: a GET of a chunk id
// drawn at random, or the -body POSTed to -path, or a GET of -path.
func (w *wire) request(b []byte) []byte {
	c := w.c
	method, path := "GET", c.path
	if c.ids != nil {
		path = "/v1/chunks/" + c.ids[rand.IntN(len(c.ids))]
	}
	if c.body != nil {
		method = "POST"
	}
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, c.base.Host...)
	b = append(b, "\r\n"...)
	for k, vs := range c.header {
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	if c.body != nil {
		b = append(b, "Content-Type: application/json\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(c.body)), 10)
		b = append(b, "\r\n\r\n"...)
		return append(b, c.body...)
	}
	return append(b, "\r\n"...)
}

func (w *wire) close() {
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}
