package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
)

func newRebuildCommand(o *options) *cobra.Command {
	var (
		opts    ingest.RebuildOptions
		maxQuar string
	)
	cmd := &cobra.Command{
		Use:   "rebuild [DOC_ID...]",
		Short: "Make new versions from stored canonical text with new chunk settings or a new import manifest",
		Long: `rebuild re-chunks the current version of each document (all documents when none is named) from
its stored canonical text, never re-extracting the source, and makes the result the current version. The
earlier versions stay resolvable as superseded, so chunk ids that answers already cite keep resolving; as
their canonical text is the current text, they resolve with text_unchanged and the default policy accepts
them. A later plain ingest of the unchanged source keeps the new settings.
With --chunks, one document gets the chunks of a new import manifest (validated, read and gated as by
ingest --chunks: --offsets, --max-quarantined). With --dry-run, nothing is written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := importFlags(cmd, maxQuar, &opts.MaxQuarantined); err != nil {
				return err
			}
			db, closeDB, err := openForBatch(o, opts.DryRun)
			if err != nil {
				return err
			}
			defer closeDB()
			start := time.Now()
			sum, err := ingest.Rebuild(context.Background(), db, args, opts)
			return finishBatch(o, sum, err, start, "documents")
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Chunk.Size, "chunk-size", ingest.DefaultChunkOptions.Size, "target chunk size in code points")
	f.IntVar(&opts.Chunk.Overlap, "overlap", ingest.DefaultChunkOptions.Overlap, "overlap between consecutive chunks in code points")
	f.StringVar(&opts.Chunks, "chunks", "", "new chunk manifest for the one document named")
	f.StringVar(&opts.ChunksFormat, "chunks-format", ingest.FormatAuto, "manifest shape: auto, generic, langchain, llamaindex, haystack")
	f.BoolVar(&opts.Repair, "repair", false, "re-anchor imported chunks whose coordinates do not resolve")
	f.StringVar(&opts.Offsets, "offsets", ingest.OffsetsAuto, "origin of the manifest's offsets: auto (detect), document, or page")
	f.StringVar(&maxQuar, "max-quarantined", "0", "most quarantined imported chunks for the rebuild to be stored: a count (3), a percentage (5%) or a share (0.05)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "report what would be stored without writing anything to the store")
	return cmd
}
