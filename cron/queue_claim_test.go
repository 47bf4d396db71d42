package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// The seed's design: a worker claims an execution before it runs it —
// claim_execution: UPDATE … SET status = 'running' WHERE id = ? AND
// status IN ('pending', 'failed'). A worker paused 12 s mid-job (ack
// late, visibility 8 s, stale after 3 s, at least once): the store
// declares its execution dead at +3 s and the reaper enqueues attempt 2,
// which another worker runs; at +8 s the queue delivers the paused
// worker's message again. With the claim the third worker's claim of the
// dead execution is refused and the message dropped: two executions of
// the slot (the paused one, which resumes, and attempt 2). Must-refute
// twin, NoClaim (a Celery worker runs what it is delivered): the
// redelivered message runs too, three executions.
func TestWorkerClaimRefusesDeadExecution(t *testing.T) {
	run := func(noClaim bool) (started, refused int) {
		q := cron.QueueConfig{Workers: 3, Ack: cron.AckLate, VisibilityTimeout: 8 * time.Second, Heartbeat: time.Second,
			StaleAfter: 3 * time.Second, Delivery: cron.AtLeastOnce, NoClaim: noClaim}
		w := newQWorld(t, 21, qcfg(3*time.Second, fencedIdem, q), [][]tenure{{{0, time.Hour, 1}}}, true)
		paused := sim.None
		w.s.At(at(61*time.Second), func() {
			for _, id := range w.workers {
				if w.s.Node(id).(*cron.Worker).Busy() {
					paused = id
					w.s.Pause(id)
				}
			}
		})
		w.s.At(at(73*time.Second), func() { w.s.Resume(paused) })
		w.s.RunUntil(at(95 * time.Second))
		require.NotEqual(t, sim.None, paused, "a worker was busy with the 02:00 slot")
		slot := slotAt(2, 0, 0)
		for _, r := range w.facts(sim.FactExecStarted) {
			if r.B == slot {
				started++
			}
		}
		for _, r := range w.rec.Records {
			if r.Type == sim.RecEffect && r.Name == "worker.claim_refused" && r.B == slot {
				refused++
			}
		}
		require.Equal(t, 1, w.queue.Redelivered, "the paused worker's message came back")
		return started, refused
	}
	started, refused := run(false)
	assert.Equal(t, 2, started, "the paused execution and attempt 2")
	assert.Equal(t, 1, refused, "the redelivered message of the dead execution")
	started, refused = run(true)
	assert.Equal(t, 3, started, "no claim: the redelivered message runs as well")
	assert.Zero(t, refused)
}

// claim_execution's WHERE status IN ('pending', 'failed'): a retry (the
// same execution, failed) is claimed again and runs. Must-refute: with
// every run failing and two retries, each attempt's claim takes.
func TestWorkerClaimTakesAFailedExecutionsRetry(t *testing.T) {
	q := cron.QueueConfig{Workers: 2, MaxRetries: 2, FailRate: 1}
	w := newQWorld(t, 22, qcfg(time.Second, fencedIdem, q), [][]tenure{{{0, time.Hour, 1}}}, true)
	w.s.RunUntil(at(75 * time.Second))
	slot := slotAt(2, 0, 0)
	started := 0
	for _, r := range w.facts(sim.FactExecStarted) {
		if r.B == slot {
			started++
		}
	}
	assert.Equal(t, 3, started, "the first attempt and two retries")
	for _, r := range w.rec.Records {
		assert.False(t, r.Type == sim.RecEffect && r.Name == "worker.claim_refused", "no claim refused: %s", r.Detail)
	}
}
