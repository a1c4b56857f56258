//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
)

// reexecGuarded restarts the process, once, with GODEBUG=invalidptr=0 (see
// store/doc.go): a damaged store file can give bbolt element offsets and
// sizes that make the key and value slices it returns point past the
// file's mapping, into the Go heap, and the garbage collector then stops
// the process ("found bad pointer in Go heap"), which no recover catches.
// Without that check, such a slice reads garbage, which the record seals
// refuse, or faults, which the store turns into ErrCorrupt. The setting
// exists only as an environment variable read at start, hence the exec.
// A GODEBUG that names invalidptr is left as it is; a failed exec runs on.
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
