package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
)

func newResolveCommand(o *options) *cobra.Command {
	var principal string
	cmd := &cobra.Command{
		Use:   "resolve CHUNK_ID",
		Short: "Resolve a chunk id to its exact stored span, status and access decision",
		Long: `resolve answers as a RAG application would at answer time: status ok, superseded, quarantined,
deleted, forbidden or not_found; for ok and superseded the exact span (checked against its BLAKE3),
its version, page and section. A principal outside the document's access list gets forbidden and no text.
The exit code is 3 when nothing servable was found.`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			r, err := resolve.Chunk(db, args[0], principal)
			if err != nil {
				return err
			}
			if o.json {
				if err := o.emit(r); err != nil {
					return err
				}
			} else {
				printResolution(o, r)
			}
			if !r.Served() {
				return &exitStatus{code: exitPartial, msg: "chunk " + args[0] + ": " + string(r.Status)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&principal, "principal", "", "principal asking, checked against the document's access list")
	return cmd
}

func printResolution(o *options, r *resolve.Resolution) {
	o.printf("status    %s", r.Status)
	if r.Reason != "" {
		o.printf(" (%s)", r.Reason)
	}
	o.printf("\n")
	if r.DocumentVersion == "" {
		return
	}
	o.printf("document  %s\nversion   %s (%s)\n", r.DocumentID, r.DocumentVersion, r.VersionStatus)
	if r.CurrentVersion != "" {
		o.printf("current   %s\n", r.CurrentVersion)
	}
	if !r.Served() {
		return
	}
	o.printf("span      [%d, %d) code points\npage      %s\nsection   %s\nsource    %s\n",
		r.Start, r.End, pageString(r.Page, r.PageEnd, r.PageLabel), orDash(strings.Join(r.SectionPath, " > ")), orDash(r.SourceURL))
	if r.LowConfidence != "" {
		o.printf("warning   low-confidence page text: %s\n", r.LowConfidence)
	}
	o.printf("\n%s\n", r.Text)
}
