package ring_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/sim"
)

// Regression for the bug TestPropertySettlesOnOneLeaderAfterPartitions
// found (its minimal counterexample, pinned): n1 is isolated from 1 ms to
// 112 ms, skips both successors and leads round 1 while n3 leads round 1 on
// the other side; n1 lifts n3's returning ELECTION into round 2, which is
// lost. Each ignored the other's heartbeats and both led forever. A leader
// now yields to a higher node's heartbeat for any round at least as new as
// the one it leads, so one leader remains once the partition heals.
func TestRegressionLiftedRoundKeepsNoSecondLeader(t *testing.T) {
	cfg := ring.DefaultConfig()
	cfg.AckTimeout = 30 * time.Millisecond
	cfg.HeartbeatInterval = 20 * time.Millisecond
	cfg.HeartbeatTimeout = 40 * time.Millisecond
	cfg.PersistEpoch = false
	s := sim.New(sim.Config{Seed: 0, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, time.Millisecond)}})
	peers := []sim.NodeID{0, 1, 2}
	for i := range peers {
		s.AddNode([]string{"n1", "n2", "n3"}[i], ring.New(cfg, peers))
	}
	s.At(sim.Time(time.Millisecond), func() { s.Isolate(0) })
	s.At(sim.Time(112*time.Millisecond), func() { s.Heal() })
	s.RunUntil(sim.Time(5 * time.Second))
	leaders := s.Leaders()
	require.Len(t, leaders, 1, "exactly one leader after the heal, got %v", leaders)
	assert.Equal(t, sim.NodeID(2), leaders[0], "the highest node leads")
}
