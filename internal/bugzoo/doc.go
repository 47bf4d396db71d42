// Package bugzoo is the harness's bug zoo: realistic buggy variants of the
// shipped election algorithms and of the cron layer, each mirroring a bug
// a real system shipped (an issue, a postmortem, a paper) and each
// forbidden by the contract of the algorithm it breaks.
//
// A variant is registered only by tests (Register), under its own
// algorithm name (zoo-raft-votedfor, ...), so no scenario file and no
// simrun build outside the tests can reach it. Variants are wrappers
// around the real algorithm's factory, its sim.Node or its sim.Env (an Env
// whose Persist forgets the vote, a node that reports its step-down late,
// a configuration value mis-read) or, where a bug needs a knob inside the
// algorithm, a test hook the algorithm exports for this package only (a
// small zoohook.go file next to the algorithm, zero-cost when off).
//
// Each zoo entry reuses the real algorithm's Contract function, so a zoo
// bug is caught exactly when it breaks the real algorithm's contract; its
// test (zoo_test.go) shows a targeted scenario (testdata/) that catches it
// and does not fail the real algorithm (the must-refute pair). See
// docs/bugzoo.md.
package bugzoo
