package lease_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// Property suites (pgregory.net/rapid; docs/testing.md): each case draws a
// seed, a number of candidates, a flavour with shortened but proportioned
// timings, and a fault schedule over the candidates and the store; rapid
// shrinks a failing case to a minimal schedule. Sizes: the defaults below,
// or -rapid.checks / RAPID_CHECKS.

// propFaultsFor is how long faults are injected; the settle phase starts then.
const propFaultsFor = 60 * time.Second

var flavors = []string{lease.FlavorK8s, lease.FlavorTTL, lease.FlavorWallTime}

// stopping are the flavours whose holder stops acting when it can no
// longer renew: a walltime holder whose ShedLock keep-alive stopped goes on
// with its task (KeepAliveLockProvider only cancels its extension timer),
// so liveness and partition safety do not hold for it
// (TestPropertyRefutedWallTimeKeepsActing).
var stopping = []string{lease.FlavorK8s, lease.FlavorTTL}

type leaseCase struct {
	seed  uint64
	k     int
	cfg   lease.Config
	lat   time.Duration
	sched proptest.Schedule
}

// length is how long a lease lasts without renewal, in the flavour's terms.
func (c leaseCase) length() time.Duration {
	switch c.cfg.Flavor {
	case lease.FlavorK8s:
		return c.cfg.LeaseDuration
	case lease.FlavorTTL:
		return c.cfg.TTL
	}
	return c.cfg.LockAtMostFor
}

// settleBound is how long after the faults stop one candidate must hold the
// lease and lead: a lease left by a holder that crashed or was cut off runs
// out (length, stretched by a wall-clock offset written into a walltime
// lock), and a candidate's jittered retry and request then take it.
func (c leaseCase) settleBound() time.Duration {
	return 2*c.length() + 2*time.Duration(float64(c.cfg.RetryPeriod)*(1+c.cfg.JitterFactor)) + 2*c.cfg.RequestTimeout + propMaxOffset(c)
}

// propMaxOffset bounds wall-clock offsets: well within walltime's tolerance
// (LockAtMostFor − ExtendInterval; docs/algorithms/lease.md), so two nodes
// offset in opposite directions still agree on expiry.
func propMaxOffset(c leaseCase) time.Duration { return c.cfg.LockAtMostFor / 8 }

// drawLeaseCase draws a case with one of flavors and faults of kinds.
func drawLeaseCase(t *rapid.T, flavors []string, kinds []proptest.Kind) leaseCase {
	c := leaseCase{seed: rapid.Uint64().Draw(t, "seed"), k: rapid.IntRange(2, 5).Draw(t, "candidates")}
	c.lat = time.Duration(rapid.IntRange(1, 20).Draw(t, "latency_max_ms")) * time.Millisecond
	c.cfg = lease.DefaultConfig()
	c.cfg.Flavor = rapid.SampledFrom(flavors).Draw(t, "flavor")
	// The ttl properties are about an application that checks the
	// validity before acting; one that never checks (the default) has no
	// bound (TestTTLNeverCheckingHolder).
	c.cfg.ValidityCheck = lease.CheckBeforeEachAction
	// client-go's 15s/10s/2s scaled by RetryPeriod in [1s, 2s]: the k8s
	// record keeps times in whole seconds, so a holder that renews more
	// often than once a second renews unseen and observers judge expiry
	// from an older change (rapid found that split-brain, about once in 450
	// cases, with RetryPeriod 267ms).
	unit := scaleTimings(&c.cfg, time.Duration(rapid.IntRange(1000, 2000).Draw(t, "retry_period_ms"))*time.Millisecond)
	c.cfg.RequestTimeout = time.Duration(rapid.IntRange(100, 1000).Draw(t, "request_timeout_ms")) * time.Millisecond
	c.cfg.ReleaseOnCancel = rapid.Bool().Draw(t, "release_on_cancel")
	c.sched = proptest.Gen{Kinds: kinds, Candidates: c.k, Nodes: c.k + 1, Names: proptest.Names(c.k, "store"),
		Horizon: propFaultsFor, MaxFor: 2 * unit, MaxOps: 10, LeaderTargets: true, AllTargets: true,
		MaxOffset: propMaxOffset(c)}.Schedule().Draw(t, "faults")
	return c
}

// scaleTimings sets every flavour's timings in proportion to retry, as
// client-go's 15s/10s/2s (LeaseDuration, RenewDeadline, RetryPeriod) are,
// and returns the lease's length.
func scaleTimings(cfg *lease.Config, retry time.Duration) time.Duration {
	unit := retry * 15 / 2
	cfg.RetryPeriod = retry
	cfg.LeaseDuration, cfg.RenewDeadline = unit, unit*2/3
	cfg.TTL, cfg.LockAtMostFor = unit, unit
	return unit
}

type leaseRun struct {
	s     *sim.Sim
	store *lease.Store
	end   sim.Time
	w     *proptest.Watch
}

// run builds k candidates and the store (ID k), injects the schedule,
// settles at propFaultsFor and runs until the settle bound.
func (c leaseCase) run(watch bool) *leaseRun {
	s := sim.New(sim.Config{Seed: c.seed, MaxTime: 24 * time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, c.lat)}})
	ids := proptest.IDs(c.k + 1)
	cands, store := ids[:c.k], ids[c.k]
	for i := range cands {
		s.AddNode(proptest.Names(c.k)[i], lease.MustNew(c.cfg, cands, store))
	}
	r := &leaseRun{s: s, store: lease.NewStore(lease.StoreConfig{}), end: sim.Time(propFaultsFor + c.settleBound())}
	s.AddNode("store", r.store, sim.Service())
	if watch {
		r.w = proptest.NewWatch(s, cands, "lease.acquired", "lease.expired")
	}
	c.sched.Inject(s, faults.Environment{Candidates: cands, Store: store, StoreNode: r.store, Resource: sim.None}, ids, sim.Time(propFaultsFor))
	s.RunUntil(r.end)
	s.End()
	if watch {
		r.w.Finish()
	}
	return r
}

// The store hands out fencing tokens (k8s leaderTransitions, the ttl INCR
// counter, the walltime acquiring revision) that no two candidates ever lead
// with, under any schedule of pauses, crashes, restarts, partitions that cut
// candidates off each other or the store, clock faults and loss: the
// compare-and-swap on the record is linearizable (docs/algorithms/lease.md).
// And once the faults stop, within the settle bound exactly one candidate
// acts as leader, and it is the store's holder (k8s and ttl: a walltime
// holder whose extension failed acts on, see stopping).
func TestPropertyUniqueTokensAndLiveness(t *testing.T) {
	proptest.Check(t, 200, func(t *rapid.T) {
		c := drawLeaseCase(t, flavors, proptest.AllKinds)
		r := c.run(true)
		if len(r.w.Conflicts) > 0 {
			proptest.Fail(t, "token: %s\n%s", r.w.Conflicts[0].String(r.s), r.w.Window(0, r.w.Conflicts[0].At, 60))
		}
		if c.cfg.Flavor == lease.FlavorWallTime {
			return
		}
		ls := r.s.Leaders()
		rec, _ := r.store.Get(c.cfg.Key)
		if len(ls) != 1 || rec.Holder != ls[0] {
			proptest.Fail(t, "liveness: leaders %v, store holder %v, %v after the faults stopped\n%s", ls, rec.Holder, c.settleBound(), r.w.Timeline(100))
		}
	})
}

// With clock rates equal and no process pauses, no two candidates act as
// leader at once, whatever the partitions (candidates cut off each other or
// the store), crashes, restarts, wall-clock offsets and loss
// (docs/algorithms/lease.md: k8s tolerates any offset but not rate
// differences; ttl is safe against partitions when clock rates agree) —
// except the overlap client-go itself allows a k8s leader cut off the API
// server, which must stay within maxOverlap.
func TestPropertyNoSplitBrainWithoutPausesOrDrift(t *testing.T) {
	proptest.Check(t, 200, func(t *rapid.T) { noSplitBrainBeyondBound(t) })
}

// noSplitBrainBeyondBound is TestPropertyNoSplitBrainWithoutPausesOrDrift's
// property; it returns the longest overlap it saw.
func noSplitBrainBeyondBound(t *rapid.T) time.Duration {
	kinds := []proptest.Kind{proptest.Crash, proptest.Restart, proptest.Isolate, proptest.Split, proptest.Offset, proptest.Loss}
	c := drawLeaseCase(t, stopping, kinds)
	r := c.run(true)
	bound := c.maxOverlap()
	var longest time.Duration
	for _, o := range r.w.Overlaps {
		d := time.Duration(o.End - o.Start)
		if d > bound {
			proptest.Fail(t, "split-brain for %v (at most %v allowed): %s\n%s", d, bound, o.String(r.s), r.w.Window(0, o.End, 60))
		}
		longest = max(longest, d)
	}
	return longest
}

// TestRegressionReleaseOverlapSchedule is the case of
// TestPropertyRegressionReleaseOverlapAllowed built directly, so it stays
// tested whatever rapid's fail-file format: it must overlap, and by no
// more than maxOverlap.
func TestRegressionReleaseOverlapSchedule(t *testing.T) {
	c := leaseCase{seed: 0, k: 2, lat: time.Millisecond, cfg: lease.DefaultConfig()}
	scaleTimings(&c.cfg, 1023*time.Millisecond)
	c.cfg.Flavor, c.cfg.RequestTimeout, c.cfg.ReleaseOnCancel = lease.FlavorK8s, time.Second, true
	c.sched = proptest.Schedule{Names: proptest.Names(c.k, "store"), Ops: []proptest.Op{
		{At: 0, For: 3874 * time.Millisecond, Kind: proptest.Isolate, Node: 1},
		{At: 37500 * time.Millisecond, For: 7698 * time.Millisecond, Kind: proptest.Split, Node: 0, Side: []int{0}},
	}}
	r := c.run(true)
	require.Len(t, r.w.Overlaps, 1)
	o := r.w.Overlaps[0]
	d := time.Duration(o.End - o.Start)
	assert.Positive(t, d)
	assert.LessOrEqual(t, d, c.maxOverlap())
	assert.Equal(t, 59*time.Millisecond, d.Round(time.Millisecond), "the overlap rapid found")
}

// The case rapid found at 20,000 checks (RetryPeriod 1.023s, so
// LeaseDuration 7.67s is written as 7s, RenewDeadline 5.115s, request
// timeout 1s, ReleaseOnCancel): the leader is cut off the API server right
// after a renewal; its round times out 6.138s later, and it acts on for
// the release's Get, which waits out the 1s request timeout, while the
// follower that saw the renewal 80ms after it was applied takes over 7s
// later. The two overlap for 59ms, as client-go's would: an overlap the
// property allows (maxOverlap), not a model bug. Replayed from its fail
// file; it must still overlap, or the property's exception is untested.
func TestPropertyRegressionReleaseOverlapAllowed(t *testing.T) {
	var longest time.Duration
	proptest.Replay(t, "testdata/rapid/release-overlap.fail", 1, func(t *rapid.T) { longest = max(longest, noSplitBrainBeyondBound(t)) })
	require.Positive(t, longest, "the replayed case must overlap")
}

// maxOverlap is the longest two candidates may act as leader at once with
// equal clock rates and no pauses: 0 for ttl, and for k8s how much longer
// a leader cut off the API server acts after its last renewal was applied
// than a follower waits before taking over (docs/algorithms/lease.md,
// "renew" and "release"). The leader acts until RetryPeriod + RenewDeadline
// after that renewal's answer reached it (up to one latency later), and
// with ReleaseOnCancel for up to another RenewDeadline while it releases
// (client-go Run cancels the leader's context only after release returns).
// The follower saw the renewal no earlier than it was applied and waits
// LeaseDurationSeconds, whole seconds. Zero for most drawn timings; with
// ReleaseOnCancel and a LeaseDuration whose whole seconds leave less than
// one request timeout beyond RetryPeriod + RenewDeadline (RetryPeriod
// 1.023s: 7s against 6.138s + 1s), rapid finds the overlap client-go has
// too (docs/algorithms/lease.md measures it at client-go's defaults).
func (c leaseCase) maxOverlap() time.Duration {
	if c.cfg.Flavor != lease.FlavorK8s {
		return 0
	}
	hold := c.cfg.RetryPeriod + c.cfg.RenewDeadline + c.lat
	if c.cfg.ReleaseOnCancel {
		hold += c.cfg.RenewDeadline
	}
	return max(0, hold-c.cfg.LeaseDuration/time.Second*time.Second)
}

// The walltime flavour follows ShedLock's KeepAliveLockProvider: a failed
// extension only stops the keep-alive (KeepAliveLock.stop cancels its
// timer), and the holder's task goes on. So a partition that cuts the
// holder off the store long enough gives two leaders even with synchronized
// clocks and no pauses: rapid must find such a schedule.
func TestPropertyRefutedWallTimeKeepsActing(t *testing.T) {
	proptest.Refute(t, 100, func(t *rapid.T) {
		c := drawLeaseCase(t, []string{lease.FlavorWallTime}, []proptest.Kind{proptest.Isolate, proptest.Split})
		r := c.run(true)
		if len(r.w.Overlaps) > 0 {
			proptest.Fail(t, "split-brain: %s\n%s", r.w.Overlaps[0].String(r.s), r.w.Window(0, r.w.Overlaps[0].End, 60))
		}
	})
}

// One seed and schedule reproduce the run, with a trace sink attached or not.
func TestPropertyDeterministicTrace(t *testing.T) {
	proptest.Check(t, 50, func(t *rapid.T) {
		c := drawLeaseCase(t, flavors, proptest.AllKinds)
		a, b := c.run(false), c.run(true)
		if a.s.TraceHash() != b.s.TraceHash() || *a.s.Stats() != *b.s.Stats() {
			proptest.Fail(t, "same seed and schedule, different runs: hash %s vs %s", a.s.TraceHashHex(), b.s.TraceHashHex())
		}
	})
}
