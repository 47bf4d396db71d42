//go:build unix

package outdir

import (
	"errors"
	"os"
	"syscall"
)

// LockPath takes an exclusive flock on path (opened anew, so closing other
// descriptors of the file keeps it) and returns the open file that holds
// it: the kernel releases the lock when that file is closed or the process
// dies, in any PID namespace, so another simrun can tell a live writer's
// temporary from a killed one's even when it cannot see the writer's PID.
func LockPath(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return f, nil
}

// LockHeld reports whether path exists and a process holds its lock
// (exists false: no such file, or it cannot be opened).
func LockHeld(path string) (held, exists bool) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, false
		}
		return true, true // cannot tell: keep it
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		return true, true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false, true
}
