package main

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	segjson "github.com/segmentio/encoding/json"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// reviewLabels is the one vocabulary of the judge and of its reviewers, in
// the order of the confusion matrix's rows and columns.
var reviewLabels = [...]string{verify.JudgeSupported, verify.JudgeContradicted, verify.JudgeNotAddressed}

// labelIndex is a label's place in reviewLabels, or -1.
func labelIndex(label string) int {
	for i, l := range reviewLabels {
		if l == label {
			return i
		}
	}
	return -1
}

const labelList = "supported | contradicted | not_addressed"

// maxReviewSample bounds --n: more than a person labels, and the bound on
// what sampling keeps in memory per stratum.
const maxReviewSample = 100000

// reviewItem is one line of a review file: what `review sample` writes and
// `review record` reads back with the reviewer's human_label and note.
type reviewItem struct {
	TraceID   string           `json:"trace_id"`
	RequestID string           `json:"request_id,omitempty"`
	ClaimID   string           `json:"claim_id"`
	Judge     string           `json:"judge"`
	Claim     string           `json:"claim"`
	Evidence  []reviewEvidence `json:"evidence"`
	// Verdict is the judge's; absent in a --blind sample.
	Verdict    *reviewVerdict `json:"verdict,omitempty"`
	HumanLabel string         `json:"human_label"` // "" until reviewed, then one of reviewLabels
	Note       string         `json:"note"`
}

// reviewEvidence is an accepted evidence span the judge was shown.
type reviewEvidence struct {
	ChunkID         string `json:"chunk_id"`
	DocumentID      string `json:"document_id"`
	DocumentVersion string `json:"document_version"`
	PageNumber      int    `json:"page_number"`
	PageEnd         int    `json:"page_end,omitempty"`
	SourceStart     int    `json:"source_start"` // half-open, code points into the version's canonical text
	SourceEnd       int    `json:"source_end"`
	Text            string `json:"text"`
}

type reviewVerdict struct {
	Label    string  `json:"label"`
	Score    float64 `json:"score"`
	Fragment string  `json:"fragment,omitempty"`
}

// judgedTrace is the part of a stored trace that review reads.
type judgedTrace struct {
	TraceID string    `json:"trace_id"`
	Time    time.Time `json:"time"`
	Request struct {
		RequestID string `json:"request_id"`
		Claims    []struct {
			ClaimID string `json:"claim_id"`
			Text    string `json:"text"`
		} `json:"claims"`
	} `json:"request"`
	Report struct {
		Claims []judgedClaim `json:"claims"`
	} `json:"report"`
}

type judgedClaim struct {
	ClaimID  string                  `json:"claim_id"`
	Judge    *verify.JudgeVerdict    `json:"judge"`
	Evidence []verify.EvidenceReport `json:"evidence"`
}

// verdict is the claim's judge verdict if it can be reviewed: a label of
// the vocabulary, no error.
func (c *judgedClaim) verdict() *verify.JudgeVerdict {
	if j := c.Judge; j != nil && j.Error == "" && labelIndex(j.Label) >= 0 {
		return j
	}
	return nil
}

// judgedScan is the first pass's view of a trace: the verdicts alone.
type judgedScan struct {
	Time   time.Time `json:"time"`
	Report struct {
		Claims []struct {
			ClaimID string               `json:"claim_id"`
			Judge   *verify.JudgeVerdict `json:"judge"`
		} `json:"claims"`
	} `json:"report"`
}

// labelKey: a trace holds a judge verdict only if its JSON has this key
// (the verdict's label is omitted when empty); other traces are not decoded.
var labelKey = []byte(`"label"`)

// item builds the review item of claim claimID of the trace.
func (t *judgedTrace) item(claimID string, blind bool) (*reviewItem, error) {
	var c *judgedClaim
	for i := range t.Report.Claims {
		if t.Report.Claims[i].ClaimID == claimID {
			c = &t.Report.Claims[i]
			break
		}
	}
	if c == nil {
		return nil, fmt.Errorf("trace %s reports no claim %q", t.TraceID, claimID)
	}
	v := c.verdict()
	if v == nil {
		return nil, fmt.Errorf("claim %q of trace %s has no judge verdict to review", claimID, t.TraceID)
	}
	it := &reviewItem{TraceID: t.TraceID, RequestID: t.Request.RequestID, ClaimID: claimID, Judge: v.Judge, Evidence: []reviewEvidence{}}
	for _, rc := range t.Request.Claims {
		if rc.ClaimID == claimID {
			it.Claim = rc.Text
			break
		}
	}
	for _, e := range c.Evidence {
		if e.Status != verify.EvidenceOK || e.Text == "" {
			continue // the judge is shown accepted spans only
		}
		it.Evidence = append(it.Evidence, reviewEvidence{ChunkID: e.ChunkID, DocumentID: e.DocumentID, DocumentVersion: e.DocumentVersion,
			PageNumber: e.PageNumber, PageEnd: e.PageEnd, SourceStart: e.SourceStart, SourceEnd: e.SourceEnd, Text: e.Text})
	}
	if !blind {
		it.Verdict = &reviewVerdict{Label: v.Label, Score: v.Score, Fragment: v.Fragment}
	}
	return it, nil
}

func readJudgedTrace(tx *store.Tx, id string) (*judgedTrace, error) {
	b, err := tx.Trace(id)
	if err != nil {
		return nil, err
	}
	var t judgedTrace
	if err := segjson.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%w: trace %s: %v", store.ErrCorrupt, id, err)
	}
	t.TraceID = id
	return &t, nil
}

// parseSince reads --since: an RFC 3339 time, or a duration before now
// (Go's 90m, 24h, or whole days: 7d).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return time.Time{}, fmt.Errorf("--since %q: want an RFC 3339 time (2026-11-30T00:00:00Z) or a duration (24h, 90m, 7d)", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return time.Time{}, fmt.Errorf("--since %q: want an RFC 3339 time (2026-11-30T00:00:00Z) or a duration (24h, 90m, 7d)", s)
		}
	}
	return now.Add(-d), nil
}

// A stratum is the judged claims of one judge that got one label.
type stratumKey struct {
	judge string
	label int // index in reviewLabels
}

func (a stratumKey) compare(b stratumKey) int {
	return cmp.Or(strings.Compare(a.judge, b.judge), cmp.Compare(a.label, b.label))
}

// sampleRef names a judged claim with its sampling priority: a hash of the
// seed and the claim's identity, so a seed picks the same claims however
// the store is scanned, and a claim keeps its priority as traces are added.
type sampleRef struct {
	prio    uint64
	traceID string
	claimID string
}

func (a sampleRef) compare(b sampleRef) int {
	return cmp.Or(cmp.Compare(a.prio, b.prio), strings.Compare(a.traceID, b.traceID), strings.Compare(a.claimID, b.claimID))
}

func samplePriority(seed uint64, traceID, claimID []byte) uint64 {
	h := fnv.New64a()
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seed)
	h.Write(s[:])
	h.Write(traceID)
	h.Write([]byte{0})
	h.Write(claimID)
	// FNV's low bits mix poorly over similar inputs: finish with
	// splitmix64's finalizer.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// bottomK keeps the k smallest refs seen: a max-heap, its largest on top.
type bottomK struct {
	k    int
	refs []sampleRef
}

func (b *bottomK) Len() int           { return len(b.refs) }
func (b *bottomK) Less(i, j int) bool { return b.refs[i].compare(b.refs[j]) > 0 }
func (b *bottomK) Swap(i, j int)      { b.refs[i], b.refs[j] = b.refs[j], b.refs[i] }
func (b *bottomK) Push(x any)         { b.refs = append(b.refs, x.(sampleRef)) }
func (b *bottomK) Pop() any {
	r := b.refs[len(b.refs)-1]
	b.refs = b.refs[:len(b.refs)-1]
	return r
}

// offer keeps r if it is among the k smallest; the strings are copied only then.
func (b *bottomK) offer(prio uint64, traceID, claimID []byte) {
	if len(b.refs) == b.k {
		if prio > b.refs[0].prio {
			return
		}
		r := sampleRef{prio: prio, traceID: string(traceID), claimID: string(claimID)}
		if r.compare(b.refs[0]) >= 0 {
			return
		}
		b.refs[0] = r
		heap.Fix(b, 0)
		return
	}
	heap.Push(b, sampleRef{prio: prio, traceID: string(traceID), claimID: string(claimID)})
}

// allocate shares n sample places among strata of the given sizes. With
// n at least the population every claim is taken. Otherwise, with n at
// least the number of non-empty strata, each gets one and the other places
// are shared in proportion to what is left of each (largest remainder, ties
// to the earlier stratum), so no stratum gets more than it has; with fewer
// places than strata, the largest strata get one each.
func allocate(sizes []int, n int) []int {
	out := make([]int, len(sizes))
	total, strata := 0, 0
	for _, s := range sizes {
		total += s
		if s > 0 {
			strata++
		}
	}
	if n >= total {
		copy(out, sizes)
		return out
	}
	order := make([]int, 0, len(sizes))
	for i, s := range sizes {
		if s > 0 {
			order = append(order, i)
		}
	}
	if n < strata {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
		for _, i := range order[:n] {
			out[i] = 1
		}
		return out
	}
	rest, left := n-strata, total-strata // rest < left, since n < total
	rem := make([]int, len(sizes))
	given := 0
	for _, i := range order {
		q := rest * (sizes[i] - 1)
		out[i] = 1 + q/left
		rem[i] = q % left
		given += out[i]
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rem[b], rem[a]) })
	for _, i := range order[:n-given] {
		out[i]++
	}
	return out
}

// stratumSample is one stratum's share of a sample.
type stratumSample struct {
	Judge      string `json:"judge"`
	Label      string `json:"label"`
	Population int    `json:"population"`
	Sampled    int    `json:"sampled"`
}

// sampleSummary is what `review sample` reports besides the items.
type sampleSummary struct {
	Seed       uint64          `json:"seed"`
	Since      *time.Time      `json:"since,omitempty"`
	Population int             `json:"population"` // judged claims the sample was drawn from
	Sampled    int             `json:"sampled"`
	Strata     []stratumSample `json:"strata"`
	// Unreviewable counts judge verdicts left out: an error, no label,
	// or a label outside the vocabulary.
	Unreviewable int    `json:"unreviewable"`
	Out          string `json:"out,omitempty"`
}

// sampleJudged draws a stratified sample of n judged claims of the traces
// made at or after since (zero: all), in one read transaction: a first
// pass streams the traces in id order, counting each stratum and keeping
// its n claims of smallest priority (at most n refs a stratum, never a
// trace), then the chosen traces are read again to build the items, which
// come out in priority order (strata interleaved).
func sampleJudged(db *store.DB, n int, since time.Time, seed uint64, blind bool) ([]*reviewItem, *sampleSummary, error) {
	sum := &sampleSummary{Seed: seed, Strata: []stratumSample{}}
	if !since.IsZero() {
		sum.Since = &since
	}
	strata := map[stratumKey]*struct {
		count int
		keep  bottomK
	}{}
	var items []*reviewItem
	err := db.View(func(tx *store.Tx) error {
		from := ""
		if !since.IsZero() {
			from = verify.TraceIDFloor(since)
		}
		err := tx.ForEachTrace(from, func(id, b []byte) error {
			if !bytes.Contains(b, labelKey) {
				return nil
			}
			var t judgedScan
			if err := segjson.Unmarshal(b, &t); err != nil {
				return fmt.Errorf("%w: trace %s: %v", store.ErrCorrupt, id, err)
			}
			if t.Time.Before(since) { // the id's millisecond prefix is coarser than the time
				return nil
			}
			for _, c := range t.Report.Claims {
				j := c.Judge
				if j == nil {
					continue
				}
				li := labelIndex(j.Label)
				if j.Error != "" || li < 0 {
					sum.Unreviewable++
					continue
				}
				k := stratumKey{judge: j.Judge, label: li}
				s := strata[k]
				if s == nil {
					s = &struct {
						count int
						keep  bottomK
					}{keep: bottomK{k: n}}
					strata[k] = s
				}
				s.count++
				s.keep.offer(samplePriority(seed, id, []byte(c.ClaimID)), id, []byte(c.ClaimID))
			}
			return nil
		})
		if err != nil {
			return err
		}
		keys := make([]stratumKey, 0, len(strata))
		for k := range strata {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, stratumKey.compare)
		sizes := make([]int, len(keys))
		for i, k := range keys {
			sizes[i] = strata[k].count
			sum.Population += sizes[i]
		}
		var chosen []sampleRef
		for i, take := range allocate(sizes, n) {
			k := keys[i]
			refs := strata[k].keep.refs
			slices.SortFunc(refs, sampleRef.compare)
			chosen = append(chosen, refs[:take]...)
			sum.Strata = append(sum.Strata, stratumSample{Judge: k.judge, Label: reviewLabels[k.label], Population: sizes[i], Sampled: take})
		}
		sum.Sampled = len(chosen)
		// Read each chosen trace once, in id order.
		slices.SortFunc(chosen, func(a, b sampleRef) int {
			return cmp.Or(strings.Compare(a.traceID, b.traceID), strings.Compare(a.claimID, b.claimID))
		})
		byRef := make(map[sampleRef]*reviewItem, len(chosen))
		var t *judgedTrace
		for _, r := range chosen {
			if t == nil || t.TraceID != r.traceID {
				if t, err = readJudgedTrace(tx, r.traceID); err != nil {
					return err
				}
			}
			it, err := t.item(r.claimID, blind)
			if err != nil {
				return fmt.Errorf("%w: %v", store.ErrCorrupt, err) // the first pass read it judged
			}
			byRef[r] = it
		}
		slices.SortFunc(chosen, sampleRef.compare)
		items = make([]*reviewItem, len(chosen))
		for i, r := range chosen {
			items[i] = byRef[r]
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return items, sum, nil
}
