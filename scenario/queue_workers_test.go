package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// A duplicate execution's report names every worker with its executions
// (taken, heartbeats, acked, redelivered), counted from the typed facts
// the workers and the queue record: queue-worker-pause.yaml under fencing
// alone, where the paused worker's message is delivered again, another
// worker runs it and both writes are applied.
func TestDuplicateExecutionNamesWorkersWithCounts(t *testing.T) {
	sc, err := LoadWith(shipped("queue-worker-pause.yaml"), []string{"cron.policy=[fencing]", "expect.violations=[duplicate_execution, double_execution]", "expect.allow=[linearizability]"})
	require.NoError(t, err)
	for seed := uint64(1); seed <= 3; seed++ {
		rec := &sim.Recorder{}
		r, err := sc.Run(RunOptions{Seed: seed, Recorder: rec, Story: true})
		require.NoError(t, err)
		require.True(t, r.OK, "seed %d: %v", seed, r.Problems)

		// The counts are the facts', node by node.
		want := map[sim.NodeID]*checker.WorkerExecs{}
		of := func(n sim.NodeID) *checker.WorkerExecs {
			if want[n] == nil {
				want[n] = &checker.WorkerExecs{Node: n, Name: r.Sim.NodeName(n)}
			}
			return want[n]
		}
		var paused sim.NodeID = sim.None
		redelivered := 0
		for _, x := range rec.Records {
			switch {
			case x.Type == sim.RecPause:
				paused = x.Node
			case x.Type != sim.RecEffect:
			case x.Fact == sim.FactExecStarted:
				of(x.Node).Taken++
			case x.Fact == sim.FactExecHeartbeat:
				of(x.Node).Heartbeats++
			case x.Fact == sim.FactExecAcked:
				of(x.Node).Acked++
			case x.Fact == sim.FactExecCompleted:
				of(x.Node).Completed++
			case x.Fact == sim.FactExecFailed:
				of(x.Node).Failed++
			case x.Fact == sim.FactExecRedelivered:
				redelivered++
			}
		}
		require.NotEqual(t, sim.None, paused)
		require.Equal(t, 1, redelivered, "seed %d: the paused worker's message came back once", seed)
		of(paused).Redelivered = 1 // the message it held
		require.Len(t, r.Report.Workers, len(want))
		for _, w := range r.Report.Workers {
			assert.Equal(t, *want[w.Node], w, "seed %d", seed)
		}
		assert.Zero(t, r.Report.WorkersOmitted)

		c, _ := r.Report.Check(checker.CheckDuplicateExecution)
		require.NotEmpty(t, c.Violations, "seed %d", seed)
		v := c.Violations[0]
		require.Len(t, v.NodeIDs, 2)
		for _, n := range v.NodeIDs {
			w := *want[n]
			assert.Contains(t, v.Details, w.String(), "seed %d: the finding names %s with its counts", seed, w.Name)
			assert.Contains(t, v.Explanation, w.String(), "seed %d", seed)
			assert.Positive(t, w.Taken)
			assert.Positive(t, w.Heartbeats)
		}
		assert.Contains(t, v.Explanation, "again: unacknowledged past its visibility timeout", "seed %d: the story tells the redelivery", seed)
		assert.Contains(t, v.NodeIDs, paused, "seed %d: the worker whose message was delivered again is one of the two", seed)
	}
}
