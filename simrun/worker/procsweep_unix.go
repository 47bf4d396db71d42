//go:build unix

package worker

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup puts a worker process in its own process group, so a terminal's
// Ctrl-C reaches only the parent, which forwards it once.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalOf is the os.Signal for a signal number recorded in interrupted.
func signalOf(sig int32) os.Signal { return syscall.Signal(sig) }
