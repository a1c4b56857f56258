package main

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// quarantined is one row of `quarantine list`.
type quarantined struct {
	ChunkID         string       `json:"chunk_id"`
	DocumentID      string       `json:"document_id"`
	DocumentVersion string       `json:"document_version"`
	VersionStatus   store.Status `json:"version_status"`
	ExternalID      string       `json:"external_id,omitempty"`
	store.Quarantine
	Repair *store.Repair `json:"repair,omitempty"`
	// Start and End are where a repaired chunk now resolves (code points).
	Start int `json:"source_start,omitempty"`
	End   int `json:"source_end,omitempty"`
}

type quarantineFilter struct {
	reason, document, version string
	all                       bool   // include superseded versions
	repaired                  bool   // list re-anchored chunks instead
	server                    string // ask a running server instead of opening the store
}

// quarantineReasons are the reason codes a chunk is quarantined (or, for
// those validation can repair, re-anchored) with: the values of --reason.
var quarantineReasons = []string{resolve.ReasonOutOfRange, resolve.ReasonTextMismatch, resolve.ReasonPageMismatch,
	resolve.ReasonPageLabelMismatch, resolve.ReasonSectionMismatch, resolve.ReasonNotFound, resolve.ReasonAmbiguous, ingest.ReasonMalformed}

func (f *quarantineFilter) flags(cmd *cobra.Command, verb string) {
	cmd.Flags().StringVar(&f.reason, "reason", "", verb+" only chunks of this reason `CODE`: "+strings.Join(quarantineReasons, ", "))
	cmd.Flags().StringVar(&f.document, "document", "", verb+" only the chunks of this document `ID`")
	cmd.Flags().StringVar(&f.version, "version", "", verb+" only the chunks of this `VERSION` (any status)")
	cmd.Flags().BoolVar(&f.all, "all", false, "include superseded versions (default: current versions only)")
	cmd.Flags().BoolVar(&f.repaired, "repaired", false, verb+" imported chunks that were re-anchored (accepted with a recorded repair) instead")
	cmd.Flags().StringVar(&f.server, "server", defaultServer(), serverFlagHelp)
}

// check refuses a filter that can select nothing for want of a valid value.
func (f *quarantineFilter) check() error {
	if f.reason != "" && !slices.Contains(quarantineReasons, f.reason) {
		return fmt.Errorf("reason %q: want one of %s", f.reason, strings.Join(quarantineReasons, ", "))
	}
	return nil
}

// query is the filter as GET /v1/quarantine parameters.
func (f *quarantineFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"reason": f.reason, "document": f.document, "version": f.version} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.all {
		q.Set("all", "true")
	}
	if f.repaired {
		q.Set("repaired", "true")
	}
	return q
}

// each calls fn for every row the filter selects, from the store or, with
// --server, from a running server (which applies the caller's access).
func (f *quarantineFilter) each(o *options, fn func(quarantined) error) error {
	if err := f.check(); err != nil {
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
	return db.View(func(tx *store.Tx) error { return f.walk(tx, nil, fn) })
}

// walk calls fn for every quarantined (or re-anchored) chunk the filter
// selects, in key order, skipping versions may refuses (nil: none).
func (f *quarantineFilter) walk(tx *store.Tx, may func(*store.Version) bool, fn func(quarantined) error) error {
	walk := tx.ForEachQuarantined
	if f.repaired {
		walk = tx.ForEachRepaired
	}
	return walk(func(v *store.Version, c *store.Chunk) error {
		reason := ""
		if c.Quarantine != nil {
			reason = c.Quarantine.Reason
		} else if c.Repair != nil {
			reason = c.Repair.Reason
		}
		switch {
		case may != nil && !may(v),
			f.reason != "" && reason != f.reason,
			f.document != "" && v.DocumentID != f.document,
			f.version != "" && v.ID != f.version,
			f.version == "" && !f.all && v.Status != store.StatusCurrent:
			return nil
		}
		q := quarantined{ChunkID: c.ID(), DocumentID: v.DocumentID, DocumentVersion: v.ID,
			VersionStatus: v.Status, ExternalID: c.ExternalID, Repair: c.Repair}
		if c.Quarantine != nil {
			q.Quarantine = *c.Quarantine
		} else {
			q.Reason = reason
			q.Start, q.End = c.Start, c.End
		}
		return fn(q)
	})
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
			if lf.repaired {
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
			if sf.repaired {
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
