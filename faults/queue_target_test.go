package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// idle is a node that does nothing; busyNode reports Busy as told, as a
// queue-mode worker does while it runs an execution.
type idle struct{}

func (idle) Start(sim.Env, []byte)    {}
func (idle) OnMessage(sim.Message)    {}
func (idle) OnTimer(sim.TimerID, int) {}

type busyNode struct {
	idle
	busy bool
}

func (b *busyNode) Busy() bool { return b.busy }

// The queue-mode roles resolve to the queue, the execution store, every
// worker, or one busy worker; without queue mode they are refused.
func TestQueueRoleTargets(t *testing.T) {
	s := sim.New(sim.Config{Seed: 1})
	s.AddNode("n1", idle{})
	s.AddNode("n2", idle{})
	q := s.AddNode("queue", idle{}, sim.Service())
	st := s.AddNode("execstore", idle{}, sim.Service())
	var ws []sim.NodeID
	for i, b := range []bool{false, true, false} {
		ws = append(ws, s.AddNode("w"+string(rune('1'+i)), &busyNode{busy: b}))
	}
	env := faults.Environment{Candidates: []sim.NodeID{0, 1}, Store: sim.None, Resource: sim.None,
		QueueMode: &faults.QueueNodes{Queue: q, ExecStore: st, Workers: ws}}
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	_, err := faults.New(s, env, []faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(sec(5)), Pause: &faults.Pause{Target: faults.Of(faults.TargetBusyWorker)}},
		{At: faults.Dur(sec(1)), For: durp(sec(5)), Crash: &faults.Crash{Target: faults.Of(faults.TargetQueue)}},
		{At: faults.Dur(sec(1)), For: durp(sec(5)), Crash: &faults.Crash{Target: faults.Of(faults.TargetExecStore)}},
		{At: faults.Dur(sec(2)), For: durp(sec(5)), Crash: &faults.Crash{Target: faults.Of(faults.TargetWorkers)}},
	}, nil)
	require.NoError(t, err)
	s.RunUntil(sim.Time(sec(1) + time.Millisecond))
	assert.True(t, s.IsPaused(ws[1]), "the busy worker is paused")
	assert.False(t, s.IsPaused(ws[0]) || s.IsPaused(ws[2]), "the idle ones are not")
	assert.False(t, s.IsUp(q))
	assert.False(t, s.IsUp(st))
	assert.True(t, s.IsUp(0) && s.IsUp(1), "no candidate was hit")
	s.RunUntil(sim.Time(sec(2) + time.Millisecond))
	for _, w := range ws {
		assert.False(t, s.IsUp(w), "workers crashed every worker")
	}

	s2 := sim.New(sim.Config{Seed: 1})
	s2.AddNode("n1", idle{})
	_, err = faults.New(s2, faults.Environment{Candidates: []sim.NodeID{0}, Store: sim.None, Resource: sim.None},
		[]faults.Fault{{At: faults.Dur(sec(1)), Crash: &faults.Crash{Target: faults.Of(faults.TargetWorkers)}}}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no queue-mode cron")
}
