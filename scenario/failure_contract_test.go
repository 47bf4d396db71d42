package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/checker"
)

// Failure, which the shrinker and hunt keep a run failing by, follows the
// contract as Judge does: a breach names its check even when expect allows
// it, and, in a file that judges by the contract (breaches: []), a check
// whose findings are all excused or within bound names nothing even when
// expect does not allow it; in a user's file it names the check (the
// user's expectation failed, docs/checkers.md "Contracts"). (Before, an
// allowed breach left the shrinker only "expectations" to keep.)
func TestFailureFollowsTheContract(t *testing.T) {
	sc := &Scenario{}
	sc.Expect.Allow = []string{checker.CheckSplitBrain}
	sc.Expect.ContractOnly = true
	r := &Run{Scenario: sc, Report: checker.Report{Checks: []checker.Check{
		{Name: checker.CheckSplitBrain, Status: checker.StatusViolated, Count: 3, Breaches: 1, Excused: 2},
		{Name: checker.CheckElectionSafety, Status: checker.StatusViolated, Count: 2, Excused: 1, WithinBound: 1},
	}}}
	assert.Equal(t, []string{checker.CheckSplitBrain}, Failure(r))

	r.Report.Checks[0].Breaches, r.Report.Checks[0].Excused = 0, 3
	r.Report.Checks = append(r.Report.Checks, checker.Check{Name: checker.CheckStaleWrite, Status: checker.StatusViolated, Count: 1})
	assert.Equal(t, []string{checker.CheckStaleWrite}, Failure(r), "an uncovered finding not allowed still fails")
	sc.Expect.ContractOnly = false
	assert.ElementsMatch(t, []string{checker.CheckElectionSafety, checker.CheckStaleWrite}, Failure(r), "the user's expectation: an excused finding not allowed fails")
}
