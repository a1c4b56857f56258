//go:build unix

package ingest

import (
	"os"
	"os/exec"
	"runtime/debug"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so that a
// kill reaches whatever the worker started.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killProcessGroup kills the worker's process group.
func killProcessGroup(_ *os.Process, pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// limitMemory caps this process's address space at what it holds now plus
// extra bytes: the Go runtime reserves about 1 GiB of address space at
// start that it never touches, so an absolute limit would measure the
// runtime, not the document. Go then fails an allocation over the limit
// with "fatal error: runtime: out of memory", which the parent reports as
// memory_limit. A soft limit below it makes the collector work harder
// first, and a smaller stack limit makes a runaway recursion a stack
// overflow, not an out-of-memory, before the stack's doubling meets the
// address-space limit.
func limitMemory(extra uint64) error {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return err
	}
	// Rlimit's fields are uint64 on Linux and Darwin, int64 on FreeBSD.
	hard := uint64(rl.Max)
	limit := hard
	if base := addressSpace(); base < hard && extra < hard-base {
		limit = base + extra
	}
	setLimit(&rl.Cur, limit)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return err
	}
	debug.SetMemoryLimit(int64(min(extra/4*3, 1<<62)))
	debug.SetMaxStack(int(min(extra/8, 256<<20)))
	return nil
}

// setLimit sets an Rlimit field, whichever integer type the system gives it.
func setLimit[T int64 | uint64](field *T, v uint64) { *field = T(v) }
