package ring_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/sim"
)

// A node failing mid-election is skipped (docs/algorithms/ring.md: dead successors are
// skipped; Chang & Roberts 1979 assume a reliable ring, so this is the
// acknowledged-hop extension). Sorted ring of 6, every node initiates at t=0,
// n2 crashes at 0.5ms (its own ID is already on the way to n3, which
// swallows it). ELECTION: 6 initial sends; the maximum's lap 5→0→1→2 (lost),
// then 1→3 after AckTimeout, 3→4, 4→5 (5 forwards); and n1's own ID, also
// lost in n2 and resent to n3 (1): 12 = 2n. COORDINATOR already skips n2: a
// lap of 5. Every hop is acknowledged except the 2 that went into n2.
func TestDeadNodeSkippedMidElection(t *testing.T) {
	const n = 6
	c := newCluster(t, 1, n, sim.Dist{}, config(ring.ChangRoberts, nil))
	c.s.RunUntil(sim.Time(ms / 2))
	c.s.Crash(2)
	c.s.RunUntil(sim.Time(100 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 5))
	got := c.counts()
	require.Equal(t, counts{election: 2 * n, coordinator: n - 1, ack: 2*n + n - 1 - 2}, got)
}

// The maximum crashes mid-election after its ID has left: the ID goes round
// without meeting its owner and is dropped after a full lap (the hop guard),
// so round 1 elects nobody. The nodes' progress timeouts start round 2, which
// elects the highest live node.
func TestMaximumCrashesMidElection(t *testing.T) {
	const n = 5
	c := newCluster(t, 1, n, sim.Dist{}, config(ring.ChangRoberts, nil))
	c.s.RunUntil(sim.Time(5 * ms / 2)) // 2.5ms: ID 4 is between n1 and n2
	c.s.Crash(4)
	c.s.RunUntil(sim.Time(150 * ms))
	require.Empty(t, c.s.Leaders(), "round 1 elects nobody")
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, int64(2), c.requireSettled(t, 3))
}

// Failure detection: the leader sends heartbeats directly to every node; when
// they stop, the followers time out and start a new round, whose number is the
// new epoch. A restarted node starts another round (every node initiates on
// start) and the maximum is elected again, with a higher epoch.
func TestLeaderCrashStartsNewRound(t *testing.T) {
	for _, v := range []ring.Variant{ring.ChangRoberts, ring.CollectAll} {
		t.Run(v.String(), func(t *testing.T) {
			c := newCluster(t, 3, 6, sim.Uniform(1*ms, 10*ms), config(v, nil))
			c.s.RunUntil(sim.Time(500 * ms))
			require.Equal(t, int64(1), c.requireSettled(t, 5))
			c.s.Crash(5)
			c.s.RunUntil(sim.Time(1500 * ms))
			r2 := c.requireSettled(t, 4)
			require.Greater(t, r2, int64(1))
			c.s.Restart(5, true)
			c.s.RunUntil(sim.Time(2500 * ms))
			r3 := c.requireSettled(t, 5)
			require.Greater(t, r3, r2)
		})
	}
}

// A ring is not partition tolerant: with acknowledgement timeouts each side
// skips the other and closes its own ring, so {n0,n1,n2} elects n2 in round 2
// while n5 still leads round 1 — two leaders at once. After the heal the
// newer round wins: n5 hears n2's round-2 heartbeats and steps down (the ring
// does not re-elect the maximum until the next election).
func TestPartitionTwoLeaders(t *testing.T) {
	c := newCluster(t, 1, 6, sim.Dist{}, config(ring.ChangRoberts, nil))
	c.s.RunUntil(sim.Time(300 * ms))
	require.Equal(t, int64(1), c.requireSettled(t, 5))
	c.s.Partition([]sim.NodeID{0, 1, 2}, []sim.NodeID{3, 4, 5})
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, []sim.NodeID{2, 5}, c.s.Leaders())
	_, e2, _ := c.s.Leading(2)
	_, e5, _ := c.s.Leading(5)
	require.Equal(t, int64(2), e2)
	require.Equal(t, int64(1), e5)
	c.s.Heal()
	c.s.RunUntil(sim.Time(1500 * ms))
	require.Equal(t, int64(2), c.requireSettled(t, 2))
}

// Without persistence a restarted node forgets the round and may reuse a
// round number; with it (the default) rounds only grow.
func TestPersistedRound(t *testing.T) {
	c := newCluster(t, 1, 4, sim.Dist{}, config(ring.ChangRoberts, nil))
	c.s.RunUntil(sim.Time(300 * ms))
	c.s.Crash(1)
	c.s.RunUntil(sim.Time(400 * ms))
	c.s.Restart(1, true)
	c.s.RunUntil(sim.Time(800 * ms))
	require.Equal(t, int64(2), c.requireSettled(t, 3), "n1 opened round 1+1")
	require.NotNil(t, c.s.Durable(1))
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, ring.DefaultConfig().Validate())
	cases := []struct {
		edit func(*ring.Config)
		want string
	}{
		{func(c *ring.Config) { c.AckTimeout = 0 }, "AckTimeout"},
		{func(c *ring.Config) { c.HeartbeatInterval = 0 }, "HeartbeatInterval"},
		{func(c *ring.Config) { c.HeartbeatTimeout = c.HeartbeatInterval }, "HeartbeatTimeout"},
		{func(c *ring.Config) { c.Variant = 9 }, "Variant"},
		{func(c *ring.Config) { c.Order = []sim.NodeID{0, 1, 0} }, "Order[0] and Order[2]"},
	}
	for _, tc := range cases {
		c := ring.DefaultConfig()
		tc.edit(&c)
		require.ErrorContains(t, c.Validate(), tc.want)
	}
	peers := ids(3)
	c := ring.DefaultConfig()
	c.Order = []sim.NodeID{2, 0}
	require.ErrorContains(t, c.ValidatePeers(peers), "Order has 2 nodes for 3 peers")
	c.Order = []sim.NodeID{2, 0, 7}
	require.ErrorContains(t, c.ValidatePeers(peers), "Order[2] = 7 is not a peer")
	c = ring.DefaultConfig()
	c.AllInitiate, c.Initiators = false, []sim.NodeID{4}
	require.ErrorContains(t, c.ValidatePeers(peers), "Initiators[0] = 4")
	_, err := ring.New(c, peers)
	require.Error(t, err)
	require.Panics(t, func() { ring.MustNew(c, peers) })

	for _, a := range []ring.Arrangement{ring.Sorted, ring.Reversed, ring.Random} {
		got, err := ring.ParseArrangement(a.String())
		require.NoError(t, err)
		require.Equal(t, a, got)
	}
	_, err = ring.ParseArrangement("spiral")
	require.ErrorContains(t, err, `"spiral"`)
	for _, v := range []ring.Variant{ring.ChangRoberts, ring.CollectAll} {
		got, err := ring.ParseVariant(v.String())
		require.NoError(t, err)
		require.Equal(t, v, got)
	}
	require.Equal(t, []sim.NodeID{3, 2, 1, 0}, ring.Arrange(ring.Reversed, []sim.NodeID{1, 3, 0, 2}, nil))
	require.Panics(t, func() { ring.Arrange(ring.Random, peers, nil) })
}

// A node that was down missed rounds: n5 restarts remembering round 1 and
// opens "round 2", which n4 already won. Its successor knows round 2 is
// decided and that 5 outranks the round's leader, so it lifts the ELECTION
// into round 3 instead of letting two leaders share epoch 2: the tenures are
// (n5, 1), (n4, 2), (n5, 3).
func TestStaleRoundIsLifted(t *testing.T) {
	c := newCluster(t, 1, 6, sim.Dist{}, config(ring.ChangRoberts, nil))
	rec := &sim.Recorder{}
	c.s.AddSink(rec)
	c.s.RunUntil(sim.Time(300 * ms))
	c.s.Crash(5)
	c.s.RunUntil(sim.Time(1000 * ms))
	require.Equal(t, int64(2), c.requireSettled(t, 4))
	c.s.Restart(5, true)
	c.s.RunUntil(sim.Time(1500 * ms))
	require.Equal(t, int64(3), c.requireSettled(t, 5))
	type tenure struct {
		node  sim.NodeID
		epoch int64
	}
	var got []tenure
	for _, r := range rec.Records {
		if r.Type == sim.RecLead {
			got = append(got, tenure{r.Node, r.Epoch})
		}
	}
	require.Equal(t, []tenure{{5, 1}, {4, 2}, {5, 3}}, got)
}

// A one-node ring: the node's own ELECTION finds no live successor and comes
// straight back, so it elects itself without sending anything.
func TestSingleNode(t *testing.T) {
	for _, v := range []ring.Variant{ring.ChangRoberts, ring.CollectAll} {
		c := newCluster(t, 1, 1, sim.Dist{}, config(v, nil))
		c.s.RunUntil(sim.Time(100 * ms))
		require.Equal(t, int64(1), c.requireSettled(t, 0))
		require.Equal(t, counts{}, c.counts())
	}
}
