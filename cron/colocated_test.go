package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Co-located workers: the candidates run the jobs themselves, taken from
// the queue. When the node running 02:00 crashes mid-job, its execution's
// heartbeat goes stale and the leader re-enqueues it (at-least-once): the
// slot still completes, on the other node.
func TestColocatedWorkersSurviveTheirNodesCrash(t *testing.T) {
	cfg := qcfg(4*time.Second, fencedIdem, cron.QueueConfig{Colocated: true, Ack: cron.AckEarly, StaleAfter: 3 * time.Second})
	s := sim.New(sim.Config{Seed: 11, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 5*time.Millisecond)}})
	cfg.Resource, cfg.Queue.Queue, cfg.Queue.ExecStore = 2, 3, 4
	cfg.Queue.WorkerNodes = []sim.NodeID{0, 1}
	cfg.NotBefore = start
	require.NoError(t, cfg.Validate())
	rec := &sim.Recorder{}
	s.AddSink(rec)
	tenures := [][]tenure{{{0, time.Hour, 1}}, {{0, 0, 0}, {61 * time.Second, time.Hour, 2}}}
	for i, ts := range tenures {
		ts := ts
		s.AddFreshNode(nodeName(i), func() sim.Node { return cron.NewColocated(&scripted{tenures: ts}, &cfg) })
	}
	_, res := cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	cron.AddQueue(s, "queue", &cfg)
	cron.AddExecStore(s, "execstore", &cfg)
	crashed := sim.None
	s.At(at(61*time.Second), func() {
		for _, id := range []sim.NodeID{0, 1} {
			if s.Node(id).(*cron.Colocated).Busy() {
				crashed = id
				s.Crash(id)
				return
			}
		}
	})
	s.RunUntil(at(90 * time.Second))
	require.NotEqual(t, sim.None, crashed, "a candidate was running 02:00")
	var writers []sim.NodeID
	for _, e := range res.Log() {
		if e.Slot == slotAt(2, 0, 0) && e.Accepted {
			writers = append(writers, e.Node)
		}
	}
	require.Len(t, writers, 1, "02:00 applied once")
	assert.NotEqual(t, crashed, writers[0], "by the other node")
	for _, e := range res.Log() {
		assert.Contains(t, []sim.NodeID{0, 1}, e.Node, "only the candidates' workers write")
	}
}
