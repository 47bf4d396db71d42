package raftelect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// staleLogs gives n1 and n2 longer logs whose last entry is from an older
// term (index 9 at term 1) than n3–n5's (index 3 at term 2): by §5.4.1 ("if
// the logs have last entries with different terms, then the log with the
// later term is more up-to-date") n1 and n2 can collect only each other's
// votes, two of five.
func staleLogs(cfg raftelect.Config) raftelect.Config {
	cfg.LastLogTerm = []int64{1, 1, 2, 2, 2}
	cfg.LastLogIndex = []int64{9, 9, 3, 3, 3}
	return cfg
}

// TestIneligibleCandidateNeverWins: the election restriction (§5.4.1) keeps
// the stale nodes from ever leading, over 100 seeds × 20 s of crashes and
// partitions, with and without PreVote, while the eligible nodes keep
// electing leaders.
func TestIneligibleCandidateNeverWins(t *testing.T) {
	elections := 0
	for seed := uint64(0); seed < 100; seed++ {
		cfg := staleLogs(raftelect.DefaultConfig())
		cfg.PreVote = seed%2 == 1
		c := newCluster(seed, 5, lan, same(cfg), false)
		sink := &leadSink{}
		c.s.AddSink(sink)
		startNemesis(c.s, c.ids, 2, sim.Time(18*time.Second))
		c.s.RunUntil(sim.Time(20 * time.Second))
		for _, r := range sink.leads {
			require.GreaterOrEqual(t, r.Node, sim.NodeID(2), "seed %d: stale n%d led term %d", seed, r.Node+1, r.Epoch)
		}
		elections += len(sink.leads)
	}
	assert.Greater(t, elections, 300)
}

// TestStaleCandidateCampaignsAndLoses: n1 and n2 time out first (fixed
// 150ms) and campaign for term 2, but the others refuse them (§5.4.1); n3
// times out next (200ms; n4 and n5 wait 400ms) and wins term 3 with every
// vote, the stale nodes' included.
func TestStaleCandidateCampaignsAndLoses(t *testing.T) {
	timeouts := []time.Duration{150, 150, 200, 400, 400}
	cfg := func(i int) raftelect.Config {
		c := staleLogs(raftelect.DefaultConfig())
		c.ElectionTimeoutMin = timeouts[i] * time.Millisecond
		c.ElectionTimeoutMax = c.ElectionTimeoutMin
		return c
	}
	c := newCluster(5, 5, lan, cfg, true)
	c.s.RunUntil(sim.Time(time.Second))
	var staleAsked int
	for _, r := range c.records(sim.RecDeliver) {
		if r.Kind == raftelect.KindRequestVote && r.Peer < 2 {
			staleAsked++
		}
	}
	assert.Positive(t, staleAsked, "the stale nodes campaigned")
	leads := c.records(sim.RecLead)
	require.Len(t, leads, 1)
	assert.Equal(t, c.ids[2], leads[0].Node)
	assert.Equal(t, int64(3), leads[0].Epoch)
	// Three campaigns (n1, n2, n3) of 4 requests each, every one answered.
	assert.Equal(t, uint64(12), c.s.Stats().Sent[raftelect.KindRequestVote])
	assert.Equal(t, uint64(12), c.s.Stats().Sent[raftelect.KindRequestVoteResp])
}
