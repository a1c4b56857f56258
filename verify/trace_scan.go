package verify

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/store"
)

// TraceFilter selects stored traces (docs/traces.md#listing). Empty
// fields select everything.
type TraceFilter struct {
	RequestID string
	// Principal selects the traces made for this principal; with
	// ByPrincipal set it applies even when empty (the anonymous
	// principal's traces).
	Principal   string
	ByPrincipal bool
	Disposition string // the answer's disposition
	// Reason selects traces with this reason code anywhere (answer, claim
	// or citation), as ReasonCode gives it; a code without its parameter
	// also selects every parameter (quarantined selects
	// quarantined:text_mismatch).
	Reason   string
	Category string // one of Categories
	Document string // a cited (or, without claims, grounding) document id
	// Since (inclusive) and Until (exclusive) bound the trace's time; the
	// zero time leaves that side open.
	Since, Until time.Time
}

// answerDispositions are the dispositions an answer can have.
var answerDispositions = []string{AnswerAccept, AnswerPartial, AnswerBlock, AnswerAbstain, AnswerClarify, AnswerReview}

// ErrTraceFilter is returned for a trace filter or stats key that cannot
// be used.
var ErrTraceFilter = errors.New("verify: bad trace filter")

// Validate reports a filter that can match nothing for a reason a caller
// should hear about: an unknown disposition or category, or a time window
// that ends before it starts.
func (f *TraceFilter) Validate() error {
	switch {
	case f.Disposition != "" && !slices.Contains(answerDispositions, f.Disposition):
		return fmt.Errorf("%w: disposition %q: want one of %s", ErrTraceFilter, f.Disposition, strings.Join(answerDispositions, ", "))
	case f.Category != "" && !ValidCategory(f.Category):
		return fmt.Errorf("%w: category %q: want one of %s", ErrTraceFilter, f.Category, strings.Join(Categories, ", "))
	case !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until):
		return fmt.Errorf("%w: since %s is not before until %s", ErrTraceFilter, f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	}
	return nil
}

// TraceSummary is one stored trace as a list shows it: who, when, what
// was decided and why, without the request's or the evidence's text.
type TraceSummary struct {
	TraceID     string    `json:"trace_id"`
	Time        time.Time `json:"time"`
	RequestID   string    `json:"request_id"`
	Principal   string    `json:"principal"`
	Disposition string    `json:"disposition"`
	Policy      string    `json:"policy"`
	// Claims counts the request's claims and the answer's uncited factual
	// sentences (as claim coverage does); FailedClaims those not accepted.
	Claims       int `json:"claims"`
	FailedClaims int `json:"failed_claims"`
	// Reasons are the distinct reason codes of the answer, its claims and
	// citations (ReasonCode), sorted; Categories their failure categories,
	// in the order of Categories; Documents the cited document ids, sorted.
	Reasons    []string `json:"reasons"`
	Categories []string `json:"categories"`
	Documents  []string `json:"documents"`
}

// matchReason reports whether a reason code is selected by a filter's
// reason: the code itself, or its kind when the filter gives no parameter.
func matchReason(code, want string) bool {
	return code == want || strings.HasPrefix(code, want) && len(code) > len(want) && code[len(want)] == ':'
}

// matches reports whether the digested trace passes f.
func (d *digested) matches(f *TraceFilter) bool {
	s := &d.sum
	switch {
	case f.RequestID != "" && s.RequestID != f.RequestID,
		(f.ByPrincipal || f.Principal != "") && s.Principal != f.Principal,
		f.Disposition != "" && s.Disposition != f.Disposition,
		f.Category != "" && !slices.Contains(s.Categories, f.Category),
		f.Document != "" && !slices.Contains(s.Documents, f.Document),
		!f.Since.IsZero() && s.Time.Before(f.Since),
		!f.Until.IsZero() && !s.Time.Before(f.Until):
		return false
	case f.Reason != "":
		return slices.ContainsFunc(s.Reasons, func(c string) bool { return matchReason(c, f.Reason) })
	}
	return true
}

// TracePage is one page of a trace listing, newest first.
type TracePage struct {
	Traces []TraceSummary `json:"traces"`
	// NextCursor continues the listing (ListTraces' cursor), "" when it
	// reached the oldest trace of the window. A full page or a spent scan
	// budget gives one; the next page may be empty.
	NextCursor string `json:"next_cursor"`
	// Scanned counts the traces read to fill the page.
	Scanned int `json:"scanned"`
}

// errStopScan ends a trace scan early; it is never returned.
var errStopScan = errors.New("stop")

// ListTraces returns up to limit traces (no bound when limit <= 0) that
// pass f, newest first, from those older than cursor (a trace id; "" for
// the newest). Newest first is id order: to the millisecond, then by the
// id's random part. The scan reads at most maxScan traces (0: no bound)
// and then returns what it found, with a cursor to go on from. There is
// no index by principal, request or disposition: each trace in the time
// window is read, its summary where one was stored, else the trace
// without its texts (docs/traces.md#cost).
func ListTraces(tx *store.Tx, f *TraceFilter, cursor string, limit, maxScan int) (*TracePage, error) {
	page := &TracePage{Traces: []TraceSummary{}}
	before := cursor
	if !f.Until.IsZero() {
		if u := TraceIDFloor(f.Until.Add(time.Millisecond)); before == "" || u < before {
			before = u // ids of the until millisecond are checked by time
		}
	}
	floor := ""
	if !f.Since.IsZero() {
		floor = TraceIDFloor(f.Since)
	}
	if before == "" {
		before = "\xff" // past every hex id
	}
	skip := filterNeedles(f)
	var last []byte // the last trace read, valid in tx
	done := false   // the window's oldest trace was read
	err := tx.ForEachTraceSummaryBefore(before, func(id, summary []byte, b func() ([]byte, error)) error {
		if string(id) < floor {
			done = true
			return errStopScan
		}
		if maxScan > 0 && page.Scanned == maxScan {
			return errStopScan // the cursor names the last trace read
		}
		page.Scanned++
		last = id
		if skip.rejects(summary) {
			return nil
		}
		d, err := digest(id, summary, b)
		if err != nil {
			return err
		}
		if d.matches(f) {
			page.Traces = append(page.Traces, d.sum)
			if len(page.Traces) == limit {
				return errStopScan
			}
		}
		return nil
	})
	if err != nil && err != errStopScan {
		return nil, err
	}
	if err == errStopScan && !done {
		page.NextCursor = string(last)
	}
	return page, nil
}
