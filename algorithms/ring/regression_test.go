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
// entering a newer round now steps down (enterRound), so one leader remains
// once the partition heals.
func TestRegressionLiftedRoundKeepsNoSecondLeader(t *testing.T) {
	cfg := ring.DefaultConfig()
	cfg.AckTimeout = 30 * time.Millisecond
	cfg.HeartbeatInterval = 20 * time.Millisecond
	cfg.HeartbeatTimeout = 40 * time.Millisecond
	cfg.PersistEpoch = false
	s := sim.New(sim.Config{Seed: 0, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, time.Millisecond)}})
	peers := []sim.NodeID{0, 1, 2}
	for i := range peers {
		s.AddNode([]string{"n1", "n2", "n3"}[i], ring.MustNew(cfg, peers))
	}
	s.At(sim.Time(time.Millisecond), func() { s.Isolate(0) })
	s.At(sim.Time(112*time.Millisecond), func() { s.Heal() })
	s.RunUntil(sim.Time(5 * time.Second))
	leaders := s.Leaders()
	require.Len(t, leaders, 1, "exactly one leader after the heal, got %v", leaders)
	assert.Equal(t, sim.NodeID(2), leaders[0], "the highest node leads")
}

// The second counterexample of the same property (nightly size, 3,450
// cases): n1 leads round 2 and n0 round 3 after a total partition; at the
// heal n0 lifts n2's ELECTION into round 4 and n1 joins it, but the round-4
// ELECTION is lost (2% loss). Both stayed leaders of their old rounds while in
// round 4, and every heartbeat (carrying round 2 or 3) was ignored. A leader
// entering a newer round now steps down and arms its monitor.
func TestRegressionLeaderSteppingIntoNewRound(t *testing.T) {
	cfg := ring.DefaultConfig()
	cfg.AckTimeout = 88 * time.Millisecond
	cfg.HeartbeatInterval = 87 * time.Millisecond
	cfg.HeartbeatTimeout = 174 * time.Millisecond
	cfg.PersistEpoch = false
	cfg.Order = []sim.NodeID{0, 1, 2}
	lat := sim.Uniform(time.Millisecond/2, 2*time.Millisecond)
	s := sim.New(sim.Config{Seed: 1, Link: sim.LinkConfig{Latency: lat}})
	peers := []sim.NodeID{0, 1, 2}
	for i := range peers {
		s.AddNode([]string{"n0", "n1", "n2"}[i], ring.MustNew(cfg, peers))
	}
	ms := func(x int) sim.Time { return sim.Time(time.Duration(x) * time.Millisecond) }
	s.AtLate(ms(1289), func() { s.Pause(2) })
	s.AtLate(ms(2109), func() { s.Isolate(0); s.Isolate(1); s.Isolate(2) })
	s.AtLate(ms(2500), func() { s.SetAllLinks(sim.LinkConfig{Latency: lat, Drop: 0.02}) })
	s.AtLate(ms(5259), func() { s.Resume(2) })
	s.AtLate(ms(5430), func() { s.Heal() })
	s.AtLate(ms(5513), func() { s.SetAllLinks(sim.LinkConfig{Latency: lat}) })
	s.RunUntil(sim.Time(10 * time.Second))
	require.Len(t, s.Leaders(), 1, "one leader 4.5 s after the faults, got %v", s.Leaders())
}
