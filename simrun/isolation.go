package simrun

import (
	"testing"

	"github.com/electsim/electsim/registry"
)

// isolation decides whether a sweep of runs runs in worker processes for
// isolation (docs/output.md, -isolate): as -isolate says when it was given;
// otherwise, automatically, when the sweep has a run of an algorithm not
// built into electsim (registry.Algorithm.InProcess unset: a user's
// algorithm, whose stack overflow or endless handler would otherwise end
// the whole sweep, and whose goroutines only a worker process can catch:
// worker/goguard.go). Even one run: in this process, a goroutine its handler
// starts would make the result vary from one run to the next. auto
// reports the automatic choice. A worker process never isolates again,
// and inside a test binary (which cannot serve as simrun's worker unless
// its TestMain says so) only an explicit -isolate does.
// lookup finds an algorithm by name (registry.Default.Lookup).
func isolation(o *options, algos []string, runs int, worker bool, lookup func(string) (*registry.Algorithm, bool)) (isolate, auto bool) {
	if worker {
		return false, false
	}
	if o.isolateSet {
		return o.isolate, false
	}
	if runs < 1 || inTestBinary() {
		return false, false
	}
	for _, a := range algos {
		if d, ok := lookup(a); ok && !d.InProcess {
			return true, true
		}
	}
	return false, false
}

// inTestBinary reports whether simrun runs inside a go test binary (a
// variable so simrun's own tests can take the other branch).
var inTestBinary = testing.Testing
