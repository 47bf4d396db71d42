package scenario

import (
	"os"
	"strconv"
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
	wall := splitBrains(t, shipped("redis-clock-jump.yaml"), 20)
	mono := splitBrains(t, shipped("redis-clock-jump.yaml"), 20, "algorithm.expiry_clock=monotonic")
	t.Logf("split-brains over 20 seeds: wall-clock expiry %d, monotonic %d", wall, mono)
	assert.GreaterOrEqual(t, wall, 15, "Redis semantics: the step expires the key early")
	assert.Equal(t, 0, mono, "monotonic expiry ignores wall steps")
}

// TestClientGoReleaseBlocksForRESTTimeout reproduces client-go's release
// path: LeaderElector.Run (tools/leaderelection/leaderelection.go) returns,
// and cancels the leader's context, only after release() returns, and each
// of release's API requests is bounded by the REST client's timeout,
// max(1s, RenewDeadline/2) as resourcelock.NewFromKubeconfig
// (tools/leaderelection/resourcelock/interface.go) builds the client. With
// the leader cut off the API server and RenewDeadline 20s the release
// blocks 10s while the leader still acts, and a follower takes the lease:
// split-brain in every seed. A 1s request timeout (our former fixed value)
// hides it; without release_on_cancel the leader stops at its deadline.
// With client-go's defaults (15s/10s/2s) the 5s block overlaps in some
// seeds.
func TestClientGoReleaseBlocksForRESTTimeout(t *testing.T) {
	const seeds = 20
	rest := splitBrains(t, shipped("k8s-release-hang.yaml"), seeds)
	short := splitBrains(t, shipped("k8s-release-hang.yaml"), seeds, "algorithm.request_timeout=1s")
	noRelease := splitBrains(t, shipped("k8s-release-hang.yaml"), seeds, "algorithm.release_on_cancel=false")
	defaults := splitBrains(t, shipped("k8s-release-hang.yaml"), seeds,
		"algorithm.lease_duration=15s", "algorithm.renew_deadline=10s")
	t.Logf("split-brains over %d seeds: REST timeout 10s %d, 1s %d, no release %d, client-go defaults %d", seeds, rest, short, noRelease, defaults)
	assert.Equal(t, seeds, rest, "the release blocks RenewDeadline/2 = 10s while the leader acts")
	assert.Zero(t, short, "a 1s request timeout ends the release before the follower's LeaseDuration")
	assert.Zero(t, noRelease, "without ReleaseOnCancel the leader stops at RenewDeadline")
	assert.Positive(t, defaults, "with 15s/10s/2s the 5s block overlaps in some seeds")
}

// TestClientGoWholeSecondHazard checks the condition docs/algorithms/lease.md
// states for client-go's whole-second change detection: tryAcquireOrRenew
// (tools/leaderelection/leaderelection.go) compares the marshalled
// LeaderElectionRecord, whose metav1.Time fields serialize in whole
// seconds (resourcelock/leaselock.go converts the Lease's MicroTime), so a
// renewal in the same second as the last one a follower saw is invisible
// and the follower's observedTime lags by up to about a second. A leader
// cut off the API server acts until RetryPeriod + RenewDeadline after its
// last renewal, so the lag overlaps it only when LeaseDuration −
// RenewDeadline − RetryPeriod is below about one second; a sub-second
// RetryPeriod with a wide margin is safe.
func TestClientGoWholeSecondHazard(t *testing.T) {
	const seeds = 50
	run := func(lease, retry string) int {
		return splitBrains(t, shipped("k8s-release-hang.yaml"), seeds, "algorithm.release_on_cancel=false",
			"algorithm.lease_duration="+lease, "algorithm.renew_deadline=10s", "algorithm.retry_period="+retry)
	}
	narrow := run("10500ms", "267ms") // margin 0.233s, renewals 267ms apart
	wide := run("13500ms", "267ms")   // margin 3.233s
	second := run("12s", "1s")        // margin 1s, renewals a second apart
	t.Logf("split-brains over %d seeds: margin 0.23s %d, margin 3.2s %d, RetryPeriod 1s %d", seeds, narrow, wide, second)
	assert.Greater(t, narrow, seeds/2, "sub-second renewals and a sub-second margin")
	assert.Zero(t, wide, "sub-second renewals alone are safe with a wide margin")
	assert.Zero(t, second, "renewals a second apart are always visible")
}

// TestRedlockStories runs Kleppmann's two stories ("How to do distributed
// locking", 2016) against the redlock flavour — go-redsync's Lock/Extend
// (mutex.go: quorum len(pools)/2+1, validity until = now + expiry −
// elapsed − expiry·driftFactor) over five independent masters — on 200
// seeds each (20 under -race; ELECTSIM_REDLOCK_SEEDS to change): every seed meets the
// scenario's own expectations, and the GC-pause story with the cron
// layer's fencing + claim policies has no double execution.
func TestRedlockStories(t *testing.T) {
	def := 200
	if raceEnabled {
		def = 20 // sequential runs: the plain test run covers all 200
	}
	seeds := envInt(t, "ELECTSIM_REDLOCK_SEEDS", def)
	for _, file := range []string{"redlock-clock-jump.yaml", "redlock-gc-pause.yaml"} {
		sc, err := Load(shipped(file))
		require.NoError(t, err)
		bad := 0
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			r, err := sc.Run(RunOptions{Seed: seed})
			require.NoError(t, err)
			if !r.OK {
				bad++
				if bad <= 3 {
					t.Errorf("%s seed %d: %v", file, seed, r.Problems)
				}
			}
		}
		assert.Zero(t, bad, "%s: seeds that missed their expectations", file)
	}
	sc, err := LoadWith(shipped("redlock-gc-pause.yaml"), []string{"algorithm.token=fence", "cron.policy=[fencing, claim]"})
	require.NoError(t, err)
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r, err := sc.Run(RunOptions{Seed: seed})
		require.NoError(t, err)
		c, _ := r.Report.Check(checker.CheckDoubleExecution)
		require.Zero(t, c.Count, "seed %d: fencing + claim must stop the paused holder's run", seed)
		sb, _ := r.Report.Check(checker.CheckSplitBrain)
		assert.True(t, sb.OnlyHarmless(), "seed %d: the belief-level split-brain remains, made harmless", seed)
	}
}

// envInt reads a positive count from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}
