package simrun

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/registry"
)

// A user's algorithm (InProcess unset) is swept in worker processes unless
// -isolate=false, even for one run; electsim's own are not unless
// -isolate; a worker process and (without -isolate) a test binary never
// isolate.
func TestIsolationDefaults(t *testing.T) {
	const user = "user-algo"
	lookup := func(name string) (*registry.Algorithm, bool) {
		switch name {
		case user:
			return &registry.Algorithm{Name: user}, true
		case "raft":
			return &registry.Algorithm{Name: "raft", InProcess: true}, true
		}
		return nil, false
	}
	old := inTestBinary
	inTestBinary = func() bool { return false }
	defer func() { inTestBinary = old }()
	for _, tc := range []struct {
		name      string
		o         options
		algos     []string
		runs      int
		worker    bool
		iso, auto bool
	}{
		{"builtin", options{}, []string{"raft"}, 10, false, false, false},
		{"builtin -isolate", options{isolate: true, isolateSet: true}, []string{"raft"}, 10, false, true, false},
		{"user", options{}, []string{user}, 10, false, true, true},
		{"user beside builtin", options{}, []string{"raft", user}, 10, false, true, true},
		{"user -isolate=false", options{isolateSet: true}, []string{user}, 10, false, false, false},
		{"user, one run", options{}, []string{user}, 1, false, true, true},
		{"user, in a worker", options{}, []string{user}, 10, true, false, false},
	} {
		iso, auto := isolation(&tc.o, tc.algos, tc.runs, tc.worker, lookup)
		assert.Equal(t, tc.iso, iso, tc.name)
		assert.Equal(t, tc.auto, auto, tc.name)
	}
	inTestBinary = func() bool { return true }
	iso, _ := isolation(&options{}, []string{user}, 10, false, lookup)
	assert.False(t, iso, "a test binary without -isolate runs in-process")
}

// electsim's own algorithms are registered InProcess (algorithms/builtin).
func TestBuiltinAlgorithmsRunInProcess(t *testing.T) {
	for _, name := range []string{"raft", "etcdraft", "bully", "ring", "lease", "etcd", "zookeeper", "consul"} {
		d, ok := registry.Default.Lookup(name)
		if assert.True(t, ok, name) {
			assert.True(t, d.InProcess, name)
		}
	}
}
