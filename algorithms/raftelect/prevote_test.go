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

// TestPreVoteRejoiningNodeDoesNotDisrupt reproduces the problem of thesis
// §9.6 ("Preventing disruptions when a server rejoins the cluster") in a
// 5-node cluster: a follower is isolated for 5 s, then healed.
//
// Without PreVote it campaigns alone every 150–300 ms, so its term rises by
// 16–33 (5 s / 300 ms .. 5 s / 150 ms); on rejoining, that term forces the
// leader to step down and a new election at a higher term.
//
// With PreVote it never gets a majority of pre-votes (it is cut off; after
// healing, the others heard from the leader within ElectionTimeoutMin), so
// its term never rises, no RequestVote is sent, and the leader keeps leading
// the same term.
func TestPreVoteRejoiningNodeDoesNotDisrupt(t *testing.T) {
	const (
		isolateAt = sim.Time(2 * time.Second)
		healAt    = sim.Time(7 * time.Second)
		endAt     = sim.Time(9 * time.Second)
	)
	for seed := uint64(1); seed <= 20; seed++ {
		for _, preVote := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d/prevote=%v", seed, preVote), func(t *testing.T) {
				prevoteRejoin(t, seed, preVote, isolateAt, healAt, endAt)
			})
		}
	}
}

func prevoteRejoin(t *testing.T, seed uint64, preVote bool, isolateAt, healAt, endAt sim.Time) {
	cfg := raftelect.DefaultConfig()
	cfg.PreVote = preVote
	c := newCluster(seed, 5, lan, same(cfg), true)
	c.s.RunUntil(isolateAt)
	l := c.leader()
	require.NotEqual(t, sim.None, l)
	term := c.nodes[l].Term()
	f := c.ids[(int(l)+2)%5]
	requestVotes := c.s.Stats().Sent[raftelect.KindRequestVote]

	c.s.Isolate(f)
	c.s.RunUntil(healAt)
	c.s.Heal()
	rose := c.nodes[f].Term() - term
	c.s.RunUntil(endAt)

	if preVote {
		assert.Equal(t, int64(0), rose, "prevote: the isolated node's term stayed put")
		assert.Empty(t, c.leadsAfter(isolateAt), "prevote: no election")
		assert.Empty(t, c.records(sim.RecStepDown), "prevote: the leader never stepped down")
		assert.Equal(t, []sim.NodeID{l}, c.s.Leaders())
		for i, n := range c.nodes {
			assert.Equal(t, term, n.Term(), "prevote: n%d's term", i+1)
			assert.Equal(t, l, n.Leader(), "prevote: n%d's leader", i+1)
		}
		assert.Equal(t, requestVotes, c.s.Stats().Sent[raftelect.KindRequestVote], "prevote: no RequestVote after the isolation")
		assert.GreaterOrEqual(t, c.s.Stats().Sent[raftelect.KindPreVote], uint64(16*4), "prevote: at least 16 pre-vote rounds to 4 peers")
		return
	}
	assert.GreaterOrEqual(t, rose, int64(16), "no prevote: one campaign per timeout of at most 300ms")
	assert.LessOrEqual(t, rose, int64(34), "no prevote: one campaign per timeout of at least 150ms")
	downs := c.records(sim.RecStepDown)
	require.NotEmpty(t, downs, "no prevote: the leader stepped down")
	assert.Equal(t, l, downs[0].Node)
	assert.Equal(t, "higher term", downs[0].Detail)
	assert.Greater(t, downs[0].At, healAt)
	newLeads := c.leadsAfter(healAt)
	require.NotEmpty(t, newLeads, "no prevote: a new election followed")
	assert.Greater(t, newLeads[len(newLeads)-1].Epoch, term+rose, "no prevote: the cluster's term rose past the rejoining node's")
	require.Len(t, c.s.Leaders(), 1)
}
