// Command loadgen drives `evidence serve` on loopback for corpus/load-test.sh.
//
// It is an open-loop generator: requests are sent at a constant arrival
// rate whatever the server does, as users arrive, and each latency is
// measured from the moment its request was due, not from when a free
// connection let it go (a closed loop such as wrk's waits for a response
// before the next request, so a slow server slows its own load down and its
// queueing never shows). It is bounded: in time (-duration), in requests
// outstanding at once (-max-outstanding; a request due while the bound is
// reached is counted as not sent), and in latency samples kept.
//
//	loadgen -rate 2000 -duration 10s -ids ids.txt http://127.0.0.1:8080
//	loadgen -rate 4000 -body verify.json -path '/v1/verify?trace=false' -pid 1234 -after 30s URL
//	loadgen -stall 2000 -path /v1/versions/V/text -pid 1234 URL
//
// With -stall N it opens N connections instead that never read what they
// are sent: half send a request and never read its response (with a 4 KiB
// receive buffer, so a large response stalls the server's writes), half
// never finish their headers. Meanwhile it probes /healthz ten times a
// second, each on a new connection (at -health-url when given: the
// server's --admin-addr), and reports the probes' p50/p99/p99.9/max and
// how many were lost (no 200 within -timeout); -slow-probe D prints each
// probe slower than D on stderr with where its time went (connect, request
// written, first byte).
//
// It prints one summary line, or with -json one JSON object: the rate
// offered and achieved, goodput (2xx a second), p50/p99/p99.9 of the
// admitted requests (every answer but 503), the 503s and their p99,
// timeouts, other errors, and with -pid the server's largest RSS during the
// run and its RSS -after the load stopped. Only loopback addresses are
// accepted: this is a tool for a server on the same machine.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type config struct {
	base           *url.URL
	rate           float64
	duration       time.Duration
	timeout        time.Duration
	maxOutstanding int
	conns          int      // keep-alive connections requests share; 0: one per outstanding request
	ids            []string // GET /v1/chunks/{id}, one drawn at random a request
	body           []byte   // POST body (with -body)
	path           string
	header         http.Header
	pid            int
	after          time.Duration
	stall          int
	health         bool
	slowProbe      time.Duration
	healthURL      *url.URL // where health is probed; default: base
	jsonOut        bool
	name           string
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	var c config
	var idsFile, bodyFile, headers string
	fs.Float64Var(&c.rate, "rate", 1000, "requests a second, sent at a constant rate (open loop)")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how long to send")
	fs.DurationVar(&c.timeout, "timeout", 2*time.Second, "a request not answered in this time counts as a timeout")
	fs.IntVar(&c.maxOutstanding, "max-outstanding", 10000, "requests outstanding at once; one due beyond is counted as not sent")
	fs.IntVar(&c.conns, "conns", 256, "keep-alive connections the requests share, as a client's pool does (a request due while all are busy waits for one, its wait counted); 0: a connection for every request outstanding (net/http's client)")
	fs.StringVar(&idsFile, "ids", "", "GET /v1/chunks/{id} with ids drawn at random from this `FILE` (one a line)")
	fs.StringVar(&bodyFile, "body", "", "POST this `FILE` (JSON) to -path")
	fs.StringVar(&c.path, "path", "", "the request path (GET, or POST with -body)")
	fs.StringVar(&headers, "header", "", "extra request headers, `K: V` separated by newlines")
	fs.IntVar(&c.pid, "pid", 0, "report the RSS of this process (the server) during and -after the run")
	fs.DurationVar(&c.after, "after", 0, "with -pid, wait this long after the load and report the RSS then")
	fs.IntVar(&c.stall, "stall", 0, "open this many stalled connections instead of sending requests (see the doc)")
	fs.BoolVar(&c.health, "health", false, "probe /healthz ten times a second during the run (always on with -stall)")
	var healthURL string
	fs.StringVar(&healthURL, "health-url", "", "probe health at this `URL` (e.g. the server's --admin-addr: http://127.0.0.1:9090/healthz); default: /healthz of the base URL")
	fs.DurationVar(&c.slowProbe, "slow-probe", 0, "report each health probe slower than this (or lost) on stderr, with where its time went")
	fs.BoolVar(&c.jsonOut, "json", false, "print the summary as one JSON object")
	fs.StringVar(&c.name, "name", "", "a scenario name for the summary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want one base URL, e.g. http://127.0.0.1:8080")
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("%q: want an http:// URL", fs.Arg(0))
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s: only loopback addresses (127.0.0.1, ::1, localhost)", u.Host)
	}
	c.base = u
	c.healthURL = &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/healthz"}
	if healthURL != "" {
		h, err := url.Parse(healthURL)
		if err != nil || h.Scheme != "http" || h.Host == "" {
			return fmt.Errorf("-health-url %q: want an http:// URL", healthURL)
		}
		if ip := net.ParseIP(h.Hostname()); h.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("-health-url %s: only loopback addresses (127.0.0.1, ::1, localhost)", h.Host)
		}
		c.healthURL = h
	}
	switch {
	case c.rate <= 0 || c.rate > 200000:
		return fmt.Errorf("-rate %v: want 0 < rate <= 200000", c.rate)
	case c.duration <= 0 || c.duration > 10*time.Minute:
		return fmt.Errorf("-duration %s: want at most 10m", c.duration)
	case c.maxOutstanding <= 0 || c.maxOutstanding > 100000:
		return fmt.Errorf("-max-outstanding %d: want 1 to 100000", c.maxOutstanding)
	case c.conns < 0 || c.conns > 20000:
		return fmt.Errorf("-conns %d: want 0 to 20000", c.conns)
	case c.stall < 0 || c.stall > 20000:
		return fmt.Errorf("-stall %d: want at most 20000", c.stall)
	case c.after < 0 || c.after > 10*time.Minute:
		return fmt.Errorf("-after %s: want at most 10m", c.after)
	}
	c.header = http.Header{}
	for line := range strings.SplitSeq(headers, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			c.header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	if idsFile != "" {
		b, err := os.ReadFile(idsFile)
		if err != nil {
			return err
		}
		c.ids = strings.Fields(string(b))
		if len(c.ids) == 0 {
			return fmt.Errorf("-ids %s: no ids", idsFile)
		}
	}
	if bodyFile != "" {
		if c.body, err = os.ReadFile(bodyFile); err != nil {
			return err
		}
	}
	if c.ids == nil && c.path == "" {
		return errors.New("want -ids FILE or -path PATH")
	}
	var s summary
	switch {
	case c.stall > 0:
		s, err = stall(c)
	case c.conns > 0:
		s, err = pooled(c)
	default:
		s, err = openLoop(c)
	}
	if err != nil {
		return err
	}
	if c.pid > 0 && c.after > 0 {
		time.Sleep(c.after)
		s.RSSAfterMiB = rssMiB(c.pid)
		s.AfterSeconds = c.after.Seconds()
	}
	s.Name = c.name
	if c.jsonOut {
		return json.NewEncoder(stdout).Encode(s)
	}
	_, err = fmt.Fprintln(stdout, s.String())
	return err
}

// summary is what a run prints. Latencies are in milliseconds.
type summary struct {
	Name         string  `json:"name,omitempty"`
	Offered      float64 `json:"offered_per_s"`
	Sent         float64 `json:"sent_per_s"`
	NotSent      int64   `json:"not_sent,omitempty"` // due while -max-outstanding were outstanding
	Goodput      float64 `json:"goodput_per_s"`      // 2xx answers a second of the run
	OK           int64   `json:"ok"`
	Other        int64   `json:"other_status"` // answers neither 2xx nor 503
	Unavailable  int64   `json:"status_503"`
	RetryAfter   int64   `json:"retry_after"` // 503s with a Retry-After header
	Timeouts     int64   `json:"timeouts"`
	Errors       int64   `json:"errors"` // connection refused, reset, ...
	P50          float64 `json:"p50_ms"`
	P99          float64 `json:"p99_ms"`
	P999         float64 `json:"p999_ms"`
	Max          float64 `json:"max_ms"`
	P99Shed      float64 `json:"p99_503_ms,omitempty"`
	HealthProbes int     `json:"health_probes,omitempty"`
	HealthLost   int     `json:"health_lost"` // no 200 within -timeout
	HealthP50    float64 `json:"health_p50_ms,omitempty"`
	HealthP99    float64 `json:"health_p99_ms,omitempty"`
	HealthP999   float64 `json:"health_p999_ms,omitempty"`
	HealthMax    float64 `json:"health_max_ms,omitempty"`
	Stalled      int     `json:"stalled_conns,omitempty"`
	StallFailed  int     `json:"stalled_not_opened,omitempty"`
	ServerCPU    float64 `json:"server_cpu_s,omitempty"` // user+system seconds the server used during the run
	LoadgenCPU   float64 `json:"loadgen_cpu_s"`          // and this generator
	RSSIdleMiB   float64 `json:"rss_before_mib,omitempty"`
	RSSMaxMiB    float64 `json:"rss_max_mib,omitempty"`
	RSSAfterMiB  float64 `json:"rss_after_mib,omitempty"`
	AfterSeconds float64 `json:"after_s,omitempty"`
}

func (s summary) String() string {
	var b strings.Builder
	if s.Name != "" {
		fmt.Fprintf(&b, "%-34s ", s.Name)
	}
	if s.Stalled > 0 || s.StallFailed > 0 {
		fmt.Fprintf(&b, "stalled %d (%d not opened)", s.Stalled, s.StallFailed)
	} else {
		fmt.Fprintf(&b, "offered %.0f/s sent %.0f/s goodput %.0f/s  p50 %.2f p99 %.2f p99.9 %.2f max %.1f ms  503: %d (p99 %.2f ms)  timeouts %d  errors %d  other %d",
			s.Offered, s.Sent, s.Goodput, s.P50, s.P99, s.P999, s.Max, s.Unavailable, s.P99Shed, s.Timeouts, s.Errors, s.Other)
		if s.NotSent > 0 {
			fmt.Fprintf(&b, "  not sent %d", s.NotSent)
		}
	}
	if s.HealthProbes > 0 {
		fmt.Fprintf(&b, "  health p50 %.2f p99 %.2f p99.9 %.2f max %.1f ms, lost %d of %d", s.HealthP50, s.HealthP99, s.HealthP999, s.HealthMax, s.HealthLost, s.HealthProbes)
	}
	if s.ServerCPU > 0 {
		fmt.Fprintf(&b, "  CPU server %.1f s", s.ServerCPU)
		if s.OK > 0 {
			fmt.Fprintf(&b, " (%.0f µs a 2xx)", s.ServerCPU/float64(s.OK)*1e6)
		}
		fmt.Fprintf(&b, ", loadgen %.1f s", s.LoadgenCPU)
	}
	if s.RSSMaxMiB > 0 {
		fmt.Fprintf(&b, "  RSS idle %.0f max %.0f MiB", s.RSSIdleMiB, s.RSSMaxMiB)
	}
	if s.AfterSeconds > 0 {
		fmt.Fprintf(&b, ", %.0f s after %.0f MiB", s.AfterSeconds, s.RSSAfterMiB)
	}
	return b.String()
}

// maxSamples bounds the latencies kept (8 bytes each).
const maxSamples = 4 << 20

// recorder collects outcomes from many goroutines.
type recorder struct {
	ok, other, unavailable, retryAfter, timeouts, errs, notSent atomic.Int64

	mu       sync.Mutex
	admitted []time.Duration
	shed     []time.Duration
}

func (r *recorder) add(status int, retryAfter bool, d time.Duration, err error) {
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err)):
		r.timeouts.Add(1)
		return
	case err != nil:
		r.errs.Add(1)
		return
	case status == http.StatusServiceUnavailable:
		r.unavailable.Add(1)
		if retryAfter {
			r.retryAfter.Add(1)
		}
		r.mu.Lock()
		if len(r.shed) < maxSamples {
			r.shed = append(r.shed, d)
		}
		r.mu.Unlock()
		return
	case status >= 200 && status < 300:
		r.ok.Add(1)
	default:
		r.other.Add(1)
	}
	r.mu.Lock()
	if len(r.admitted) < maxSamples {
		r.admitted = append(r.admitted, d)
	}
	r.mu.Unlock()
}

func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)))
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return ms(sorted[i])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func newClient(c config, keepAlive bool) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: c.timeout}).DialContext,
		MaxIdleConns:        c.maxOutstanding,
		MaxIdleConnsPerHost: c.maxOutstanding,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
		DisableKeepAlives:   !keepAlive,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// openLoop sends requests at c.rate for c.duration.
func openLoop(c config) (summary, error) {
	client := newClient(c, true)
	defer client.CloseIdleConnections()
	rec := &recorder{}
	rss := startRSS(c.pid)
	var hp *healthProber
	if c.health {
		hp = startHealth(c)
	}
	sem := make(chan struct{}, c.maxOutstanding)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / c.rate)
	start := time.Now()
	end := start.Add(c.duration)
	var sent int64
	for n := int64(0); ; {
		now := time.Now()
		if !now.Before(end) {
			break
		}
		// Every request due by now goes, each with the time it was due.
		for due := start.Add(time.Duration(n) * interval); !due.After(now); due = start.Add(time.Duration(n) * interval) {
			n++
			select {
			case sem <- struct{}{}:
			default:
				rec.notSent.Add(1)
				continue
			}
			sent++
			wg.Add(1)
			go func(due time.Time) {
				defer wg.Done()
				defer func() { <-sem }()
				status, ra, err := send(client, c, due)
				rec.add(status, ra, time.Since(due), err)
			}(due)
		}
		time.Sleep(200 * time.Microsecond)
	}
	elapsed := time.Since(start)
	wg.Wait()
	s := summary{Offered: c.rate, Sent: float64(sent) / elapsed.Seconds()}
	if hp != nil {
		hp.stop(&s)
	}
	rss.stop(&s)
	rec.fill(&s, elapsed)
	return s, nil
}

func (r *recorder) fill(s *summary, elapsed time.Duration) {
	s.OK, s.Other, s.Unavailable, s.RetryAfter = r.ok.Load(), r.other.Load(), r.unavailable.Load(), r.retryAfter.Load()
	s.Timeouts, s.Errors, s.NotSent = r.timeouts.Load(), r.errs.Load(), r.notSent.Load()
	s.Goodput = float64(s.OK) / elapsed.Seconds()
	slices.Sort(r.admitted)
	slices.Sort(r.shed)
	s.P50, s.P99, s.P999 = quantile(r.admitted, .5), quantile(r.admitted, .99), quantile(r.admitted, .999)
	if len(r.admitted) > 0 {
		s.Max = ms(r.admitted[len(r.admitted)-1])
	}
	s.P99Shed = quantile(r.shed, .99)
}

// send makes one request and reads its whole answer.
func send(client *http.Client, c config, due time.Time) (int, bool, error) {
	ctx, cancel := context.WithDeadline(context.Background(), due.Add(c.timeout))
	defer cancel()
	u := *c.base
	method := http.MethodGet
	var body io.Reader
	switch {
	case c.ids != nil:
		u.Path = "/v1/chunks/" + c.ids[rand.IntN(len(c.ids))]
	default:
		p, q, _ := strings.Cut(c.path, "?")
		u.Path, u.RawQuery = p, q
	}
	if c.body != nil {
		method, body = http.MethodPost, strings.NewReader(string(c.body))
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return 0, false, err
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, false, err
	}
	return resp.StatusCode, resp.Header.Get("Retry-After") != "", nil
}

// healthProber probes /healthz ten times a second, each on a new
// connection (as a load balancer's or orchestrator's probe does). Probes
// run on a fixed schedule, each in its own goroutine, so a slow one does
// not hold back (and hide) the next: every probe due is sent and counted.
// A probe is lost when it gets no 200 within -timeout (a timeout, a
// refused or reset connection, or another status).
type healthProber struct {
	done chan struct{}
	wg   sync.WaitGroup
	slow time.Duration // report probes slower than this on stderr; 0: none

	mu   sync.Mutex
	lat  []time.Duration // of the probes answered 200
	lost []string        // why each lost probe was lost
}

func startHealth(c config) *healthProber {
	hp := &healthProber{done: make(chan struct{}), slow: c.slowProbe}
	client := newClient(c, false)
	client.Timeout = c.timeout
	u := *c.healthURL
	hp.wg.Add(1)
	go func() {
		defer hp.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-hp.done:
				return
			case <-t.C:
			}
			hp.wg.Add(1)
			go func() {
				defer hp.wg.Done()
				hp.probe(client, u.String())
			}()
		}
	}()
	return hp
}

// probe sends one health check and records it, with where its time went
// when it was slow.
func (hp *healthProber) probe(client *http.Client, u string) {
	start := time.Now()
	var connected, wrote, first time.Duration
	trace := &httptrace.ClientTrace{
		ConnectDone:          func(string, string, error) { connected = time.Since(start) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { wrote = time.Since(start) },
		GotFirstResponseByte: func() { first = time.Since(start) },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, u, nil)
	if err != nil {
		panic(err) // a URL built above
	}
	resp, err := client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	d := time.Since(start)
	if hp.slow > 0 && (d > hp.slow || err != nil) {
		fmt.Fprintf(os.Stderr, "loadgen: slow probe at %s: %s (connected %s, request written %s, first byte %s) err %v\n",
			start.Format("15:04:05.000"), d.Round(time.Microsecond), connected.Round(time.Microsecond), wrote.Round(time.Microsecond), first.Round(time.Microsecond), err)
	}
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if err != nil {
		hp.lost = append(hp.lost, err.Error())
		return
	}
	hp.lat = append(hp.lat, d)
}

func (hp *healthProber) stop(s *summary) {
	close(hp.done)
	hp.wg.Wait()
	slices.Sort(hp.lat)
	s.HealthProbes, s.HealthLost = len(hp.lat)+len(hp.lost), len(hp.lost)
	s.HealthP50, s.HealthP99, s.HealthP999 = quantile(hp.lat, .5), quantile(hp.lat, .99), quantile(hp.lat, .999)
	if len(hp.lat) > 0 {
		s.HealthMax = ms(hp.lat[len(hp.lat)-1])
	}
}

// rssSampler records the largest RSS of a process, every 100 ms.
type rssSampler struct {
	pid         int
	idle, max   float64
	cpu0, self0 float64
	done        chan struct{}
	wg          sync.WaitGroup
}

func startRSS(pid int) *rssSampler {
	r := &rssSampler{pid: pid, done: make(chan struct{})}
	if pid <= 0 {
		return r
	}
	r.idle = rssMiB(pid)
	r.cpu0, r.self0 = cpuSeconds(pid), selfCPU()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			r.max = max(r.max, rssMiB(pid))
			select {
			case <-r.done:
				return
			case <-t.C:
			}
		}
	}()
	return r
}

func (r *rssSampler) stop(s *summary) {
	if r.pid <= 0 {
		return
	}
	close(r.done)
	r.wg.Wait()
	s.RSSIdleMiB, s.RSSMaxMiB = r.idle, r.max
	s.ServerCPU, s.LoadgenCPU = cpuSeconds(r.pid)-r.cpu0, selfCPU()-r.self0
}

// cpuSeconds reads the user and system time of a process from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s).
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')') // the command may hold spaces
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100
}

func selfCPU() float64 { return cpuSeconds(os.Getpid()) }

// rssMiB reads VmRSS from /proc/PID/status; 0 when it cannot.
func rssMiB(pid int) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// stall opens c.stall connections that never read, holds them for
// c.duration while probing health, then closes them.
func stall(c config) (summary, error) {
	rss := startRSS(c.pid)
	hp := startHealth(c)
	host := c.base.Host
	path := c.path
	if path == "" {
		path = "/v1/chunks/" + c.ids[0]
	}
	var extra strings.Builder
	for k, vs := range c.header {
		for _, v := range vs {
			fmt.Fprintf(&extra, "%s: %s\r\n", k, v)
		}
	}
	full := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra.String() + "\r\n"
	partial := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nX-Slow: " // never finished
	conns := make([]net.Conn, 0, c.stall)
	failed := 0
	d := net.Dialer{Timeout: c.timeout, Control: smallReceiveBuffer}
	deadline := time.Now().Add(c.duration)
	for i := 0; i < c.stall && time.Now().Before(deadline); i++ {
		conn, err := d.Dial("tcp", host)
		if err != nil {
			failed++
			continue
		}
		msg := full
		if i%2 == 1 {
			msg = partial
		}
		_ = conn.SetWriteDeadline(time.Now().Add(c.timeout))
		if _, err := io.WriteString(conn, msg); err != nil {
			failed++
			conn.Close()
			continue
		}
		conns = append(conns, conn)
	}
	time.Sleep(time.Until(deadline))
	s := summary{Stalled: len(conns), StallFailed: failed}
	hp.stop(&s)
	rss.stop(&s)
	for _, conn := range conns {
		conn.Close()
	}
	return s, nil
}
