package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// traceTimeHelp says what --since and --until take.
const traceTimeHelp = verify.TraceTimeHelp

// traceParams are the query parameters of GET /v1/traces and
// /v1/traces/stats, each with the CLI flag that sets it.
var traceParams = []struct{ param, flag, help string }{
	{"request_id", "request", "only the trace of this request id"},
	{"principal", "principal", "only traces made for this principal"},
	{"disposition", "disposition", "only answers of this disposition (accept, partial, block, abstain, clarify, review)"},
	{"reason", "reason", "only traces with this reason code (a code without its parameter, quarantined, selects them all)"},
	{"category", "category", "only traces with a failure of this category (" + strings.Join(verify.Categories, ", ") + ")"},
	{"document", "document", "only traces citing this document"},
	{"since", "since", "only traces made at or after this time: " + traceTimeHelp},
	{"until", "until", "only traces made before this time: " + traceTimeHelp},
}

// traceFilterFlags are the filter flags of trace list and trace stats.
type traceFilterFlags struct {
	values map[string]*string
	server string
}

func (f *traceFilterFlags) register(cmd *cobra.Command) {
	f.values = map[string]*string{}
	for _, p := range traceParams {
		f.values[p.param] = cmd.Flags().String(p.flag, "", p.help)
	}
	cmd.Flags().StringVar(&f.server, "server", defaultServer(), serverFlagHelp+"; it lists only the traces the token may read")
}

// query returns the flags that were given as query parameters.
func (f *traceFilterFlags) query(cmd *cobra.Command) url.Values {
	q := url.Values{}
	for _, p := range traceParams {
		if cmd.Flags().Changed(p.flag) {
			q.Set(p.param, *f.values[p.param])
		}
	}
	return q
}

// addTraceCommands adds list, stats and replay to the trace command.
func addTraceCommands(cmd *cobra.Command, o *options) {
	cmd.AddCommand(newTraceListCommand(o), newTraceStatsCommand(o), newTraceReplayCommand(o))
}

func newTraceListCommand(o *options) *cobra.Command {
	var ff traceFilterFlags
	var limit int
	var cursor string
	cmd := &cobra.Command{
		Use:   "list [--principal P] [--disposition D] [--reason R] [--category C] [--since T] [--until T]",
		Short: "List stored verification traces, newest first, by request, principal, disposition, reason, category or time",
		Long: `list prints one line per stored trace that passes every filter given, newest first: its id, time,
answer disposition, request id, principal, policy, claims (with uncited factual sentences) and how many
were not accepted, and its reason codes. A page holds --limit traces; when more may follow, the command
that prints the next page is written to stderr (--cursor, the last trace id listed). --since and --until
take an RFC 3339 time or a duration before now (24h, 90m, 7d). Each trace in the time window is read
(there is no index by principal or disposition): docs/traces.md says what that costs.`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := ff.query(cmd)
			if cmd.Flags().Changed("limit") {
				q.Set("limit", strconv.Itoa(limit))
			}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			page := &verify.TracePage{}
			if ff.server != "" {
				sc, err := newServerClient(ff.server)
				if err != nil {
					return err
				}
				if err := sc.get("/v1/traces?"+q.Encode(), "", page); err != nil {
					return err
				}
			} else {
				f, err := verify.ParseTraceFilter(q, time.Now())
				if err != nil {
					return usageError{err}
				}
				n, c, err := verify.ParseTracePage(q)
				if err != nil {
					return usageError{err}
				}
				db, err := o.openStore(true)
				if err != nil {
					return err
				}
				defer db.Close()
				if err := db.View(func(tx *store.Tx) error { page, err = verify.ListTraces(tx, &f, c, n, 0); return err }); err != nil {
					return err
				}
			}
			if o.json {
				return o.emit(page)
			}
			printTracePage(o, page)
			if page.NextCursor != "" {
				fmt.Fprintf(o.stderr, "more may follow: evidence trace list --cursor %s (and the same filters)\n", page.NextCursor)
			}
			return nil
		},
	}
	ff.register(cmd)
	cmd.Flags().IntVar(&limit, "limit", verify.DefaultTracePage, fmt.Sprintf("traces a page holds, 1 to %d", verify.MaxTracePage))
	cmd.Flags().StringVar(&cursor, "cursor", "", "list the traces older than this one (the next_cursor of the previous page)")
	return cmd
}

func printTracePage(o *options, page *verify.TracePage) {
	if len(page.Traces) == 0 {
		o.printf("no traces\n")
		return
	}
	w := tabwriter.NewWriter(o.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TRACE\tTIME\tDISPOSITION\tREQUEST\tPRINCIPAL\tPOLICY\tCLAIMS\tFAILED\tREASONS")
	for _, t := range page.Traces {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", t.TraceID, t.Time.UTC().Format(time.RFC3339), t.Disposition, dash(t.RequestID),
			dash(t.Principal), dash(t.Policy), t.Claims, t.FailedClaims, dash(strings.Join(t.Reasons, ",")))
	}
	w.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newTraceStatsCommand(o *options) *cobra.Command {
	var ff traceFilterFlags
	var by string
	var top int
	cmd := &cobra.Command{
		Use:   "stats [--since 7d] [--by category|reason|document|policy]",
		Short: "Count stored traces and their failures by category, reason, document or policy",
		Long: `stats reads the stored traces that pass the filters (the flags of trace list) and counts them: traces and
claims in all, those not accepted, answers by disposition, then the same per group of --by:
  category  failures by category (` + strings.Join(verify.Categories, ", ") + `),
            every category listed; the mapping of reason codes is in docs/traces.md
  reason    failures by reason code (superseded_by and name_unsupported without their parameter)
  document  traces and claims citing each document; failed: a citation of it failed
  policy    traces and claims verified under each policy; failed: not accepted
Claims count the answer's uncited factual sentences too, as claim coverage does. --top N keeps the first N
groups (groups other than categories come most failed first).`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := ff.query(cmd)
			q.Set("by", by)
			if top != 0 {
				q.Set("top", strconv.Itoa(top))
			}
			st := &verify.TraceStats{}
			if ff.server != "" {
				sc, err := newServerClient(ff.server)
				if err != nil {
					return err
				}
				if err := sc.get("/v1/traces/stats?"+q.Encode(), "", st); err != nil {
					return err
				}
			} else {
				f, err := verify.ParseTraceFilter(q, time.Now())
				if err != nil {
					return usageError{err}
				}
				by, top, err := verify.ParseTraceStats(q)
				if err != nil {
					return usageError{err}
				}
				db, err := o.openStore(true)
				if err != nil {
					return err
				}
				defer db.Close()
				if err := db.View(func(tx *store.Tx) error { st, err = verify.TopTraceStats(tx, &f, by, top); return err }); err != nil {
					return err
				}
			}
			if o.json {
				return o.emit(st)
			}
			printTraceStats(o, st)
			return nil
		},
	}
	ff.register(cmd)
	cmd.Flags().StringVar(&by, "by", verify.ByCategory, "group by "+strings.Join(verify.StatsKeys, ", "))
	cmd.Flags().IntVar(&top, "top", 0, "keep the first N groups (0: all)")
	return cmd
}

func printTraceStats(o *options, st *verify.TraceStats) {
	window := "all traces"
	switch {
	case st.Since != nil && st.Until != nil:
		window = "traces from " + st.Since.UTC().Format(time.RFC3339) + " until " + st.Until.UTC().Format(time.RFC3339)
	case st.Since != nil:
		window = "traces since " + st.Since.UTC().Format(time.RFC3339)
	case st.Until != nil:
		window = "traces before " + st.Until.UTC().Format(time.RFC3339)
	}
	o.printf("%s: %d, %d not accepted; claims %d, %d not accepted\n", window, st.Traces, st.FailedTraces, st.Claims, st.FailedClaims)
	if len(st.Dispositions) > 0 {
		o.printf("dispositions: %s\n", dispositionList(st.Dispositions))
	}
	w := tabwriter.NewWriter(o.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(w, "%s\tTRACES\tFAILED\tCLAIMS\tFAILED\tDISPOSITIONS\n", strings.ToUpper(st.By))
	for _, g := range st.Groups {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", dash(g.Key), g.Traces, g.FailedTraces, g.Claims, g.FailedClaims, dash(dispositionList(g.Dispositions)))
	}
	w.Flush()
}

// dispositionList writes counts by disposition in the order of strength.
func dispositionList(m map[string]int) string {
	var parts []string
	for _, d := range []string{verify.AnswerBlock, verify.AnswerReview, verify.AnswerAbstain, verify.AnswerClarify, verify.AnswerPartial, verify.AnswerAccept} {
		if m[d] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", d, m[d]))
		}
	}
	return strings.Join(parts, ", ")
}

func newTraceReplayCommand(o *options) *cobra.Command {
	var policyFile string
	cmd := &cobra.Command{
		Use:   "replay TRACE_ID [--policy FILE]",
		Short: "Verify a stored trace's request again against the store as it is now, and show what changed",
		Long: `replay verifies the request of a stored trace again, for the same principal, against the store as it
is now, under the policy the trace recorded (or --policy FILE), and shows what changed since: the answer's
disposition and reasons, each claim's status, disposition and reasons, each citation's, and each cited
chunk that resolves otherwise now (its version superseded, with the version now current and when it was
written; deleted, and when; quarantined; forbidden). It stores nothing and calls no judge: a verdict comes
from the store's cache, and a claim whose evidence changed goes to review (judge_unavailable).
Exit code 0 when nothing changed, 3 when something did.`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pol *verify.Policy
			if policyFile != "" {
				var err error
				if pol, err = verify.LoadPolicy(policyFile); err != nil {
					return usageError{err}
				}
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			var b []byte
			if err := db.View(func(tx *store.Tx) error { b, err = tx.Trace(args[0]); return err }); err != nil {
				return err
			}
			r, err := verify.ReplayTrace(context.Background(), db, b, pol)
			if err != nil {
				return err
			}
			if o.json {
				err = o.emit(r)
			} else {
				printReplay(o, r)
			}
			if err == nil && r.Changed {
				return &exitStatus{code: exitPartial, msg: "trace " + r.TraceID + ": the verdict changed"}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&policyFile, "policy", "", "replay under this policy file instead of the one the trace recorded")
	snapshotFlag(cmd, o)
	return cmd
}

func printReplay(o *options, r *verify.Replay) {
	o.printf("trace %s of %s (request %s, principal %s), replayed under policy %s (%s)\n", r.TraceID, r.Time.UTC().Format(time.RFC3339),
		dash(r.RequestID), dash(r.Principal), dash(r.Policy), r.PolicyFrom)
	o.printf("store sequence %d then, %d now\n", r.StoreSequence, r.StoreSequenceNow)
	if !r.Changed {
		o.printf("nothing changed: answer %s\n", r.Disposition.Now)
		return
	}
	o.printf("answer: %s\n", change(r.Disposition))
	if r.Grounding.Changed() {
		o.printf("grounding: %s\n", change(r.Grounding))
	}
	printReasons(o, "  ", r.ReasonsAdded, r.ReasonsRemoved)
	for _, c := range r.Claims {
		o.printf("claim %s: %s, %s\n", c.ClaimID, change(c.Status), change(c.Disposition))
		printReasons(o, "  ", c.ReasonsAdded, c.ReasonsRemoved)
		for _, e := range c.Evidence {
			o.printf("  citation %d %s: %s", e.Index, e.ChunkID, change(e.Status))
			if e.VersionStatus.Changed() {
				o.printf(", version %s", change(e.VersionStatus))
			}
			if e.Match.Changed() {
				o.printf(", match %s", change(e.Match))
			}
			o.printf("\n")
			printReasons(o, "    ", e.ReasonsAdded, e.ReasonsRemoved)
		}
	}
	for _, c := range r.Chunks {
		then := c.Then
		if then == "" {
			then = "not grounding"
		}
		o.printf("chunk %s", c.ChunkID)
		if c.DocumentID != "" {
			o.printf(" (%s)", c.DocumentID)
		}
		o.printf(": %s → %s", then, c.Now)
		switch {
		case c.CurrentVersion != "":
			o.printf(", superseded by %s", c.CurrentVersion)
			if c.CurrentCreated != nil {
				o.printf(" written %s", c.CurrentCreated.UTC().Format(time.RFC3339))
			}
		case c.Deleted != nil:
			o.printf(", deleted %s", c.Deleted.UTC().Format(time.RFC3339))
		case c.Reason != "":
			o.printf(", %s", c.Reason)
		}
		o.printf("\n")
	}
}

func change(c verify.Change) string {
	if !c.Changed() {
		return dash(c.Now) + " (unchanged)"
	}
	return dash(c.Then) + " → " + dash(c.Now)
}

func printReasons(o *options, indent string, added, removed []string) {
	if len(added) > 0 {
		o.printf("%sreasons added: %s\n", indent, strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		o.printf("%sreasons removed: %s\n", indent, strings.Join(removed, ", "))
	}
}
