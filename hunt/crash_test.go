package hunt

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// quiet is a node that does nothing.
type quiet struct{}

func (quiet) Start(sim.Env, []byte)    {}
func (quiet) OnMessage(sim.Message)    {}
func (quiet) OnTimer(sim.TimerID, int) {}

// panicky's Build panics, outside any handler, where the engine cannot
// catch it, for a quarter of the run seeds: those whose first draw from the
// run's parameter stream is ≡ bad (mod 4). bad is none of the values of
// the loader's validation stream and of the stream of seed 1, at which the
// search reads the cluster.
func init() {
	v0 := sim.NewRand(0, "validate").Uint64() % 4
	v1 := sim.NewRand(1, "params").Uint64() % 4
	bad := uint64(0)
	for bad == v0 || bad == v1 {
		bad++
	}
	registry.Default.MustRegister(registry.Algorithm{Name: "hunt-test-panicky", Doc: "a Build that panics (hunt tests)",
		Build: func(_ registry.Values, _ int, r *sim.Rand) (registry.Factory, error) {
			if r.Uint64()%4 == bad {
				panic("build broke")
			}
			return func([]sim.NodeID, registry.Services) sim.Node { return quiet{} }, nil
		}})
}

// A run that panics outside the handlers is the search's crashed finding,
// with the panic and its stack, and a scenario that reproduces it: the
// search does not die with it.
func TestSearchPanicIsAFinding(t *testing.T) {
	res, err := Search(context.Background(), Options{Algo: "hunt-test-panicky", Runs: 50, Seed: 1, Workers: 2})
	require.NoError(t, err)
	require.True(t, res.Found)
	assert.Equal(t, "crashed", res.Check)
	assert.Less(t, res.Runs, 50)
	assert.Contains(t, res.Explanation, "build broke")
	assert.Contains(t, res.Explanation, "goroutine", "the stack")
	assert.Contains(t, string(res.Repro), "algorithm: {name: hunt-test-panicky}")
	assert.Contains(t, string(res.Repro), fmt.Sprintf("seed: %d\n", res.Seed), "the run's seed replays it")
}
