package store_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestForEachTraceBefore: the backward scan gives the ids before its bound,
// newest first, and stops at fn's error.
func TestForEachTraceBefore(t *testing.T) {
	db := storetest.Open(t)
	for _, id := range []string{"0003", "0001", "0002", "0005"} {
		if err := db.PutTrace(id, []byte(`{"trace_id":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		before string
		want   []string
	}{
		{"\xff", []string{"0005", "0003", "0002", "0001"}},
		{"", nil},
		{"0003", []string{"0002", "0001"}},
		{"0004", []string{"0003", "0002", "0001"}},
		{"0001", nil},
		{"9", []string{"0005", "0003", "0002", "0001"}},
	} {
		var got []string
		view(t, db, func(tx *store.Tx) error {
			return tx.ForEachTraceBefore(tt.before, func(id, trace []byte) error {
				if want := `{"trace_id":"` + string(id) + `"}`; string(trace) != want {
					t.Errorf("trace %s: got %s, want %s", id, trace, want)
				}
				got = append(got, string(id))
				return nil
			})
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("ForEachTraceBefore(%q): got %v, want %v", tt.before, got, tt.want)
		}
	}
	stop := errors.New("stop")
	n := 0
	view(t, db, func(tx *store.Tx) error {
		if err := tx.ForEachTraceBefore("\xff", func(_, _ []byte) error { n++; return stop }); err != stop {
			t.Errorf("ForEachTraceBefore: got %v, want fn's error", err)
		}
		return nil
	})
	if n != 1 {
		t.Errorf("fn ran %d times after returning an error, want 1", n)
	}
}
