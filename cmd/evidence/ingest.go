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
	"golang.org/x/term"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
)

func newIngestCommand(o *options) *cobra.Command {
	var (
		opts    ingest.Options
		acl     string
		maxQuar string
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
on; the exit code is then 3.

With --chunks, the chunks of another pipeline (LangChain, LlamaIndex, Haystack or the generic form;
see docs/chunk-import.md) are validated against the canonical text instead of cutting our own: each is
accepted, quarantined with a reason, or with --repair re-anchored with the repair recorded. The
manifest's offset convention (from the document or from each page, pages from 0 or 1) is detected and
reported; --offsets forces it. An import with more quarantined chunks than --max-quarantined (default 0)
is not stored, the document's current version stays current, and the exit code is 3.

With --dry-run, everything is read, extracted and validated, and what would be stored is reported, but
nothing is written to the store.`,
		Args: argsBetween(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("acl") {
				opts.ACL = splitList(acl)
			}
			if err := importFlags(cmd, maxQuar, &opts.MaxQuarantined); err != nil {
				return err
			}
			if !cmd.Flags().Changed("chunk-size") && !cmd.Flags().Changed("overlap") {
				opts.Chunk = ingest.ChunkOptions{} // the document's current settings, else the defaults
			}
			db, closeDB, err := openForBatch(o, opts.DryRun)
			if err != nil {
				return err
			}
			defer closeDB()
			start := time.Now()
			if f, ok := o.stderr.(*os.File); ok && !o.json && term.IsTerminal(int(f.Fd())) {
				opts.Progress = progressBar(o)
			}
			sum, err := ingest.Run(context.Background(), db, args, opts)
			return finishBatch(o, sum, err, start, "files")
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.ID, "id", "", "document id (only with a single file; default: its path relative to --base)")
	f.StringVar(&opts.URL, "url", "", "source URL of the file, or base URL for a directory (default: file:// URL of the path)")
	f.StringVar(&acl, "acl", "", "comma-separated principals allowed to read (default: keep the stored list; empty list: everyone)")
	f.IntVar(&opts.Chunk.Size, "chunk-size", ingest.DefaultChunkOptions.Size, "target chunk size in code points (unset: the document's current settings, else this default)")
	f.IntVar(&opts.Chunk.Overlap, "overlap", ingest.DefaultChunkOptions.Overlap, "overlap between consecutive chunks in code points (unset: as --chunk-size)")
	f.StringVar(&opts.Base, "base", ".", "directory that document ids are paths relative to")
	f.BoolVar(&opts.Undelete, "undelete", false, "store files whose document, version or bytes were deleted (skipped as deleted otherwise)")
	f.IntVar(&opts.Workers, "workers", 0, "parallel extractors (default: number of CPUs)")
	f.Int64Var(&opts.MaxBytes, "max-bytes", ingest.DefaultMaxBytes, "largest source file accepted, in bytes")
	f.DurationVar(&opts.PDF.Timeout, "pdf-timeout", ingest.DefaultPDFTimeout, "wall-clock limit for extracting one PDF")
	f.Uint64Var(&opts.PDF.MemoryBytes, "pdf-memory", ingest.DefaultPDFMemoryBytes, "address space a PDF worker may add, in bytes")
	f.IntVar(&opts.PDF.MaxPages, "pdf-max-pages", ingest.DefaultPDFMaxPages, "refuse PDFs with more pages (too_large)")
	f.IntVar(&opts.PDF.MaxTextBytes, "pdf-max-text", ingest.DefaultPDFMaxTextBytes, "refuse PDFs whose text exceeds this many bytes (too_large)")
	f.StringVar(&opts.Chunks, "chunks", "", "chunk manifest (JSON Lines) of another pipeline to validate and store for the one SOURCE")
	f.StringVar(&opts.ChunksFormat, "chunks-format", ingest.FormatAuto, "manifest shape: auto, generic, langchain, llamaindex, haystack")
	f.StringVar(&opts.TextFile, "text", "", "canonical text the other pipeline used (pages separated by form feeds), instead of extracting SOURCE")
	f.BoolVar(&opts.Repair, "repair", false, "re-anchor imported chunks whose coordinates do not resolve, recording each repair")
	f.StringVar(&opts.Offsets, "offsets", ingest.OffsetsAuto, "origin of the manifest's offsets: auto (detect), document, or page")
	f.StringVar(&maxQuar, "max-quarantined", "0", "most quarantined imported chunks for the import to be stored: a count (3), a percentage (5%) or a share (0.05)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "report what would be stored without writing anything to the store")
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
	if _, err := os.Stat(o.db); err == nil {
		db, err := store.Open(o.db, &store.Options{ReadOnly: true})
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
		printSummary(o, sum, time.Since(start))
	}
	if sum.Rejected > 0 {
		return &exitStatus{code: exitPartial, msg: fmt.Sprintf("%d of %d %s rejected by the import gate (--max-quarantined), %d failed", sum.Rejected, len(sum.Results), noun, sum.Failed)}
	}
	if sum.Failed > 0 {
		return &exitStatus{code: exitPartial, msg: fmt.Sprintf("%d of %d %s failed", sum.Failed, len(sum.Results), noun)}
	}
	return nil
}

func printSummary(o *options, sum *ingest.Summary, took time.Duration) {
	would := ""
	if sum.DryRun {
		would = "would be "
	}
	for _, r := range sum.Results {
		switch r.Status {
		case ingest.Failed:
			fmt.Fprintf(o.stderr, "failed     %s: %s\n", r.Path, r.Error)
		case ingest.Rejected:
			fmt.Fprintf(o.stderr, "%s%-10s %s: %s\n", would, "rejected", r.Path, r.Error)
			fmt.Fprintf(o.stderr, "           hint: %s\n", r.Hint)
			o.printf("%s%-10s %s  %s  %d chunks, %d quarantined, %d pages; imported %s chunks, %d repaired; %s\n", would, r.Status, r.DocumentID,
				r.DocumentVersion, r.Chunks, r.Quarantined, r.Pages, r.ChunksFormat, r.Repaired, r.ImportConvention())
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
			o.printf("%s%-10s %s  %s  %d chunks, %d quarantined, %d pages", would, status, r.DocumentID, r.DocumentVersion, r.Chunks, r.Quarantined, r.Pages)
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
	rejected, deleted := "", ""
	if sum.Rejected > 0 {
		rejected = fmt.Sprintf("%d rejected, ", sum.Rejected)
	}
	if sum.Deleted > 0 {
		deleted = fmt.Sprintf(", %d deleted", sum.Deleted)
	}
	o.printf("%d files: %d ingested, %d unchanged, %s%d failed%s; %d chunks, %d quarantined; %.1f MB in %s\n",
		len(sum.Results), sum.Ingested, sum.Unchanged, rejected, sum.Failed, deleted, sum.Chunks, sum.Quarantined, mb, took.Round(time.Millisecond))
	if sum.DryRun {
		o.printf("dry run: nothing written to %s\n", o.db)
	}
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
