package etcdraft_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// Election safety (Raft §5.2, Figure 3): at most one leader per term, over 50
// seeds of random crashes/restarts, partitions, isolation and pauses. After
// the faults stop and everything is healed, one leader emerges that every
// member follows (liveness), and no member hit a library invariant.
func TestAtMostOneLeaderPerTerm(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		c := chaosRun(seed, 5, etcdraft.DefaultConfig(), 4*time.Second, 2*time.Second)
		for term, ls := range leadersPerTerm(c.rec.Records) {
			require.Len(t, ls, 1, "seed %d: leaders of term %d", seed, term)
		}
		require.NotEmpty(t, c.records(sim.RecCrash), "seed %d: the nemesis crashed nobody", seed)
		leaders := c.s.Leaders()
		require.Len(t, leaders, 1, "seed %d: leaders after settling", seed)
		for i, nd := range c.nodes {
			assert.Equal(t, leaders[0], nd.Leader(), "seed %d: n%d", seed, i+1)
			assert.Empty(t, nd.Halted(), "seed %d: n%d", seed, i+1)
		}
	}
}

// The same under a network that duplicates 30% of messages and loses 5%:
// a duplicated append or heartbeat is stepped twice, each time as its own
// received copy (docs/algorithms/etcdraft.md, "Messages"), and safety and
// the settled leader still hold; the run is deterministic.
func TestAtMostOneLeaderPerTermWithDuplication(t *testing.T) {
	link := sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond), Duplicate: 0.3, Drop: 0.05}
	duplicated := 0
	for seed := uint64(1); seed <= 20; seed++ {
		c := chaosRunOn(newClusterOn(seed, 5, etcdraft.DefaultConfig(), link), 4*time.Second, 3*time.Second)
		for term, ls := range leadersPerTerm(c.rec.Records) {
			require.Len(t, ls, 1, "seed %d: leaders of term %d", seed, term)
		}
		require.Len(t, c.s.Leaders(), 1, "seed %d: leaders after settling", seed)
		for i, nd := range c.nodes {
			assert.Empty(t, nd.Halted(), "seed %d: n%d", seed, i+1)
		}
		for _, k := range c.s.Stats().Duplicated {
			duplicated += int(k)
		}
		again := chaosRunOn(newClusterOn(seed, 5, etcdraft.DefaultConfig(), link), 4*time.Second, 3*time.Second)
		require.Equal(t, c.s.TraceHashHex(), again.s.TraceHashHex(), "seed %d: same seed, different trace", seed)
	}
	require.Positive(t, duplicated, "the network duplicated nothing")
}
