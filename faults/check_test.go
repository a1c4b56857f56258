package faults

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// acked is what a trial's processes acknowledged: the writes that must
// survive a kill.
type acked struct {
	current    map[string]string // document id → version an ingest, rebuild or upload reported
	deleted    []string          // documents a delete reported deleted
	syncTraces []string          // trace ids returned under sync writes
	// asyncTraces are trace ids returned under async writes, with when
	// the client had the answer.
	asyncTraces []tracedAt
}

type tracedAt struct {
	id string
	at time.Time // when the client had the answer
}

func newAcked() *acked { return &acked{current: map[string]string{}} }

// outcome is what the checks after one trial found.
type outcome struct {
	auditFailed  string   // audit's output when it did not exit 0
	crashed      []string // processes that died of themselves
	lost         []string // acknowledged writes not in the store
	half         []string // versions listed that do not resolve all their chunks
	tracesLost   int      // async traces not stored, within the bound
	tracesBeyond string   // how the lost async traces broke the bound
}

func (o *outcome) clean() bool {
	return o.auditFailed == "" && len(o.crashed) == 0 && len(o.lost) == 0 && len(o.half) == 0 && o.tracesBeyond == ""
}

// check runs the checks of a trial on the store at db: `evidence audit`,
// then, in process, every acknowledged write and every listed version.
// bound is the async trace writer's (zero without async traces).
func check(dir, db string, a *acked, bound traceBound, o *outcome) {
	p := run(dir, "--db", db, "audit")
	if p.crashed() {
		o.crashed = append(o.crashed, "audit: "+lastLines(p.stderr.String(), 5))
	}
	if p.exitCode() != 0 {
		o.auditFailed = fmt.Sprintf("exit %d: %s%s", p.exitCode(), lastLines(p.stdout.String(), 10), lastLines(p.stderr.String(), 5))
	}
	s, err := store.Open(db, &store.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
	if err != nil {
		o.crashed = append(o.crashed, "open: "+err.Error())
		return
	}
	defer s.Close()
	err = s.View(func(tx *store.Tx) error {
		for id, version := range a.current {
			d, err := tx.Document(id)
			switch {
			case err != nil:
				o.lost = append(o.lost, fmt.Sprintf("document %s (version %s): %v", id, version, err))
			case d.Current != version:
				o.lost = append(o.lost, fmt.Sprintf("document %s: current version %q, want the acknowledged %s", id, d.Current, version))
			}
		}
		for _, id := range a.deleted {
			if d, err := tx.Document(id); err != nil || !d.Deleted || d.Current != "" {
				o.lost = append(o.lost, fmt.Sprintf("delete of %s acknowledged, but the document is not deleted (%v)", id, err))
			}
		}
		for _, id := range a.syncTraces {
			if _, err := tx.Trace(id); err != nil {
				o.lost = append(o.lost, fmt.Sprintf("sync trace %s: %v", id, err))
			}
		}
		var lost []time.Time
		for _, tr := range a.asyncTraces {
			if _, err := tx.Trace(tr.id); errors.Is(err, store.ErrNotFound) {
				lost = append(lost, tr.at)
			} else if err != nil {
				o.lost = append(o.lost, fmt.Sprintf("async trace %s: %v", tr.id, err))
			}
		}
		o.tracesLost = len(lost)
		o.tracesBeyond = bound.broken(lost)
		o.half = append(o.half, halfVersions(tx)...)
		return nil
	})
	if err != nil {
		o.crashed = append(o.crashed, "read: "+err.Error())
	}
}

// halfVersions lists versions that are not whole: a document whose current
// version is missing, a version with fewer chunks than its header says, or
// a chunk that does not resolve to its span.
func halfVersions(tx *store.Tx) []string {
	var half []string
	_ = tx.ForEachDocument(func(d *store.Document) error {
		for _, id := range d.Versions {
			if _, err := tx.Version(id); err != nil {
				half = append(half, fmt.Sprintf("document %s lists version %s: %v", d.ID, id, err))
			}
		}
		if d.Current != "" && !slices.Contains(d.Versions, d.Current) {
			half = append(half, fmt.Sprintf("document %s: current version %s not among its versions", d.ID, d.Current))
		}
		return nil
	})
	err := tx.ForEachVersion(func(v *store.Version) error {
		if v.Status == store.StatusDeleted {
			return nil // no text remains by design
		}
		n, quarantined := 0, 0
		err := tx.ForEachChunk(v, func(c *store.Chunk) error {
			n++
			r, err := resolve.ChunkTx(tx, c.ID(), "")
			switch {
			case err != nil:
				half = append(half, fmt.Sprintf("chunk %s: %v", c.ID(), err))
			case r.Status == resolve.StatusQuarantined:
				quarantined++
			case !r.Served() || r.Text == "":
				half = append(half, fmt.Sprintf("chunk %s of a listed version: %s %s", c.ID(), r.Status, r.Reason))
			}
			return nil
		})
		if err != nil {
			half = append(half, fmt.Sprintf("version %s: %v", v.ID, err))
		} else if n != v.Chunks || quarantined != v.Quarantined {
			half = append(half, fmt.Sprintf("version %s: %d chunks (%d quarantined), its header says %d (%d)", v.ID, n, quarantined, v.Chunks, v.Quarantined))
		}
		return nil
	})
	if err != nil {
		half = append(half, "versions: "+err.Error())
	}
	return half
}

// traceBound is the loss bound of async trace writes (docs/traces.md):
// the traces a crash loses form at most two groups, each acknowledged
// within one flush interval and each at most batch traces. The client has
// an answer a moment after the server acknowledged it (longer when either
// is descheduled on a busy machine); slack allows for that.
type traceBound struct {
	flush, slack time.Duration
	batch        int
}

// broken says how lost (the client's times of the answers whose traces
// were lost) breaks the bound, or "" if it does not.
func (b traceBound) broken(lost []time.Time) string {
	if len(lost) == 0 || b.flush == 0 {
		return ""
	}
	if len(lost) > 2*b.batch {
		return fmt.Sprintf("%d traces lost, more than 2 × --trace-batch %d", len(lost), b.batch)
	}
	sorted := slices.SortedFunc(slices.Values(lost), time.Time.Compare)
	w, i := b.flush+b.slack, 0
	for range 2 {
		if i == len(sorted) {
			break
		}
		first := sorted[i]
		for i < len(sorted) && sorted[i].Sub(first) <= w {
			i++
		}
	}
	if i < len(sorted) {
		return fmt.Sprintf("%d traces lost, answered over %s: %d outside two windows of %s", len(sorted), sorted[len(sorted)-1].Sub(sorted[0]).Round(time.Millisecond), len(sorted)-i, w.Round(time.Millisecond))
	}
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
