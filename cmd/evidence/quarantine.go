package main

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
)

// quarantined is one row of `quarantine list`.
type quarantined = ingest.QuarantinedChunk

// quarantineFilter is a filter of `quarantine list` and `stats`.
type quarantineFilter struct {
	ingest.QuarantineFilter
	server string // ask a running server instead of opening the store
}

// quarantineReasons are the values of --reason.
var quarantineReasons = ingest.QuarantineReasons

func (f *quarantineFilter) flags(cmd *cobra.Command, verb string) {
	cmd.Flags().StringVar(&f.Reason, "reason", "", verb+" only chunks of this reason `CODE`: "+strings.Join(quarantineReasons, ", "))
	cmd.Flags().StringVar(&f.Document, "document", "", verb+" only the chunks of this document `ID`")
	cmd.Flags().StringVar(&f.Version, "version", "", verb+" only the chunks of this `VERSION` (any status)")
	cmd.Flags().BoolVar(&f.All, "all", false, "include superseded versions (default: current versions only)")
	cmd.Flags().BoolVar(&f.Repaired, "repaired", false, verb+" imported chunks that were re-anchored (accepted with a recorded repair) instead")
	cmd.Flags().StringVar(&f.server, "server", defaultServer(), serverFlagHelp)
}

// query is the filter as GET /v1/quarantine parameters.
func (f *quarantineFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"reason": f.Reason, "document": f.Document, "version": f.Version} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.All {
		q.Set("all", "true")
	}
	if f.Repaired {
		q.Set("repaired", "true")
	}
	return q
}

// each calls fn for every row the filter selects, from the store or, with
// --server, from a running server (which applies the caller's access).
func (f *quarantineFilter) each(o *options, fn func(quarantined) error) error {
	if err := f.Check(); err != nil {
		return usagef("--%v", err)
	}
	if f.server != "" {
		sc, err := newServerClient(f.server)
		if err != nil {
			return err
		}
		var out struct {
			Chunks []quarantined `json:"chunks"`
		}
		if err := sc.get("/v1/quarantine?"+f.query().Encode(), "", &out); err != nil {
			return err
		}
		for _, q := range out.Chunks {
			if err := fn(q); err != nil {
				return err
			}
		}
		return nil
	}
	db, err := o.openStore(true)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *store.Tx) error { return f.Walk(tx, nil, fn) })
}

func newQuarantineCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quarantine",
		Short: "Audit quarantined chunks: list them, or count them by reason and document",
	}
	var lf quarantineFilter
	list := &cobra.Command{
		Use:   "list",
		Short: "List quarantined chunks with reason, claimed and found",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows := []quarantined{}
			if err := lf.each(o, func(q quarantined) error { rows = append(rows, q); return nil }); err != nil {
				return err
			}
			if o.json {
				return o.emit(rows)
			}
			w := tabwriter.NewWriter(o.stdout, 2, 4, 2, ' ', 0)
			if lf.Repaired {
				fmt.Fprintln(w, "CHUNK\tDOCUMENT\tREASON\tMETHOD\tCLAIMED\tNOW")
				for _, q := range rows {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t[%d, %d)\t[%d, %d)\n", q.ChunkID, q.DocumentID, q.Reason, q.Repair.Method,
						q.Repair.ClaimedStart, q.Repair.ClaimedEnd, q.Start, q.End)
				}
				return w.Flush()
			}
			fmt.Fprintln(w, "CHUNK\tDOCUMENT\tREASON\tCLAIMED\tFOUND")
			for _, q := range rows {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", q.ChunkID, q.DocumentID, q.Reason, q.Want, q.Got)
			}
			return w.Flush()
		},
	}
	lf.flags(list, "list")
	var sf quarantineFilter
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Count quarantined chunks by reason and by document",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := struct {
				Total      int                       `json:"total"`
				ByReason   map[string]int            `json:"by_reason"`
				ByDocument map[string]map[string]int `json:"by_document"`
			}{ByReason: map[string]int{}, ByDocument: map[string]map[string]int{}}
			what := "quarantined"
			if sf.Repaired {
				what = "repaired"
			}
			err := sf.each(o, func(q quarantined) error {
				out.Total++
				out.ByReason[q.Reason]++
				if out.ByDocument[q.DocumentID] == nil {
					out.ByDocument[q.DocumentID] = map[string]int{}
				}
				out.ByDocument[q.DocumentID][q.Reason]++
				return nil
			})
			if err != nil {
				return err
			}
			if o.json {
				return o.emit(out)
			}
			o.printf("%s\n", plural(out.Total, what+" chunk"))
			for _, k := range sortedKeys(out.ByReason) {
				o.printf("  %-22s %d\n", k, out.ByReason[k])
			}
			for _, d := range sortedKeys(out.ByDocument) {
				o.printf("%s\n", d)
				for _, k := range sortedKeys(out.ByDocument[d]) {
					o.printf("  %-22s %d\n", k, out.ByDocument[d][k])
				}
			}
			return nil
		},
	}
	sf.flags(stats, "count")
	show := &cobra.Command{
		Use:   "show CHUNK_ID",
		Short: "Show one quarantined or repaired chunk: its claims, the finding, the repair",
		Args:  argsBetween(1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return showChunk(o, args[0], true) },
	}
	snapshotFlag(show, o)
	cmd.AddCommand(list, stats, show)
	return cmd
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
