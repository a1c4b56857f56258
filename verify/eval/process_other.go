//go:build !unix

package eval

import (
	"os"
	"os/exec"
)

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the generator itself.
func killProcessGroup(p *os.Process, _ int) { _ = p.Kill() }
