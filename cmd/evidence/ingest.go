package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
)

func newIngestCommand(o *options) *cobra.Command {
	var (
		opts          ingest.Options
		acl           string
		maxQuar       string
		progressEvery time.Duration
		server        string
	)
	cmd := &cobra.Command{
		Use:   "ingest PATH... | ingest SOURCE --chunks MANIFEST [--text TEXT] [--repair]",
		Short: "Ingest files and directories (.pdf, .txt, .md, .html) as immutable document versions",
		Long: `Ingest extracts canonical text from each file, chunks it, validates every chunk against the
stored text and writes each document version in one transaction. Directories are walked recursively
(hidden entries skipped); a document's id is its path relative to --base (the current directory by
default), whatever argument named the file, so one file gets one id (docs/versions.md).

Same bytes again: nothing is written (status unchanged); without --chunk-size, --overlap or --chunks a
document is cut as its current version was, so a plain re-ingest never undoes a rebuild. --url and --acl
of unchanged bytes update the document's metadata without a new version. Changed bytes: a new current
version; the old one stays resolvable as superseded. A deleted document (or a deleted version's bytes)
is skipped as deleted unless --undelete. A file that fails is reported and recorded, and the batch goes
on; the exit code is then 3, or 1 when no file could be stored. Files of a walk that are not ingested
(other types, links) are listed as skipped, with the reason.

With --chunks, the chunks of another pipeline (LangChain, LlamaIndex, Haystack or the generic form;
see docs/chunk-import.md) are validated against the canonical text instead of cutting our own: each is
accepted, quarantined with a reason, or with --repair re-anchored with the repair recorded. The
manifest's offset convention (from the document or from each page, pages from 0 or 1) is detected and
reported; --offsets forces it. An import with more quarantined chunks than --max-quarantined (default 0)
is not stored, the document's current version stays current, and the exit code is 3.

With --dry-run, everything is read, extracted and validated, and what would be stored is reported, but
nothing is written to the store.

With --server URL (or EVIDENCE_SERVER), the files go to a running evidence serve (POST /v1/documents,
a service token in EVIDENCE_TOKEN), which stores them while it serves: the same ids, flags, report and
exit codes, without stopping the server. The server's own limits apply (--workers, --max-bytes and the
--pdf-* flags are refused), and without --url a file's source is recorded as an upload, not a path.`,
		Args: argsBetween(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkIngestFlags(cmd.Flags(), &opts); err != nil {
				return err
			}
			if cmd.Flags().Changed("acl") {
				opts.ACL = splitList(acl)
			}
			if err := importFlags(cmd, maxQuar, &opts.MaxQuarantined); err != nil {
				return err
			}
			if !cmd.Flags().Changed("chunk-size") && !cmd.Flags().Changed("overlap") {
				opts.Chunk = ingest.ChunkOptions{} // the document's current settings, else the defaults
			}
			if server != "" {
				return ingestThroughServer(o, cmd.Flags(), server, args, opts, maxQuar)
			}
			db, closeDB, err := openForBatch(o, opts.DryRun)
			if err != nil {
				return err
			}
			defer closeDB()
			start := time.Now()
			var stop func()
			opts.Progress, stop = progressFor(o, progressEvery)
			opts.PDF.Worker = o.pdfWorker
			sum, err := ingest.Run(context.Background(), db, args, opts)
			stop()
			if err == nil {
				reportEmpty(o, args, sum)
			}
			return finishBatch(o, sum, err, start, "file")
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.ID, "id", "", "store the one file given under this document `ID` (default: its path relative to --base)")
	f.StringVar(&opts.URL, "url", "", "reader-facing source `URL` of the file, or base URL that a directory's relative paths join (default: the file:// URL of the path)")
	f.StringVar(&acl, "acl", "", "comma-separated `PRINCIPALS` allowed to read the documents (default: keep the stored list; empty: everyone)")
	f.IntVar(&opts.Chunk.Size, "chunk-size", ingest.DefaultChunkOptions.Size, "cut chunks of at most `N` code points, 1 or more (unset: the document's current settings, else this default)")
	f.IntVar(&opts.Chunk.Overlap, "overlap", ingest.DefaultChunkOptions.Overlap, "let consecutive chunks share `N` code points, 0 to half the chunk size less one (unset: as --chunk-size)")
	f.StringVar(&opts.Base, "base", ".", "derive document ids as paths relative to this `DIR`")
	f.BoolVar(&opts.Undelete, "undelete", false, "store files whose document, version or bytes were deleted (skipped as deleted otherwise)")
	f.IntVar(&opts.Workers, "workers", 0, "extract `N` files in parallel (default 0: one per CPU)")
	f.Int64Var(&opts.MaxBytes, "max-bytes", ingest.DefaultMaxBytes, "fail source files larger than this many `BYTES` (too_large)")
	f.DurationVar(&opts.PDF.Timeout, "pdf-timeout", ingest.DefaultPDFTimeout, "wall-clock limit for extracting one PDF (timeout)")
	f.Uint64Var(&opts.PDF.MemoryBytes, "pdf-memory", ingest.DefaultPDFMemoryBytes, "address space a PDF worker process may add, in `BYTES` (memory_limit)")
	f.IntVar(&opts.PDF.MaxPages, "pdf-max-pages", ingest.DefaultPDFMaxPages, "fail PDFs with more than `N` pages (too_large)")
	f.IntVar(&opts.PDF.MaxTextBytes, "pdf-max-text", ingest.DefaultPDFMaxTextBytes, "fail PDFs whose text exceeds this many `BYTES` (too_large)")
	f.StringVar(&opts.Chunks, "chunks", "", "validate and store the chunks of this JSON Lines `MANIFEST` of another pipeline for the one SOURCE, instead of cutting our own")
	f.StringVar(&opts.ChunksFormat, "chunks-format", ingest.FormatAuto, "`FORMAT` of the --chunks manifest: "+strings.Join(chunksFormats, ", "))
	f.StringVar(&opts.TextFile, "text", "", "with --chunks: take this `FILE` as the canonical text the other pipeline used (pages separated by form feeds) instead of extracting SOURCE")
	f.DurationVar(&progressEvery, "progress-interval", defaultProgressEvery, "when stderr is not a terminal, write a progress line this often (0: never)")
	_ = f.MarkHidden("progress-interval")
	f.BoolVar(&opts.Repair, "repair", false, "re-anchor imported chunks whose coordinates do not resolve, recording each repair")
	f.StringVar(&opts.Offsets, "offsets", ingest.OffsetsAuto, "origin of the manifest's offsets: auto (detect), document, or page")
	f.StringVar(&maxQuar, "max-quarantined", "0", "most quarantined imported chunks for the import to be stored: a count (3), a percentage (5%) or a share (0.05)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "report what would be stored without writing anything to the store")
	f.StringVar(&server, "server", defaultServer(), writeFlagHelp)
	return cmd
}

// importFlags reads --max-quarantined when given.
func importFlags(cmd *cobra.Command, maxQuar string, limit **ingest.QuarantineLimit) error {
	if !cmd.Flags().Changed("max-quarantined") {
		return nil
	}
	l, err := ingest.ParseQuarantineLimit(maxQuar)
	if err != nil {
		return usageError{err}
	}
	*limit = &l
	return nil
}

// openForBatch opens the store for an ingest or rebuild. A dry run opens
// it read-only, so that nothing can be written; with no store yet it runs
// against an empty one in a temporary directory, removed afterwards.
func openForBatch(o *options, dryRun bool) (*store.DB, func(), error) {
	if !dryRun {
		db, err := o.openStore(false)
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	}
	if !o.dbMissing() {
		db, err := o.openStore(true)
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	}
	dir, err := os.MkdirTemp("", "evidence-dry-run-")
	if err != nil {
		return nil, nil, err
	}
	db, err := store.Open(filepath.Join(dir, "empty.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }, nil
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// finishBatch reports an ingest or rebuild summary and maps its outcome to
// the exit code: a usage error for contradictory options, 3 when some
// inputs failed.
func finishBatch(o *options, sum *ingest.Summary, err error, start time.Time, noun string) error {
	if errors.Is(err, ingest.ErrOptions) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if o.json {
		if err := o.emit(sum); err != nil {
			return err
		}
	} else {
		printSummary(o, sum, time.Since(start), noun)
	}
	if sum.Rejected > 0 {
		return &exitStatus{code: exitPartial, msg: fmt.Sprintf("%d of %s rejected by the import gate (--max-quarantined), %d failed", sum.Rejected, plural(len(sum.Results), noun), sum.Failed)}
	}
	return batchStatus(sum, noun)
}

func printSummary(o *options, sum *ingest.Summary, took time.Duration, noun string) {
	would := ""
	if sum.DryRun {
		would = "would be "
	}
	for _, r := range sum.Results {
		switch r.Status {
		case ingest.Failed:
			fmt.Fprintf(o.stderr, "failed     %s\n", reasonLine(r))
		case ingest.Skipped:
			o.printf("skipped    %s\n", reasonLine(r))
		case ingest.Rejected:
			fmt.Fprintf(o.stderr, "%s%-10s %s: %s\n", would, "rejected", r.Path, r.Error)
			fmt.Fprintf(o.stderr, "           hint: %s\n", r.Hint)
			o.printf("%s%-10s %s  %s  %s, %d quarantined, %s; imported %s chunks, %d repaired; %s\n", would, r.Status, r.DocumentID,
				r.DocumentVersion, plural(r.Chunks, "chunk"), r.Quarantined, plural(r.Pages, "page"), r.ChunksFormat, r.Repaired, r.ImportConvention())
		case ingest.Deleted:
			o.printf("%-10s %s  skipped: %s (%s; --undelete stores it again)\n", r.Status, r.DocumentID, r.Message, r.Reason)
		default:
			status, would := r.Status, would
			if r.Restored {
				status = "restored"
			}
			if status == ingest.Unchanged {
				would = ""
			}
			o.printf("%s%-10s %s  %s  %s, %d quarantined, %s", would, status, r.DocumentID, r.DocumentVersion, plural(r.Chunks, "chunk"), r.Quarantined, plural(r.Pages, "page"))
			if r.ChunksFormat != "" {
				o.printf("; imported %s chunks, %d repaired", r.ChunksFormat, r.Repaired)
				if r.Offsets != "" {
					o.printf("; %s", r.ImportConvention())
				}
			}
			if len(r.MetadataUpdated) > 0 {
				o.printf("; updated %s", strings.Join(r.MetadataUpdated, ", "))
			}
			o.printf("\n")
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(o.stderr, "warning    %s: %s\n", r.Path, w)
		}
	}
	mb := float64(sum.SourceBytes) / 1e6
	o.printf("%s: %d ingested, %d unchanged, ", plural(len(sum.Results)-sum.Skipped, noun), sum.Ingested, sum.Unchanged)
	if sum.Rejected > 0 {
		o.printf("%d rejected, ", sum.Rejected)
	}
	o.printf("%d failed", sum.Failed)
	if sum.Deleted > 0 {
		o.printf(", %d deleted", sum.Deleted)
	}
	if sum.Skipped > 0 {
		o.printf(", %d skipped", sum.Skipped)
	}
	o.printf("; %s, %d quarantined; %.1f MB in %s\n", plural(sum.Chunks, "chunk"), sum.Quarantined, mb, took.Round(time.Millisecond))
	if sum.DryRun {
		target := o.dbName()
		if o.writeServer != "" {
			target = "the store of " + o.writeServer
		}
		o.printf("dry run: nothing written to %s\n", target)
	}
}

// reasonLine is a failed or skipped result as one line: path, reason code
// and what went wrong, each once.
func reasonLine(r *ingest.Result) string {
	s := r.Path + ": " + r.Reason
	if d := ingest.Detail(r.Error, r.Path, r.Reason); d != "" {
		s += ": " + d
	}
	return s
}

// progressBar draws one status line on a terminal, redrawn at most every 100 ms.
func progressBar(o *options) func(done, total int, r *ingest.Result) {
	var last time.Time
	return func(done, total int, r *ingest.Result) {
		if done < total && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		const width = 30
		fill := width * done / max(total, 1)
		name := filepath.Base(r.Path)
		if len(name) > 40 {
			name = name[:37] + "..."
		}
		fmt.Fprintf(o.stderr, "\r\033[K[%s%s] %d/%d %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total, name)
		if done == total {
			fmt.Fprint(o.stderr, "\r\033[K")
		}
	}
}
