package scenario

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
)

// TestDriftMarginBoundsSimulation checks the k8s flavour's analytic drift
// margin (algorithms/lease margin.go, from client-go's leaderelection.go)
// against simulation on fast-clock-follower.yaml, whose followers' clocks
// run at rate r while the leader is cut off the store: no run overlaps
// longer than the bound at any rate; none overlaps at rates the bound
// calls safe; runs overlap at rates beyond it; and the bound is tight —
// without its RetryPeriod term some run exceeds it (the check has teeth).
// ELECTSIM_MARGIN_SEEDS seeds per rate (default 60).
func TestDriftMarginBoundsSimulation(t *testing.T) {
	seeds := envInt(t, "ELECTSIM_MARGIN_SEEDS", 60)
	tighter := 0
	for _, rate := range []float64{1.0, 1.2, 1.3, 1.5, 2.0} {
		sc, err := LoadWith(shipped("fast-clock-follower.yaml"), []string{fmt.Sprintf("faults[0].clock.rate=%g", rate)})
		require.NoError(t, err)
		m, ok := sc.DriftMargin(rate)
		require.True(t, ok)
		assert.InDelta(t, 15.0/12.007, m.SafeRate, 1e-3, "LeaseDuration / (RetryPeriod + RenewDeadline + ℓmax − 3ℓmin)")
		overlapped := 0
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r, err := sc.Run(RunOptions{Seed: seed})
			require.NoError(t, err)
			var longest time.Duration
			c, _ := r.Report.Check(checker.CheckSplitBrain)
			for _, v := range c.Violations {
				longest = max(longest, v.Duration)
			}
			assert.LessOrEqual(t, longest, m.Overlap, "rate %g seed %d: %s", rate, seed, m.Formula)
			if longest > 0 {
				overlapped++
			}
			if longest > 0 && longest > max(m.Overlap-2*time.Second, 0) { // the bound without its RetryPeriod (2 s)
				tighter++
			}
		}
		if rate <= m.SafeRate {
			assert.Zero(t, overlapped, "rate %g is within the safe rate %.3f", rate, m.SafeRate)
		}
		if rate >= m.SafeRate+0.2 {
			assert.Positive(t, overlapped, "rate %g is beyond the safe rate %.3f", rate, m.SafeRate)
		}
		t.Logf("rate %g: bound %v, %d of %d runs overlapped", rate, m.Overlap, overlapped, seeds)
	}
	assert.Positive(t, tighter, "without its RetryPeriod term the bound would be exceeded")
}
