// Command evidence ingests documents into an evidence store and resolves,
// inspects and audits the citations that point into them.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/evidence-rag/evidence/store"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes one command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCommand(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err != nil {
		fmt.Fprintln(stderr, "evidence:", err)
		if errors.Is(err, store.ErrLocked) {
			fmt.Fprintln(stderr, "evidence: if `evidence serve` holds this store, query it over HTTP (resolve --server URL) or stop it first")
		}
	}
	return exitCode(err)
}
