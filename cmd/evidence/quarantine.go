package main

import (
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

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
}

type quarantineFilter struct {
	reason, document, version string
	all                       bool // include superseded versions
}

func (f *quarantineFilter) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.reason, "reason", "", "only this reason code")
	cmd.Flags().StringVar(&f.document, "document", "", "only this document")
	cmd.Flags().StringVar(&f.version, "version", "", "only this version")
	cmd.Flags().BoolVar(&f.all, "all", false, "include superseded versions (default: current versions only)")
}

func (f *quarantineFilter) each(o *options, fn func(quarantined) error) error {
	db, err := o.openStore(true)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *store.Tx) error {
		return tx.ForEachQuarantined(func(v *store.Version, c *store.Chunk) error {
			switch {
			case f.reason != "" && c.Quarantine.Reason != f.reason,
				f.document != "" && v.DocumentID != f.document,
				f.version != "" && v.ID != f.version,
				f.version == "" && !f.all && v.Status != store.StatusCurrent:
				return nil
			}
			return fn(quarantined{ChunkID: c.ID(), DocumentID: v.DocumentID, DocumentVersion: v.ID,
				VersionStatus: v.Status, ExternalID: c.ExternalID, Quarantine: *c.Quarantine})
		})
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
			fmt.Fprintln(w, "CHUNK\tDOCUMENT\tREASON\tCLAIMED\tFOUND")
			for _, q := range rows {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", q.ChunkID, q.DocumentID, q.Reason, q.Want, q.Got)
			}
			return w.Flush()
		},
	}
	lf.flags(list)
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
			o.printf("%d quarantined chunks\n", out.Total)
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
	sf.flags(stats)
	cmd.AddCommand(list, stats)
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
