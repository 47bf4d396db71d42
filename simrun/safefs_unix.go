//go:build unix

package simrun

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// alive reports whether process pid exists (signal 0 probes without
// sending; EPERM means it exists under another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

var umaskOnce struct {
	sync.Once
	v os.FileMode
}

// umask is the process's file mode creation mask (read once: reading it
// means setting it).
func umask() os.FileMode {
	umaskOnce.Do(func() {
		m := syscall.Umask(0)
		syscall.Umask(m)
		umaskOnce.v = os.FileMode(m)
	})
	return umaskOnce.v
}
