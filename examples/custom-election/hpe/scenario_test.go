package hpe_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
)

// hpe meets the example scenario, which allows no check, on every seed:
// crashed and restarted leaders never overlap their successors, at the
// first start included (a candidate waits a timeout of silence from its
// start, and for the leader it hears to step down).
func TestExampleScenarioEverySeed(t *testing.T) {
	src, err := os.ReadFile("../example.yaml")
	require.NoError(t, err)
	sc, err := scenario.Parse("example.yaml", src)
	require.NoError(t, err)
	for seed := uint64(1); seed <= 200; seed++ {
		r, err := sc.Run(scenario.RunOptions{Seed: seed})
		require.NoError(t, err)
		require.True(t, r.OK, "seed %d:\n%s", seed, strings.Join(r.Problems, "\n"))
	}
}
