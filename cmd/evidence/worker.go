package main

import (
	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
)

// newExtractWorkerCommand is the child process of PDF extraction
// (ingest.ExtractPDF starts it, one document each). It is hidden: its
// stdout is a protocol, not for people.
func newExtractWorkerCommand(o *options) *cobra.Command {
	return &cobra.Command{
		Use:    "extract-worker [--max-pages N] [--max-text-bytes N] [--max-stream-bytes N] [--memory-bytes N] [--size N] [PATH]",
		Short:  "Extract one PDF from stdin (or PATH) in a contained process (internal)",
		Hidden: true,
		Long: `extract-worker reads one PDF from stdin (all of it, or the first --size bytes), or from PATH,
lets itself map at most --memory-bytes more address space (0: no limit), extracts the PDF within
--max-pages, --max-text-bytes and --max-stream-bytes, and writes JSON Lines to stdout: one
{"page":...} per page as it is finished, then {"done":...} with the document or the failure
reason. With --size and a pipe on stdin, EOF after the PDF means the parent is gone: the worker
exits. The wall-clock limit is enforced by the parent, which kills the worker's process group.
The flags are parsed by ingest.RunWorker, the other end of the protocol, so they cannot drift.`,
		// RunWorker owns the flags; usage errors are answered on the protocol.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Only the exit code matters: the answer is already on stdout.
			if code := ingest.RunWorker(cmd.InOrStdin(), o.stdout, args); code != 0 {
				return &exitStatus{code: code, msg: "extract-worker failed"}
			}
			return nil
		},
	}
}
