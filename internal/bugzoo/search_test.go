package bugzoo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/internal/bugzoo"
	"github.com/electsim/electsim/scenario"
)

// outcome is what one hunt for a bug found.
type outcome struct {
	hunt.Result
	// Wall is the search's wall time, the shrink of a finding included.
	Wall time.Duration
}

// options are the hunt options the zoo test gives every bug and its real
// algorithm alike: b's targeted scenario as the base (its faults stay,
// hunt adds its own), algo in place of the scenario's algorithm, only the
// check b breaks counted (the search's extra faults may break a tight
// expect of the scenario for reasons that are not the bug), a fixed seed,
// one worker and an exact number of runs. plant sets Options.Prepare to
// plant b's non-candidate part (the fenced resource's bugs) in every run.
func options(b bugzoo.Bug, algo string, plant bool, runs int) hunt.Options {
	o := hunt.Options{
		Scenario:     filepath.Join("testdata", b.Scenario),
		Sets:         algoSets(b, algo),
		Checks:       []string{b.Catches},
		Kinds:        b.Kinds,
		Runs:         runs,
		Seed:         1,
		Workers:      1,
		Quiet:        true,
		ShrinkBudget: 2 * time.Second, // a shrink that runs out leaves a longer repro, still replayed
	}
	if plant {
		o.Prepare = func(r *scenario.Run) { plantIn(b, r) }
	}
	return o
}

// search hunts with o and, for a finding, holds its reproduction to the
// bug's check (requireTheBugsCheck on the replayed repro.yaml).
func search(t *testing.T, b bugzoo.Bug, o hunt.Options) outcome {
	t.Helper()
	start := time.Now()
	res, err := hunt.Search(context.Background(), o)
	require.NoError(t, err)
	out := outcome{Result: res, Wall: time.Since(start)}
	if res.Found {
		require.Equal(t, b.Catches, res.Check, "%s: found on %v, not on %s", b.Name, res.Failure, b.Catches)
		replay(t, b, o, res)
	}
	return out
}

// replay runs a finding's run again from its explicit scenario (the
// schedule hunt drew, with its seed) and requires it to fail on the bug's
// check, by a breach where the contract covers it; and runs its repro.yaml
// as a user would, which must fail too. Both with the same Prepare.
func replay(t *testing.T, b bugzoo.Bug, o hunt.Options, res hunt.Result) {
	t.Helper()
	require.NotEmpty(t, res.Explicit, "%s: a finding without its explicit scenario", b.Name)
	requireTheBugsCheck(t, b, runFile(t, b, o, res.Explicit))
	require.NotEmpty(t, res.Repro, "%s: a finding without a reproduction", b.Name)
	r := runFile(t, b, o, res.Repro)
	require.False(t, r.OK, "%s: repro.yaml passes:\n%s", b.Name, res.Repro)
}

// runFile runs a scenario file's text with its own seed and o's Prepare.
func runFile(t *testing.T, b bugzoo.Bug, o hunt.Options, src []byte) *scenario.Run {
	t.Helper()
	sc, err := scenario.Parse("repro.yaml", src)
	require.NoError(t, err, "%s: does not load:\n%s", b.Name, src)
	opts := scenario.RunOptions{Seed: sc.Seed}
	r, err := sc.Build(opts)
	require.NoError(t, err)
	if o.Prepare != nil {
		o.Prepare(r)
	}
	r.Execute(opts)
	return r
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
		return fmt.Sprintf("not found in %d runs (%v; %v)", o.Runs, o.Wall.Round(time.Millisecond), o.ByStrategy)
	}
	return fmt.Sprintf("found by %s after %d runs (%v): %v", o.Strategy, o.Runs, o.Wall.Round(time.Millisecond), o.Failure)
}

// plantIn plants b's parts outside the candidates in the built run r: its
// fenced resource's and its cron modes' (Bug.Prepare), where r has them.
func plantIn(b bugzoo.Bug, r *scenario.Run) {
	var res bugzoo.Planter
	if r.Resource != nil {
		res = r.Resource
	}
	var cfg bugzoo.CronPlanter
	if r.CronConfig != nil {
		cfg = r.CronConfig
	}
	b.Prepare(res, cfg)
}

// algoSets are the -set lines that run algo on b's targeted scenario: none
// for a bug of a mode with no election algorithm (Bug.Base ""), where the
// bug and the real run differ only by what Prepare plants.
func algoSets(b bugzoo.Bug, algo string) []string {
	if b.Base == "" {
		return nil
	}
	return []string{"algorithm.name=" + algo}
}
