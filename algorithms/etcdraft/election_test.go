package etcdraft_test

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// A five-member group elects exactly one leader, for term 1 (the adapter
// bootstraps membership through the storage's ConfState, so terms start at
// 0), and every member comes to believe in it.
func TestElectsLeader(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		c := newCluster(seed, 5, etcdraft.DefaultConfig())
		c.runFor(time.Second)
		leaders := c.s.Leaders()
		require.Len(t, leaders, 1, "seed %d", seed)
		l := leaders[0]
		term := c.nodes[l].Term()
		assert.GreaterOrEqual(t, term, int64(1), "seed %d", seed)
		assert.Equal(t, "leader", c.nodes[l].Role())
		for i, nd := range c.nodes {
			assert.Equal(t, l, nd.Leader(), "seed %d: n%d's leader", seed, i+1)
			assert.Equal(t, term, nd.Term(), "seed %d: n%d's term", seed, i+1)
		}
	}
}

// raft.go resetRandomizedElectionTimeout draws the election timeout from
// [ElectionTick, 2*ElectionTick-1] ticks, and ticks come every TickInterval of
// monotonic time from start: with the defaults the first campaign (a
// MsgPreVote broadcast) leaves at a multiple of 10 ms in [100 ms, 190 ms].
// The first leader follows within a pre-vote and a vote round trip unless
// the vote splits.
func TestFirstElectionTime(t *testing.T) {
	var firsts []time.Duration
	for seed := uint64(1); seed <= 100; seed++ {
		c := newCluster(seed, 5, etcdraft.DefaultConfig())
		c.runFor(2 * time.Second)
		var sentAt time.Duration = -1
		for _, r := range c.records(sim.RecDeliver) {
			if r.Kind == etcdraft.KindPreVote {
				sentAt = time.Duration(r.SentAt)
				break
			}
		}
		require.GreaterOrEqual(t, sentAt, 100*time.Millisecond, "seed %d", seed)
		require.LessOrEqual(t, sentAt, 190*time.Millisecond, "seed %d", seed)
		require.Zero(t, sentAt%(10*time.Millisecond), "seed %d: campaigns happen on ticks", seed)
		first := c.firstLead()
		require.Greater(t, first, sentAt, "seed %d", seed)
		require.Less(t, first, time.Second, "seed %d", seed)
		firsts = append(firsts, first)
	}
	sort.Slice(firsts, func(i, j int) bool { return firsts[i] < firsts[j] })
	t.Logf("first leader (5 nodes, defaults, 100 seeds): min %v p50 %v p90 %v max %v",
		firsts[0], firsts[50], firsts[90], firsts[99])
}

// After the leader crashes the others elect a new leader for a higher term;
// the old leader restarts with its persisted term (Raft §5.2: currentTerm
// and votedFor are persistent state) and rejoins as a follower of the new one.
func TestReelectsAfterLeaderCrash(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		c := newCluster(seed, 5, etcdraft.DefaultConfig())
		old := c.runUntilLeader(time.Second)
		require.NotEqual(t, sim.None, old, "seed %d", seed)
		oldTerm := c.nodes[old].Term()
		c.s.Crash(old)
		next := c.runUntilLeader(2 * time.Second)
		require.NotEqual(t, sim.None, next, "seed %d: no new leader", seed)
		require.NotEqual(t, old, next)
		newTerm := c.nodes[next].Term()
		require.Greater(t, newTerm, oldTerm)

		c.s.Restart(old, true)
		assert.Equal(t, oldTerm, c.nodes[old].Term(), "seed %d: restored term", seed)
		assert.Equal(t, "follower", c.nodes[old].Role())
		c.runFor(time.Second)
		assert.Equal(t, []sim.NodeID{next}, c.s.Leaders(), "seed %d", seed)
		assert.Equal(t, next, c.nodes[old].Leader(), "seed %d", seed)
		assert.Equal(t, newTerm, c.nodes[old].Term(), "seed %d", seed)
	}
}

// Raft §5.2 requires currentTerm and votedFor on stable storage before a node
// answers. The scenario: with n2 down and PreVote/CheckQuorum off, one of n1/n3
// wins term 1 with the other's vote; the voter crashes and restarts, the
// leader is cut off, and n2 comes up. With Persist the voter remembers its
// vote for term 1, so the next leader needs term 2; without it the voter
// votes again in term 1 and two nodes lead term 1.
func TestForgettingToPersistBreaksElectionSafety(t *testing.T) {
	run := func(persist bool) (map[int64][]sim.NodeID, int64) {
		cfg := etcdraft.DefaultConfig()
		cfg.Persist, cfg.PreVote, cfg.CheckQuorum = persist, false, false
		ids := []sim.NodeID{0, 1, 2}
		s := sim.New(sim.Config{Seed: 7, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
		nodes := make([]*etcdraft.Node, 3)
		for i := range nodes {
			nodes[i] = etcdraft.MustNew(cfg, ids)
			var opts []sim.NodeOption
			if i == 1 {
				opts = append(opts, sim.StartDown())
			}
			s.AddNode([]string{"n1", "n2", "n3"}[i], nodes[i], opts...)
		}
		rec := &sim.Recorder{}
		s.AddSink(rec)
		for s.Now() < sim.Time(time.Second) && len(s.Leaders()) == 0 {
			s.RunFor(10 * time.Millisecond)
		}
		require.Len(t, s.Leaders(), 1)
		leader := s.Leaders()[0]
		require.Equal(t, int64(1), nodes[leader].Term())
		voter := 2 - leader // the other one of n1 (0) and n3 (2)
		s.Crash(voter)
		s.Restart(voter, true)
		restored := nodes[voter].Term()
		s.Partition([]sim.NodeID{leader}, []sim.NodeID{voter, 1})
		s.Restart(1, true)
		s.RunFor(2 * time.Second)
		return leadersPerTerm(rec.Records), restored
	}
	withPersist, restored := run(true)
	assert.Equal(t, int64(1), restored)
	for term, ls := range withPersist {
		assert.Len(t, ls, 1, "term %d", term)
	}
	without, restored := run(false)
	assert.Equal(t, int64(0), restored)
	assert.Len(t, without[1], 2, "two leaders of term 1 without persistence")
}
