package verify

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/store"
)

// Trace listing bounds: a page's default and largest size.
const (
	DefaultTracePage = 50
	MaxTracePage     = 1000
)

// TraceTimeHelp says what a trace filter's since and until take.
const TraceTimeHelp = "an RFC 3339 time (2026-11-30T00:00:00Z) or a duration before now (24h, 90m, 7d)"

// ParseTraceTime reads a time bound of a trace filter: an RFC 3339 time,
// or a duration before now with d for days. name is the bound's name, for
// the error.
func ParseTraceTime(name, s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return time.Time{}, fmt.Errorf("%s %q: want %s", name, s, TraceTimeHelp)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return time.Time{}, fmt.Errorf("%s %q: want %s", name, s, TraceTimeHelp)
		}
	}
	return now.Add(-d), nil
}

// ParseTraceFilter reads a trace filter from the query parameters of GET
// /v1/traces (the CLI's flags become the same parameters): request_id,
// principal, disposition, reason, category, document, since and until.
// Its errors name the parameter.
func ParseTraceFilter(q url.Values, now time.Time) (TraceFilter, error) {
	f := TraceFilter{RequestID: q.Get("request_id"), Disposition: q.Get("disposition"), Reason: q.Get("reason"),
		Category: q.Get("category"), Document: q.Get("document")}
	if _, ok := q["principal"]; ok {
		f.Principal, f.ByPrincipal = q.Get("principal"), true
	}
	var err error
	if s := q.Get("since"); s != "" {
		if f.Since, err = ParseTraceTime("since", s, now); err != nil {
			return f, err
		}
	}
	if s := q.Get("until"); s != "" {
		if f.Until, err = ParseTraceTime("until", s, now); err != nil {
			return f, err
		}
	}
	return f, f.Validate()
}

// ParseTracePage reads the limit (1 to MaxTracePage, default
// DefaultTracePage) and cursor parameters of a trace listing.
func ParseTracePage(q url.Values) (limit int, cursor string, err error) {
	limit = DefaultTracePage
	if s := q.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > MaxTracePage {
			return 0, "", fmt.Errorf("limit %q: want 1 to %d", s, MaxTracePage)
		}
	}
	return limit, q.Get("cursor"), nil
}

// ParseTraceStats reads the by (one of StatsKeys, default ByCategory) and
// top (0: every group) parameters of trace counts.
func ParseTraceStats(q url.Values) (by string, top int, err error) {
	by = q.Get("by")
	if by == "" {
		by = ByCategory
	}
	if !slices.Contains(StatsKeys, by) {
		return "", 0, fmt.Errorf("by %q: want one of %s", by, strings.Join(StatsKeys, ", "))
	}
	if s := q.Get("top"); s != "" {
		if top, err = strconv.Atoi(s); err != nil || top < 0 {
			return "", 0, fmt.Errorf("top %q: want a number of groups, 0 for all", s)
		}
	}
	return by, top, nil
}

// TopTraceStats counts traces as TraceStatsOf does; top > 0 keeps that
// many groups.
func TopTraceStats(tx *store.Tx, f *TraceFilter, by string, top int) (*TraceStats, error) {
	st, err := TraceStatsOf(tx, f, by)
	if err != nil {
		return nil, err
	}
	if top > 0 && len(st.Groups) > top {
		st.Groups = st.Groups[:top]
	}
	return st, nil
}
