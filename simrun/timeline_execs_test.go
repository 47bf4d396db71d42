package simrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// The timeline draws queue mode's executions on their workers' rows, and
// marks the run whose message the queue delivered again while it ran:
// queue-worker-pause.yaml, where the paused worker's message goes to the
// other worker.
func TestTimelineShowsExecutionsPerWorker(t *testing.T) {
	sc, err := scenario.LoadWith("../scenarios/queue-worker-pause.yaml", []string{"cron.policy=[fencing]"})
	require.NoError(t, err)
	for seed := uint64(1); seed <= 3; seed++ {
		r, err := sc.Run(scenario.RunOptions{Seed: seed, Story: true, Recorder: &sim.Recorder{}})
		require.NoError(t, err)
		paused := ""
		for _, rec := range r.Recorder.Records {
			if rec.Type == sim.RecPause {
				paused = r.Sim.NodeName(rec.Node)
			}
		}
		require.NotEmpty(t, paused)
		tl := timeline(r)
		perNode := map[string]int{}
		var redelivered []string
		for _, sp := range tl.Execs {
			perNode[sp.Node]++
			assert.Equal(t, "report", sp.Label)
			assert.LessOrEqual(t, sp.FromMs, sp.ToMs)
			if sp.Kind == "redelivered" {
				redelivered = append(redelivered, sp.Node)
			}
		}
		started := 0
		for _, w := range r.Report.Workers {
			assert.Equal(t, w.Taken, perNode[w.Name], "seed %d: one bar per execution %s took", seed, w.Name)
			started += w.Taken
		}
		assert.Len(t, tl.Execs, started)
		assert.Equal(t, []string{paused}, redelivered, "seed %d: the paused worker's run is the one whose message came back", seed)
	}
}
