package simrun

import "syscall"

// makeNullDevice makes a character device at path with /dev/null's
// numbers on Linux (major 1, minor 3), for the output cases that write to
// a device (hostile_outputs_test.go).
func makeNullDevice(path string) error {
	return syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3)
}
