package ring_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/sim"
)

const ms = time.Millisecond

// cluster is n ring nodes n0..n{n-1} with NodeIDs 0..n-1.
type cluster struct {
	s     *sim.Sim
	ids   []sim.NodeID
	nodes []*ring.Node
}

// newCluster builds n nodes sharing cfg; lat zero means constant 1ms.
func newCluster(t *testing.T, seed uint64, n int, lat sim.Dist, cfg ring.Config) *cluster {
	t.Helper()
	s := sim.New(sim.Config{Seed: seed, Link: sim.LinkConfig{Latency: lat}})
	c := &cluster{s: s}
	for i := 0; i < n; i++ {
		c.ids = append(c.ids, sim.NodeID(i))
	}
	for i := 0; i < n; i++ {
		nd := ring.MustNew(cfg, c.ids)
		c.nodes = append(c.nodes, nd)
		require.Equal(t, sim.NodeID(i), s.AddNode(fmt.Sprintf("n%d", i), nd))
	}
	return c
}

// ids returns 0..n-1.
func ids(n int) []sim.NodeID {
	out := make([]sim.NodeID, n)
	for i := range out {
		out[i] = sim.NodeID(i)
	}
	return out
}

// config returns DefaultConfig with the given variant and ring order.
func config(v ring.Variant, order []sim.NodeID) ring.Config {
	c := ring.DefaultConfig()
	c.Variant = v
	c.Order = order
	return c
}

// counts is a snapshot of the ring message counters.
type counts struct{ election, coordinator, ack int }

func (c *cluster) counts() counts {
	st := c.s.Stats()
	return counts{int(st.Sent[ring.KindElection]), int(st.Sent[ring.KindCoordinator]), int(st.Sent[ring.KindAck])}
}

// requireSettled asserts that want is the only node acting as leader and that
// every live node believes in it for the same round; it returns the round.
func (c *cluster) requireSettled(t *testing.T, want sim.NodeID) int64 {
	t.Helper()
	require.Equal(t, []sim.NodeID{want}, c.s.Leaders(), "leaders at %v", c.s.Now())
	_, epoch, token := c.s.Leading(want)
	require.Equal(t, epoch, token, "token is the round")
	for i, nd := range c.nodes {
		if !c.s.IsUp(c.ids[i]) {
			continue
		}
		l, r := nd.Leader()
		require.Equal(t, want, l, "n%d believes %d", i, l)
		require.Equal(t, epoch, r, "n%d's leader round", i)
		require.Equal(t, epoch, nd.Round(), "n%d's round", i)
	}
	return epoch
}
