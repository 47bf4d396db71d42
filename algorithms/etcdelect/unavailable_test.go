package etcdelect_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
)

// TestUnavailableStoreDoesNotSpin: found by simrun hunt (-algo etcd, a
// store outage longer than the session TTL). While the cluster has no
// leader, no lessor revokes; the revoke loop used to be re-aimed at the
// expired lease's tick, where propose refused to act and re-aimed it at
// the same instant, forever: 100,000 timer firings and store writes at
// one simulated instant until the event-rate budget stopped the run.
func TestUnavailableStoreDoesNotSpin(t *testing.T) {
	src := `name: etcd-unavailable
seed: 7346223817357926358
duration: 70s
cluster: {nodes: 5}
network: {latency: 1ms..10ms}
algorithm: {name: etcd}
faults:
  - {at: 6ms, store: {unavailable: true}}
settle: {for: 10s, leader_within: 5s}
expect: {allow: [leader_linearizability, liveness]}
`
	sc, err := scenario.Parse("etcd-unavailable.yaml", []byte(src))
	require.NoError(t, err)
	r, err := sc.Run(scenario.RunOptions{Seed: sc.Seed})
	require.NoError(t, err)
	assert.False(t, r.Outcome.Exhausted(), "the run hit its event budget: %v", r.Outcome)
	assert.Less(t, r.Sim.Stats().Events, uint64(20_000), "events in 80 s of a leaderless store")
}
