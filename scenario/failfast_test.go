package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// With StopAtViolation (simrun -fail-fast) a run stops at its first
// violation that would fail the scenario: bully under a partition splits
// brains (no resource to find the overlap harmless), so the run ends
// "stopped" long before its 60 s, with the split-brain found; the same run
// without it goes on to the end and finds the same first overlap.
func TestStopAtFirstViolation(t *testing.T) {
	sc, err := LoadWith(shipped("bully-partition.yaml"), []string{"expect.allow=[]", "expect.violations=[]"})
	require.NoError(t, err)
	full, err := sc.Run(RunOptions{Seed: 1})
	require.NoError(t, err)
	sb, _ := full.Report.Check(checker.CheckSplitBrain)
	require.Equal(t, checker.StatusViolated, sb.Status)

	stopped, err := sc.Run(RunOptions{Seed: 1, StopAtViolation: true})
	require.NoError(t, err)
	require.Equal(t, sim.OutcomeStopped, stopped.Outcome)
	require.False(t, stopped.OK)
	require.Contains(t, stopped.Problems[len(stopped.Problems)-1], "first violation (-fail-fast)")
	first, _ := stopped.Report.Check(checker.CheckSplitBrain)
	require.Equal(t, checker.StatusViolated, first.Status)
	require.Equal(t, sb.Violations[0].At, first.Violations[0].At, "the same first overlap")
	require.Less(t, stopped.Sim.Now(), full.Sim.Now())

	// A tolerated violation does not stop the run.
	allowed, err := LoadWith(shipped("bully-partition.yaml"), nil)
	require.NoError(t, err)
	r, err := allowed.Run(RunOptions{Seed: 1, StopAtViolation: true})
	require.NoError(t, err)
	require.NotEqual(t, sim.OutcomeStopped, r.Outcome)
}
