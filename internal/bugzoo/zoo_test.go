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

// maxRuns bounds each search: every zoo bug must be found within it, and
// the real algorithm must pass that many runs of the same scenario.
const maxRuns = 20

// TestZoo: each zoo bug is caught by its targeted scenario (a run fails on
// the check the bug breaks, by a contract breach where the contract covers
// it), and the real algorithm passes every one of the same runs (the
// must-refute pair: the scenario catches the bug, not the algorithm).
func TestZoo(t *testing.T) {
	require.NoError(t, bugzoo.Register(registry.Default))
	for _, b := range bugzoo.Bugs() {
		t.Run(b.Name, func(t *testing.T) {
			if b.NeedsContract {
				base, ok := registry.Default.Lookup(b.Base)
				require.True(t, ok, b.Base)
				if base.Contract == nil {
					t.Skipf("%s: %s declares no contract on this tree: only its contract tells the bug from the algorithm", b.Name, b.Base)
				}
				// A contract that stops covering the bug's check must not
				// turn the test into a skip.
				require.True(t, covers(t, b), "%s: %s's contract does not cover %s in testdata/%s", b.Name, b.Base, b.Catches, b.Scenario)
			}
			bug := search(t, b, b.Name, true, maxRuns)
			t.Logf("%s: %s", b.Name, bug)
			assert.True(t, bug.Found, "%s: not caught by testdata/%s in %d runs", b.Name, b.Scenario, maxRuns)
			real := search(t, b, b.Base, false, maxRuns)
			t.Logf("%s (real): %s", b.Base, real)
			assert.False(t, real.Found, "real %s fails testdata/%s: %v", b.Base, b.Scenario, real.Problems)
		})
	}
}

// covers reports whether b's base contract, on b's scenario, covers the
// check b breaks.
func covers(t *testing.T, b bugzoo.Bug) bool {
	sc, err := scenario.LoadWith(filepath.Join("testdata", b.Scenario), []string{"algorithm.name=" + b.Base})
	require.NoError(t, err)
	r, err := sc.Build(scenario.RunOptions{Seed: 1})
	require.NoError(t, err)
	_, ok := r.Contract.For(b.Catches)
	return ok
}
