package scenario

import (
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
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := sc.Run(RunOptions{Seed: uint64(i + 1)})
			if err == nil {
				got[i] = r.Sim.TraceHashHex() + r.Report.String()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, want, got)
}
