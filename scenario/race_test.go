package scenario

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A run owns its cron job table: Build validates a copy, never the
// scenario's, so parallel runs of one scenario share no mutable state
// (simrun -workers 2 raced on cron.Job's parsed schedule before).
func TestBuildCopiesTheJobTable(t *testing.T) {
	sc, err := Load(shipped("gc-pause-fenced.yaml"))
	require.NoError(t, err)
	r, err := sc.Build(RunOptions{Seed: 1})
	require.NoError(t, err)
	require.NotEmpty(t, r.CronConfig.Jobs)
	require.NotSame(t, &sc.Cron.Config.Jobs[0], &r.CronConfig.Jobs[0], "the run validated the scenario's own job table")
}

// Parallel runs of one scenario are race-free (run with go test -race) and
// give the same verdicts as sequential ones.
func TestParallelRunsOfOneScenario(t *testing.T) {
	sc, err := Load(shipped("gc-pause-fenced.yaml"))
	require.NoError(t, err)
	want := make([]string, 4)
	for i := range want {
		r, err := sc.Run(RunOptions{Seed: uint64(i + 1)})
		require.NoError(t, err)
		want[i] = r.Sim.TraceHashHex() + r.Report.String()
	}
	got := runTogether(sc, []uint64{1, 2, 3, 4})
	require.Equal(t, want, got)
}

// Two goroutines running the same seed of one loaded Scenario at once
// share no mutable state (go test -race reports any) and agree on the
// trace and the verdict, for every shipped scenario: every cron mode
// (leader, shedlock, queue, kubernetes, celery) and every algorithm model
// the catalogue runs. This is the race stage's test of the run path:
// .ci/run races only this package's parallel tests, because the rest run
// one goroutine (the package starts none) and cannot race.
func TestParallelRunsOfEveryShippedScenario(t *testing.T) {
	for _, path := range shippedScenarios(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			sc, err := Load(path)
			require.NoError(t, err)
			got := runTogether(sc, []uint64{1, 1})
			require.NotEmpty(t, got[0])
			require.Equal(t, got[0], got[1])
		})
	}
}

// runTogether runs sc once per seed, each in its own goroutine at the same
// time, and returns each run's trace hash and verdict ("" if it failed to
// build).
func runTogether(sc *Scenario, seeds []uint64) []string {
	got := make([]string, len(seeds))
	var wg sync.WaitGroup
	for i, seed := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := sc.Run(RunOptions{Seed: seed})
			if err == nil {
				got[i] = r.Sim.TraceHashHex() + r.Report.String()
			}
		}()
	}
	wg.Wait()
	return got
}
