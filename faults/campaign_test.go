package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Async trace settings of the campaign's servers, and the allowance for
// the time between the server's acknowledging a trace and the client's
// reading the answer, beyond the client's own stalls (measured: lateness).
const (
	campaignFlush = 10 * time.Millisecond
	campaignBatch = 200
	answerSlack   = 40 * time.Millisecond
)

// envInt reads a positive integer from the environment.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// tally counts the trials of one kind.
type tally struct {
	trials, kills, clean, lost, crashed, unclean, half int
	tracesLost, tracesAcked, acked                     int
}

// campaign is the state the trials share: one store at a time (replaced
// every storeTrials trials so that audits stay quick), and what is known
// to be in it.
type campaign struct {
	t       *testing.T
	rng     *rand.Rand
	dir     string // a store's working directory: ids are paths under it
	db      string
	trial   int
	docs    []string // documents ingested so far in this store, not deleted
	base    []string // chunk ids of the base documents, for verifications
	quotes  map[string]string
	oldBin  bool // EVIDENCE_BIN lacks --trace-flush: an older release
	tallies map[string]*tally
	failed  []string // the first 20 trials not clean, described
	unclean int      // trials not clean
}

const storeTrials = 12

// oldBinary reports an evidence binary without --trace-flush: a release
// before the async loss bound, run for before-and-after figures.
func oldBinary() bool {
	help := run(os.TempDir(), "serve", "--help")
	return !strings.Contains(help.stdout.String()+help.stderr.String(), "--trace-flush")
}

// TestKillCampaign: kill -9 of ingest, rebuild, delete and serve at random
// points, each followed by the checks of check (audit clean, nothing
// acknowledged lost, no half version). EVIDENCE_FAULT_KILLS (default 50)
// kills are made; a table gives the figures by kind.
func TestKillCampaign(t *testing.T) {
	needBinary(t)
	kills := envInt(t, "EVIDENCE_FAULT_KILLS", 50)
	seed := uint64(envInt(t, "EVIDENCE_FAULT_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("EVIDENCE_FAULT_SEED=%d EVIDENCE_FAULT_KILLS=%d %s", seed, kills, bin)
	c := &campaign{t: t, rng: rand.New(rand.NewPCG(seed, 16)), tallies: map[string]*tally{}}
	c.oldBin = oldBinary()
	kinds := []struct {
		name   string
		weight int
		fn     func(*outcome, *acked) (killed bool, bound traceBound)
	}{
		{"ingest", 3, c.ingest},
		{"rebuild", 2, c.rebuild},
		{"delete", 1, c.delete},
		{"serve sync", 2, func(o *outcome, a *acked) (bool, traceBound) { return c.serve(o, a, false) }},
		{"serve async", 3, func(o *outcome, a *acked) (bool, traceBound) { return c.serve(o, a, true) }},
	}
	only := os.Getenv("EVIDENCE_FAULT_KINDS") // e.g. "serve async,ingest": a focused run
	var weighted []int
	for i, k := range kinds {
		if only != "" && !slices.Contains(strings.Split(only, ","), k.name) {
			continue
		}
		for range k.weight {
			weighted = append(weighted, i)
		}
	}
	if len(weighted) == 0 {
		t.Fatalf("EVIDENCE_FAULT_KINDS=%q names none of ingest, rebuild, delete, serve sync, serve async", only)
	}
	started, made := time.Now(), 0
	for made < kills {
		if c.trial%storeTrials == 0 {
			c.newStore()
		}
		c.trial++
		k := kinds[weighted[c.rng.IntN(len(weighted))]]
		o, a := &outcome{}, newAcked()
		killed, bound := k.fn(o, a)
		check(c.dir, c.db, a, bound, o)
		c.count(k.name, killed, o, a)
		if killed {
			made++
			if made%100 == 0 {
				t.Logf("%d kills in %s, %d trials, %d not clean", made, time.Since(started).Round(time.Second), c.trial, c.unclean)
			}
		}
		if made == 0 && c.trial > 40 {
			t.Fatalf("40 trials and no kill: every process ended before its kill")
		}
	}
	c.report(time.Since(started))
	for _, f := range c.failed {
		t.Error(f)
	}
}

// newStore starts a store: a few base documents, ingested whole.
func (c *campaign) newStore() {
	c.dir = c.t.TempDir()
	c.db = filepath.Join(c.dir, "evidence.db")
	c.docs, c.base, c.quotes = nil, nil, map[string]string{}
	paths := c.writeDocs("base", 6, 8<<10, 24<<10)
	if p := run(c.dir, "--db", c.db, "ingest", "docs"); p.exitCode() != 0 {
		c.t.Fatalf("base ingest: exit %d: %s", p.exitCode(), p.stderr.String())
	}
	c.docs = append(c.docs, paths...)
	c.newStoreChunks()
}

// newStoreChunks reads the chunks verifications will cite: up to 200 of
// the store's, each with a quote of its text.
func (c *campaign) newStoreChunks() {
	c.base, c.quotes = nil, map[string]string{}
	s, err := store.Open(c.db, &store.Options{ReadOnly: true})
	if err != nil {
		c.t.Fatal(err)
	}
	defer s.Close()
	err = s.View(func(tx *store.Tx) error {
		return tx.ForEachVersion(func(v *store.Version) error {
			return tx.ForEachChunk(v, func(ch *store.Chunk) error {
				r, err := resolve.ChunkTx(tx, ch.ID(), "")
				if err == nil && r.Served() && len(c.base) < 200 {
					q := []rune(strings.TrimSpace(r.Text))
					c.base, c.quotes[ch.ID()] = append(c.base, ch.ID()), string(q[:min(60, len(q))])
				}
				return err
			})
		})
	})
	if err != nil || len(c.base) == 0 {
		c.t.Fatalf("base chunks: %v (%d)", err, len(c.base))
	}
}

// writeDocs writes n new Markdown documents under docs/ and returns their
// ids (paths relative to the store's directory).
func (c *campaign) writeDocs(prefix string, n, minSize, maxSize int) []string {
	var ids []string
	if err := os.MkdirAll(filepath.Join(c.dir, "docs"), 0o700); err != nil {
		c.t.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("docs/%s-%d-%d.md", prefix, c.trial, i)
		size := minSize + c.rng.IntN(maxSize-minSize+1)
		if err := os.WriteFile(filepath.Join(c.dir, id), corpus.Markdown(c.rng.Uint64(), size), 0o600); err != nil {
			c.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// killPoint is a random point in a process's run of about expect, or a
// little after it: some processes finish and print their result.
func (c *campaign) killPoint(expect time.Duration) time.Duration {
	return time.Duration(c.rng.Int64N(int64(expect) * 13 / 10))
}

// batchResult is what ingest --json and rebuild --json print.
type batchResult struct {
	Files []struct {
		DocumentID      string `json:"document_id"`
		DocumentVersion string `json:"document_version"`
		Status          string `json:"status"`
	} `json:"files"`
}

// acknowledge records the versions a batch printed as stored.
func (c *campaign) acknowledge(p *proc, a *acked, o *outcome) {
	if p.killed || p.stdout.Len() == 0 {
		return
	}
	var r batchResult
	if err := json.Unmarshal(p.stdout.Bytes(), &r); err != nil {
		o.crashed = append(o.crashed, fmt.Sprintf("result: %v: %.200s", err, p.stdout.String()))
		return
	}
	for _, f := range r.Files {
		if f.Status == "ingested" || f.Status == "unchanged" {
			a.current[f.DocumentID] = f.DocumentVersion
		}
	}
}

// ingest: new documents, and new bytes for some stored ones, in one
// `evidence ingest`, killed at a random point of its run.
func (c *campaign) ingest(o *outcome, a *acked) (bool, traceBound) {
	ids := c.writeDocs("in", 3+c.rng.IntN(8), 8<<10, 48<<10)
	for range c.rng.IntN(3) {
		if len(c.docs) > 0 {
			id := c.docs[c.rng.IntN(len(c.docs))]
			_ = os.WriteFile(filepath.Join(c.dir, id), corpus.Markdown(c.rng.Uint64(), 8<<10+c.rng.IntN(32<<10)), 0o600)
		}
	}
	args := append([]string{"--db", c.db, "--json", "ingest"}, ids...)
	for _, id := range c.docs {
		if c.rng.IntN(3) == 0 {
			args = append(args, id)
		}
	}
	p, err := start(c.dir, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	p.killAfter(c.killPoint(time.Duration(len(args)) * 10 * time.Millisecond))
	c.finish("ingest", p, o)
	c.acknowledge(p, a, o)
	c.docs = append(c.docs, ids...) // stored or not, a later ingest may take them
	return p.killed, traceBound{}
}

// rebuild: new chunk settings for some documents.
func (c *campaign) rebuild(o *outcome, a *acked) (bool, traceBound) {
	args := []string{"--db", c.db, "--json", "rebuild", "--chunk-size", strconv.Itoa(150 + c.rng.IntN(1500)), "--overlap", "0"}
	for _, id := range c.docs {
		if c.rng.IntN(2) == 0 {
			args = append(args, id)
		}
	}
	p, err := start(c.dir, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	p.killAfter(c.killPoint(time.Duration(len(args)) * 6 * time.Millisecond))
	c.finish("rebuild", p, o)
	c.acknowledge(p, a, o)
	return p.killed, traceBound{}
}

// delete: one document.
func (c *campaign) delete(o *outcome, a *acked) (bool, traceBound) {
	if len(c.docs) < 3 {
		return false, traceBound{}
	}
	i := c.rng.IntN(len(c.docs))
	id := c.docs[i]
	p, err := start(c.dir, "--db", c.db, "delete", id)
	if err != nil {
		c.t.Fatal(err)
	}
	p.killAfter(c.killPoint(25 * time.Millisecond))
	c.finish("delete", p, o)
	if !p.killed && p.exitCode() == 0 {
		a.deleted = append(a.deleted, id)
	}
	if !p.killed || c.rng.IntN(2) == 0 {
		c.docs = slices.Delete(c.docs, i, i+1)
	}
	return p.killed, traceBound{}
}

// finish records a process that died of itself, or that failed otherwise
// than a batch may: 1 (every input failed: a document deleted or never
// stored, its ingest killed), 3 (some failed), 5 (not found).
func (c *campaign) finish(name string, p *proc, o *outcome) {
	switch {
	case p.crashed():
		o.crashed = append(o.crashed, fmt.Sprintf("%s: %s", name, lastLines(p.stderr.String(), 8)))
	case p.killed:
	case p.exitCode() == 0, p.exitCode() == 1, p.exitCode() == 3, p.exitCode() == 5:
	default:
		o.crashed = append(o.crashed, fmt.Sprintf("%s: exit %d: %s", name, p.exitCode(), lastLines(p.stderr.String(), 5)))
	}
}

// serve: a server taking uploads and verifications, killed while it works.
func (c *campaign) serve(o *outcome, a *acked, async bool) (bool, traceBound) {
	args := []string{"--db", c.db}
	bound := traceBound{}
	if async {
		args = append(args, "--trace-writes", "async")
		if !c.oldBin {
			args = append(args, "--trace-flush", campaignFlush.String(), "--trace-batch", strconv.Itoa(campaignBatch))
		}
		bound = traceBound{flush: campaignFlush, slack: answerSlack, batch: campaignBatch}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, base, err := serve(ctx, c.dir, args...)
	if err != nil {
		o.crashed = append(o.crashed, err.Error())
		return false, bound
	}
	stop := make(chan struct{})
	var mu sync.Mutex
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	reqs := c.verifyBodies(4)
	killAt := 100*time.Millisecond + c.killPoint(900*time.Millisecond)
	for w := range 2 {
		seed := c.rng.Uint64()
		wg.Go(func() { c.uploads(client, base, w, seed, stop, &mu, a) })
	}
	for w := range 4 {
		wg.Go(func() { c.verifications(client, base, reqs[w], stop, &mu, a, async) })
	}
	late := lateness(stop)
	time.Sleep(killAt)
	p.kill()
	close(stop)
	wg.Wait()
	bound.slack += <-late
	if !p.killed {
		o.crashed = append(o.crashed, fmt.Sprintf("serve ended before its kill: %v: %s", p.err, lastLines(p.stderr.String(), 8)))
	} else if p.crashed() {
		o.crashed = append(o.crashed, "serve: "+lastLines(p.stderr.String(), 8))
	}
	return p.killed, bound
}

// lateness measures, until stop, how late the client's goroutines run on a
// busy machine: the most a 1 ms sleep overslept. An answer the client reads
// that late looks answered later than it was.
func lateness(stop chan struct{}) chan time.Duration {
	out := make(chan time.Duration, 1)
	go func() {
		var most time.Duration
		for {
			select {
			case <-stop:
				out <- most
				return
			default:
			}
			start := time.Now()
			time.Sleep(time.Millisecond)
			most = max(most, time.Since(start)-time.Millisecond)
		}
	}()
	return out
}

// uploads posts new documents until stop; a 201 is acknowledged.
func (c *campaign) uploads(client *http.Client, base string, w int, seed uint64, stop chan struct{}, mu *sync.Mutex, a *acked) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		id := fmt.Sprintf("up/%d-%d-%d.md", c.trial, w, i)
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("id", id)
		fw, _ := mw.CreateFormFile("file", filepath.Base(id))
		_, _ = fw.Write(corpus.Markdown(rng.Uint64(), 4<<10+rng.IntN(24<<10)))
		_ = mw.Close()
		resp, err := client.Post(base+"/v1/documents", mw.FormDataContentType(), &body)
		if err != nil {
			continue // the kill: not acknowledged
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated {
			continue
		}
		var r struct {
			DocumentID      string `json:"document_id"`
			DocumentVersion string `json:"document_version"`
		}
		if json.Unmarshal(b, &r) == nil && r.DocumentVersion != "" {
			mu.Lock()
			a.current[r.DocumentID] = r.DocumentVersion
			mu.Unlock()
		}
	}
}

// verifyBodies makes n verification requests citing base chunks.
func (c *campaign) verifyBodies(n int) [][]byte {
	var out [][]byte
	for range n {
		req := verify.Request{RequestID: fmt.Sprintf("r-%d", c.trial)}
		for j := range 3 {
			id := c.base[c.rng.IntN(len(c.base))]
			req.Retrieved = append(req.Retrieved, id)
			q := c.quotes[id]
			req.Claims = append(req.Claims, verify.Claim{ClaimID: fmt.Sprintf("c%d", j), Text: q, Evidence: []verify.Evidence{{ChunkID: id, Quote: q}}})
		}
		b, err := json.Marshal(req)
		if err != nil {
			c.t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// verifications posts body until stop; each trace id answered is
// acknowledged, with when its answer arrived.
func (c *campaign) verifications(client *http.Client, base string, body []byte, stop chan struct{}, mu *sync.Mutex, a *acked, async bool) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		resp, err := client.Post(base+"/v1/verify", "application/json", bytes.NewReader(body))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(resp.Body)
		at := time.Now()
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			continue
		}
		var r struct {
			TraceID string `json:"trace_id"`
		}
		if json.Unmarshal(b, &r) != nil || r.TraceID == "" {
			continue
		}
		mu.Lock()
		if async {
			a.asyncTraces = append(a.asyncTraces, tracedAt{r.TraceID, at})
		} else {
			a.syncTraces = append(a.syncTraces, r.TraceID)
		}
		mu.Unlock()
	}
}

// count adds a trial to its kind's tally and keeps the first failures.
func (c *campaign) count(kind string, killed bool, o *outcome, a *acked) {
	tl := c.tallies[kind]
	if tl == nil {
		tl = &tally{}
		c.tallies[kind] = tl
	}
	tl.trials++
	if killed {
		tl.kills++
	}
	tl.acked += len(a.current) + len(a.deleted) + len(a.syncTraces) + len(a.asyncTraces)
	tl.tracesAcked += len(a.asyncTraces)
	tl.tracesLost += o.tracesLost
	if o.clean() {
		tl.clean++
	}
	if len(o.lost) > 0 || o.tracesBeyond != "" {
		tl.lost++
	}
	if len(o.crashed) > 0 {
		tl.crashed++
	}
	if o.auditFailed != "" {
		tl.unclean++
	}
	if len(o.half) > 0 {
		tl.half++
	}
	if o.clean() {
		return
	}
	if c.unclean++; len(c.failed) >= 20 {
		return
	}
	var what []string
	for _, f := range [][]string{o.crashed, o.lost, o.half, {o.auditFailed, o.tracesBeyond}} {
		for _, s := range f {
			if s != "" {
				what = append(what, s)
			}
		}
	}
	c.failed = append(c.failed, fmt.Sprintf("trial %d (%s, killed %v): %s", c.trial, kind, killed, strings.Join(what[:min(4, len(what))], "; ")))
}

// report prints the campaign's table.
func (c *campaign) report(took time.Duration) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\ttrials\tkills\tclean\tlost\tcrashed\taudit unclean\thalf versions\tacknowledged\tasync traces lost (within bound)\t")
	var sum tally
	kinds := make([]string, 0, len(c.tallies))
	for k := range c.tallies {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	row := func(k string, t *tally) {
		traces := "-"
		if t.tracesAcked > 0 {
			traces = fmt.Sprintf("%d of %d", t.tracesLost, t.tracesAcked)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", k, t.trials, t.kills, t.clean, t.lost, t.crashed, t.unclean, t.half, t.acked, traces)
	}
	for _, k := range kinds {
		t := c.tallies[k]
		row(k, t)
		sum.trials, sum.kills, sum.clean, sum.lost, sum.crashed = sum.trials+t.trials, sum.kills+t.kills, sum.clean+t.clean, sum.lost+t.lost, sum.crashed+t.crashed
		sum.unclean, sum.half, sum.acked = sum.unclean+t.unclean, sum.half+t.half, sum.acked+t.acked
		sum.tracesLost, sum.tracesAcked = sum.tracesLost+t.tracesLost, sum.tracesAcked+t.tracesAcked
	}
	row("all", &sum)
	tw.Flush()
	fmt.Printf("fault campaign (%s, %s):\n%s", took.Round(time.Second), bin, buf.String())
}
