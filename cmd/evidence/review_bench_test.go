package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// BenchmarkReviewSample draws 100 claims from 10,000 traces of 4 judged
// claims each (two judges, all three labels): the cost of the trace scan.
func BenchmarkReviewSample(b *testing.B) {
	db, _ := openTestStore(b)
	labels := reviewLabels
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const traces = 10000
	batch := make([]store.TraceRecord, 0, traces)
	for i := range traces {
		at := base.Add(time.Duration(i) * time.Second)
		id, err := verify.NewTraceID(at)
		if err != nil {
			b.Fatal(err)
		}
		var claims []judgedSpec
		for c := range 4 {
			claims = append(claims, judgedSpec{claimID: fmt.Sprint("c", c), judge: fmt.Sprint("nli-", c%2), label: labels[(i+c)%3], score: 0.8})
		}
		batch = append(batch, store.TraceRecord{ID: id, Trace: judgedTraceJSON(b, id, at, claims...)})
	}
	if err := db.PutTraces(batch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		items, _, err := sampleJudged(db, 100, time.Time{}, 1, false)
		if err != nil || len(items) != 100 {
			b.Fatal(len(items), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/traces, "ns/trace")
}
