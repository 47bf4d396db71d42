package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/checker"
)

// Failure, which the shrinker and hunt keep a run failing by, follows the
// contract as Judge does: a breach names its check even when expect allows
// it, and a check whose findings are all excused or within bound names
// nothing even when expect does not allow it. (Before, an allowed breach
// left the shrinker only "expectations" to keep, and an excused finding
// of another check was kept as if it failed the run.)
func TestFailureFollowsTheContract(t *testing.T) {
	sc := &Scenario{}
	sc.Expect.Allow = []string{checker.CheckSplitBrain}
	r := &Run{Scenario: sc, Report: checker.Report{Checks: []checker.Check{
		{Name: checker.CheckSplitBrain, Status: checker.StatusViolated, Count: 3, Breaches: 1, Excused: 2},
		{Name: checker.CheckElectionSafety, Status: checker.StatusViolated, Count: 2, Excused: 1, WithinBound: 1},
	}}}
	assert.Equal(t, []string{checker.CheckSplitBrain}, Failure(r))

	r.Report.Checks[0].Breaches, r.Report.Checks[0].Excused = 0, 3
	r.Report.Checks = append(r.Report.Checks, checker.Check{Name: checker.CheckStaleWrite, Status: checker.StatusViolated, Count: 1})
	assert.Equal(t, []string{checker.CheckStaleWrite}, Failure(r), "an uncovered finding not allowed still fails")
}
