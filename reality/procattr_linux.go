//go:build linux

package reality

import "syscall"

// procAttr makes the kernel kill a started process when the thread that
// started it dies, so a harness killed by a second SIGINT (or SIGKILL)
// leaves no server or client behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
