package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/checker"
)

// splitBrains runs a scenario file with overrides over seeds 1..n and
// counts the runs whose split_brain check found an overlap.
func splitBrains(t *testing.T, file string, n int, set ...string) int {
	t.Helper()
	sc, err := LoadWith(file, set)
	require.NoError(t, err)
	found := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r, err := sc.Run(RunOptions{Seed: seed})
		require.NoError(t, err)
		if c, _ := r.Report.Check(checker.CheckSplitBrain); c.Count > 0 {
			found++
		}
	}
	return found
}

// TestRedisExpiresByWallClock reproduces Redis's key expiry by wall-clock
// time (src/db.c, keyIsExpired, comparing the key's absolute PX expiry with
// commandTimeSnapshot(), the cached gettimeofday time): a +30 s step of the
// Redis host's wall clock right after a renewal expires the lock, and
// another candidate takes it while the holder still leads: split-brain in
// (nearly) every seed. A store judging TTLs by its monotonic clock is not
// moved by the step: none.
func TestRedisExpiresByWallClock(t *testing.T) {
	wall := splitBrains(t, "redis-clock-jump.yaml", 20)
	mono := splitBrains(t, "redis-clock-jump.yaml", 20, "algorithm.expiry_clock=monotonic")
	t.Logf("split-brains over 20 seeds: wall-clock expiry %d, monotonic %d", wall, mono)
	assert.GreaterOrEqual(t, wall, 15, "Redis semantics: the step expires the key early")
	assert.Equal(t, 0, mono, "monotonic expiry ignores wall steps")
}
