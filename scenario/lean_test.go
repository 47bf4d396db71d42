package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A lean run (how sweeps run) keeps no fault history, yet judges and traces
// exactly as a full run does: same trace hash, same report.
func TestLeanRunJudgesTheSame(t *testing.T) {
	sc := longDay(t, 6*time.Hour) // a random nemesis: partitions, pauses, crashes, clocks
	seeds := uint64(3)
	if raceEnabled {
		seeds = 1 // sequential; the plain run checks three
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		full, err := sc.Run(RunOptions{Seed: seed})
		require.NoError(t, err)
		lean, err := sc.Run(RunOptions{Seed: seed, Lean: true})
		require.NoError(t, err)
		require.NotEmpty(t, full.Injector.Applied(), "the nemesis injected faults")
		require.Nil(t, lean.Injector.Applied())
		require.Equal(t, full.Sim.TraceHashHex(), lean.Sim.TraceHashHex())
		require.Equal(t, full.Report.Checks, lean.Report.Checks)
		require.Equal(t, full.Report.Failovers, lean.Report.Failovers)
		require.Equal(t, full.Report.Cron, lean.Report.Cron)
		require.Equal(t, full.OK, lean.OK)
		require.Panics(t, func() { lean.Explicit() }, "no history to make explicit")
	}
}
