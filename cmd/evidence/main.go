// Command evidence ingests documents into an evidence store and resolves,
// inspects and audits the citations that point into them.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
)

func main() {
	if longLived(os.Args[1:]) {
		reexecGuarded() // a long-lived reader of a store that may be damaged (reexec_unix.go)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// longLived reports whether the command line runs serve: the one command
// that reads a store for long, from one process.
func longLived(args []string) bool {
	cmd, _, err := newRootCommand(io.Discard, io.Discard).Find(args)
	return err == nil && cmd.Name() == "serve"
}

// run executes one command line and returns the exit code. PDFs are read
// by `evidence extract-worker` (worker.go).
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, stdout, stderr, ingest.SelfWorker)
}

// runWith is run with the PDF worker of pdfWorker (tests give a helper).
func runWith(args []string, stdout, stderr io.Writer, pdfWorker func() (*exec.Cmd, error)) int {
	root := newRootCommandWith(&options{stdout: stdout, stderr: stderr, pdfWorker: pdfWorker})
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err != nil {
		fmt.Fprintln(stderr, "evidence:", err)
		if errors.Is(err, store.ErrLocked) {
			fmt.Fprintln(stderr, "evidence:", lockedHint(cmd))
		}
	}
	return exitCode(err)
}

// lockedHint says what to do when the store is locked, most likely by a
// running `evidence serve`: commands that can go through the server say
// how (--server), the others that it must stop first.
func lockedHint(cmd *cobra.Command) string {
	if cmd == nil {
		return "if `evidence serve` holds this store, give the command --server URL, or stop the server first"
	}
	if cmd.Flags().Lookup("server") != nil {
		return "if `evidence serve` holds this store, run this through it: " + cmd.CommandPath() + " --server URL (or set EVIDENCE_SERVER; token from EVIDENCE_TOKEN), or stop the server first"
	}
	return "if `evidence serve` holds this store, stop it first: " + cmd.CommandPath() + " cannot go through the server"
}
