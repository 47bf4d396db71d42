package etcdraft

import "fmt"

// libPanic is the value the library's Fatal and Panic calls panic with, so
// the adapter can tell the library's invariant checks (see halt) from bugs.
type libPanic string

// discardLogger is the library's raft.Logger: nodes do no I/O, so ordinary
// log lines are dropped; Fatal and Panic still stop the node (the library
// calls them on broken invariants, e.g. a follower whose log was lost).
type discardLogger struct{}

func (discardLogger) Debug(...any)            {}
func (discardLogger) Debugf(string, ...any)   {}
func (discardLogger) Error(...any)            {}
func (discardLogger) Errorf(string, ...any)   {}
func (discardLogger) Info(...any)             {}
func (discardLogger) Infof(string, ...any)    {}
func (discardLogger) Warning(...any)          {}
func (discardLogger) Warningf(string, ...any) {}

func (discardLogger) Fatal(v ...any) { panic(libPanic(fmt.Sprint(v...))) }
func (discardLogger) Fatalf(format string, v ...any) {
	panic(libPanic(fmt.Sprintf(format, v...)))
}
func (discardLogger) Panic(v ...any) { panic(libPanic(fmt.Sprint(v...))) }
func (discardLogger) Panicf(format string, v ...any) {
	panic(libPanic(fmt.Sprintf(format, v...)))
}
