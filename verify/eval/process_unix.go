//go:build unix

package eval

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own.
func ownProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup kills the generator's process group.
func killProcessGroup(_ *os.Process, pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
