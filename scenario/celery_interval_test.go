package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// celery-interval-takeover: celery/schedules.py schedule.is_due counts
// run_every from last_run_at, which _next_instance sets to the beat's now
// at the fire, so after the 02:33 catch-up every later run keeps its
// phase: 02:30's catch-up and 02:35..02:50 are all 3 minutes late
// (late_start on five slots). Must-refute twin: the crontab "*/5" of
// celery-beat-killed returns to its grid after the catch-up — only 02:30
// is late.
func TestCeleryIntervalTakeoverKeepsThePhase(t *testing.T) {
	late := func(sets ...string) []int {
		sc, err := scenario.LoadWith("../scenarios/celery-interval-takeover.yaml", sets)
		require.NoError(t, err)
		var out []int
		for seed := uint64(1); seed <= 3; seed++ {
			r, err := sc.Run(scenario.RunOptions{Seed: seed, Recorder: &sim.Recorder{}})
			require.NoError(t, err)
			c, _ := r.Report.Check(checker.CheckLateStart)
			out = append(out, c.Count)
		}
		return out
	}
	assert.Equal(t, []int{5, 5, 5}, late(), "02:30 .. 02:50, each 3 minutes late")
	assert.Equal(t, []int{1, 1, 1}, late(`cron.jobs=[{name: report, schedule: "*/5 * * * *", duration: 10s}]`), "the crontab is late once")
}
