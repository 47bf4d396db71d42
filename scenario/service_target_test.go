package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// The service target (docs/scenarios.md, "Targets") is valid wherever the
// run has a service node (a cron section's resource, a lease store), so one
// nemesis can aim at the store under lease algorithms and at the resource
// under any; without one the loader refuses it, naming the field; and it
// cannot say whose event counts in a trigger.
func TestServiceTarget(t *testing.T) {
	const raftCron = "name: s\nduration: 30s\ncluster: {nodes: 3}\nalgorithm: {name: raft}\n" +
		"cron: {jobs: [{name: tick, schedule: \"@every 5s\"}], policy: [fencing]}\n"
	nemesis := "faults:\n  - random: {kinds: [pause, clock], every: 1s, for: 500ms, targets: [service]}\n"
	sc, err := Parse("s.yaml", []byte(raftCron+nemesis))
	require.NoError(t, err)

	for _, algo := range []string{"raft", "lease"} {
		r, err := sc.Run(RunOptions{Seed: 1, Algorithm: algo, Recorder: &sim.Recorder{}})
		require.NoError(t, err, algo)
		hit := map[sim.NodeID]bool{}
		for _, a := range r.Injector.Applied() {
			for _, id := range a.Nodes {
				require.True(t, r.Sim.IsService(id), "%s: %s", algo, a.Detail)
				hit[id] = true
			}
		}
		assert.True(t, hit[r.ResourceID], "%s: the resource was never hit", algo)
		if algo == "lease" {
			assert.True(t, hit[r.StoreID], "lease: the store was never hit")
		}
	}

	_, err = Parse("s.yaml", []byte("name: s\nduration: 30s\ncluster: {nodes: 3}\nalgorithm: {name: raft}\n"+nemesis))
	require.ErrorContains(t, err, "service: this scenario has no service node")

	_, err = Parse("s.yaml", []byte(raftCron+"faults:\n  - {after: {event: elected, node: service}, pause: leader, for: 1s}\n"))
	require.ErrorContains(t, err, "service cannot say whose event counts")
}
