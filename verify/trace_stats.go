package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/store"
)

// Keys trace stats group by.
const (
	ByCategory = "category"
	ByReason   = "reason"
	ByDocument = "document"
	ByPolicy   = "policy"
)

// StatsKeys lists the keys TraceStatsOf groups by.
var StatsKeys = []string{ByCategory, ByReason, ByDocument, ByPolicy}

// TraceCounts counts traces and claims (claims and uncited factual
// sentences, as claim coverage counts them).
type TraceCounts struct {
	Traces       int            `json:"traces"`
	FailedTraces int            `json:"failed_traces"`
	Claims       int            `json:"claims"`
	FailedClaims int            `json:"failed_claims"`
	Dispositions map[string]int `json:"dispositions"` // answers by disposition
}

// TraceGroup is the traces and claims one key occurs in: for a category
// or a reason, those failing with it; for a document, those citing it
// (failed: a citation of it failed); for a policy, those verified under
// it (failed: not accepted).
type TraceGroup struct {
	Key string `json:"key"`
	TraceCounts
}

// TraceStats is what trace stats reports: the traces of a window that pass
// a filter, in total and grouped by one key.
type TraceStats struct {
	By    string     `json:"by"`
	Since *time.Time `json:"since,omitempty"`
	Until *time.Time `json:"until,omitempty"`
	TraceCounts
	// Groups are in the order of Categories for categories, every one
	// listed; else by failed traces, then traces, most first, then key.
	Groups []TraceGroup `json:"groups"`
}

func (c *TraceCounts) add(disposition string, failedTrace bool, claims, failedClaims int) {
	c.Traces++
	if failedTrace {
		c.FailedTraces++
	}
	c.Claims += claims
	c.FailedClaims += failedClaims
	c.Dispositions[disposition]++
}

// TraceStatsOf counts the traces that pass f, grouped by key (one of
// StatsKeys). It reads every trace in f's time window once, in id order
// (its summary where one was stored); there is no index by principal or
// disposition to read instead (docs/traces.md#cost).
func TraceStatsOf(tx *store.Tx, f *TraceFilter, by string) (*TraceStats, error) {
	if !slices.Contains(StatsKeys, by) {
		return nil, fmt.Errorf("%w: by %q: want one of %s", ErrTraceFilter, by, strings.Join(StatsKeys, ", "))
	}
	st := &TraceStats{By: by, TraceCounts: TraceCounts{Dispositions: map[string]int{}}}
	if !f.Since.IsZero() {
		st.Since = &f.Since
	}
	if !f.Until.IsZero() {
		st.Until = &f.Until
	}
	groups := map[string]*TraceGroup{}
	group := func(key string) *TraceGroup {
		g := groups[key]
		if g == nil {
			g = &TraceGroup{Key: key, TraceCounts: TraceCounts{Dispositions: map[string]int{}}}
			groups[key] = g
		}
		return g
	}
	if by == ByCategory {
		for _, c := range Categories {
			group(c)
		}
	}
	from, end := "", ""
	if !f.Since.IsZero() {
		from = TraceIDFloor(f.Since)
	}
	if !f.Until.IsZero() {
		end = TraceIDFloor(f.Until.Add(time.Millisecond))
	}
	skip := filterNeedles(f)
	err := tx.ForEachTraceSummary(from, func(id, summary []byte, b func() ([]byte, error)) error {
		if end != "" && string(id) >= end {
			return errStopScan
		}
		if skip.rejects(summary) {
			return nil
		}
		d, err := digest(id, summary, b)
		if err != nil {
			return err
		}
		if !d.matches(f) {
			return nil
		}
		d.count(by, &st.TraceCounts, group)
		return nil
	})
	if err != nil && err != errStopScan {
		return nil, err
	}
	st.Groups = make([]TraceGroup, 0, len(groups))
	for _, g := range groups {
		st.Groups = append(st.Groups, *g)
	}
	rank := func(key string) int { return slices.Index(Categories, key) }
	slices.SortFunc(st.Groups, func(a, b TraceGroup) int {
		if by == ByCategory {
			return cmp.Compare(rank(a.Key), rank(b.Key))
		}
		return cmp.Or(cmp.Compare(b.FailedTraces, a.FailedTraces), cmp.Compare(b.Traces, a.Traces), strings.Compare(a.Key, b.Key))
	})
	return st, nil
}

// count adds the trace to the totals and to each group of key by it
// belongs to.
func (d *digested) count(by string, total *TraceCounts, group func(string) *TraceGroup) {
	s := &d.sum
	failed := s.Disposition != AnswerAccept
	total.add(s.Disposition, failed, s.Claims, s.FailedClaims)
	switch by {
	case ByPolicy:
		group(s.Policy).add(s.Disposition, failed, s.Claims, s.FailedClaims)
		return
	case ByDocument:
		for _, doc := range s.Documents {
			claims, failedClaims := 0, 0
			for _, u := range d.units {
				if slices.Contains(u.documents, doc) {
					claims++
				}
				if slices.Contains(u.failedDocs, doc) {
					failedClaims++
				}
			}
			group(doc).add(s.Disposition, slices.Contains(d.failedDocs, doc), claims, failedClaims)
		}
		return
	}
	keys := s.Categories
	of := func(u *unit) []string { return u.categories }
	if by == ByReason {
		keys = s.Reasons
		of = func(u *unit) []string { return u.reasons }
	}
	for _, k := range keys {
		claims := 0
		for i := range d.units {
			if slices.Contains(of(&d.units[i]), k) {
				claims++
			}
		}
		group(k).add(s.Disposition, true, claims, claims)
	}
}
