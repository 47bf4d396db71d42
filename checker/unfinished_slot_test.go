package checker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// lost_slot's "started, never completed, never run again", whatever the
// leadership when the slot came due (issue 36): the 20 s slot comes due in
// a failover gap (n0 steps down at 15 s, n1 leads at 25 s); the new leader
// starts it late and it is killed half-done — Kubernetes' Replace
// deleting its Job (cronjob_controllerv2.go syncCronJob, Replace) — with
// no completion and no further run. Must-refute twins: the same late run
// completing, and a late run killed and then run again to completion,
// are not lost.
func TestLostSlotStartedInAGapAndKilled(t *testing.T) {
	gap := func(extra ...sim.Record) checker.Check {
		recs, log := clean()
		recs = append(recs[:3], recs[5:]...) // the 20 s slot's on-time run is gone
		recs = append(recs, sim.Record{At: sim.Time(15 * time.Second), Type: sim.RecStepDown, Node: 0},
			sim.Record{At: sim.Time(25 * time.Second), Type: sim.RecLead, Node: 1, Epoch: 2, Token: 2})
		recs = append(recs, extra...)
		sortRecs(recs)
		return status(t, qRun(t, recs, log, false), checker.CheckLostSlot)
	}
	killed := gap(qExec(26*time.Second, 3, sim.FactExecStarted, 7, 20*time.Second), qExec(28*time.Second, 3, sim.FactExecFailed, 7, 20*time.Second))
	require.Equal(t, checker.StatusViolated, killed.Status, killed.Summary)
	require.Equal(t, 1, killed.Count)
	assert.Contains(t, killed.Violations[0].Details, "while no scheduler led")
	assert.Contains(t, killed.Violations[0].Details, "none completed")

	done := gap(qExec(26*time.Second, 3, sim.FactExecStarted, 7, 20*time.Second), qExec(28*time.Second, 3, sim.FactExecCompleted, 7, 20*time.Second))
	assert.Equal(t, checker.StatusOK, done.Status, done.Summary)
	rerun := gap(qExec(26*time.Second, 3, sim.FactExecStarted, 7, 20*time.Second), qExec(27*time.Second, 3, sim.FactExecFailed, 7, 20*time.Second),
		qExec(28*time.Second, 2, sim.FactExecStarted, 8, 20*time.Second), qExec(29*time.Second, 2, sim.FactExecCompleted, 8, 20*time.Second))
	assert.Equal(t, checker.StatusOK, rerun.Status, rerun.Summary)
}
