//go:build !linux

package reality

import "syscall"

// procAttr: no parent-death signal outside Linux; Group.Stop alone stops
// the processes.
func procAttr() *syscall.SysProcAttr { return nil }
