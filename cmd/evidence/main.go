// Command evidence ingests documents into an evidence store and resolves,
// inspects and audits the citations that point into them.
package main

import (
	"fmt"
	"os"
)

func main() {
	cmd := newRootCommand(os.Stdout, os.Stderr)
	err := cmd.Execute()
	if err != nil {
		fmt.Fprintln(os.Stderr, "evidence:", err)
	}
	os.Exit(exitCode(err))
}
