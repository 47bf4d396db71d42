package bugzoo_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// TestZooRunsAreDeterministic: a zoo bug's run is as deterministic as the
// real algorithm's (the layers, filters and hooks draw nothing and keep
// no state across runs): the same seed gives the same trace hash, and
// the planted bug changes the trace of some seed of 1–3 (the one that
// catches it, for every bug of the zoo).
func TestZooRunsAreDeterministic(t *testing.T) {
	require.NoError(t, bugzoo.Register(registry.Default))
	for _, b := range bugzoo.Bugs() {
		hash := func(algo string, plant bool, seed uint64) uint64 {
			sc, err := scenario.LoadWith(filepath.Join("testdata", b.Scenario), algoSets(b, algo))
			require.NoError(t, err)
			opts := scenario.RunOptions{Seed: seed}
			r, err := sc.Build(opts)
			require.NoError(t, err)
			if plant {
				plantIn(b, r)
			}
			r.Execute(opts)
			return r.Sim.TraceHash()
		}
		changed := false
		for seed := uint64(1); seed <= 3; seed++ {
			h := hash(b.Name, true, seed)
			assert.Equal(t, h, hash(b.Name, true, seed), "%s seed %d: same seed, different trace", b.Name, seed)
			changed = changed || h != hash(b.Base, false, seed)
		}
		assert.True(t, changed, "%s: the planted bug left the traces of seeds 1-3 unchanged", b.Name)
	}
}
