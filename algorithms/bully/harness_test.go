package bully_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/sim"
)

const ms = time.Millisecond

// cluster is n bully nodes n0..n{n-1} with NodeIDs 0..n-1.
type cluster struct {
	s     *sim.Sim
	ids   []sim.NodeID
	nodes []*bully.Node
	rec   *sim.Recorder
}

// newCluster builds n nodes; cfg(i) gives node i's Config. lat zero means
// constant 1ms latency.
func newCluster(t *testing.T, seed uint64, n int, lat sim.Dist, cfg func(i int) bully.Config) *cluster {
	t.Helper()
	s := sim.New(sim.Config{Seed: seed, Link: sim.LinkConfig{Latency: lat}})
	c := &cluster{s: s, rec: &sim.Recorder{}}
	s.AddSink(c.rec)
	for i := 0; i < n; i++ {
		c.ids = append(c.ids, sim.NodeID(i))
	}
	for i := 0; i < n; i++ {
		nd := bully.MustNew(cfg(i), c.ids)
		c.nodes = append(c.nodes, nd)
		require.Equal(t, sim.NodeID(i), s.AddNode(fmt.Sprintf("n%d", i), nd))
	}
	return c
}

// defaults gives every node DefaultConfig.
func defaults(int) bully.Config { return bully.DefaultConfig() }

// counts is a snapshot of the protocol message counters.
type counts struct{ election, answer, coordinator int }

func (c *cluster) counts() counts {
	st := c.s.Stats()
	return counts{int(st.Sent[bully.KindElection]), int(st.Sent[bully.KindAnswer]), int(st.Sent[bully.KindCoordinator])}
}

func (a counts) minus(b counts) counts {
	return counts{a.election - b.election, a.answer - b.answer, a.coordinator - b.coordinator}
}

// requireSettled asserts that want is the only node acting as leader and
// that every live node believes in it with the same epoch; it returns that
// epoch.
func (c *cluster) requireSettled(t *testing.T, want sim.NodeID) int64 {
	t.Helper()
	require.Equal(t, []sim.NodeID{want}, c.s.Leaders(), "leaders at %v", c.s.Now())
	_, epoch, token := c.s.Leading(want)
	require.Equal(t, epoch, token, "token is the epoch")
	for i, nd := range c.nodes {
		if !c.s.IsUp(c.ids[i]) {
			continue
		}
		l, e := nd.Leader()
		require.Equal(t, want, l, "n%d believes %d", i, l)
		require.Equal(t, epoch, e, "n%d's leader epoch", i)
		require.Equal(t, epoch, nd.Epoch(), "n%d's known epoch", i)
	}
	require.Equal(t, bully.Coordinator, c.nodes[want].Role())
	return epoch
}

// tenure is one RecLead record: who started leading, in which epoch.
type tenure struct {
	node  sim.NodeID
	epoch int64
}

// tenures lists the RecLead records from true time from on.
func (c *cluster) tenures(from sim.Time) []tenure {
	var out []tenure
	for _, r := range c.rec.Records {
		if r.Type == sim.RecLead && r.At >= from {
			out = append(out, tenure{r.Node, r.Epoch})
		}
	}
	return out
}
