package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// Replay is a stored trace's request verified again against the store as
// it is now, and what changed (docs/traces.md#replay).
type Replay struct {
	TraceID   string    `json:"trace_id"`
	Time      time.Time `json:"time"` // when the trace was made
	RequestID string    `json:"request_id"`
	Principal string    `json:"principal"`
	// Policy names the policy of the replay; PolicyFrom says where it came
	// from: "trace" (the one the trace recorded), "default" (the trace
	// records none) or "given" (the caller's).
	Policy     string `json:"policy"`
	PolicyFrom string `json:"policy_from"`
	// StoreSequence is the store's version sequence the trace saw, and
	// StoreSequenceNow the one the replay saw: versions written since
	// have sequence numbers in between.
	StoreSequence    uint64 `json:"store_sequence"`
	StoreSequenceNow uint64 `json:"store_sequence_now"`
	// Changed is set when anything below changed.
	Changed        bool     `json:"changed"`
	Disposition    Change   `json:"disposition"`
	Grounding      Change   `json:"grounding"`
	ReasonsAdded   []string `json:"reasons_added"`
	ReasonsRemoved []string `json:"reasons_removed"`
	// Claims are the claims whose verdict changed, in request order.
	Claims []ClaimChange `json:"claims"`
	// Chunks are the cited (or, without claims, retrieved) chunks that
	// resolve otherwise now: superseded, deleted, quarantined, forbidden.
	Chunks []ChunkChange `json:"chunks"`
	// Report is the replay's report; it is stored nowhere.
	Report *Report `json:"report"`
}

// Change is a value then (in the trace) and now (in the replay).
type Change struct {
	Then string `json:"then"`
	Now  string `json:"now"`
}

// Changed reports whether the value changed.
func (c Change) Changed() bool { return c.Then != c.Now }

// ClaimChange is how one claim's verdict changed.
type ClaimChange struct {
	ClaimID        string           `json:"claim_id"`
	Status         Change           `json:"status"`
	Disposition    Change           `json:"disposition"`
	ReasonsAdded   []string         `json:"reasons_added"`
	ReasonsRemoved []string         `json:"reasons_removed"`
	Evidence       []EvidenceChange `json:"evidence"` // the citations whose verdict changed
}

// EvidenceChange is how one citation's verdict changed.
type EvidenceChange struct {
	Index          int      `json:"index"` // of the citation in the claim's evidence, from 0
	ChunkID        string   `json:"chunk_id"`
	Status         Change   `json:"status"`
	VersionStatus  Change   `json:"version_status"`
	Match          Change   `json:"match"`
	ReasonsAdded   []string `json:"reasons_added"`
	ReasonsRemoved []string `json:"reasons_removed"`
}

// ChunkChange is a chunk that resolves otherwise now than when the trace
// was made. Then and Now are resolution statuses (ok, superseded,
// deleted, quarantined, forbidden, not_found); Then is "" for a retrieved
// chunk of a request without claims that did not ground the answer then
// (its report records no reason).
type ChunkChange struct {
	ChunkID         string `json:"chunk_id"`
	DocumentID      string `json:"document_id,omitempty"`
	DocumentVersion string `json:"document_version"`
	Then            string `json:"then"`
	Now             string `json:"now"`
	Reason          string `json:"reason,omitempty"` // the quarantine reason, now
	// CurrentVersion is the document's current version now, when it is
	// not the chunk's, and CurrentCreated when it was written.
	CurrentVersion string     `json:"current_version,omitempty"`
	CurrentCreated *time.Time `json:"current_created,omitempty"`
	// Deleted is when the chunk's version was deleted.
	Deleted *time.Time `json:"deleted,omitempty"`
}

// ReplayStore is the part of *store.DB a replay reads: the store, and the
// judge's verdict cache.
type ReplayStore interface {
	Viewer
	JudgmentCache
}

// storedTrace is a trace as stored, its policy left as JSON.
type storedTrace struct {
	TraceID       string          `json:"trace_id"`
	Time          time.Time       `json:"time"`
	StoreSequence uint64          `json:"store_sequence"`
	Policy        json.RawMessage `json:"policy"`
	Request       *Request        `json:"request"`
	Report        *Report         `json:"report"`
}

// TracePolicy returns the policy a stored trace records (its policy
// field, a whole policy as the verifier held it), or nil when it records
// none.
func TracePolicy(raw json.RawMessage) (*Policy, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return decodePolicy(raw)
}

// ReplayTrace verifies the request of a stored trace (its bytes, as
// Tx.Trace returns them) again, for the same principal, against the store
// as it is now, under pol, or when pol is nil the policy the trace
// records (else the default), and reports what changed. It stores
// nothing. A replay calls no judge: a verdict comes from the store's
// cache, where the same claim on the same evidence left one, and a claim
// whose verdict is not there goes to review (judge_unavailable).
func ReplayTrace(ctx context.Context, db ReplayStore, trace []byte, pol *Policy) (*Replay, error) {
	var t storedTrace
	if err := json.Unmarshal(trace, &t); err != nil {
		return nil, fmt.Errorf("%w: trace: %v", store.ErrCorrupt, err)
	}
	if t.Request == nil || t.Report == nil {
		return nil, fmt.Errorf("%w: trace %s holds no request or no report", store.ErrCorrupt, t.TraceID)
	}
	if len(t.Report.Claims) != len(t.Request.Claims) {
		return nil, fmt.Errorf("%w: trace %s reports %d claims of a request of %d", store.ErrCorrupt, t.TraceID, len(t.Report.Claims), len(t.Request.Claims))
	}
	from := "given"
	if pol == nil {
		p, err := TracePolicy(t.Policy)
		if err != nil {
			return nil, fmt.Errorf("the policy of trace %s: %w", t.TraceID, err)
		}
		pol, from = p, "trace"
		if p == nil {
			pol, from = DefaultPolicy(), "default"
		}
	}
	pol = offline(pol, t.Report, db)
	rep, err := Check(ctx, db, t.Request, pol)
	if err != nil {
		return nil, err
	}
	r := &Replay{TraceID: t.TraceID, Time: t.Time, RequestID: t.Request.RequestID, Principal: t.Request.Principal,
		Policy: pol.Name, PolicyFrom: from, StoreSequence: t.StoreSequence, StoreSequenceNow: rep.StoreSequence(),
		Disposition: Change{t.Report.Disposition, rep.Disposition}, Grounding: Change{t.Report.Grounding, rep.Grounding},
		Claims: []ClaimChange{}, Chunks: []ChunkChange{}, Report: rep}
	r.ReasonsAdded, r.ReasonsRemoved = setDiff(t.Report.Reasons, rep.Reasons)
	for i := range rep.Claims {
		if c, ok := claimChange(&t.Report.Claims[i], &rep.Claims[i]); ok {
			r.Claims = append(r.Claims, c)
		}
	}
	if r.Chunks, err = chunkChanges(db, t.Request, t.Report, rep); err != nil {
		return nil, err
	}
	r.Changed = r.Disposition.Changed() || r.Grounding.Changed() || len(r.ReasonsAdded)+len(r.ReasonsRemoved) > 0 ||
		len(r.Claims) > 0 || len(r.Chunks) > 0
	return r, nil
}

// offlineJudge stands for the judge of a replay, which calls none.
type offlineJudge struct{ id string }

func (j offlineJudge) ID() string { return j.id }

func (j offlineJudge) Judge(context.Context, JudgeInput) (JudgeVerdict, error) {
	return JudgeVerdict{}, fmt.Errorf("%w: a replay asks no judge, and the store's cache holds no verdict for this claim on this evidence", ErrJudgeUnavailable)
}

// offline returns pol with its judge, or the judge the old report names
// when pol has none (a judge set in code leaves no config in the trace),
// answering from the cache only.
func offline(pol *Policy, old *Report, cache JudgmentCache) *Policy {
	id := ""
	if j := pol.ModelJudge(); j != nil {
		id = j.ID()
	} else {
		for i := range old.Claims {
			if v := old.Claims[i].Judge; v != nil && v.Judge != "" {
				id = v.Judge
				break
			}
		}
	}
	if id == "" {
		return pol
	}
	return pol.WithJudge(CachedJudge(offlineJudge{id}, cache))
}

// setDiff returns what now holds and then does not, and the reverse.
func setDiff(then, now []string) (added, removed []string) {
	added, removed = []string{}, []string{}
	for _, s := range now {
		if !slices.Contains(then, s) && !slices.Contains(added, s) {
			added = append(added, s)
		}
	}
	for _, s := range then {
		if !slices.Contains(now, s) && !slices.Contains(removed, s) {
			removed = append(removed, s)
		}
	}
	return added, removed
}

func claimChange(then, now *ClaimReport) (ClaimChange, bool) {
	c := ClaimChange{ClaimID: now.ClaimID, Status: Change{then.Status, now.Status}, Disposition: Change{then.Disposition, now.Disposition},
		Evidence: []EvidenceChange{}}
	c.ReasonsAdded, c.ReasonsRemoved = setDiff(then.Reasons, now.Reasons)
	for i := range now.Evidence {
		var old EvidenceReport
		if i < len(then.Evidence) {
			old = then.Evidence[i]
		}
		e, n := &old, &now.Evidence[i]
		ec := EvidenceChange{Index: i, ChunkID: n.ChunkID, Status: Change{e.Status, n.Status}, VersionStatus: Change{e.VersionStatus, n.VersionStatus},
			Match: Change{e.Match, n.Match}}
		ec.ReasonsAdded, ec.ReasonsRemoved = setDiff(e.Reasons, n.Reasons)
		if ec.Status.Changed() || ec.VersionStatus.Changed() || ec.Match.Changed() || len(ec.ReasonsAdded)+len(ec.ReasonsRemoved) > 0 {
			c.Evidence = append(c.Evidence, ec)
		}
	}
	changed := c.Status.Changed() || c.Disposition.Changed() || len(c.ReasonsAdded)+len(c.ReasonsRemoved) > 0 || len(c.Evidence) > 0
	return c, changed
}

// thenStatus is the resolution status a citation's report implies, or ""
// when the chunk was never looked up (not retrieved).
func thenStatus(e *EvidenceReport) string {
	switch e.Status {
	case EvidenceForbidden:
		return string(resolve.StatusForbidden)
	case EvidenceStale:
		return string(resolve.StatusSuperseded)
	case EvidenceUnresolved:
		for _, r := range e.Reasons {
			switch code, _, _ := strings.Cut(r, ":"); code {
			case "deleted":
				return string(resolve.StatusDeleted)
			case "quarantined":
				return string(resolve.StatusQuarantined)
			case "unknown_chunk":
				return string(resolve.StatusNotFound)
			case "not_retrieved":
				return ""
			}
		}
	}
	if e.VersionStatus == string(store.StatusSuperseded) {
		return string(resolve.StatusSuperseded)
	}
	return string(resolve.StatusOK)
}

// chunkChanges resolves again, for the trace's principal, every chunk the
// old report says something of (its citations; without claims, its
// sources and the retrieved chunks the replay's sources list) and returns
// those that resolve otherwise now.
func chunkChanges(db Viewer, req *Request, then, now *Report) ([]ChunkChange, error) {
	type was struct{ id, status string }
	var chunks []was
	seen := map[string]bool{}
	add := func(id, status string) {
		if !seen[id] {
			seen[id] = true
			chunks = append(chunks, was{id, status})
		}
	}
	for i := range then.Claims {
		for j := range then.Claims[i].Evidence {
			e := &then.Claims[i].Evidence[j]
			if st := thenStatus(e); st != "" {
				add(e.ChunkID, st)
			}
		}
	}
	if len(req.Claims) == 0 {
		for _, s := range then.Sources {
			st := string(resolve.StatusOK)
			if s.VersionStatus == string(store.StatusSuperseded) {
				st = string(resolve.StatusSuperseded)
			}
			for _, id := range s.ChunkIDs {
				add(id, st)
			}
		}
		for _, s := range now.Sources {
			for _, id := range s.ChunkIDs {
				add(id, "") // grounds now, did not then
			}
		}
	}
	out := []ChunkChange{}
	err := db.View(func(tx *store.Tx) error {
		var r resolve.Resolution
		for _, c := range chunks {
			if err := resolve.ChunkInto(tx, &r, c.id, req.Principal); err != nil {
				return err
			}
			if string(r.Status) == c.status {
				continue
			}
			cc := ChunkChange{ChunkID: c.id, DocumentID: r.DocumentID, DocumentVersion: r.DocumentVersion, Then: c.status, Now: string(r.Status)}
			if version, _, err := store.ParseChunkID(c.id); err == nil {
				cc.DocumentVersion = version
			}
			switch r.Status {
			case resolve.StatusQuarantined:
				cc.Reason = r.Reason
			case resolve.StatusSuperseded:
				cc.CurrentVersion = r.CurrentVersion
				if v, err := tx.Version(r.CurrentVersion); err == nil {
					cc.CurrentCreated = &v.Created
				} else if !errors.Is(err, store.ErrNotFound) {
					return err
				}
			case resolve.StatusDeleted:
				if v, err := tx.Version(cc.DocumentVersion); err == nil && !v.Deleted.IsZero() {
					cc.Deleted = &v.Deleted
				} else if err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
			}
			out = append(out, cc)
		}
		return nil
	})
	return out, err
}
