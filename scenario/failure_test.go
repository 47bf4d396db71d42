package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/checker"
)

// TestFailureListsBreachesOfAllowedChecks: a contract breach fails a run
// whatever expect allows (checker.Report.Judge), so Failure names the
// breached check even when the scenario allows it; an allowed finding
// without a breach (excused or within bound) is still no failure. Before,
// Failure skipped every allowed check, and a hunt counting failures by
// check (Options.Checks) or a shrink keeping "the same failure" lost the
// breach (the bug zoo's consul and cron bugs on their targeted scenarios).
func TestFailureListsBreachesOfAllowedChecks(t *testing.T) {
	run := func(breaches int) *Run {
		return &Run{
			Scenario: &Scenario{Expect: checker.Expect{Allow: []string{checker.CheckSplitBrain}}},
			Report: checker.Report{Checks: []checker.Check{
				{Name: checker.CheckSplitBrain, Status: checker.StatusViolated, Count: 2, Breaches: breaches, WithinBound: 2 - breaches},
			}},
		}
	}
	assert.Equal(t, []string{checker.CheckSplitBrain}, Failure(run(1)), "a breach of an allowed check")
	assert.Equal(t, []string{"expectations"}, Failure(run(0)), "an allowed check within its bound (the run failed on something else)")
	// Not allowed, but every finding excused or within the bound: no
	// failure of that check either (Judge's "within").
	r := run(0)
	r.Scenario.Expect.Allow = nil
	r.Scenario.Expect.ContractOnly = true
	r.Report.Checks[0].Excused, r.Report.Checks[0].WithinBound = 1, 1
	assert.Equal(t, []string{"expectations"}, Failure(r), "findings all inside the contract, judged by it (breaches: [])")
	r.Scenario.Expect.ContractOnly = false
	assert.Equal(t, []string{checker.CheckSplitBrain}, Failure(r), "the user's expectation: excused findings not allowed fail")
	r.Scenario.Expect.ContractOnly = true
	r.Report.Checks[0].Excused = 0
	assert.Equal(t, []string{checker.CheckSplitBrain}, Failure(r), "one finding outside the contract without a breach verdict still fails")
}
