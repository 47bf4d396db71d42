package bugzoo_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/scenario"
)

// outcome is what one search for a bug found.
type outcome struct {
	// Found: some run failed (a contract breach, or the bug's check
	// violated where the contract does not cover it).
	Found bool
	// Seed is the first failing run's seed; Runs how many runs it took
	// (all of them when nothing was found).
	Seed uint64
	Runs int
	// Breach: the failing run broke the algorithm's contract (not only the
	// scenario's expect).
	Breach bool
	// Problems are the failing run's problems.
	Problems []string
	// Wall is the search's wall time.
	Wall time.Duration
}

// search runs algo on b's targeted scenario for seeds 1..maxRuns until a
// run fails, planting b's non-candidate part (Bug.Prepare) in every run
// when plant is set. It is the one function the zoo test calls to find a
// bug. When package hunt lands it becomes
//
//	hunt.Search(ctx, hunt.Options{Scenario: "testdata/" + b.Scenario,
//		Sets: []string{"algorithm.name=" + algo}, Runs: maxRuns, Seed: 1, Workers: 1})
//
// with Result.Found, Result.Runs and Result.Strategy (Options.Algo would
// reset the scenario's parameters to their defaults; without Scenario the
// search starts from hunt's built-in base cluster, the stricter test). The
// three zoo-cron-* bugs live in the fenced resource, so hunt needs a way
// to plant them in each built run (an Options hook called with the
// scenario.Run before Execute, passing run.Resource to Bug.Prepare).
func search(t *testing.T, b bugzoo.Bug, algo string, plant bool, maxRuns int) outcome {
	t.Helper()
	start := time.Now()
	sc, err := scenario.LoadWith(filepath.Join("testdata", b.Scenario), []string{"algorithm.name=" + algo})
	require.NoError(t, err)
	var o outcome
	for seed := uint64(1); seed <= uint64(maxRuns); seed++ {
		o.Runs++
		opts := scenario.RunOptions{Seed: seed}
		r, err := sc.Build(opts)
		require.NoError(t, err)
		if plant && r.Resource != nil {
			b.Prepare(r.Resource)
		}
		r.Execute(opts)
		if !r.OK {
			o.Found, o.Seed, o.Problems = true, seed, r.Problems
			o.Breach = r.Report.Breaches > 0
			requireTheBugsCheck(t, b, r)
			break
		}
	}
	o.Wall = time.Since(start)
	return o
}

// requireTheBugsCheck holds a failing run of a zoo bug to the check the
// bug breaks: it is violated, and where the run's contract covers it,
// by a breach (the zoo bug is caught by the real contract, not by
// accident).
func requireTheBugsCheck(t *testing.T, b bugzoo.Bug, r *scenario.Run) {
	t.Helper()
	c, ok := r.Report.Check(b.Catches)
	require.True(t, ok, "%s: no check %q", b.Name, b.Catches)
	require.Equal(t, checker.StatusViolated, c.Status, "%s seed %d failed, but not on %s: %v", b.Name, r.Seed, b.Catches, r.Problems)
	if _, covered := r.Contract.For(b.Catches); covered {
		require.Positive(t, c.Breaches, "%s seed %d: %s is covered by the contract but no finding breached it: %v", b.Name, r.Seed, b.Catches, r.Problems)
	}
}

func (o outcome) String() string {
	if !o.Found {
		return fmt.Sprintf("not found in %d runs (%v)", o.Runs, o.Wall.Round(time.Millisecond))
	}
	return fmt.Sprintf("found at seed %d after %d runs (%v, breach %v): %v", o.Seed, o.Runs, o.Wall.Round(time.Millisecond), o.Breach, o.Problems)
}
