package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Review is a person's label for one judged claim of a stored trace, kept
// beside the judge's verdict it is compared with. Labels are the judge's
// vocabulary (supported, contradicted, not_addressed); the store does not
// interpret them.
type Review struct {
	TraceID    string    `json:"trace_id"`
	ClaimID    string    `json:"claim_id"`
	Judge      string    `json:"judge"`       // judge id
	JudgeLabel string    `json:"judge_label"` // the judge's verdict
	HumanLabel string    `json:"human_label"` // the reviewer's
	Note       string    `json:"note,omitempty"`
	Recorded   time.Time `json:"recorded"`
}

// sameAs reports whether r records what o does, whenever it was recorded.
func (r *Review) sameAs(o *Review) bool {
	return r.TraceID == o.TraceID && r.ClaimID == o.ClaimID && r.Judge == o.Judge &&
		r.JudgeLabel == o.JudgeLabel && r.HumanLabel == o.HumanLabel && r.Note == o.Note
}

// reviewKey is the trace id, a zero byte, then the claim id: a trace's
// reviews sit together, in trace (time) order. Trace ids hold no zero
// byte (PutReviews refuses one), so the key is unambiguous.
func reviewKey(traceID, claimID string) []byte {
	k := make([]byte, 0, len(traceID)+1+len(claimID))
	k = append(k, traceID...)
	k = append(k, 0)
	return append(k, claimID...)
}

// ReviewCounts says what PutReviews did with each review.
type ReviewCounts struct {
	Added     int // no review of the claim was stored
	Replaced  int // one was, with another label or note
	Unchanged int // the same review was stored: left as it was, time included
}

// PutReviews stores reviews in one transaction, each replacing the review
// of the same (trace id, claim id): recording a file again is idempotent.
// Either all are stored or none.
func (db *DB) PutReviews(rs []Review) (ReviewCounts, error) {
	var n ReviewCounts
	for i := range rs {
		r := &rs[i]
		switch {
		case r.TraceID == "" || r.ClaimID == "":
			return n, fmt.Errorf("store: review %d: empty trace or claim id", i)
		case strings.IndexByte(r.TraceID, 0) >= 0:
			return n, fmt.Errorf("store: review %d: trace id %q holds a zero byte", i, r.TraceID)
		}
	}
	err := db.update(func(tx BackendTx) error {
		n = ReviewCounts{}
		b := tx.Bucket(bucketReviews)
		for i := range rs {
			r := &rs[i]
			k := reviewKey(r.TraceID, r.ClaimID)
			if old := b.Get(k); old != nil {
				if o, err := decodeReview(k, old); err == nil && o.sameAs(r) {
					n.Unchanged++
					continue
				}
				n.Replaced++
			} else {
				n.Added++
			}
			v, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := b.Put(k, sealJSON(k, v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ReviewCounts{}, err
	}
	return n, nil
}

// Review returns the review of one claim of a trace.
func (t *Tx) Review(traceID, claimID string) (*Review, error) {
	var v []byte
	if b := t.tx.Bucket(bucketReviews); b != nil {
		v = b.Get(reviewKey(traceID, claimID))
	}
	if v == nil {
		return nil, fmt.Errorf("%w: review of claim %q of trace %s", ErrNotFound, claimID, traceID)
	}
	return decodeReview(reviewKey(traceID, claimID), v)
}

// ForEachReview calls fn for every stored review, in trace id then claim
// id order. A store written before reviews existed, opened read-only, has
// none.
func (t *Tx) ForEachReview(fn func(*Review) error) error {
	b := t.tx.Bucket(bucketReviews)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		r, err := decodeReview(k, v)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

func decodeReview(k, v []byte) (*Review, error) {
	j, err := openJSON(fmt.Sprintf("review record %q", k), k, v)
	if err != nil {
		return nil, err
	}
	var r Review
	if err := json.Unmarshal(j, &r); err != nil {
		return nil, fmt.Errorf("%w: review record %q: %v", ErrCorrupt, k, err)
	}
	if !bytes.Equal(k, reviewKey(r.TraceID, r.ClaimID)) {
		return nil, fmt.Errorf("%w: review key %q holds the review of claim %q of trace %s", ErrCorrupt, k, r.ClaimID, r.TraceID)
	}
	return &r, nil
}
