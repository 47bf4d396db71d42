package bugzoo_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// defaultSimBudget is each hunt's budget in simulated time: a bug's hunt
// makes as many runs of its targeted scenario as fit in it (at least one),
// and the real algorithm's as many. One rule for every bug, so a long
// scenario (consul's two minutes) gets fewer runs than a short one
// (raft's 25 s) and the test stays fast in CI; no bug has a budget of its
// own. Every zoo bug must be found within it.
const defaultSimBudget = 40 * time.Minute

// zooRuns is how many runs b's hunt makes: defaultSimBudget, or
// ZOO_HUNT_SIM (a duration) when set (a larger one makes the must-refute
// half stricter; the default must find every bug), over the length of one
// run of b's targeted scenario (its fault phase and settle phase).
func zooRuns(t *testing.T, b bugzoo.Bug) int {
	budget := defaultSimBudget
	if s := os.Getenv("ZOO_HUNT_SIM"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(t, err, "ZOO_HUNT_SIM")
		require.Positive(t, d, "ZOO_HUNT_SIM")
		budget = d
	}
	sc, err := scenario.Load(filepath.Join("testdata", b.Scenario))
	require.NoError(t, err)
	return max(int(budget/(sc.Duration+sc.Settle.For)), 1)
}

// TestZoo: hunt finds each zoo bug from its targeted scenario within a
// small deterministic budget (a run fails on the check the bug breaks, by
// a contract breach where the contract covers it, and its repro.yaml
// replays that failure), and the real algorithm under the same hunt
// options finds nothing in as many runs (the must-refute pair: the search
// catches the bug, not the algorithm). This is the regression suite of
// the search's power (docs/hunting.md, "The bug zoo").
func TestZoo(t *testing.T) {
	require.NoError(t, bugzoo.Register(registry.Default))
	for _, b := range bugzoo.Bugs() {
		t.Run(b.Name, func(t *testing.T) {
			requireContract(t, b)
			runs := zooRuns(t, b)
			bug := search(t, b, options(b, b.Name, true, runs))
			t.Logf("%s: %s", b.Name, bug)
			assert.True(t, bug.Found, "%s: hunt on testdata/%s found nothing in %d runs", b.Name, b.Scenario, runs)
			real := search(t, b, options(b, b.Base, false, runs))
			t.Logf("%s (real): %s", b.Base, real)
			assert.False(t, real.Found, "real %s: hunt on testdata/%s found %v (strategy %s, seed %d):\n%s",
				b.Base, b.Scenario, real.Failure, real.Strategy, real.Seed, real.Repro)
		})
	}
}

// requireContract skips a bug that needs its base's contract on a tree
// where the base declares none, and fails when the contract exists but
// does not cover the bug's check (a contract that stops covering it must
// not turn the test into a skip).
func requireContract(t *testing.T, b bugzoo.Bug) {
	t.Helper()
	if !b.NeedsContract {
		return
	}
	base, ok := registry.Default.Lookup(b.Base)
	require.True(t, ok, b.Base)
	if base.Contract == nil {
		t.Skipf("%s: %s declares no contract on this tree: only its contract tells the bug from the algorithm", b.Name, b.Base)
	}
	require.True(t, covers(t, b), "%s: %s's contract does not cover %s in testdata/%s", b.Name, b.Base, b.Catches, b.Scenario)
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
