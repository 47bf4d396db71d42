package raftelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// forgetfulVoterSchedule runs the crash-restart schedule of Figure 2's
// "Persistent state ... updated on stable storage before responding to RPCs":
// A=n1, B=n2, C=n3, 1 ms links, fixed (non-random) election timeouts
// B 150ms < C 400ms < A 1s.
//
//	0ms     C is isolated.
//	150ms   B times out, campaigns for term 1; A votes for B; B leads term 1.
//	300ms   A crashes.
//	350ms   A restarts; the network becomes {A, C} | {B}.
//	400ms   C times out, campaigns for term 1 (its first election) and asks A.
//
// Without persistence A has forgotten its vote and votes for C too, so B and
// C both lead term 1. With persistence A refuses; C wins term 2 instead.
func forgetfulVoterSchedule(t *testing.T, persist bool) *cluster {
	timeouts := []time.Duration{time.Second, 150 * time.Millisecond, 400 * time.Millisecond}
	cfg := func(i int) raftelect.Config {
		c := raftelect.DefaultConfig()
		c.ElectionTimeoutMin, c.ElectionTimeoutMax = timeouts[i], timeouts[i]
		c.HeartbeatInterval = 50 * time.Millisecond
		c.Persist = persist
		return c
	}
	c := newCluster(1, 3, sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}, cfg, true, sim.Fsync(sim.Constant(time.Millisecond)))
	a, b, cc := c.ids[0], c.ids[1], c.ids[2]
	c.s.Isolate(cc)
	c.s.At(sim.Time(300*time.Millisecond), func() { c.s.Crash(a) })
	c.s.At(sim.Time(350*time.Millisecond), func() {
		c.s.Restart(a, true)
		c.s.Heal()
		c.s.Partition([]sim.NodeID{a, cc}, []sim.NodeID{b})
	})
	c.s.RunUntil(sim.Time(299 * time.Millisecond))
	require.Equal(t, []sim.NodeID{b}, c.s.Leaders())
	require.Equal(t, int64(1), c.nodes[a].Term())
	require.Equal(t, b, c.nodes[a].VotedFor(), "A voted for B in term 1")
	c.s.RunUntil(sim.Time(time.Second))
	return c
}

// TestTwoLeadersInOneTermWithoutPersistence demonstrates the bug that
// persisting currentTerm and votedFor prevents (Figure 2; §5.2 "each server
// will vote for at most one candidate in a given term").
func TestTwoLeadersInOneTermWithoutPersistence(t *testing.T) {
	c := forgetfulVoterSchedule(t, false)
	leads := c.records(sim.RecLead)
	require.Len(t, leads, 2)
	assert.Equal(t, c.ids[1], leads[0].Node)
	assert.Equal(t, c.ids[2], leads[1].Node)
	assert.Equal(t, int64(1), leads[0].Epoch)
	assert.Equal(t, int64(1), leads[1].Epoch, "two leaders of term 1: Election Safety is violated")
	assert.Equal(t, []sim.NodeID{c.ids[1], c.ids[2]}, c.s.Leaders())
}

// TestPersistedVoteSurvivesCrash is the same schedule with persistence on: A
// restarts still at term 1 having voted for B, refuses C in term 1, and C
// wins term 2 (at 800ms, its second timeout).
func TestPersistedVoteSurvivesCrash(t *testing.T) {
	c := forgetfulVoterSchedule(t, true)
	leads := c.records(sim.RecLead)
	require.Len(t, leads, 2)
	assert.Equal(t, c.ids[1], leads[0].Node)
	assert.Equal(t, int64(1), leads[0].Epoch)
	assert.Equal(t, c.ids[2], leads[1].Node)
	assert.Equal(t, int64(2), leads[1].Epoch)
	// C campaigns at 800ms; its vote for itself and A's vote for C each wait
	// for a 1 ms fsync before leaving, plus 1 ms per hop: 800+1+1+1+1.
	assert.Equal(t, sim.Time(804*time.Millisecond), leads[1].At)
	assert.Equal(t, int64(2), c.nodes[0].Term())
	assert.Equal(t, c.ids[2], c.nodes[0].VotedFor())
}

// TestVoteNotSentBeforeDurable: with a 20 ms disk, a voter that crashes 5 ms
// after receiving a RequestVote never sends its vote (the engine holds the
// response behind the write, and the crash loses both), and restarts with its
// old term and vote (Figure 2: persist before responding).
func TestVoteNotSentBeforeDurable(t *testing.T) {
	timeouts := []time.Duration{time.Second, 150 * time.Millisecond, time.Second}
	cfg := func(i int) raftelect.Config {
		c := raftelect.DefaultConfig()
		c.ElectionTimeoutMin, c.ElectionTimeoutMax = timeouts[i], timeouts[i]
		return c
	}
	c := newCluster(1, 3, sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}, cfg, true, sim.Fsync(sim.Constant(20*time.Millisecond)))
	c.s.Isolate(c.ids[2])
	// n2 campaigns at 150ms after its own 20 ms write: the request leaves at
	// 170ms and reaches n1 at 171ms.
	c.s.At(sim.Time(176*time.Millisecond), func() { c.s.Crash(c.ids[0]) })
	c.s.RunUntil(sim.Time(200 * time.Millisecond))
	assert.Equal(t, uint64(1), c.s.Stats().DropReasons[sim.DropSenderCrashed], "the held vote was lost with the process")
	assert.Equal(t, uint64(0), c.s.Stats().Delivered[raftelect.KindRequestVoteResp])
	assert.Nil(t, c.s.Durable(c.ids[0]), "the vote never became durable")
	c.s.Restart(c.ids[0], true)
	assert.Equal(t, int64(0), c.nodes[0].Term())
	assert.Equal(t, sim.None, c.nodes[0].VotedFor())
	assert.Empty(t, c.s.Leaders())
}

// TestRestartRestoresTermAndVote: after a crash a node resumes with the
// currentTerm and votedFor it persisted (Figure 2).
func TestRestartRestoresTermAndVote(t *testing.T) {
	c := newCluster(3, 3, lan, same(raftelect.DefaultConfig()), false, sim.Fsync(sim.Constant(2*time.Millisecond)))
	c.s.RunUntil(sim.Time(2 * time.Second))
	l := c.leader()
	require.NotEqual(t, sim.None, l)
	f := c.ids[(int(l)+1)%3]
	term, vote := c.nodes[f].Term(), c.nodes[f].VotedFor()
	require.Positive(t, term)
	c.s.Crash(f)
	c.s.Restart(f, true)
	assert.Equal(t, term, c.nodes[f].Term())
	assert.Equal(t, vote, c.nodes[f].VotedFor())
	assert.Equal(t, raftelect.Follower, c.nodes[f].Role())
	assert.Equal(t, sim.None, c.nodes[f].Leader(), "a restarted process knows no leader")
	c.s.RunFor(time.Second)
	assert.Equal(t, l, c.nodes[f].Leader(), "the next heartbeat teaches it the leader again")
	assert.Equal(t, term, c.nodes[f].Term())
}
