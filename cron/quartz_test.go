package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
)

// TestQuartzCatchUpIsANewFireTime reproduces Quartz's FIRE_ONCE_NOW for a
// CronTrigger (CronTriggerImpl.updateAfterMisfire: setNextFireTime(new
// Date())): the catch-up run's scheduledFireTime is the time the misfire
// was handled (JobStoreSupport.triggerFired passes getPreviousFireTime()
// after triggered() as the bundle's scheduledFireTime), not the slot. n1
// believes it leads throughout but is paused over the 02:00 slot for 80 s;
// n2 leads meanwhile and runs 02:00 on time. When n1 resumes its 02:00
// timer fires 80 s late — a misfire (threshold 60 s) — and it fires once
// now. With idempotency keyed on the scheduled time (the resource's only
// policy here), the slot-keyed fire_now run presents 02:00 and is rejected
// as a duplicate; Quartz's run presents 02:01:20 and is applied: 02:00 runs
// twice.
func TestQuartzCatchUpIsANewFireTime(t *testing.T) {
	run := func(policy string) (*world, cron.Results) {
		cfg := cron.Config{Jobs: dailyReport(), Policy: cron.Policy{Idempotency: true},
			Misfire: cron.Misfire{Policy: policy, Threshold: time.Minute}}
		w := newWorld(t, 1, cfg, [][]tenure{{{0, time.Hour, 1}}, {{55 * time.Second, time.Hour, 2}}})
		w.s.At(at(50*time.Second), func() { w.s.Pause(w.nodes[0]) })
		w.s.At(at(130*time.Second), func() { w.s.Resume(w.nodes[0]) })
		w.s.RunUntil(at(3 * time.Minute))
		return w, cron.Compute(cfg.Jobs, w.res.Log(), start, start.Add(2*time.Minute))
	}
	w, res := run(cron.MisfireFireNow)
	assert.Equal(t, 1, res.Once, "slot-keyed: the catch-up run presents 02:00")
	assert.Equal(t, 0, res.MoreThanOnce)
	assert.Equal(t, 1, res.Rejected[cron.ReasonDuplicate])
	for _, e := range w.res.Log() {
		assert.Equal(t, e.Slot, e.FireTime)
	}

	w, res = run(cron.MisfireQuartz)
	assert.Equal(t, 0, res.Once)
	assert.Equal(t, 1, res.MoreThanOnce, "Quartz: the catch-up run presents its own fire time and is applied")
	var fire []int64
	for _, e := range w.res.Log() {
		require.Equal(t, slotAt(2, 0, 0), e.Slot, "both runs stand for the 02:00 slot")
		fire = append(fire, e.FireTime)
	}
	require.Len(t, fire, 2)
	assert.Equal(t, slotAt(2, 0, 0), fire[0], "n2's on-time run")
	assert.InDelta(t, float64(slotAt(2, 1, 10)), float64(fire[1]), float64(time.Second), "n1's catch-up: scheduledFireTime = when it resumed")
}

// TestQuartzClusterRecoverNeedsRequestsRecovery reproduces
// JobStoreSupport.clusterRecover: a run in progress on a failed node (its
// fired trigger row; here: a write of it reached the resource) is re-fired
// by another node only if the job requests recovery (JobDetail
// requestsRecovery, default false), and then with its original scheduled
// time. The slot-keyed fire_now policy recovers every incomplete slot.
func TestQuartzClusterRecoverNeedsRequestsRecovery(t *testing.T) {
	run := func(policy string, recovery bool) *world {
		jobs := cron.Table{{Name: "daily-report", Schedule: "0 2 * * *", RunMin: 10 * time.Second, RunMax: 10 * time.Second,
			Writes: 2, RequestsRecovery: recovery}}
		cfg := cron.Config{Jobs: jobs, Policy: cron.Policy{Idempotency: true}, Misfire: cron.Misfire{Policy: policy, Threshold: time.Minute}}
		// n1 runs 02:00, writes step 0 at 02:00:05 and crashes at 02:00:07;
		// n2 takes over at 02:00:09.
		w := newWorld(t, 2, cfg, [][]tenure{{{0, time.Hour, 1}}, {{69 * time.Second, time.Hour, 2}}})
		w.s.At(at(67*time.Second), func() { w.s.Crash(w.nodes[0]) })
		w.s.RunUntil(at(3 * time.Minute))
		return w
	}
	completed := func(w *world) bool {
		for _, e := range w.res.Log() {
			if e.Accepted && e.Step == 1 {
				return true
			}
		}
		return false
	}
	w := run(cron.MisfireFireNow, false)
	assert.True(t, completed(w), "slot-keyed: the incomplete slot is recovered and completed")
	require.Len(t, w.effects("cron.recovered"), 1)

	w = run(cron.MisfireQuartz, false)
	assert.False(t, completed(w), "Quartz without requestsRecovery: the in-progress run is dropped")
	missed := w.effects("cron.missed")
	require.Len(t, missed, 1)
	assert.Contains(t, missed[0].Detail, "does not request recovery")

	w = run(cron.MisfireQuartz, true)
	assert.True(t, completed(w), "Quartz with requestsRecovery: re-fired and completed")
	require.Len(t, w.effects("cron.recovered"), 1)
	for _, e := range w.res.Log() {
		assert.Equal(t, slotAt(2, 0, 0), e.FireTime, "the recovery trigger keeps the original scheduled time")
	}
}
