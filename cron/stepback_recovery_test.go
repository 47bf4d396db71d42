package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/cron"
)

// A new tenure whose wall clock is stepped back between its recovery
// query and the answer still runs the slot that the step made "not yet
// due": n1 leads again at t=36.5 s with its clock 5 s ahead (01:59:41.5),
// so its schedule is re-read past 01:59:40 and its query asks about slots
// up to 01:59:41.5; the clock is stepped back 5 s before the answer
// arrives, and the answer is trimmed to the clock's now (01:59:36.5),
// leaving 01:59:40 neither recovered nor scheduled. swarm.yaml seed 149
// under zookeeper with network.drop=0 missed 01:59:55 this way (n3
// re-led with its clock 3.3 s ahead and the nemesis reverted the offset
// 7 ms later); the missed_slots contract excused it (clock_step on the
// leader), but nothing forces the miss: once the answer is trimmed, the
// schedule is re-read from the clock as it reads then.
func TestRecoveryAnswerAfterClockStepBackKeepsTheSlot(t *testing.T) {
	jobs := cron.Table{{Name: "tick", Schedule: "@every 10s", RunMin: 100 * time.Millisecond, RunMax: 100 * time.Millisecond}}
	w := newWorld(t, 3, cron.Config{Jobs: jobs, Policy: cron.Policy{Fencing: true, Idempotency: true}},
		[][]tenure{{{0, 30 * time.Second, 1}, {36500 * time.Millisecond, time.Hour, 2}}, nil})
	w.s.At(at(36*time.Second), func() { w.s.StepWall(w.nodes[0], 5*time.Second) })
	w.s.At(at(36500*time.Millisecond+500*time.Microsecond), func() { w.s.StepWall(w.nodes[0], -5*time.Second) })
	w.s.RunUntil(at(90 * time.Second))
	res := cron.Compute(w.cfg.Jobs, w.res.Log(), start, start.Add(80*time.Second))
	assert.Empty(t, res.MissedSlots, "%+v", res)
}
