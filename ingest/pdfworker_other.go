//go:build !unix

package ingest

import (
	"os"
	"os/exec"
	"runtime/debug"
)

// ownProcessGroup does nothing where there are no process groups: the
// worker starts nothing of its own.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the worker.
func killProcessGroup(p *os.Process, _ int) { _ = p.Kill() }

// limitMemory sets only Go's own soft memory and stack limits where there
// is no address-space limit to set: a document over them still fails as
// memory_limit when the runtime gives up, but the system does not stop it
// earlier.
func limitMemory(extra uint64) error {
	debug.SetMemoryLimit(int64(min(extra/4*3, 1<<62)))
	debug.SetMaxStack(int(min(extra/8, 256<<20)))
	return nil
}
