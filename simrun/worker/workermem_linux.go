//go:build linux

package worker

import "syscall"

// lowerDataLimit lowers this process's RLIMIT_DATA to bytes, unless it is
// lower already.
func lowerDataLimit(bytes uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return err
	}
	if lim.Cur <= bytes { // infinity is the largest value
		return nil
	}
	lim.Cur = bytes
	lim.Max = min(lim.Max, bytes)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &lim)
}
