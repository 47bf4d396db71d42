package etcdelect_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/internal/contracttest"
	"github.com/electsim/electsim/internal/testsize"
)

// TestEtcdSwarmPartitionsAndCrashes is the sweep behind
// docs/algorithms/etcd.md's measured figure: swarm.yaml's nemesis
// restricted to partitions and crashes, without message loss, TTL 5 s.
// Every overlap stays within the contract's bound and none is excused;
// at the large size (1,000 seeds, as in the doc) the figure is 147
// overlaps, the longest 930 ms of the 1.0105 s bound.
func TestEtcdSwarmPartitionsAndCrashes(t *testing.T) {
	sc, err := contracttest.WithAlgorithm(scenarios+"swarm.yaml", "{name: etcd, ttl: 5s}",
		[]string{"network.drop=0", "faults[0].random.kinds=[partition, crash]"})
	require.NoError(t, err)
	tl, err := contracttest.SweepScenario(sc, testsize.Pick(100, 1000))
	require.NoError(t, err)
	g, ok := tl.Contract.For("split_brain")
	require.True(t, ok)
	assert.Empty(t, tl.BreachSeeds)
	assert.Zero(t, tl.Verdicts[contract.Excused], "partitions and crashes excuse nothing")
	assert.Positive(t, tl.Verdicts[contract.WithinBound])
	assert.LessOrEqual(t, tl.Longest[contract.WithinBound], g.MaxOverlap)
	t.Logf("%d seeds: %v, longest %v of %v", tl.Runs, tl.Verdicts, tl.Longest[contract.WithinBound], g.MaxOverlap)
}
