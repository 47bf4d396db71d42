package simrun

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/simrun/worker"
)

// huntHashes runs a search and returns every run's strategy and trace
// hash, in order, and the result.
func huntHashes(t *testing.T, o hunt.Options) ([]string, hunt.Result) {
	t.Helper()
	var hashes []string
	o.OnRun = func(ri hunt.RunInfo) { hashes = append(hashes, string(ri.Strategy)+":"+ri.Hash) }
	res, err := hunt.Search(context.Background(), o)
	require.NoError(t, err)
	return hashes, res
}

// hunt.TestSearchDeterministic with its runs in worker processes (this
// test binary, as simrun hunt-worker): the same -seed, -workers and -runs
// make the same runs in the same order with the same trace hashes and
// coverage, in worker processes and in this one.
func TestHuntIsolatedDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	for _, workers := range []int{1, 2} {
		o := hunt.Options{Algo: "raft", Runs: 40, Seed: 7, Workers: workers, Quiet: true}
		in, rin := huntHashes(t, o)
		var iso [2][]string
		for k := range iso {
			pool, err := worker.NewHuntPool("simrun", 10*time.Second)
			require.NoError(t, err)
			o.Runner = pool
			var riso hunt.Result
			iso[k], riso = huntHashes(t, o)
			pool.Close()
			assert.Equal(t, rin.Coverage, riso.Coverage)
			assert.Equal(t, rin.ByStrategy, riso.ByStrategy)
		}
		require.Len(t, in, 40)
		assert.Equal(t, in, iso[0], "workers %d: isolated runs as in-process", workers)
		assert.Equal(t, iso[0], iso[1], "workers %d", workers)
	}
}

// -isolate is honoured for a built-in algorithm; without it a built-in
// algorithm (InProcess) is hunted in this process; -handler-timeout must
// be positive.
func TestHuntIsolateFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir := t.TempDir()
	code, out, errs := simrun(t, "hunt", "-algo", "raft", "-runs", "10", "-workers", "1", "-isolate", "-out", dir+"/a")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "runs in 1 worker process (-isolate)")
	assert.Contains(t, out, "nothing found: 10 runs")
	code, _, errs = simrun(t, "hunt", "-algo", "raft", "-runs", "10", "-workers", "1", "-out", dir+"/b")
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, errs, "worker process")
	code, _, errs = simrun(t, "hunt", "-algo", "raft", "-runs", "1", "-handler-timeout", "0s")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "-handler-timeout must be positive")
}
