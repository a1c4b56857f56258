package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
)

func newRebuildCommand(o *options) *cobra.Command {
	var opts ingest.RebuildOptions
	cmd := &cobra.Command{
		Use:   "rebuild [DOC_ID...]",
		Short: "Make new versions from stored canonical text with new chunk settings or a new import manifest",
		Long: `rebuild re-chunks the current version of each document (all documents when none is named) from
its stored canonical text, never re-extracting the source, and makes the result the current version. The
earlier versions stay resolvable as superseded, so chunk ids that answers already cite keep resolving.
With --chunks, one document gets the chunks of a new import manifest (validated as by ingest --chunks).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkChunkFlags(cmd.Flags(), &opts.Chunk); err != nil {
				return err
			}
			db, err := o.openStore(false)
			if err != nil {
				return err
			}
			defer db.Close()
			start := time.Now()
			sum, err := ingest.Rebuild(context.Background(), db, args, opts)
			return finishBatch(o, sum, err, start, "document")
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Chunk.Size, "chunk-size", ingest.DefaultChunkOptions.Size, "cut chunks of at most `N` code points (1 or more)")
	f.IntVar(&opts.Chunk.Overlap, "overlap", ingest.DefaultChunkOptions.Overlap, "let consecutive chunks share `N` code points (0 to half the chunk size, less one)")
	f.StringVar(&opts.Chunks, "chunks", "", "take the chunks of this JSON Lines `MANIFEST` for the one document named, instead of cutting our own")
	f.StringVar(&opts.ChunksFormat, "chunks-format", ingest.FormatAuto, "`FORMAT` of the --chunks manifest: "+strings.Join(chunksFormats, ", "))
	f.BoolVar(&opts.Repair, "repair", false, "re-anchor imported chunks whose coordinates do not resolve, recording each repair")
	return cmd
}
