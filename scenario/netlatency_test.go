package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
)

func latencyOf(t *testing.T, src string) contract.Network {
	t.Helper()
	sc, err := Parse("net.yaml", []byte("name: net\nduration: 10s\ncluster: {nodes: 3}\nalgorithm: {name: raft}\n"+src))
	require.NoError(t, err)
	return networkLatency(sc)
}

func TestNetworkLatencyCoversEveryLinkAndLinkFault(t *testing.T) {
	const ms = time.Millisecond
	assert.Equal(t, contract.Network{Min: 1 * ms, Max: 10 * ms, Bounded: true}, latencyOf(t, "network: {latency: 1ms..10ms}\n"))
	assert.Equal(t, contract.Network{Min: 1 * ms, Max: 50 * ms, Bounded: true},
		latencyOf(t, "network:\n  latency: 1ms..10ms\n  links:\n    - {from: n1, to: n2, latency: 50ms, both: true}\n"))
	assert.Equal(t, contract.Network{Min: 1 * ms, Max: 800 * ms, Bounded: true},
		latencyOf(t, "network: {latency: 1ms..10ms}\nfaults:\n  - {at: 5s, link: {from: n1, to: n2, latency: {dist: uniform, min: 200ms, max: 800ms}}, for: 1s}\n"))
	assert.Equal(t, contract.Network{Min: 1 * ms, Max: 500 * ms, Bounded: true},
		latencyOf(t, "network: {latency: 1ms..10ms}\nfaults:\n  - random: {kinds: [link, pause], every: 2s..6s, for: 1s}\n"), "the nemesis's default link latency")
	assert.Equal(t, contract.Network{Min: 1 * ms, Max: 10 * ms, Bounded: true},
		latencyOf(t, "network: {latency: 1ms..10ms}\nfaults:\n  - random: {kinds: [pause], every: 2s..6s, for: 1s, link_latency: 2s}\n"), "a nemesis that draws no link fault adds nothing")
	unbounded := latencyOf(t, "network: {latency: {dist: exponential, min: 5ms, mean: 20ms}}\n")
	assert.False(t, unbounded.Bounded)
	assert.Equal(t, 5*ms, unbounded.Min)
}

// A run's contract arrives resolved: raft's CheckQuorum bound gains the
// network's latency spread.
func TestRunContractIsResolvedAgainstTheNetwork(t *testing.T) {
	sc, err := Parse("net.yaml", []byte("name: net\nduration: 1s\ncluster: {nodes: 3}\nnetwork: {latency: 2ms..7ms}\nalgorithm: {name: raft, check_quorum: true}\n"))
	require.NoError(t, err)
	r, err := sc.Build(RunOptions{Seed: 1})
	require.NoError(t, err)
	g, ok := r.Contract.For("split_brain")
	require.True(t, ok)
	assert.Equal(t, 2*150*time.Millisecond+5*time.Millisecond, g.MaxOverlap, "2 × election_timeout_min + (7ms − 2ms)")
	assert.Zero(t, g.Latency)
}
