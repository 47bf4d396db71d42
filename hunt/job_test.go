package hunt

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
)

// jsonRunner is a Runner that sends every job and result through JSON, as
// a worker process's pipe does, and executes them in this process. kill,
// if set, says which jobs "kill their worker".
type jsonRunner struct {
	t    *testing.T
	kill func(Job) bool
}

func roundTrip[T any](t *testing.T, v T) T {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var back T
	require.NoError(t, json.Unmarshal(b, &back))
	return back
}

func (r *jsonRunner) Run(_ context.Context, _ int, j Job) JobResult {
	j = roundTrip(r.t, j)
	if r.kill != nil && r.kill(j) {
		return JobResult{Died: true, Failure: []string{"crashed"}, Crash: "fatal error: stack overflow\n\nmain.recurse()"}
	}
	return roundTrip(r.t, RunJob(j, Hooks{}))
}

func (r *jsonRunner) Reproduce(_ context.Context, j ReproJob) (ReproResult, error) {
	if r.kill != nil && r.kill(j.Run) {
		return ReproResult{}, errors.New("worker died")
	}
	return roundTrip(r.t, ReproduceJob(roundTrip(r.t, j), nil)), nil
}

func (r *jsonRunner) Cluster(_ context.Context, j ClusterJob) (ClusterResult, error) {
	return roundTrip(r.t, BuildCluster(roundTrip(r.t, j))), nil
}

// A search whose runs cross a process boundary (the run's scenario as
// YAML, its result as JSON) makes the same runs, in the same order, with
// the same trace hashes and coverage, as one that runs them in this
// process: isolation changes where runs execute, not which.
func TestSearchDeterministicThroughRunner(t *testing.T) {
	for _, workers := range []int{1, 3} {
		o := Options{Algo: "raft", Runs: 40, Seed: 7, Workers: workers}
		r1, h1 := hashesOf(t, o)
		o.Runner = &jsonRunner{t: t}
		r2, h2 := hashesOf(t, o)
		r3, h3 := hashesOf(t, o)
		require.Len(t, h1, 40)
		assert.Equal(t, h1, h2, "workers %d", workers)
		assert.Equal(t, h2, h3, "workers %d", workers)
		assert.Equal(t, r1.Coverage, r2.Coverage)
		assert.Equal(t, r1.ByStrategy, r2.ByStrategy)
		assert.Equal(t, r2.Coverage, r3.Coverage)
	}
}

// A finding through the runner is replayed and shrunk by it, to the same
// reproduction an in-process search writes.
func TestRunnerReproducesFinding(t *testing.T) {
	if raceEnabled {
		t.Skip("a one-worker search until found; the plain run checks it (race_on_test.go)")
	}
	o := Options{Algo: "zoo-raft-votedfor", Strategies: []Strategy{StrategyState}, Runs: 5000, Seed: 1, Workers: 1,
		ShrinkBudget: 10 * time.Second, Quiet: true}
	in, err := Search(context.Background(), o)
	require.NoError(t, err)
	require.True(t, in.Found)
	o.Runner = &jsonRunner{t: t}
	iso, err := Search(context.Background(), o)
	require.NoError(t, err)
	require.True(t, iso.Found)
	assert.Equal(t, in.Runs, iso.Runs)
	assert.Equal(t, in.Seed, iso.Seed)
	assert.Equal(t, in.Failure, iso.Failure)
	assert.Equal(t, string(in.Explicit), string(iso.Explicit))
	assert.Equal(t, in.Explanation, iso.Explanation)
	sc, err := scenario.Parse("repro.yaml", iso.Repro)
	require.NoError(t, err)
	r, err := sc.Run(scenario.RunOptions{Seed: sc.Seed})
	require.NoError(t, err)
	assert.Contains(t, scenario.Failure(r), "election_safety", "the repro must fail the same way")
}

// A run whose worker died is the search's crashed finding: its fatal
// error is the explanation, and the reproduction is the run's schedule
// with its seed, unshrunk (replaying it in-process would die too). The
// search stops there; runs before it were judged as usual.
func TestDiedRunIsACrashedFinding(t *testing.T) {
	n := 0
	o := Options{Algo: "raft", Runs: 40, Seed: 7, Workers: 1, Quiet: true}
	o.Runner = &jsonRunner{t: t, kill: func(Job) bool { n++; return n == 5 }}
	res, err := Search(context.Background(), o)
	require.NoError(t, err)
	require.True(t, res.Found)
	assert.Equal(t, 5, res.Runs)
	assert.Equal(t, "crashed", res.Check)
	assert.Contains(t, res.Explanation, "fatal error: stack overflow")
	assert.Contains(t, res.Explanation, "main.recurse()", "the stack")
	assert.Contains(t, string(res.Repro), "worker process died")
	sc, err := scenario.Parse("repro.yaml", res.Repro)
	require.NoError(t, err)
	assert.Equal(t, res.Seed, sc.Seed, "the run's seed replays it")

	// A finding whose replay kills the worker keeps its unshrunk schedule.
	o = Options{Algo: "zoo-raft-votedfor", Strategies: []Strategy{StrategyState}, Runs: 5000, Seed: 1, Workers: 1, Quiet: true}
	jr := &jsonRunner{t: t}
	o.Runner = jr
	found := false
	jr.kill = func(j Job) bool { return found && j.Seed != 0 }
	o.OnRun = func(ri RunInfo) { found = ri.Finding }
	res, err = Search(context.Background(), o)
	require.NoError(t, err)
	require.True(t, res.Found)
	assert.Contains(t, string(res.Repro), "did not finish: worker died")
	assert.Contains(t, res.Explanation, "election_safety")
}

// Prepare, a function, cannot reach a worker.
func TestRunnerRefusesPrepare(t *testing.T) {
	_, err := Search(context.Background(), Options{Algo: "raft", Runs: 1, Runner: &jsonRunner{t: t}, Prepare: func(*scenario.Run) {}})
	var ue *UsageError
	assert.True(t, errors.As(err, &ue), "%v", err)
}
