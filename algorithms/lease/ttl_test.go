package lease

import (
	"testing"
	"time"

	"github.com/electsim/electsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ttlConfig is the ttl flavour with an application that checks the
// validity before each action, so the holder stops at its local estimate;
// the default, CheckNever, is tested on its own (TestTTLNeverCheckingHolder).
func ttlConfig() Config {
	cfg := DefaultConfig()
	cfg.Flavor = FlavorTTL
	cfg.ValidityCheck = CheckBeforeEachAction
	return cfg
}

// TestTTLPausedLeaderResumesBelievingItLeads is Kleppmann's "How to do
// distributed locking" GC-pause scenario against the Redis lock pattern
// (redis.io, "Distributed Locks with Redis"): the holder is paused longer than
// the TTL, the store's clock expires the key (exactly TTL after the last
// PEXPIRE, by the store's clock), another candidate's SET NX succeeds, and the
// holder resumes still believing it leads: at the instant of resume two nodes
// act as leader. Only when its overdue timers run does it notice.
func TestTTLPausedLeaderResumesBelievingItLeads(t *testing.T) {
	cfg := ttlConfig()
	cfg.Token = TokenFence // the application's INCR counter (token_test.go)
	c := newCluster(t, 11, 2, cfg, 1)
	c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
	pauseAt, resumeAt := sim.Time(20*time.Second), sim.Time(35*time.Second)
	c.s.At(pauseAt, func() { c.s.Pause(0) })
	var atResume []sim.NodeID
	c.s.At(resumeAt, func() {
		c.s.Resume(0)
		atResume = c.s.Leaders() // before n0 runs any handler
	})
	c.s.RunUntil(resumeAt)
	c.s.RunFor(time.Millisecond)

	assert.Equal(t, []sim.NodeID{0, 1}, atResume, "two acting leaders right after resume")
	assert.Equal(t, []sim.NodeID{1}, c.s.Leaders(), "the stale holder stops once its timers run")

	w := c.lastWriteBy(0, pauseAt)
	exp := c.effects(EffectExpired, pauseAt)
	require.Len(t, exp, 1)
	assert.Equal(t, w.At.Add(cfg.TTL), exp[0].At, "the store expires the key TTL after the last renewal, by its clock")
	a, ok := c.firstLead(pauseAt, 0)
	require.True(t, ok)
	assert.Less(t, a.At, resumeAt)
	down, ok := c.firstStepDown(0, pauseAt)
	require.True(t, ok)
	assert.Equal(t, resumeAt, down.At)
	assert.Equal(t, "lease expired (local estimate)", down.Detail)
	_, _, tok := c.s.Leading(1)
	assert.Equal(t, int64(2), tok, "the new holder's INCR fencing token is higher")
}

// TestTTLFailoverBound: after the holder crashes the store expires the key
// exactly TTL after the last renewal by its clock, and the next SET NX to
// arrive wins: within one jittered poll (2.2·RetryPeriod) and a round trip.
func TestTTLFailoverBound(t *testing.T) {
	cfg := ttlConfig()
	var lat []time.Duration
	for seed := uint64(1); seed <= 50; seed++ {
		c := newCluster(t, seed, 3, cfg)
		crashAt := sim.Time(30*time.Second + c.s.Stream("crash").DurationRange(0, 4*time.Second))
		c.s.RunUntil(crashAt)
		old := c.leader(t)
		c.s.Crash(old)
		c.s.RunFor(30 * time.Second)
		w := c.lastWriteBy(old, crashAt)
		a, ok := c.firstLead(crashAt, old)
		require.True(t, ok, "seed %d", seed)
		assert.GreaterOrEqual(t, a.At.Sub(w.At), cfg.TTL+minLat, "seed %d", seed)
		assert.LessOrEqual(t, a.At.Sub(w.At), cfg.TTL+maxPoll(cfg)+3*maxLat, "seed %d", seed)
		lat = append(lat, a.At.Sub(crashAt))
	}
	lo, hi, sum := lat[0], lat[0], time.Duration(0)
	for _, d := range lat {
		lo, hi, sum = min(lo, d), max(hi, d), sum+d
	}
	t.Logf("ttl failover after crash over %d seeds: min %v mean %v max %v", len(lat), lo, sum/time.Duration(len(lat)), hi)
}

// TestTTLPartitionedHolderStopsFirst: with equal clock rates, a holder cut off
// the store stops believing (its validity TTL − 1% − 2ms after it sent the
// last successful renewal) before the store expires the key and anyone else
// can take it — Redlock's safety argument. With its monotonic clock at rate
// 0.6 (far beyond ClockDriftFactor) its 9.898s local validity lasts 16.5s of
// true time, longer than the store's 10s TTL plus a successor's slowest poll
// (4.4s): it still believes when the successor acts.
func TestTTLPartitionedHolderStopsFirst(t *testing.T) {
	cfg := ttlConfig()
	for _, tc := range []struct {
		rate      float64
		splitSeen bool
	}{{1, false}, {0.6, true}} {
		for seed := uint64(1); seed <= 10; seed++ {
			c := newCluster(t, seed, 2, cfg, 1)
			c.s.SetMonoRate(0, sim.Rate(tc.rate))
			c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
			cut := sim.Time(20*time.Second + c.s.Stream("cut").DurationRange(0, 4*time.Second))
			c.s.RunUntil(cut)
			require.Equal(t, sim.NodeID(0), c.leader(t))
			c.cutFromStore(0)
			c.s.RunFor(30 * time.Second)
			down, ok := c.firstStepDown(0, cut)
			require.True(t, ok)
			a, ok := c.firstLead(cut, 0)
			require.True(t, ok)
			exp := c.effects(EffectExpired, cut)
			require.NotEmpty(t, exp)
			if tc.splitSeen {
				assert.Greater(t, down.At, a.At, "seed %d: slow holder still acting when the successor acts", seed)
			} else {
				assert.Less(t, down.At, exp[0].At, "seed %d: holder stops before the store expires the key", seed)
				assert.Less(t, down.At, a.At, "seed %d", seed)
			}
		}
	}
}

// TestTTLNeverCheckingHolder: an application that never compares its clock
// with the validity (ValidityCheck never, the default: the go-redsync README's
// Lock / work / Unlock at v4.17.0 never reads Mutex.Until) and is cut off the
// store keeps acting: its renewals time out, nothing tells it the key expired,
// and it still acts when the successor takes the key. The old model stopped
// every holder at its validity deadline: this fails there.
func TestTTLNeverCheckingHolder(t *testing.T) {
	cfg := ttlConfig()
	cfg.ValidityCheck = CheckNever
	c := newCluster(t, 3, 2, cfg, 1)
	c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
	cut := sim.Time(20 * time.Second)
	c.s.RunUntil(cut)
	require.Equal(t, sim.NodeID(0), c.leader(t))
	c.cutFromStore(0)
	c.s.RunFor(30 * time.Second)
	_, ok := c.firstStepDown(0, cut)
	assert.False(t, ok, "the holder never learns it lost the key")
	a, ok := c.firstLead(cut, 0)
	require.True(t, ok, "the successor took the expired key")
	assert.Equal(t, []sim.NodeID{0, 1}, c.s.Leaders(), "both act")
	_ = a
}

// TestTTLResignRelease: Resign with ReleaseOnCancel deletes the key with the
// check-and-DEL script, so a follower's next SET NX wins; without it the key
// lives out its TTL.
func TestTTLResignRelease(t *testing.T) {
	for _, release := range []bool{true, false} {
		cfg := ttlConfig()
		cfg.ReleaseOnCancel = release
		c := newCluster(t, 4, 3, cfg)
		c.s.RunUntil(sim.Time(20 * time.Second))
		old := c.leader(t)
		at := c.s.Now()
		c.s.At(at, func() { c.s.Node(old).(*Node).Resign() })
		c.s.RunFor(30 * time.Second)
		a, ok := c.firstLead(at, old)
		require.True(t, ok)
		if release {
			require.Len(t, c.effects(EffectReleased, at), 1)
			assert.LessOrEqual(t, a.At.Sub(at), maxPoll(cfg)+3*maxLat)
		} else {
			assert.Empty(t, c.effects(EffectReleased, at))
			assert.GreaterOrEqual(t, a.At.Sub(c.lastWriteBy(old, at).At), cfg.TTL)
		}
	}
}
