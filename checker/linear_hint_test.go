package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
)

// A linearizability finding says which other check reports the same
// write (issue 36: a slot written by two runs tripped linearizability with
// no hint of why). Typed: Violation.Restates names the check.
func TestLinearizabilityRestatesDoubleAndStale(t *testing.T) {
	// Two runs of one slot applied, unfenced: double_execution.
	double := Run(resourceInput(cron.Policy{}, []int64{4990, 8000},
		write(5000, 1, 50, slot0, 0, 6, true, ""),
		write(8010, 0, 10, slot0, 0, 6, true, "")))
	lin := mustCheck(double, CheckLinearizability)
	require.Equal(t, StatusViolated, lin.Status)
	assert.Equal(t, CheckDoubleExecution, lin.Violations[0].Restates)
	assert.Contains(t, lin.Violations[0].Details, "the same slot double_execution reports")
	require.Equal(t, StatusViolated, mustCheck(double, CheckDoubleExecution).Status)

	// Two slots fenced per job, token 6 applied after 7: stale_write.
	other := slot0 + int64(time.Hour)
	stale := Run(resourceInput(cron.Policy{Fencing: true}, []int64{4990, 5002},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(5006, 0, 10, other, 0, 6, true, "")))
	lin = mustCheck(stale, CheckLinearizability)
	require.Equal(t, StatusViolated, lin.Status)
	assert.Equal(t, CheckStaleWrite, lin.Violations[0].Restates)
	assert.Contains(t, lin.Violations[0].Details, "the same write stale_write reports")

	// Must-refute: one run per slot, tokens rising — nothing to restate.
	fine := Run(resourceInput(cron.Policy{Fencing: true}, []int64{4990, 8000},
		write(5000, 1, 50, slot0, 0, 6, true, ""),
		write(8010, 0, 10, other, 0, 7, true, "")))
	assert.Equal(t, StatusOK, mustCheck(fine, CheckLinearizability).Status)
}
