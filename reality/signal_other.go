//go:build !unix

package reality

import (
	"errors"
	"os"
)

// supported is false: the harness needs SIGSTOP/SIGCONT and a machine-wide
// monotonic clock.
const supported = false

var errUnsupported = errors.New("reality: pausing a process needs SIGSTOP (unix only)")

func pauseProcess(*os.Process) error  { return errUnsupported }
func resumeProcess(*os.Process) error { return errUnsupported }
