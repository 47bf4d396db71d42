package bully_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/sim"
)

// Garcia-Molina 1982, the Bully Algorithm: after any sequence of crashes and
// recoveries, once the failure detector has fired, the highest live node is
// the coordinator and every live node knows it. Uniform 1–10ms latency, so
// elections overlap and messages race; each new coordinator's epoch is higher
// than every earlier one.
func TestHighestLiveWinsAfterCrashes(t *testing.T) {
	lat := sim.Uniform(1*ms, 10*ms)
	for seed := uint64(1); seed <= 5; seed++ {
		c := newCluster(t, seed, 6, lat, defaults)
		steps := []struct {
			crash, restart []sim.NodeID
			want           sim.NodeID
		}{
			{want: 5},
			{crash: []sim.NodeID{5}, want: 4},
			{crash: []sim.NodeID{4, 3}, want: 2},
			{crash: []sim.NodeID{0}, want: 2},
			{restart: []sim.NodeID{0, 3}, want: 3},
			{crash: []sim.NodeID{3, 2, 1}, want: 0},
			{restart: []sim.NodeID{5, 1}, want: 5},
		}
		last, leader := int64(0), sim.None
		for i, st := range steps {
			for _, id := range st.crash {
				c.s.Crash(id)
			}
			for _, id := range st.restart {
				c.s.Restart(id, true)
			}
			c.s.RunFor(1000 * ms)
			e := c.requireSettled(t, st.want)
			if st.want != leader {
				require.Greater(t, e, last, "seed %d step %d: a new coordinator has a higher epoch", seed, i)
			} else {
				require.GreaterOrEqual(t, e, last, "seed %d step %d", seed, i)
			}
			last, leader = e, st.want
		}
	}
}

// A recovered higher node bullies its way back (Garcia-Molina 1982: a node
// that recovers holds an election). n4 crashes, n3 takes over in epoch 2, n4
// restarts with its persisted epoch 1. Its immediate claim reuses epoch 2 —
// minted while it was down — so every node rejects it as stale and challenges
// it with ELECTION, which tells n4 the epoch to beat; n4 takes over in epoch 3.
// The duplicate epoch 2 is the price of a leader that never asks the lower
// nodes (weak fencing; docs/algorithms/bully.md).
func TestRecoveredHighestBulliesBack(t *testing.T) {
	c := newCluster(t, 1, 5, sim.Dist{}, defaults)
	c.s.RunUntil(sim.Time(410 * ms))
	c.s.Crash(4)
	// n3 leads from 651ms (detection at 551ms + T) and beats every 50ms;
	// restart n4 at 1020ms, between two beats, for exact counts.
	c.s.RunUntil(sim.Time(1020 * ms))
	require.Equal(t, int64(2), c.requireSettled(t, 3))
	before := c.counts()
	c.s.Restart(4, true)
	c.s.RunUntil(sim.Time(2000 * ms))
	require.Equal(t, int64(3), c.requireSettled(t, 4))
	require.Equal(t, []tenure{{4, 1}, {3, 2}, {4, 2}, {4, 3}}, c.tenures(0))
	// The takeover is a storm: n4's stale claim reaches n0..n3, each runs an
	// election (ELECTION to every higher node: 4+3+2+1 = 10, all answered);
	// COORDINATOR: the claim (4), the epoch-3 announcement (4) and a direct
	// re-announcement to each of the three later challengers (3).
	require.Equal(t, counts{election: 10, answer: 10, coordinator: 11}, c.counts().minus(before))
}

// With ElectOnStart off the recovered node first listens: the current
// coordinator's heartbeat (sent to higher nodes too) tells it epoch 2, so it
// bullies straight into epoch 3 without a duplicate epoch.
func TestRecoveredHighestListensFirst(t *testing.T) {
	cfg := func(int) bully.Config {
		c := bully.DefaultConfig()
		c.ElectOnStart = false
		return c
	}
	c := newCluster(t, 1, 5, sim.Dist{}, cfg)
	// Nobody elects on start: the first heartbeat timeouts (150ms) do.
	c.s.RunUntil(sim.Time(410 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 4))
	c.s.Crash(4)
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, int64(2), c.requireSettled(t, 3))
	c.s.Restart(4, true)
	c.s.RunUntil(sim.Time(2000 * ms))
	require.Equal(t, int64(3), c.requireSettled(t, 4))
	require.Equal(t, []tenure{{4, 1}, {3, 2}, {4, 3}}, c.tenures(0))
}

// Forgetting to persist is a demonstrable bug, not an impossibility: with
// PersistEpoch off the recovered n4 restarts at epoch 0 and claims epoch 1
// again — a token already used by its own earlier tenure. The strict freshness
// rule still rejects the claim and n4 ends in a fresh epoch.
func TestPersistEpochOffReusesEpoch(t *testing.T) {
	cfg := func(int) bully.Config {
		c := bully.DefaultConfig()
		c.PersistEpoch = false
		return c
	}
	c := newCluster(t, 1, 5, sim.Dist{}, cfg)
	c.s.RunUntil(sim.Time(410 * ms))
	c.s.Crash(4)
	c.s.RunUntil(sim.Time(1000 * ms))
	c.s.Restart(4, true)
	c.s.RunUntil(sim.Time(2000 * ms))
	require.Equal(t, int64(3), c.requireSettled(t, 4))
	require.Equal(t, []tenure{{4, 1}, {3, 2}, {4, 1}, {4, 3}}, c.tenures(0))
	require.Nil(t, c.s.Durable(4))
}

// Bully is not partition tolerant (Garcia-Molina 1982 assumes a synchronous
// network; a partition looks like crashes to each side): under {n0,n1,n2} |
// {n3,n4} the minority side elects n2 while n4 still leads — two coordinators
// at the same instant (split brain), in different epochs. After the heal n4's
// heartbeats are stale to n0..n2, their elections tell n4 epoch 2, and n4
// re-takes everyone in epoch 3.
func TestPartitionSplitBrain(t *testing.T) {
	c := newCluster(t, 1, 5, sim.Dist{}, defaults)
	c.s.RunUntil(sim.Time(410 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 4))
	c.s.Partition([]sim.NodeID{0, 1, 2}, []sim.NodeID{3, 4})
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, []sim.NodeID{2, 4}, c.s.Leaders())
	_, e2, _ := c.s.Leading(2)
	_, e4, _ := c.s.Leading(4)
	require.Equal(t, int64(2), e2)
	require.Equal(t, int64(1), e4)
	for _, id := range []sim.NodeID{0, 1} {
		l, _ := c.nodes[id].Leader()
		require.Equal(t, sim.NodeID(2), l)
	}
	l, _ := c.nodes[3].Leader()
	require.Equal(t, sim.NodeID(4), l)

	c.s.Heal()
	c.s.RunUntil(sim.Time(2000 * ms))
	require.Equal(t, int64(3), c.requireSettled(t, 4))
}

// Config.Priorities replaces "highest ID wins": with priorities reversed n0
// is the coordinator, and when it crashes n1 (the second highest priority)
// takes over with the best-case message count: 1 ELECTION, n−2 COORDINATOR.
func TestPriorities(t *testing.T) {
	const n = 5
	cfg := func(i int) bully.Config {
		c := bully.DefaultConfig()
		c.Priorities = []int{50, 40, 30, 20, 10}
		c.HeartbeatTimeout = 1000 * ms
		if i == 1 {
			c.HeartbeatTimeout = 100 * ms
		}
		return c
	}
	c := newCluster(t, 1, n, sim.Dist{}, cfg)
	c.s.RunUntil(sim.Time(410 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 0))
	p, ok := c.nodes[2].Priority(0)
	require.True(t, ok)
	require.Equal(t, 50, p)
	before := c.counts()
	c.s.Crash(0)
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, counts{election: 1, coordinator: n - 2}, c.counts().minus(before))
	require.Equal(t, int64(2), c.requireSettled(t, 1))
}

// A paused coordinator (a GC pause) keeps believing it leads; when it resumes
// its heartbeats are stale, the nodes that moved on challenge it and it
// re-takes the cluster in a fresh epoch — during the pause two nodes acted as
// leader.
func TestPausedCoordinatorResumes(t *testing.T) {
	c := newCluster(t, 1, 5, sim.Dist{}, defaults)
	c.s.RunUntil(sim.Time(410 * ms))
	c.s.Pause(4)
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, []sim.NodeID{3, 4}, c.s.Leaders(), "the paused node still believes it leads")
	c.s.Resume(4)
	c.s.RunUntil(sim.Time(2000 * ms))
	e := c.requireSettled(t, 4)
	require.Greater(t, e, int64(2))
}

// The same seed gives the same trace (docs/engine.md, "Randomness").
func TestDeterministic(t *testing.T) {
	run := func() uint64 {
		c := newCluster(t, 7, 6, sim.Uniform(1*ms, 10*ms), defaults)
		c.s.RunUntil(sim.Time(300 * ms))
		c.s.Crash(5)
		c.s.RunUntil(sim.Time(800 * ms))
		c.s.Restart(5, true)
		c.s.RunUntil(sim.Time(1500 * ms))
		return c.s.TraceHash()
	}
	require.Equal(t, run(), run())
}

// A single node has no higher node to ask: it is coordinator at once.
func TestSingleNode(t *testing.T) {
	c := newCluster(t, 1, 1, sim.Dist{}, defaults)
	c.s.RunUntil(sim.Time(100 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 0))
	require.Equal(t, counts{}, c.counts())
}
