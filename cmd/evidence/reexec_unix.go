//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
)

// reexecGuarded restarts the process, once, with GODEBUG=invalidptr=0 (see
// store/doc.go): a damaged page deep in a store's tree can give bbolt
// element offsets and sizes that make the slices it returns point past the
// file's mapping, and should one land in the Go heap, the garbage
// collector stops the process ("found bad pointer in Go heap"), which no
// recover catches. Without that check, such a slice reads garbage, which
// the record seals refuse, or faults, which the store turns into
// ErrCorrupt. The setting exists only as an environment variable read at
// start, hence the exec. serve calls it: a server runs long and answers
// many requests from one process; a one-shot command would pay the exec
// (some 15 ms) on every call for a risk that store.Open's check of the
// top-level tree leaves small. A GODEBUG that names invalidptr is left as
// it is, and a failed exec runs on. Only main calls it (a test runs the
// command in its own process, which must not be replaced).
func reexecGuarded() {
	godebug := os.Getenv("GODEBUG")
	if strings.Contains(godebug, "invalidptr=") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	if godebug != "" {
		godebug += ","
	}
	env = append(env, "GODEBUG="+godebug+"invalidptr=0")
	_ = syscall.Exec(exe, os.Args, env) // returns only when it failed
}
