package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
)

func newRebuildCommand(o *options) *cobra.Command {
	var (
		opts    ingest.RebuildOptions
		maxQuar string
		server  string
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
ingest --chunks: --offsets, --max-quarantined). With --dry-run, nothing is written.
With --server URL (or EVIDENCE_SERVER), a running evidence serve rebuilds them (POST
/v1/documents/{id}/rebuild, a service token in EVIDENCE_TOKEN; all documents it lets the token read
when none is named), with the same report and exit codes; --chunks is not sent over HTTP.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkChunkFlags(cmd.Flags(), &opts.Chunk); err != nil {
				return err
			}
			if err := importFlags(cmd, maxQuar, &opts.MaxQuarantined); err != nil {
				return err
			}
			if server != "" {
				return rebuildThroughServer(o, cmd.Flags(), server, args, opts)
			}
			db, closeDB, err := openForBatch(o, opts.DryRun)
			if err != nil {
				return err
			}
			defer closeDB()
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
	f.StringVar(&opts.Offsets, "offsets", ingest.OffsetsAuto, "origin of the manifest's offsets: auto (detect), document, or page")
	f.StringVar(&maxQuar, "max-quarantined", "0", "most quarantined imported chunks for the rebuild to be stored: a count (3), a percentage (5%) or a share (0.05)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "report what would be stored without writing anything to the store")
	f.StringVar(&server, "server", defaultServer(), writeFlagHelp)
	return cmd
}
