package raftelect_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// TestCheckQuorumIsolatedLeaderStepsDown: with CheckQuorum, "a leader in Raft
// steps down if an election timeout elapses without a successful round of
// heartbeats to a majority of its cluster" (thesis §6.2). The leader checks
// every ElectionTimeoutMin (150ms) whether a majority answered since the last
// check. Its last answer arrives at most 2×HeartbeatInterval before the
// isolation (when the last heartbeat's answers were still in flight), so it
// steps down within [isolation + ElectionTimeoutMin − 2×HeartbeatInterval,
// isolation + 2×ElectionTimeoutMin] = [+50ms, +300ms]. Without CheckQuorum
// the isolated leader keeps acting as leader of its old term for as long as
// it is cut off, while the majority elects another: two nodes act as leader.
func TestCheckQuorumIsolatedLeaderStepsDown(t *testing.T) {
	const isolateAt = sim.Time(2 * time.Second)
	var after []time.Duration
	for seed := uint64(1); seed <= 20; seed++ {
		for _, checkQuorum := range []bool{true, false} {
			cfg := raftelect.DefaultConfig()
			cfg.CheckQuorum = checkQuorum
			c := newCluster(seed, 5, lan, same(cfg), true)
			c.s.RunUntil(isolateAt)
			l := c.leader()
			require.NotEqual(t, sim.None, l, "seed %d", seed)
			term := c.nodes[l].Term()
			c.s.Isolate(l)
			c.s.RunUntil(isolateAt.Add(5 * time.Second))

			downs := c.records(sim.RecStepDown)
			if !checkQuorum {
				assert.Empty(t, downs, "seed %d: without CheckQuorum the old leader never steps down", seed)
				leading, epoch, _ := c.s.Leading(l)
				assert.True(t, leading, "seed %d", seed)
				assert.Equal(t, term, epoch, "seed %d", seed)
				assert.Equal(t, raftelect.Leader, c.nodes[l].Role(), "seed %d", seed)
				assert.Len(t, c.s.Leaders(), 2, "seed %d: the majority elected a second leader", seed)
				continue
			}
			require.Len(t, downs, 1, "seed %d", seed)
			assert.Equal(t, l, downs[0].Node)
			assert.Equal(t, "check quorum", downs[0].Detail)
			d := downs[0].At.Sub(isolateAt)
			assert.GreaterOrEqual(t, d, cfg.ElectionTimeoutMin-2*cfg.HeartbeatInterval, "seed %d", seed)
			assert.LessOrEqual(t, d, 2*cfg.ElectionTimeoutMin, "seed %d", seed)
			after = append(after, d)
			require.Len(t, c.s.Leaders(), 1, "seed %d", seed)
			assert.NotEqual(t, l, c.s.Leaders()[0], "seed %d", seed)
		}
	}
	t.Logf("step-down after isolation: min %v median %v max %v", quantile(after, 0), quantile(after, 0.5), quantile(after, 1))
}

// TestCheckQuorumFollowerIgnoresVotesWithinLease: with CheckQuorum, "if a
// server receives a RequestVote request within the minimum election timeout
// of hearing from a current leader, it does not update its term or grant its
// vote" (thesis §4.2.3; etcd raft drops such requests). n3 is cut off for 2 s
// and campaigns up to a high term; then only the link n3→follower comes
// back, so the follower receives those RequestVotes while hearing from the
// leader. With CheckQuorum the follower ignores them and the leader keeps its
// term; without it the follower adopts n3's term and its next heartbeat
// answer deposes the leader (Figure 2: a higher term makes a leader step down).
func TestCheckQuorumFollowerIgnoresVotesWithinLease(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		for _, checkQuorum := range []bool{true, false} {
			t.Run(fmt.Sprintf("seed=%d/checkquorum=%v", seed, checkQuorum), func(t *testing.T) {
				leaseRejoin(t, seed, checkQuorum)
			})
		}
	}
}

func leaseRejoin(t *testing.T, seed uint64, checkQuorum bool) {
	cfg := raftelect.DefaultConfig()
	cfg.CheckQuorum = checkQuorum
	c := newCluster(seed, 3, lan, same(cfg), true)
	c.s.RunUntil(sim.Time(time.Second))
	l := c.leader()
	require.NotEqual(t, sim.None, l)
	term := c.nodes[l].Term()
	x, f := c.ids[(int(l)+1)%3], c.ids[(int(l)+2)%3]
	c.s.Isolate(x)
	c.s.RunFor(2 * time.Second)
	require.Greater(t, c.nodes[x].Term(), term+5)
	c.s.Connect(x, f)
	c.s.RunFor(time.Second)
	if checkQuorum {
		assert.Equal(t, term, c.nodes[f].Term(), "checkquorum: the follower ignored the higher-term RequestVotes")
		assert.Equal(t, l, c.nodes[f].Leader())
		assert.Equal(t, []sim.NodeID{l}, c.s.Leaders())
		assert.Empty(t, c.records(sim.RecStepDown))
		return
	}
	assert.Greater(t, c.nodes[f].Term(), term+5, "no checkquorum: the follower adopted the candidate's term")
	downs := c.records(sim.RecStepDown)
	require.NotEmpty(t, downs)
	assert.Equal(t, l, downs[0].Node)
	assert.Equal(t, "higher term", downs[0].Detail)
}
