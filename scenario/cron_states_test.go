package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Every protocol state of the cron modes' steps (cron.ModeStates: queue,
// beat and controller steps; issue 36) is reachable by a trigger: a fault
// after: {state: X} crashes the node that just reached X. Checked from
// typed records: the crash hits the node of the first FactProtocolState
// effect carrying X's index, at or after it. Must-refute: the index is
// the state's own (an algorithm's states come first), and a state the
// mode does not declare is refused at load time.
func TestCronStatesFireTriggers(t *testing.T) {
	for _, tc := range []struct{ mode, file string }{
		{cron.ModeQueue, "queue-leader-crash.yaml"},
		{cron.ModeCelery, "celery-beat-killed.yaml"},
		{cron.ModeKubernetes, "kube-forbid-stuck.yaml"},
	} {
		states := cron.ModeStates(tc.mode)
		require.NotEmpty(t, states, tc.mode)
		for _, st := range states {
			t.Run(st, func(t *testing.T) {
				sc, err := LoadWith(shipped(tc.file), []string{"faults=[{at: 0s, after: {state: " + st + "}, crash: event_node, for: 1ms}]"})
				require.NoError(t, err)
				r, err := sc.Run(RunOptions{Seed: 1, Recorder: &sim.Recorder{}})
				require.NoError(t, err)
				idx := int64(-1)
				for i, s := range r.CronConfig.States() {
					if s == st {
						idx = int64(r.CronConfig.StateBase + i)
					}
				}
				require.GreaterOrEqual(t, idx, int64(0), "the run declares %s", st)
				reached, crashed := sim.NodeID(sim.None), sim.NodeID(sim.None)
				var reachedAt, crashAt sim.Time
				for _, rec := range r.Recorder.Records {
					if reached == sim.None && rec.Type == sim.RecEffect && rec.Fact == sim.FactProtocolState && rec.A == idx {
						reached, reachedAt = rec.Node, rec.At
					}
					if crashed == sim.None && rec.Type == sim.RecCrash {
						crashed, crashAt = rec.Node, rec.At
					}
				}
				require.NotEqual(t, sim.None, reached, "%s reached in %s", st, tc.file)
				require.NotEqual(t, sim.None, crashed, "the trigger on %s fired", st)
				assert.Equal(t, reached, crashed, "the crash hit the node that reached %s", st)
				assert.GreaterOrEqual(t, crashAt, reachedAt)
			})
		}
	}
	_, err := LoadWith(shipped("queue-leader-crash.yaml"), []string{"faults=[{at: 0s, after: {state: beat_tick}, crash: event_node, for: 1ms}]"})
	require.Error(t, err, "queue mode declares no beat states")
	assert.Contains(t, err.Error(), "beat_tick")
}
