package zkelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// firstLead runs a 3-candidate latch for a second and returns its first
// lead record and the znode the leader holds.
func firstLead(t *testing.T, seed uint64, token string) (sim.Record, Znode) {
	t.Helper()
	c := cfgT(PolicyStandard)
	c.Token = token
	r := newRig(t, seed, 3, c)
	r.s.RunFor(time.Second)
	leads := r.records(sim.RecLead, sim.None)
	require.NotEmpty(t, leads, "seed %d token %s", seed, token)
	return leads[0], r.nodes[leads[0].Node].myNode
}

// TestZKTokenIsAnApplicationRead: Curator's LeaderLatch hands the
// application no zxid — its public API is getOurPath(), hasLeadership(),
// getId(), getState(), getLeader(), getParticipants(), await()
// (curator-recipes LeaderLatch.java at apache-curator-5.9.0) — so by
// default the leader acts with no token (0), at once. With token czxid the
// application calls exists(getOurPath()) and acts with the Stat's czxid
// only when the ensemble answers: one round trip (two one-way latencies of
// 1..10 ms) later than it would have acted with none, the same seed
// running the same events up to that point. Fails on the old model, which
// handed every leader its czxid at takeLeadership.
func TestZKTokenIsAnApplicationRead(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		none, _ := firstLead(t, seed, TokenNone)
		assert.Zero(t, none.Token, "seed %d: LeaderLatch hands no token", seed)
		assert.Positive(t, none.Epoch, "seed %d: the tenure is still the znode's", seed)

		read, z := firstLead(t, seed, TokenCzxid)
		assert.Equal(t, none.Node, read.Node, "seed %d", seed)
		assert.Equal(t, z.Czxid, read.Token, "seed %d: the token is the znode's czxid", seed)
		d := read.At.Sub(none.At)
		assert.GreaterOrEqual(t, d, 2*time.Millisecond, "seed %d: one round trip later", seed)
		assert.LessOrEqual(t, d, 20*time.Millisecond, "seed %d: one round trip later", seed)
	}
}

// TestZKTokenReadRetriedBeforeActing: a token read that gets no answer is
// sent again after request_timeout; the leader acts only when one answers.
func TestZKTokenReadRetriedBeforeActing(t *testing.T) {
	c := cfgT(PolicyStandard)
	c.Token = TokenCzxid
	r := newRig(t, 3, 1, c)
	n := r.nodes[0]
	// Drop the application's first exists() answer: cut the server off
	// the candidate within a millisecond of the latch taking leadership
	// (every one-way latency is at least 1 ms).
	for i := 0; !n.leading; i++ {
		require.Less(t, i, 1000, "the latch did not lead within a second")
		r.s.RunFor(time.Millisecond)
	}
	require.Empty(t, r.records(sim.RecLead, 0), "no act before the read answers")
	r.s.Cut(r.server, 0)
	r.s.RunFor(c.RequestTimeout - time.Millisecond)
	require.Empty(t, r.records(sim.RecLead, 0), "no act while the read is unanswered")
	r.s.Heal()
	r.s.RunFor(time.Second + c.RequestTimeout)
	leads := r.records(sim.RecLead, 0)
	require.Len(t, leads, 1, "the read sent again answers and the leader acts")
	assert.Equal(t, n.myNode.Czxid, leads[0].Token)
}
