//go:build unix && !linux

package simrun

import "errors"

// makeNullDevice is unsupported off Linux: /dev/null's numbers, and
// mknod's device argument's type (an int on Linux, a uint64 on FreeBSD),
// differ by system; the output cases skip the device there.
func makeNullDevice(string) error { return errors.ErrUnsupported }
