//go:build unix

package reality

import (
	"os"
	"syscall"
)

// supported is true where the harness can pause a process.
const supported = true

// pauseProcess stops p as a long GC pause would: SIGSTOP cannot be caught,
// so the process runs no instruction until SIGCONT.
func pauseProcess(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }

// resumeProcess continues a process stopped by pauseProcess.
func resumeProcess(p *os.Process) error { return p.Signal(syscall.SIGCONT) }
