package lease

import (
	"testing"
	"time"

	"github.com/electsim/electsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxPoll is the longest wait between two acquisition attempts: apimachinery
// wait.Jitter(RetryPeriod, 1.2) = RetryPeriod + U[0,1)·1.2·RetryPeriod.
func maxPoll(cfg Config) time.Duration {
	return cfg.RetryPeriod + time.Duration(cfg.JitterFactor*float64(cfg.RetryPeriod))
}

// lastWriteBy returns the store's last acquired/renewed effect for holder
// before t.
func (c *cluster) lastWriteBy(holder sim.NodeID, before sim.Time) sim.Record {
	var last sim.Record
	for _, r := range c.records(sim.RecEffect, c.store, 0) {
		if r.At < before && sim.NodeID(r.A) == holder && (r.Name == EffectAcquired || r.Name == EffectRenewed) {
			last = r
		}
	}
	return last
}

// firstSaw returns when node first received a store reply carrying revision
// rev (the reply's Term): when it first observed that version of the record.
func (c *cluster) firstSaw(node sim.NodeID, rev int64) (sim.Time, bool) {
	for _, r := range c.records(sim.RecDeliver, node, 0) {
		if r.Kind == KindReply && r.Epoch == rev {
			return r.At, true
		}
	}
	return 0, false
}

// TestK8sFailoverBounds crashes the leader at a random instant and checks
// when a new leader acts, against the bounds client-go's timing implies
// (tools/leaderelection/leaderelection.go):
//
//   - tryAcquireOrRenew refuses while observedTime + LeaseDuration is after
//     now, where observedTime is the candidate's monotonic reading when it last
//     saw the record change and now is read before the Get. So a candidate that
//     first saw the last renewal at O acts no earlier than O + LeaseDuration
//     (+ a Get and an Update round trip): never before the lease expired by
//     its own clock.
//   - acquire polls with wait.JitterUntil(RetryPeriod, JitterFactor=1.2,
//     sliding): successive attempts start at most RetryPeriod·2.2 plus a round
//     trip apart, so it acts by O + LeaseDuration + 2.2·RetryPeriod + 3 round
//     trips.
//   - O itself lags the store's last write W by at most one poll gap and a
//     round trip and a half, so LeaseDuration <= A − W <= LeaseDuration +
//     2·2.2·RetryPeriod + 9 one-way latencies.
//   - W trails the crash by at most one renewal gap (RetryPeriod + a round
//     trip), so A − crash >= LeaseDuration − RetryPeriod − 2 latencies.
func TestK8sFailoverBounds(t *testing.T) {
	cfg := DefaultConfig()
	ld, poll := cfg.LeaseDuration, maxPoll(cfg)
	var lat []time.Duration
	for seed := uint64(1); seed <= 50; seed++ {
		c := newCluster(t, seed, 3, cfg)
		crashAt := sim.Time(30*time.Second + c.s.Stream("crash").DurationRange(0, 4*time.Second))
		c.s.RunUntil(crashAt)
		old := c.leader(t)
		c.s.Crash(old)
		c.s.RunFor(40 * time.Second)

		w := c.lastWriteBy(old, crashAt)
		require.NotZero(t, w.C, "seed %d: no renewal by the old leader", seed)
		a, ok := c.firstLead(crashAt, old)
		require.True(t, ok, "seed %d: no new leader\n%s", seed, c.timeline())
		o, ok := c.firstSaw(a.Node, w.C)
		require.True(t, ok, "seed %d: n%d never saw revision %d", seed, a.Node, w.C)

		sinceObs, sinceWrite, sinceCrash := a.At.Sub(o), a.At.Sub(w.At), a.At.Sub(crashAt)
		assert.GreaterOrEqual(t, sinceObs, ld+4*minLat, "seed %d: acted before the lease expired by its clock", seed)
		assert.LessOrEqual(t, sinceObs, ld+poll+6*maxLat, "seed %d", seed)
		assert.GreaterOrEqual(t, sinceWrite, ld, "seed %d", seed)
		assert.LessOrEqual(t, sinceWrite, ld+2*poll+9*maxLat, "seed %d", seed)
		assert.GreaterOrEqual(t, sinceCrash, ld-cfg.RetryPeriod-2*maxLat, "seed %d", seed)
		assert.Equal(t, []sim.NodeID{a.Node}, c.s.Leaders(), "seed %d", seed)
		lat = append(lat, sinceCrash)
	}
	lo, hi, sum := lat[0], lat[0], time.Duration(0)
	for _, d := range lat {
		lo, hi, sum = min(lo, d), max(hi, d), sum+d
	}
	t.Logf("k8s failover after crash over %d seeds: min %v mean %v max %v", len(lat), lo, sum/time.Duration(len(lat)), hi)
}

// partitionSplitBrain runs n0 as leader (n1 starts 1s later so n0 wins), gives
// n1's monotonic clock the rate, cuts n0 off the store (only) at a random
// instant, and returns n1's first lead and n0's first step-down after the cut.
func partitionSplitBrain(t *testing.T, seed uint64, rate float64, cfg Config) (c *cluster, cut sim.Time, lead1, down0 sim.Record) {
	c = newCluster(t, seed, 2, cfg, 1)
	c.s.SetMonoRate(1, sim.Rate(rate))
	c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
	cut = sim.Time(20*time.Second + c.s.Stream("cut").DurationRange(0, 4*time.Second))
	c.s.RunUntil(cut)
	require.Equal(t, sim.NodeID(0), c.leader(t))
	c.cutFromStore(0)
	c.s.RunFor(40 * time.Second)
	down0, ok := c.firstStepDown(0, cut)
	require.True(t, ok, "seed %d: n0 never stopped\n%s", seed, c.timeline())
	lead1, ok = c.firstLead(cut, 0)
	require.True(t, ok, "seed %d: n1 never led\n%s", seed, c.timeline())
	return c, cut, lead1, down0
}

// TestK8sLeaderGivesUpAfterRenewDeadline: a leader cut off the store stops
// exactly RetryPeriod + RenewDeadline after its last successful renewal came
// back (renew: wait.Until(RetryPeriod) starts a round, whose
// PollUntilContextTimeout gives up after RenewDeadline), i.e. 12s with the
// defaults — not at RenewDeadline after the last renewal.
func TestK8sLeaderGivesUpAfterRenewDeadline(t *testing.T) {
	cfg := DefaultConfig()
	for seed := uint64(1); seed <= 10; seed++ {
		c, cut, _, down0 := partitionSplitBrain(t, seed, 1, cfg)
		w := c.lastWriteBy(0, cut)
		assert.Equal(t, "renew deadline exceeded", down0.Detail)
		gap := down0.At.Sub(w.At)
		assert.GreaterOrEqual(t, gap, cfg.RetryPeriod+cfg.RenewDeadline+minLat, "seed %d", seed)
		assert.LessOrEqual(t, gap, cfg.RetryPeriod+cfg.RenewDeadline+maxLat, "seed %d", seed)
	}
}

// TestK8sFastFollowerClockSplitBrain: client-go's package comment says it
// tolerates arbitrary clock skew but not skew *rate*; the tolerated ratio is
// about LeaseDuration/RenewDeadline. With 15s/10s/2s, the leader cut off the
// store keeps acting until RetryPeriod + RenewDeadline = 12s after its last
// renewal, while a follower whose monotonic clock runs r times fast counts
// LeaseDuration after only 15/r seconds of true time. At r = 1.6 (9.4s)
// the follower takes over while the old leader still acts in all 20 seeds
// measured (not guaranteed: a follower that saw the last renewal late and
// polled unluckily could need 2.75s + 9.4s + 2.75s > 12s); at r = 2.5 (6s +
// two fast polls of at most 1.76s < 12s) it always must; at r = 1.05 (14.3s >
// 12s) it never can.
func TestK8sFastFollowerClockSplitBrain(t *testing.T) {
	cfg := DefaultConfig()
	const seeds = 20
	for _, tc := range []struct {
		rate     float64
		overlaps int
	}{{1.05, 0}, {1.6, seeds}, {2.5, seeds}} {
		n, maxOverlap := 0, time.Duration(0)
		for seed := uint64(1); seed <= seeds; seed++ {
			_, _, lead1, down0 := partitionSplitBrain(t, seed, tc.rate, cfg)
			if overlap := down0.At.Sub(lead1.At); overlap > 0 {
				n++
				maxOverlap = max(maxOverlap, overlap)
			}
		}
		t.Logf("rate %.2f: split-brain in %d/%d seeds, longest overlap %v", tc.rate, n, seeds, maxOverlap)
		assert.Equal(t, tc.overlaps, n, "rate %.2f", tc.rate)
	}
}

// TestK8sReleaseOnCancel compares a graceful resign with and without
// ReleaseOnCancel. client-go's release() writes an empty holderIdentity with
// leaseDurationSeconds 1; tryAcquireOrRenew only waits for a lease whose
// holderIdentity is non-empty, so a follower takes over at its next poll
// (within 2.2·RetryPeriod and a few round trips of the release). Without it
// the followers wait out LeaseDuration from the last renewal they saw.
func TestK8sReleaseOnCancel(t *testing.T) {
	for _, release := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.ReleaseOnCancel = release
		c := newCluster(t, 7, 3, cfg)
		c.s.RunUntil(sim.Time(30 * time.Second))
		old := c.leader(t)
		resignAt := c.s.Now()
		c.s.At(resignAt, func() { c.s.Node(old).(*Node).Resign() })
		c.s.RunFor(40 * time.Second)

		down, ok := c.firstStepDown(old, resignAt)
		require.True(t, ok)
		assert.Equal(t, "resign", down.Detail)
		assert.Equal(t, resignAt, down.At, "the leader stops acting at once")
		a, ok := c.firstLead(resignAt, old)
		require.True(t, ok, c.timeline())
		rel := c.effects(EffectReleased, resignAt)
		assert.True(t, c.s.Node(old).(*Node).Resigned())
		assert.Equal(t, "stopped", c.s.Node(old).(*Node).Phase())
		if release {
			require.Len(t, rel, 1)
			assert.Equal(t, int64(old), rel[0].A)
			assert.LessOrEqual(t, a.At.Sub(rel[0].At), maxPoll(cfg)+6*maxLat)
			t.Logf("with ReleaseOnCancel: new leader %v after resign", a.At.Sub(resignAt))
		} else {
			assert.Empty(t, rel)
			w := c.lastWriteBy(old, resignAt)
			assert.GreaterOrEqual(t, a.At.Sub(w.At), cfg.LeaseDuration)
			t.Logf("without ReleaseOnCancel: new leader %v after resign", a.At.Sub(resignAt))
		}
	}
}

// TestK8sShutdownAt: Config.ShutdownAt resigns at that monotonic reading.
func TestK8sShutdownAt(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ShutdownAt = 10 * time.Second
	c := newCluster(t, 3, 1, cfg)
	c.s.RunUntil(sim.Time(30 * time.Second))
	down, ok := c.firstStepDown(0, 0)
	require.True(t, ok)
	assert.Equal(t, sim.Time(10*time.Second), down.At)
	assert.Equal(t, "resign", down.Detail)
	assert.Empty(t, c.s.Leaders())
}

// TestK8sRestartedHolderReacquires: a restarted process with the same
// identity finds itself as holderIdentity, so IsLeader() is true and
// tryAcquireOrRenew renews at once, keeping leaderTransitions (and so the
// token) — client-go behaviour, not a fresh election.
func TestK8sRestartedHolderReacquires(t *testing.T) {
	cfg := DefaultConfig()
	c := newCluster(t, 5, 3, cfg)
	c.s.RunUntil(sim.Time(20 * time.Second))
	old := c.leader(t)
	_, _, tok := c.s.Leading(old)
	c.s.Crash(old)
	c.s.RunFor(time.Second)
	c.s.Restart(old, true)
	c.s.RunFor(time.Second)
	assert.Equal(t, []sim.NodeID{old}, c.s.Leaders())
	_, _, tok2 := c.s.Leading(old)
	assert.Equal(t, tok, tok2)
}

// TestK8sPausedLeaderActsUntilRenewDeadline: a k8s leader paused for longer
// than LeaseDuration resumes into a renewal round (its overdue wait.Until
// timer fires at once). The fast path is skipped (its own lease is no longer
// valid by observedTime), the Get shows another holder, and tryAcquireOrRenew
// returns false — without error, so PollUntilContextTimeout keeps polling and
// the old leader keeps acting until the round's RenewDeadline, exactly 10s
// after resuming, while the new leader acts too.
func TestK8sPausedLeaderActsUntilRenewDeadline(t *testing.T) {
	cfg := DefaultConfig()
	c := newCluster(t, 13, 2, cfg, 1)
	c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
	pauseAt, resumeAt := sim.Time(20*time.Second), sim.Time(45*time.Second)
	c.s.At(pauseAt, func() { c.s.Pause(0) })
	c.s.At(resumeAt, func() { c.s.Resume(0) })
	c.s.RunUntil(sim.Time(70 * time.Second))
	a, ok := c.firstLead(pauseAt, 0)
	require.True(t, ok)
	assert.Less(t, a.At, resumeAt)
	down, ok := c.firstStepDown(0, pauseAt)
	require.True(t, ok)
	assert.Equal(t, resumeAt.Add(cfg.RenewDeadline), down.At)
	assert.Equal(t, "renew deadline exceeded", down.Detail)
	assert.Equal(t, []sim.NodeID{1}, c.s.Leaders())
}

// TestK8sRestartedProcessIdentityWaits: kube-controller-manager's leader
// election identity is hostname + "_" + uuid.NewUUID(), new in every
// process. Restarted 1 s after a crash, the holder is a new candidate:
// the record names its old identity, so IsLeader() is false, and
// tryAcquireOrRenew refuses while isLeaseValid — observedTime (its first
// Get) + LeaseDuration — holds: nobody leads for about a lease duration
// after the restart. Must-refute twin: TestK8sRestartedHolderReacquires,
// the node's name as identity, leads again at once.
func TestK8sRestartedProcessIdentityWaits(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Identity = IdentityProcess
	c := newCluster(t, 5, 3, cfg)
	c.s.RunUntil(sim.Time(20 * time.Second))
	old := c.leader(t)
	c.s.Crash(old)
	c.s.RunFor(time.Second)
	restart := c.s.Now()
	c.s.Restart(old, true)
	c.s.RunFor(time.Second)
	assert.Empty(t, c.s.Leaders(), "the restarted process is not the holder it finds")
	c.s.RunFor(30 * time.Second)
	r, ok := c.firstLead(restart, sim.None)
	require.True(t, ok)
	assert.GreaterOrEqual(t, time.Duration(r.At-restart), cfg.LeaseDuration-time.Second, "a new leader only once the old lease is out (led by %s)", c.s.NodeName(r.Node))
}
