package etcdelect

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// keepAliveGaps runs one candidate at TTL 3 s over links of the given
// constant one-way latency and returns the gaps between the keep-alives
// it sends once the session runs on replies (the first two are skipped:
// the first goes out with the grant's answer).
func keepAliveGaps(t *testing.T, latency time.Duration) []time.Duration {
	t.Helper()
	s := sim.New(sim.Config{Seed: 1, MaxTime: time.Hour, Link: sim.LinkConfig{Latency: sim.Constant(latency)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	c := DefaultConfig()
	c.TTL = 3 * time.Second
	nd, err := New(c, 1)
	require.NoError(t, err)
	s.AddNode("n0", nd)
	server := s.AddNode("etcd", NewServer(ServerConfig{}), sim.Service())
	s.RunFor(20 * time.Second)
	var sent []sim.Time
	for _, x := range rec.Records {
		if x.Type == sim.RecDeliver && x.Node == server && x.Kind == opKinds[OpKeepAlive] {
			sent = append(sent, x.SentAt)
		}
	}
	require.Greater(t, len(sent), 8, "keep-alives went out")
	var gaps []time.Duration
	for i := 3; i < len(sent); i++ {
		gaps = append(gaps, time.Duration(sent[i]-sent[i-1]))
	}
	return gaps
}

// TestEtcdKeepAliveLoopDriftCatchesNextKeepAlive reproduces
// sendKeepAliveLoop (client/v3/lease.go, etcd main at c34dc7ee): the loop
// arms time.After(retryConnWait) after its sends, so its passes come
// 500 ms and the pass's lateness apart, and a reply moves nextKeepAlive
// to TTL/3 after it (recvKeepAlive). On loopback the round trip is
// shorter than two passes' lateness, so the second pass after a send is
// already past nextKeepAlive and sends: every TTL/3 + 2·passLateness
// (1.001 s at TTL 3 s), as measured against etcd 3.4.23 (docs/reality.md:
// the real leader's lease was renewed more recently before a crash, and
// failover took longer than the model's, which sent every 1.5 s on exact
// 500 ms ticks). Before 2026-11-29 this test failed: the gaps were 1.5 s.
func TestEtcdKeepAliveLoopDriftCatchesNextKeepAlive(t *testing.T) {
	for _, g := range keepAliveGaps(t, 100*time.Microsecond) {
		assert.Equal(t, time.Second+2*passLateness, g, "loopback: every TTL/3 and two passes' lateness")
	}
}

// TestEtcdKeepAliveLoopDriftMissesOnSlowerNetwork is the twin that keeps
// the reading from being "always TTL/3": on a network whose round trip
// (10 ms) outlasts two passes' lateness, the second pass comes before
// nextKeepAlive and the third sends, every TTL/3 + 500 ms and three
// passes' lateness.
func TestEtcdKeepAliveLoopDriftMissesOnSlowerNetwork(t *testing.T) {
	for _, g := range keepAliveGaps(t, 5*time.Millisecond) {
		assert.Equal(t, 1500*time.Millisecond+3*passLateness, g, "a 10 ms round trip: the third pass sends")
	}
}
