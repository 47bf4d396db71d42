package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// docs/checkers.md, "liveness": after faults stop, a leader must appear
// (and cron must resume) within a bound.
func TestLivenessSettle(t *testing.T) {
	in := input(raftLike()) // n2 recognised at 5.310s
	in.SettleStart, in.SettleBound = at(5000), time.Second
	c := mustCheck(Run(in), CheckLiveness)
	assert.Equal(t, StatusOK, c.Status)
	assert.Equal(t, "n2 recognised as leader at t=5.310s, 310ms into the settle phase (bound 1s)", c.Summary)

	in.SettleBound = 300 * time.Millisecond
	c = mustCheck(Run(in), CheckLiveness)
	require.Equal(t, StatusViolated, c.Status)
	assert.Equal(t, "no leader was recognised between t=5.000s and t=5.300s (settle bound 300ms); the first came at t=5.310s (n2)", c.Violations[0].Details)
	assert.Contains(t, c.Violations[0].Explanation, "→ no leader within the settle bound")

	// A leader already recognised when the settle phase starts counts at once.
	in.SettleStart = at(2000)
	c = mustCheck(Run(in), CheckLiveness)
	assert.Equal(t, "n1 recognised as leader at t=2.000s, 0s into the settle phase (bound 300ms)", c.Summary)

	in.SettleBound = 0
	assert.Equal(t, StatusSkipped, mustCheck(Run(in), CheckLiveness).Status)
}

func TestLivenessTraceEndsFirst(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).crash(5000, 0, true).end(6000)
	in := input(b)
	in.SettleStart, in.SettleBound = at(5500), 5*time.Second
	c := mustCheck(Run(in), CheckLiveness)
	require.Equal(t, StatusViolated, c.Status)
	assert.Equal(t, "no leader was recognised from t=5.500s until the trace ended at t=6.000s (settle bound 5s)", c.Violations[0].Details)
}

// Cron must resume after the faults: with slots due every 10s, an applied
// write after the settle phase began is required.
func TestLivenessCronResumed(t *testing.T) {
	mk := func(log ...cron.LogEntry) Input {
		in := input(raftLike())
		in.Records[len(in.Records)-1].At = at(60000) // the run lasts 60s
		in.SettleStart, in.SettleBound = at(5000), time.Second
		in.Jobs = job("@every 10s")
		in.Resource = log
		if in.Resource == nil {
			in.Resource = []cron.LogEntry{}
		}
		return in
	}
	c := mustCheck(Run(mk()), CheckLiveness)
	require.Equal(t, StatusViolated, c.Status)
	// Slots at 10s…50s of the 60s run are due early enough (run time 1s +
	// bound 1s): five.
	assert.Equal(t, "cron did not resume: 5 slot(s) fell due in the settle phase but the resource applied no write after t=5.000s", c.Violations[0].Details)

	slot := sim.DefaultWallStart.Add(10 * time.Second).UnixNano()
	c = mustCheck(Run(mk(write(11000, 1, 1, slot, 0, 2, true, ""))), CheckLiveness)
	assert.Equal(t, StatusOK, c.Status)
	assert.Equal(t, "n2 recognised as leader at t=5.310s, 310ms into the settle phase (bound 1s); cron resumed (first write applied at t=11.000s)", c.Summary)
}

// Missed slots come from the resource log (cron.Compute over the window);
// each is explained with what the executors recorded about it.
func TestMissedSlots(t *testing.T) {
	s10 := sim.DefaultWallStart.Add(10 * time.Second).UnixNano()
	s20 := sim.DefaultWallStart.Add(20 * time.Second).UnixNano()
	b := (&trace{}).lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).
		pause(9000, 0).effect(25000, 0, sim.FactRunSkipped, 0, s10, 0)
	b.recs[len(b.recs)-1].Detail = "report@1970: misfired 15s late (threshold 1s, policy skip)"
	b.resume(25000, 0).end(40000)
	in := input(b)
	in.Jobs = job("@every 10s")
	in.Resource = []cron.LogEntry{write(25100, 0, 1, s20, 0, 1, true, "")}
	in.CronFrom, in.CronTo = sim.DefaultWallStart, sim.DefaultWallStart.Add(30*time.Second)
	r := Run(in)
	c := mustCheck(r, CheckMissedSlots)
	require.Equal(t, StatusViolated, c.Status)
	assert.Equal(t, "2 of 3 due slot(s) missed", c.Summary)
	assert.Equal(t, "report@2026-01-01T00:00:10Z (due at t≈10.000s by an exact clock) was never applied; no leader was recognised then", c.Violations[0].Details)
	assert.Contains(t, c.Violations[0].Explanation, "t=9.000s n1 paused for 16s")
	assert.Contains(t, c.Violations[0].Explanation, "n1 did not run report@1970: misfired 15s late")
	require.NotNil(t, r.Cron)
	assert.Equal(t, 3, r.Cron.Due)
	assert.Equal(t, 1, r.Cron.Once)

	in.CronTo = time.Time{}
	assert.Equal(t, StatusSkipped, mustCheck(Run(in), CheckMissedSlots).Status)
}
