package verify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// traceBenchStore stores n traces of real 5-claim verifications, one
// every 6 seconds up to now (100,000 span a week), for 100 principals;
// every tenth answer is partial (a quote not in its chunk). n is
// EVIDENCE_BENCH_TRACES, default 20,000; EVIDENCE_BENCH_TRACE_SUMMARIES=0
// stores them without summaries, as a store written before them holds
// them. It returns the store, n and the mean sizes of a trace and of its summary
// in bytes.
func traceBenchStore(b *testing.B) (*store.DB, int, [2]int) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("EVIDENCE_BENCH_TRACES")); err == nil && v > 0 {
		n = v
	}
	summaries := os.Getenv("EVIDENCE_BENCH_TRACE_SUMMARIES") != "0"
	db, ids, texts := benchStore(b, 4, 64<<10, ingest.DefaultChunkOptions.Size)
	good := claimsFor(ids, texts, 5, quote200)
	bad := claimsFor(ids, texts, 5, quote200)
	bad.Claims[2].Evidence[0].Quote = "a quote that is in none of the chunks at all, so the claim is removed"
	pol := verify.DefaultPolicy()
	policy, _ := json.Marshal(pol)
	var reports [2][]byte
	var reps [2]*verify.Report
	for i, req := range []*verify.Request{good, bad} {
		rep, err := verify.Check(context.Background(), db, req, pol)
		if err != nil {
			b.Fatal(err)
		}
		if reports[i], err = json.Marshal(rep); err != nil {
			b.Fatal(err)
		}
		reps[i] = rep
	}
	start := time.Now().Add(-time.Duration(n) * 6 * time.Second)
	batch := make([]store.TraceRecord, 0, 5000)
	var size [2]int
	for i := range n {
		at := start.Add(time.Duration(i) * 6 * time.Second)
		id, err := verify.NewTraceID(at)
		if err != nil {
			b.Fatal(err)
		}
		k := 0
		if i%10 == 9 {
			k = 1
		}
		req := *good
		if k == 1 {
			req = *bad
		}
		req.RequestID, req.Principal = "r-"+strconv.Itoa(i), fmt.Sprintf("user-%d@example.com", i%100)
		r := store.TraceRecord{ID: id}
		if r.Trace, err = verify.EncodeTrace(id, at, 1, policy, &req, reports[k]); err != nil {
			b.Fatal(err)
		}
		if summaries {
			if r.Summary, err = verify.EncodeTraceSummary(id, at, &req, reps[k]); err != nil {
				b.Fatal(err)
			}
		}
		size[0] += len(r.Trace)
		size[1] += len(r.Summary)
		batch = append(batch, r)
		if len(batch) == cap(batch) || i == n-1 {
			if err := db.PutTraces(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return db, n, [2]int{size[0] / n, size[1] / n}
}

// BenchmarkTraceList: a page of 50 over the store of traceBenchStore:
// the newest traces; one principal's (1 in 100, so 5,000 are read); and a
// filter nothing passes, which reads every trace. Reports traces read per
// second and the mean trace size.
func BenchmarkTraceList(b *testing.B) {
	db, n, size := traceBenchStore(b)
	for _, bc := range []struct {
		name string
		f    verify.TraceFilter
	}{
		{"newest", verify.TraceFilter{}},
		{"principal", verify.TraceFilter{Principal: "user-7@example.com"}},
		{"no-match", verify.TraceFilter{Principal: "nobody"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			scanned := 0
			b.ReportAllocs()
			for b.Loop() {
				err := db.View(func(tx *store.Tx) error {
					page, err := verify.ListTraces(tx, &bc.f, "", 50, 0)
					if err == nil {
						scanned += page.Scanned
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(scanned)/b.Elapsed().Seconds(), "traces/s")
			b.ReportMetric(float64(size[0]), "trace-bytes")
			b.ReportMetric(float64(size[1]), "summary-bytes")
			b.ReportMetric(float64(n), "stored")
		})
	}
}

// BenchmarkTraceStats: stats by category over the last 24 hours (one
// seventh of 100,000 traces, found by seeking) and over every trace,
// by category and by document.
func BenchmarkTraceStats(b *testing.B) {
	db, n, size := traceBenchStore(b)
	for _, bc := range []struct {
		name, by string
		since    time.Duration
	}{
		{"24h-category", verify.ByCategory, 24 * time.Hour},
		{"all-category", verify.ByCategory, 0},
		{"all-document", verify.ByDocument, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := verify.TraceFilter{}
			if bc.since > 0 {
				f.Since = time.Now().Add(-bc.since)
			}
			counted := 0
			b.ReportAllocs()
			for b.Loop() {
				err := db.View(func(tx *store.Tx) error {
					st, err := verify.TraceStatsOf(tx, &f, bc.by)
					if err == nil {
						counted += st.Traces
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(counted)/b.Elapsed().Seconds(), "traces/s")
			b.ReportMetric(float64(size[0]), "trace-bytes")
			b.ReportMetric(float64(size[1]), "summary-bytes")
			b.ReportMetric(float64(n), "stored")
		})
	}
}
