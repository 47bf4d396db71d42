package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Another algorithm (-algo, a matrix column) may give runs more or fewer
// lease stores than the file's, and the nodes after them (the resource,
// queue mode's, Kubernetes mode's) move with them. Built for the run's
// own count they run: queue-leader-crash under lease used to fail with
// "internal: the queue got node ID 5, want 4". A scenario whose faults
// name such a node (w1 in a partition's groups) would aim at another node
// under that algorithm, so Build refuses it, naming the way out.
func TestOverrideMovesServiceNodes(t *testing.T) {
	sc, err := Load(shipped("queue-leader-crash.yaml"))
	require.NoError(t, err)
	for _, a := range []string{"lease", "etcd", "zookeeper", "consul", "raft"} {
		r, err := sc.Run(RunOptions{Seed: sc.Seed, Algorithm: a})
		require.NoError(t, err, a)
		assert.True(t, r.OK, "%s: %v", a, r.Problems)
		assert.Equal(t, "queue", r.Sim.NodeName(r.CronConfig.Queue.Queue), a)
	}

	sc, err = Load(shipped("queue-split-brain.yaml"))
	require.NoError(t, err)
	_, err = sc.Run(RunOptions{Seed: sc.Seed, Algorithm: "lease"})
	require.ErrorContains(t, err, "moves the service nodes this scenario's faults name")
	require.ErrorContains(t, err, "algorithm: {name: lease}")
	_, err = sc.Run(RunOptions{Seed: sc.Seed, Algorithm: "bully"})
	require.NoError(t, err, "no store either way: nothing moves")
}
