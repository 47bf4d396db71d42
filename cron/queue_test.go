package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

var fencedIdem = cron.Policy{Fencing: true, Idempotency: true}

// With a steady leader and no faults every slot runs exactly once, on a
// worker, never on the scheduler.
func TestQueueModeRunsEverySlotOnce(t *testing.T) {
	w := newQWorld(t, 1, qcfg(2*time.Second, fencedIdem, cron.QueueConfig{Workers: 2}), [][]tenure{{{0, time.Hour, 1}}, nil}, true)
	w.s.RunUntil(at(5 * time.Minute))
	res := cron.Compute(w.cfg.Jobs, w.res.Log(), start, start.Add(4*time.Minute))
	require.Greater(t, res.Due, 20)
	assert.Equal(t, res.Due, res.Once, "every slot applied by one run: %+v", res)
	for _, e := range w.res.Log() {
		assert.Contains(t, w.workers, e.Node, "only workers write")
	}
	assert.Zero(t, w.queue.Redelivered, "no redelivery without faults")
	assert.Len(t, w.facts(sim.FactExecStarted), len(w.facts(sim.FactExecCreated)), "every execution started once")
}

// A worker paused past the visibility timeout (ack late) resumes and
// writes after the redelivered copy ran elsewhere: two executions of one
// slot wrote, and only the resource's idempotency keeps it applied once;
// with policy none it is applied twice.
func TestPausedWorkerPastVisibilityTimeoutWritesAgain(t *testing.T) {
	for _, tc := range []struct {
		policy  cron.Policy
		applied int
	}{{fencedIdem, 1}, {cron.Policy{}, 2}} {
		q := cron.QueueConfig{Workers: 2, Ack: cron.AckLate, VisibilityTimeout: 3 * time.Second}
		w := newQWorld(t, 2, qcfg(2*time.Second, tc.policy, q), [][]tenure{{{0, time.Hour, 1}}}, true)
		var paused sim.NodeID = sim.None
		w.s.At(at(61*time.Second), func() {
			for _, id := range w.workers {
				if w.s.Node(id).(*cron.Worker).Busy() {
					paused = id
					w.s.Pause(id)
				}
			}
		})
		w.s.At(at(70*time.Second), func() { w.s.Resume(paused) })
		w.s.RunUntil(at(90 * time.Second))
		require.NotEqual(t, sim.None, paused, "a worker was busy with the 02:00 slot")
		slot := slotAt(2, 0, 0)
		writers := map[sim.NodeID]bool{}
		applied := 0
		for _, e := range w.res.Log() {
			if e.Slot == slot {
				writers[e.Node] = true
				if e.Accepted {
					applied++
				}
			}
		}
		assert.Len(t, writers, 2, "both workers wrote the slot (policy %s)", tc.policy)
		assert.Equal(t, tc.applied, applied, "policy %s", tc.policy)
		assert.Equal(t, 1, w.queue.Redelivered)
	}
}

// The leader crashes while a worker runs the job: the worker completes it
// and the standby, leading next, does not run it again (the store holds it).
func TestLeaderCrashWhileWorkerRuns(t *testing.T) {
	cfg := qcfg(5*time.Second, fencedIdem, cron.QueueConfig{Workers: 2})
	w := newQWorld(t, 3, cfg, [][]tenure{{{0, time.Hour, 1}}, {{62 * time.Second, time.Hour, 2}}}, true)
	w.s.At(at(61*time.Second), func() { w.s.Crash(w.sched[0]) })
	w.s.RunUntil(at(3 * time.Minute))
	res := cron.Compute(w.cfg.Jobs, w.res.Log(), start, start.Add(2*time.Minute+30*time.Second))
	assert.Equal(t, res.Due, res.Once, "%+v", res)
	assert.Zero(t, res.Rejected[cron.ReasonDuplicate], "the new leader did not re-run the slot")
}

// A worker crashes mid-job with ack early: the message is gone, the
// execution's heartbeat goes stale and the leader's reaper re-enqueues it
// under at-least-once; under at-most-once the slot is never run again.
func TestStaleHeartbeatByDeliveryPolicy(t *testing.T) {
	for _, tc := range []struct {
		delivery string
		applied  bool
	}{{cron.AtLeastOnce, true}, {cron.AtMostOnce, false}} {
		q := cron.QueueConfig{Workers: 2, Delivery: tc.delivery, Heartbeat: time.Second, StaleAfter: 3 * time.Second}
		w := newQWorld(t, 4, qcfg(4*time.Second, fencedIdem, q), [][]tenure{{{0, time.Hour, 1}}}, true)
		w.s.At(at(61*time.Second+500*time.Millisecond), func() {
			for _, id := range w.workers {
				if w.s.Node(id).(*cron.Worker).Busy() {
					w.s.Crash(id)
				}
			}
		})
		w.s.RunUntil(at(90 * time.Second))
		slot := slotAt(2, 0, 0)
		applied := false
		for _, e := range w.res.Log() {
			applied = applied || e.Slot == slot && e.Accepted
		}
		assert.Equal(t, tc.applied, applied, "delivery %s", tc.delivery)
		assert.NotEmpty(t, w.facts(sim.FactExecDead), "the stale execution was declared dead")
		st, ok := w.store.Status(0, slot)
		require.True(t, ok)
		if tc.applied {
			assert.Equal(t, cron.ExecCompleted, st)
		} else {
			assert.Equal(t, cron.ExecDead, st)
		}
	}
}

// A queue restart loses the queued messages unless it is durable.
func TestQueueDurability(t *testing.T) {
	for _, durable := range []bool{false, true} {
		// No worker polls before 02:00:30, so the 02:00 message waits in
		// the queue when it restarts at 02:00:05.
		q := cron.QueueConfig{Workers: 1, Durable: durable, Poll: 90 * time.Second}
		w := newQWorld(t, 5, qcfg(time.Second, fencedIdem, q), [][]tenure{{{0, time.Hour, 1}}}, true)
		qid, _ := w.s.NodeByName("queue")
		w.s.At(at(65*time.Second), func() { w.s.Crash(qid) })
		w.s.At(at(66*time.Second), func() { w.s.Restart(qid, true) })
		w.s.RunUntil(at(4 * time.Minute))
		applied := false
		for _, e := range w.res.Log() {
			applied = applied || e.Slot == slotAt(2, 0, 0) && e.Accepted
		}
		assert.Equal(t, durable, applied, "durable %v", durable)
	}
}

// A failing job is retried max_retries times with exponential backoff,
// then dead-lettered.
func TestRetriesBackoffAndDeadLetter(t *testing.T) {
	q := cron.QueueConfig{Workers: 1, FailRate: 1, MaxRetries: 2, Backoff: 2 * time.Second}
	cfg := qcfg(time.Second, cron.Policy{}, q)
	cfg.Jobs[0].Schedule = "@every 1h"
	w := newQWorld(t, 6, cfg, [][]tenure{{{0, 2 * time.Hour, 1}}}, true)
	w.s.RunUntil(at(90 * time.Second))
	starts := w.facts(sim.FactExecStarted)
	require.Len(t, starts, 3, "the first attempt and two retries")
	gap1, gap2 := starts[1].At.Sub(starts[0].At), starts[2].At.Sub(starts[1].At)
	assert.Greater(t, gap2, gap1+time.Second, "the second retry waits about twice as long: %v then %v", gap1, gap2)
	assert.Len(t, w.facts(sim.FactExecFailed), 3)
	assert.Len(t, w.facts(sim.FactExecDead), 1, "dead-lettered after the last retry")
}

// A job that outlives its timeout is stopped: its remaining writes are not sent.
func TestJobTimeoutStopsTheRun(t *testing.T) {
	q := cron.QueueConfig{Workers: 1, Timeout: 2500 * time.Millisecond}
	cfg := qcfg(4*time.Second, cron.Policy{}, q)
	cfg.Jobs[0].Writes = 4
	w := newQWorld(t, 7, cfg, [][]tenure{{{0, time.Hour, 1}}}, true)
	w.s.RunUntil(at(64 * time.Second))
	n := 0
	for _, e := range w.res.Log() {
		if e.Slot == slotAt(2, 0, 0) {
			n++
		}
	}
	assert.Equal(t, 2, n, "writes at 1s and 2s only; the run stopped at its 2.5s timeout")
	failed := 0
	for _, r := range w.facts(sim.FactExecFailed) {
		if r.B == slotAt(2, 0, 0) {
			failed++
		}
	}
	assert.Equal(t, 1, failed)
}
