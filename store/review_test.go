package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

func reviews(t *testing.T, db *store.DB) (rs []store.Review) {
	t.Helper()
	view(t, db, func(tx *store.Tx) error {
		return tx.ForEachReview(func(r *store.Review) error { rs = append(rs, *r); return nil })
	})
	return rs
}

func TestPutReviews(t *testing.T) {
	db := openStore(t)
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	first := []store.Review{
		{TraceID: "t2", ClaimID: "c1", Judge: "nli", JudgeLabel: "supported", HumanLabel: "supported", Recorded: at},
		{TraceID: "t1", ClaimID: "c2", Judge: "nli", JudgeLabel: "supported", HumanLabel: "contradicted", Note: "14 vs 30 days", Recorded: at},
		{TraceID: "t1", ClaimID: "c1", Judge: "nli", JudgeLabel: "not_addressed", HumanLabel: "not_addressed", Recorded: at},
	}
	n, err := db.PutReviews(first)
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.ReviewCounts{Added: 3}); n != want {
		t.Errorf("first put: got %+v, want %+v", n, want)
	}
	got := reviews(t, db)
	want := []store.Review{first[2], first[1], first[0]} // trace id, then claim id order
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reviews (-want +got):\n%s", diff)
	}

	// The same file again changes nothing, not even the recorded time; a
	// changed label replaces the review.
	later := at.Add(time.Hour)
	again := slices.Clone(first)
	for i := range again {
		again[i].Recorded = later
	}
	again[0].HumanLabel = "contradicted"
	if n, err = db.PutReviews(again); err != nil {
		t.Fatal(err)
	}
	if want := (store.ReviewCounts{Replaced: 1, Unchanged: 2}); n != want {
		t.Errorf("second put: got %+v, want %+v", n, want)
	}
	got = reviews(t, db)
	if len(got) != 3 {
		t.Fatalf("got %d reviews after re-recording, want 3", len(got))
	}
	var r *store.Review
	view(t, db, func(tx *store.Tx) (err error) { r, err = tx.Review("t2", "c1"); return err })
	if r.HumanLabel != "contradicted" || !r.Recorded.Equal(later) {
		t.Errorf("replaced review: got %s at %v, want contradicted at %v", r.HumanLabel, r.Recorded, later)
	}
	if !got[0].Recorded.Equal(at) {
		t.Errorf("unchanged review: recorded %v, want the first time %v", got[0].Recorded, at)
	}
	view(t, db, func(tx *store.Tx) error {
		if _, err := tx.Review("t2", "c9"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Review of an unreviewed claim: got %v, want ErrNotFound", err)
		}
		return nil
	})

	for _, bad := range []store.Review{{ClaimID: "c1"}, {TraceID: "t1"}, {TraceID: "t\x001", ClaimID: "c1"}} {
		if _, err := db.PutReviews([]store.Review{first[0], bad}); err == nil {
			t.Errorf("PutReviews(%+v): no error", bad)
		}
	}
	if got := reviews(t, db); len(got) != 3 {
		t.Errorf("a refused batch stored something: %d reviews", len(got))
	}
}

// TestReviewsBucketAdded: a store written before the reviews bucket
// existed opens read-only with no reviews, and gets the bucket on its
// first writable open. Both the committed format-1 fixture and a store
// whose bucket was dropped with raw bbolt are such files.
func TestReviewsBucketAdded(t *testing.T) {
	dropped := func(t *testing.T, path string) {
		db, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		writeBolt(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("reviews")) })
	}
	fixture := func(t *testing.T, path string) {
		b, err := os.ReadFile(fixtureFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, create := range map[string]func(*testing.T, string){"dropped": dropped, "format1 fixture": fixture} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			create(t, path)
			hasBucket := func() (has bool) {
				b, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				_ = b.View(func(tx *bolt.Tx) error { has = tx.Bucket([]byte("reviews")) != nil; return nil })
				return has
			}
			if hasBucket() {
				t.Fatal("the old store has a reviews bucket")
			}

			ro, err := store.Open(path, &store.Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("read-only open of an old store: %v", err)
			}
			if got := reviews(t, ro); len(got) != 0 {
				t.Errorf("read-only: got %d reviews, want none", len(got))
			}
			view(t, ro, func(tx *store.Tx) error {
				if _, err := tx.Review("t", "c"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("Review on a store without the bucket: got %v, want ErrNotFound", err)
				}
				return nil
			})
			if findings, err := ro.Check(); err != nil || len(findings) > 0 {
				t.Errorf("Check read-only: %v %v", findings, err)
			}
			if err := ro.Close(); err != nil {
				t.Fatal(err)
			}
			if hasBucket() {
				t.Fatal("a read-only open wrote the bucket")
			}

			db := openMigrated(t, path)
			if !hasBucketOf(t, db) {
				t.Fatal("a writable open did not create the reviews bucket")
			}
			if _, err := db.PutReviews([]store.Review{{TraceID: "t", ClaimID: "c", Judge: "j", JudgeLabel: "supported", HumanLabel: "supported"}}); err != nil {
				t.Fatalf("PutReviews after the upgrade: %v", err)
			}
			if got := reviews(t, db); len(got) != 1 {
				t.Errorf("got %d reviews, want 1", len(got))
			}
		})
	}
}

func hasBucketOf(t *testing.T, db *store.DB) (has bool) {
	t.Helper()
	_ = db.Bolt().View(func(tx *bolt.Tx) error { has = tx.Bucket([]byte("reviews")) != nil; return nil })
	return has
}

// TestOpenCreatesNothingWhenCurrent: a store that has every bucket opens
// writable without a write transaction (no fsync on every open).
func TestOpenCreatesNothingWhenCurrent(t *testing.T) {
	path := newStoreFile(t, t.TempDir())
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := db.TxID()
	db.Close()
	db = storetest.OpenPath(t, path, nil)
	if after := db.TxID(); after != before {
		t.Errorf("reopening a current store committed a transaction: txid %d -> %d", before, after)
	}
}

func TestCheckFindsBadReview(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutReviews([]store.Review{{TraceID: "t", ClaimID: "c", HumanLabel: "supported"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Bolt().Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("reviews")).Put([]byte("t\x00other"), []byte(`{"trace_id":"t","claim_id":"c"}`))
	}); err != nil {
		t.Fatal(err)
	}
	findings, err := db.Check()
	db.Close()
	if err != nil || len(findings) != 1 || findings[0].Kind != "record" {
		t.Errorf("Check: got %v, %v; want one record finding for the misplaced review", findings, err)
	}
}

func TestForEachTrace(t *testing.T) {
	db := openStore(t)
	ids := []string{"0003", "0001", "0002", "0005"}
	for _, id := range ids {
		if err := db.PutTrace(id, []byte(`{"trace_id":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		from string
		want []string
	}{
		{"", []string{"0001", "0002", "0003", "0005"}},
		{"0002", []string{"0002", "0003", "0005"}},
		{"0004", []string{"0005"}},
		{"9", nil},
	} {
		var got []string
		view(t, db, func(tx *store.Tx) error {
			return tx.ForEachTrace(tt.from, func(id, trace []byte) error {
				if want := `{"trace_id":"` + string(id) + `"}`; string(trace) != want {
					t.Errorf("trace %s: got %s, want %s", id, trace, want)
				}
				got = append(got, string(id))
				return nil
			})
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("ForEachTrace(%q): got %v, want %v", tt.from, got, tt.want)
		}
	}
	stop := errors.New("stop")
	n := 0
	view(t, db, func(tx *store.Tx) error {
		if err := tx.ForEachTrace("", func(_, _ []byte) error { n++; return stop }); err != stop {
			t.Errorf("ForEachTrace: got %v, want fn's error", err)
		}
		return nil
	})
	if n != 1 {
		t.Errorf("fn ran %d times after returning an error, want 1", n)
	}
}
