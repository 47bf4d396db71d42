package bugzoo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// TestZooHuntBudget measures, when ZOO_HUNT_BUDGET is set (a duration:
// 20s for the table in docs/hunting.md), how long hunt takes to find each
// zoo bug with a wall-clock budget, one worker and seed 1, from two
// bases: the bug's targeted scenario (as TestZoo), and hunt's built-in
// base cluster with only the targeted scenario's algorithm parameters
// set (the flavour or option the bug lives in; none of the scenario's
// faults), which is the search's power alone. A finding from the built-in
// base is checked against the real algorithm under the same options and
// as many runs: if the real one fails too, the row says so. It fails
// when a bug is not found from its targeted scenario within the budget.
func TestZooHuntBudget(t *testing.T) {
	s := os.Getenv("ZOO_HUNT_BUDGET")
	if s == "" {
		t.Skip("set ZOO_HUNT_BUDGET (e.g. 20s) to measure")
	}
	budget, err := time.ParseDuration(s)
	require.NoError(t, err)
	require.NoError(t, bugzoo.Register(registry.Default))
	for _, b := range bugzoo.Bugs() {
		t.Run(b.Name, func(t *testing.T) {
			requireContract(t, b)
			o := options(b, b.Name, true, 0)
			o.Budget = budget
			bug := search(t, b, o)
			t.Logf("ROW %s | targeted | %s", b.Name, bug)
			require.True(t, bug.Found, "%s: not found from testdata/%s within %v", b.Name, b.Scenario, budget)
			if b.InCronMode() {
				t.Logf("ROW %s | base | n/a: the bug lives in the cron mode its scenario sets, which the built-in base does not run", b.Name)
				return
			}

			sc, err := scenario.LoadWith(filepath.Join("testdata", b.Scenario), []string{"algorithm.name=" + b.Name})
			require.NoError(t, err)
			var sets []string
			for _, kv := range sc.Algorithm.Params() {
				sets = append(sets, "algorithm."+kv)
			}
			o = options(b, b.Name, true, 0)
			o.Scenario, o.Algo, o.Sets, o.Budget = "", b.Name, sets, budget
			base := search(t, b, o)
			verdict := ""
			if base.Found {
				r := o
				r.Algo, r.Prepare, r.Budget, r.Runs = b.Base, nil, 0, base.Runs
				real, err := hunt.Search(context.Background(), r)
				require.NoError(t, err)
				if real.Found {
					verdict = fmt.Sprintf(" (the real algorithm fails too, after %d runs)", real.Runs)
				}
			}
			t.Logf("ROW %s | base %v | %s%s", b.Name, sets, base, verdict)
		})
	}
}
