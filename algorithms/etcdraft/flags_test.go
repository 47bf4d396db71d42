package etcdraft_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// CheckQuorum (raft.go tickHeartbeat/MsgCheckQuorum; thesis §6.2): every
// ElectionTick ticks the leader checks that a quorum was recently active and
// steps down if not, so an isolated leader stops within 2*ElectionTick ticks
// (200 ms with the defaults). Without CheckQuorum it leads on indefinitely.
func TestCheckQuorumIsolatedLeaderStepsDown(t *testing.T) {
	for _, checkQuorum := range []bool{true, false} {
		cfg := etcdraft.DefaultConfig()
		cfg.CheckQuorum = checkQuorum
		c := newCluster(3, 5, cfg)
		l := c.runUntilLeader(time.Second)
		require.NotEqual(t, sim.None, l)
		isolatedAt := time.Duration(c.s.Now())
		c.s.Isolate(l)
		c.runFor(2 * time.Second)
		downs := c.records(sim.RecStepDown)
		if !checkQuorum {
			assert.Empty(t, downs)
			assert.True(t, c.nodes[l].IsLeader())
			assert.Len(t, c.s.Leaders(), 2, "stale leader plus the majority's new one")
			continue
		}
		require.Len(t, downs, 1)
		assert.Equal(t, l, downs[0].Node)
		assert.Equal(t, "check quorum: lost quorum", downs[0].Detail)
		assert.LessOrEqual(t, time.Duration(downs[0].At)-isolatedAt, 2*10*cfg.TickInterval)
		assert.False(t, c.nodes[l].IsLeader())
		assert.Len(t, c.s.Leaders(), 1)
	}
}

// PreVote (thesis §9.6): an isolated follower's pre-votes fail, so its term
// stays put and it cannot disrupt the leader when it returns. Without
// PreVote it campaigns with real votes, inflating its term, and on return
// its higher term deposes the leader.
func TestPreVoteFlag(t *testing.T) {
	for _, preVote := range []bool{true, false} {
		cfg := etcdraft.DefaultConfig()
		cfg.PreVote = preVote
		c := newCluster(5, 5, cfg)
		l := c.runUntilLeader(time.Second)
		require.NotEqual(t, sim.None, l)
		term := c.nodes[l].Term()
		f := (l + 1) % 5
		votesBefore := c.s.Stats().Sent[etcdraft.KindVote]
		c.s.Isolate(f)
		c.runFor(time.Second)
		c.s.Heal()
		c.runFor(time.Second)
		st := c.s.Stats()
		if preVote {
			assert.Equal(t, term, c.nodes[f].Term(), "isolated follower's term")
			assert.Equal(t, votesBefore, st.Sent[etcdraft.KindVote], "no real vote while isolated or after")
			assert.NotZero(t, st.Sent[etcdraft.KindPreVote])
			assert.Equal(t, []sim.NodeID{l}, c.s.Leaders(), "leader undisturbed")
			assert.Empty(t, c.records(sim.RecStepDown))
		} else {
			assert.Zero(t, st.Sent[etcdraft.KindPreVote])
			assert.Greater(t, c.nodes[f].Term(), term+1, "isolated follower's term inflates")
			require.NotEmpty(t, c.records(sim.RecStepDown), "the returning follower deposes the leader")
			assert.Equal(t, "higher term", c.records(sim.RecStepDown)[0].Detail)
		}
	}
}
