//go:build unix

package worker

import (
	"strings"
	"syscall"
)

// readSecret reads the secret a parent wrote on descriptor fd and closes
// it. Only a pipe is read, and without waiting: a descriptor the shell
// opened (a terminal, a file, a pipe with nothing in it) is no parent's,
// and reading it must not block or consume a file.
func readSecret(fd int) (string, bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return "", false
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return "", false
	}
	var b [64]byte
	n, err := syscall.Read(fd, b[:])
	if err != nil || n <= 0 {
		return "", false
	}
	s, ok := strings.CutSuffix(string(b[:n]), "\n")
	if !ok || s == "" {
		return "", false
	}
	syscall.Close(fd)
	return s, true
}
