package cron_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// shedWorld runs two ShedLock-mode nodes (n2's wall clock offset by
// offset), a lease store and the resource with no policy, so every run's
// write is applied and the log shows exactly how often the job ran.
func shedWorld(t *testing.T, sl cron.ShedLockConfig, offset time.Duration, setup func(w *world)) (*world, cron.Results) {
	t.Helper()
	jobs := cron.Table{{Name: "daily-report", Schedule: "0 2 * * *", RunMin: 100 * time.Millisecond, RunMax: 100 * time.Millisecond}}
	s := sim.New(sim.Config{Seed: 7, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 5*time.Millisecond)}})
	w := &world{s: s, rec: &sim.Recorder{}}
	s.AddSink(w.rec)
	cfg := cron.Config{Jobs: jobs, Resource: 3, NotBefore: start, ShedLock: sl}
	cfg.ShedLock.Store = 2
	require.NoError(t, cfg.Validate())
	w.cfg = &cfg
	w.nodes = []sim.NodeID{s.AddNode("n1", cron.NewShedLockNode(w.cfg)), s.AddNode("n2", cron.NewShedLockNode(w.cfg))}
	require.Equal(t, sim.NodeID(2), s.AddNode("store", lease.NewStore(lease.StoreConfig{}), sim.Service()))
	w.resID, w.res = cron.AddResource(s, "resource", jobs, cron.Policy{})
	require.Equal(t, cfg.Resource, w.resID)
	if offset != 0 {
		s.StepWall(w.nodes[1], offset)
	}
	if setup != nil {
		setup(w)
	}
	s.RunUntil(at(2 * time.Minute))
	return w, cron.Compute(jobs, w.res.Log(), start, start.Add(time.Minute))
}

// ShedLock with usingDbTime(): the node 2 s ahead runs first; with
// lockAtLeastFor 0 its unlock sets lock_until to the store's "now" at the end
// of a 100 ms run, so the other node's lock 2 s later succeeds and the slot
// runs twice. lockAtLeastFor covering the offset (3 s) keeps the row locked
// and the slot runs once — the failure ShedLock's README warns about ("in
// case of really short tasks and clock difference between the nodes").
func TestShedLockStoreTimeOffset(t *testing.T) {
	w, res := shedWorld(t, cron.ShedLockConfig{Time: cron.ShedLockStoreTime}, 2*time.Second, nil)
	assert.Equal(t, 1, res.MoreThanOnce, "lockAtLeastFor 0: runs twice")
	require.Len(t, res.Multi, 1)
	assert.Equal(t, []sim.NodeID{w.nodes[1], w.nodes[0]}, []sim.NodeID{res.Multi[0].Runs[0].Node, res.Multi[0].Runs[1].Node})
	runs := w.effects("cron.run_started")
	require.Len(t, runs, 2)
	assert.Equal(t, at(58*time.Second), runs[0].At.Add(-runs[0].At.Sub(at(58*time.Second))%time.Second), "n2 (2 s ahead) fires at t=58s")

	w, res = shedWorld(t, cron.ShedLockConfig{Time: cron.ShedLockStoreTime, LockAtLeastFor: 3 * time.Second}, 2*time.Second, nil)
	assert.Equal(t, 1, res.Once, "lockAtLeastFor 3s covers the 2s offset: runs once")
	assert.Equal(t, 0, res.MoreThanOnce)
	assert.Len(t, w.effects("cron.lock_skipped"), 1)
}

// ShedLock's default (app time) compares lock_until with each node's own
// wall clock. For cron-aligned slots that is self-consistent: the later
// node's "now" is the slot time itself, which is before the first run's
// unlock time, so an offset alone never runs a slot twice. It takes a late
// trigger — here the ahead node paused over its slot — for the offset to
// matter; lockAtLeastFor covering offset plus delay prevents it.
func TestShedLockAppTime(t *testing.T) {
	_, res := shedWorld(t, cron.ShedLockConfig{}, 2*time.Second, nil)
	assert.Equal(t, 1, res.Once, "offset alone: once")

	pauseAhead := func(w *world) {
		w.s.At(at(57500*time.Millisecond), func() { w.s.Pause(w.nodes[1]) })
		w.s.At(at(61*time.Second), func() { w.s.Resume(w.nodes[1]) })
	}
	_, res = shedWorld(t, cron.ShedLockConfig{}, 2*time.Second, pauseAhead)
	assert.Equal(t, 1, res.MoreThanOnce, "ahead node fires late after a pause: twice")
	_, res = shedWorld(t, cron.ShedLockConfig{LockAtLeastFor: 5 * time.Second}, 2*time.Second, pauseAhead)
	assert.Equal(t, 1, res.Once, "lockAtLeastFor covering offset and delay: once")
}
