package store_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestForEachTraceSummary: both scans give every trace within their bound
// in order with its summary, nil for a trace stored without one; a
// summary whose trace is missing is passed over; fn's error stops them.
func TestForEachTraceSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PutTraces([]store.TraceRecord{{ID: "0003", Trace: []byte(`{"t":3}`), Summary: []byte(`{"s":3}`)}, {ID: "0001", Trace: []byte(`{"t":1}`), Summary: []byte(`{"s":1}`)}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutTrace("0002", []byte(`{"t":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.PutTraceRecord(store.TraceRecord{ID: "0005", Trace: []byte(`{"t":5}`), Summary: []byte(`{"s":5}`)}); err != nil {
		t.Fatal(err)
	}
	// An orphan summary, as only damage leaves one.
	if err := db.Bolt().Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("trace_summaries")).Put([]byte("0004"), []byte("s4")) }); err != nil {
		t.Fatal(err)
	}
	scan := func(backward bool, bound string) []string {
		var got []string
		view(t, db, func(tx *store.Tx) error {
			fn := func(id, summary []byte, read func() ([]byte, error)) error {
				trace, err := read()
				if err != nil {
					t.Fatal(err)
				}
				if want := `{"t":` + strings.TrimLeft(string(id), "0") + `}`; string(trace) != want {
					t.Errorf("trace %s: got %q, want %q", id, trace, want)
				}
				got = append(got, string(id)+"="+short(summary))
				return nil
			}
			if backward {
				return tx.ForEachTraceSummaryBefore(bound, fn)
			}
			return tx.ForEachTraceSummary(bound, fn)
		})
		return got
	}
	for _, tt := range []struct {
		backward bool
		bound    string
		want     []string
	}{
		{false, "", []string{"0001=s1", "0002=", "0003=s3", "0005=s5"}},
		{false, "0002", []string{"0002=", "0003=s3", "0005=s5"}},
		{false, "0004", []string{"0005=s5"}},
		{false, "9", nil},
		{true, "\xff", []string{"0005=s5", "0003=s3", "0002=", "0001=s1"}},
		{true, "0003", []string{"0002=", "0001=s1"}},
		{true, "0004", []string{"0003=s3", "0002=", "0001=s1"}},
		{true, "0001", nil},
		{true, "", nil},
	} {
		if got := scan(tt.backward, tt.bound); !slices.Equal(got, tt.want) {
			t.Errorf("backward %v from %q: got %v, want %v", tt.backward, tt.bound, got, tt.want)
		}
	}
	stop := errors.New("stop")
	for _, backward := range []bool{false, true} {
		n := 0
		view(t, db, func(tx *store.Tx) error {
			fn := func(_, _ []byte, _ func() ([]byte, error)) error { n++; return stop }
			var err error
			if backward {
				err = tx.ForEachTraceSummaryBefore("\xff", fn)
			} else {
				err = tx.ForEachTraceSummary("", fn)
			}
			if err != stop {
				t.Errorf("backward %v: got %v, want fn's error", backward, err)
			}
			return nil
		})
		if n != 1 {
			t.Errorf("backward %v: fn ran %d times after returning an error, want 1", backward, n)
		}
	}
	findings, err := db.Check()
	if err != nil || len(findings) != 1 || findings[0].Kind != "trace_summary" || !strings.Contains(findings[0].Detail, "0004") {
		t.Errorf("Check: got %v, %v; want one trace_summary finding for 0004", findings, err)
	}
}

// TestTraceSummariesAbsent: a store opened read-only before its summary
// bucket was created scans its traces without summaries.
func TestTraceSummariesAbsent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutTraceRecord(store.TraceRecord{ID: "0001", Trace: []byte(`{"t":1}`), Summary: []byte(`{"s":1}`)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Bolt().Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("trace_summaries")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro := storetest.OpenPath(t, path, &store.Options{ReadOnly: true})
	var got []string
	view(t, ro, func(tx *store.Tx) error {
		return tx.ForEachTraceSummaryBefore("\xff", func(id, summary []byte, _ func() ([]byte, error)) error {
			got = append(got, string(id)+"="+short(summary))
			return nil
		})
	})
	if !slices.Equal(got, []string{"0001="}) {
		t.Errorf("got %v, want the trace without a summary", got)
	}
}

// short writes a summary {"s":N} as sN, for readable wants.
func short(summary []byte) string {
	if len(summary) == 0 {
		return ""
	}
	return "s" + strings.Trim(string(summary), `{"s:}`)
}
