package raftelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// TestObservations checks what a node reports: BelieveLeader(None, term)
// when it starts (knowing no leader) and when it starts an election or moves
// to a term whose leader it does not know; BelieveLeader(leader, term) once
// per term when it learns the leader (its first heartbeat, or winning);
// ActAsLeader(term, term) on winning; and nothing per heartbeat. n1 times out
// first (150ms against 250–300ms), so the election is uncontended whatever
// the random draws.
func TestObservations(t *testing.T) {
	cfg := func(i int) raftelect.Config {
		c := raftelect.DefaultConfig()
		if i == 0 {
			c.ElectionTimeoutMax = c.ElectionTimeoutMin
		} else {
			c.ElectionTimeoutMin = 250 * time.Millisecond
		}
		return c
	}
	c := newCluster(2, 3, lan, cfg, true)
	c.s.RunUntil(sim.Time(3 * time.Second))
	leads := c.records(sim.RecLead)
	require.Len(t, leads, 1)
	l, term := leads[0].Node, leads[0].Epoch
	assert.Equal(t, c.ids[0], l)
	assert.Equal(t, term, leads[0].Token)
	assert.Equal(t, int64(1), term)

	type belief struct {
		leader sim.NodeID
		term   int64
	}
	got := map[sim.NodeID][]belief{}
	for _, r := range c.records(sim.RecBelieve) {
		got[r.Node] = append(got[r.Node], belief{r.Peer, r.Epoch})
	}
	// The leader: booted, campaigned for term 1, won.
	assert.Equal(t, []belief{{sim.None, 0}, {sim.None, 1}, {l, 1}}, got[l])
	for _, id := range c.ids {
		if id == l {
			continue
		}
		// A follower: booted, saw the RequestVote of term 1, then the first
		// heartbeat. 3 s of heartbeats add nothing.
		assert.Equal(t, []belief{{sim.None, 0}, {sim.None, 1}, {l, 1}}, got[id], "n%d", id+1)
		assert.Equal(t, l, c.nodes[id].Leader())
		assert.Equal(t, l, c.nodes[id].VotedFor())
		assert.Equal(t, raftelect.Follower, c.nodes[id].Role())
	}
	assert.Equal(t, raftelect.Leader, c.nodes[l].Role())
	assert.Equal(t, "leader", c.nodes[l].Role().String())
	// One election: 2 RequestVotes and 2 answers, no more.
	st := c.s.Stats()
	assert.Equal(t, uint64(2), st.Sent[raftelect.KindRequestVote])
	assert.Equal(t, uint64(2), st.Sent[raftelect.KindRequestVoteResp])
	assert.Zero(t, st.Sent[raftelect.KindPreVote])
}

// TestConfigValidate names the offending field.
func TestConfigValidate(t *testing.T) {
	require.NoError(t, raftelect.DefaultConfig().Validate())
	for _, tc := range []struct {
		field  string
		mutate func(*raftelect.Config)
	}{
		{"ElectionTimeoutMin", func(c *raftelect.Config) { c.ElectionTimeoutMin = 0 }},
		{"ElectionTimeoutMax", func(c *raftelect.Config) { c.ElectionTimeoutMax = c.ElectionTimeoutMin - 1 }},
		{"HeartbeatInterval", func(c *raftelect.Config) { c.HeartbeatInterval = c.ElectionTimeoutMin }},
		{"LastLogIndex", func(c *raftelect.Config) { c.LastLogTerm, c.LastLogIndex = []int64{1, 1}, []int64{1} }},
		{"LastLogTerm[1]", func(c *raftelect.Config) { c.LastLogTerm = []int64{1, -1} }},
	} {
		cfg := raftelect.DefaultConfig()
		tc.mutate(&cfg)
		err := cfg.Validate()
		require.Error(t, err, tc.field)
		assert.Contains(t, err.Error(), tc.field)
	}
	cfg := raftelect.DefaultConfig()
	cfg.LastLogTerm = []int64{1, 1}
	_, err := raftelect.New(cfg, []sim.NodeID{0, 1, 2})
	assert.Error(t, err, "per-peer slices must match the peers: a constructor returns the error")
	assert.Panics(t, func() { raftelect.MustNew(cfg, []sim.NodeID{0, 1, 2}) })
}
