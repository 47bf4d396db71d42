package lease

import (
	"slices"
	"testing"
	"time"

	"github.com/electsim/electsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wallConfig() Config {
	cfg := DefaultConfig()
	cfg.Flavor = FlavorWallTime
	return cfg
}

// TestWallTimeSkewedNodeTakesLockEarly: ShedLock's README says it "assumes
// that clocks on the nodes are synchronized". Its lock statement takes the
// row when lock_until <= :now, both from wall clocks (SqlStatementsSource),
// and KeepAliveLockProvider extends every lockAtMostFor/2. A candidate whose
// wall clock is X ahead sees the holder's lock_until (holder's now + 30s) pass
// X early; with X = 20s that is 10s after an extension, 5s before the next:
// it takes the lock while the holder still acts. The holder's next
// extension then fails, and KeepAliveLock.extendForNextPeriod only calls
// stop(), which cancels the extension timer (future.cancel(false)): the
// task is never interrupted (shedlock-core,
// support/KeepAliveLockProvider.java). So the holder acts on — here to the
// end of the run, its task having no end — and the overlap lasts. With
// X = 5s the lock never looks expired to the other candidate.
func TestWallTimeSkewedNodeTakesLockEarly(t *testing.T) {
	cfg := wallConfig()
	for _, tc := range []struct {
		offset time.Duration
		split  bool
	}{{20 * time.Second, true}, {5 * time.Second, false}} {
		for seed := uint64(1); seed <= 10; seed++ {
			c := newCluster(t, seed, 2, cfg, 1)
			c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
			stepAt := sim.Time(10 * time.Second)
			c.s.At(stepAt, func() { c.s.StepWall(1, tc.offset) })
			c.s.RunUntil(stepAt)
			require.Equal(t, sim.NodeID(0), c.leader(t))
			c.s.RunFor(60 * time.Second)
			_, led := c.firstLead(stepAt, 0)
			if !tc.split {
				assert.False(t, led, "seed %d: offset %v must not win\n%s", seed, tc.offset, c.timeline())
				assert.Equal(t, []sim.NodeID{0}, c.s.Leaders())
				continue
			}
			require.True(t, led, "seed %d", seed)
			_, stopped := c.firstStepDown(0, stepAt)
			assert.False(t, stopped, "seed %d: a failed extension does not stop the task", seed)
			assert.Equal(t, []sim.NodeID{0, 1}, c.s.Leaders(), "seed %d: both act", seed)
			var why []string
			for _, e := range c.rec.Records {
				if e.Type == sim.RecEffect && e.Name == EffectKeepAliveStopped && e.Node == 0 {
					why = append(why, e.Detail)
				}
			}
			assert.Equal(t, []string{"extend failed"}, why, "seed %d: the keep-alive stopped once", seed)
		}
	}
}

// TestWallTimeUnlockAfterKeepAliveStops: with TaskDuration, the task ends
// and the holder stops acting ("task finished"). Whether its unlock reaches
// the store depends on how the keep-alive stopped
// (KeepAliveLockProvider.KeepAliveLock, AbstractSimpleLock): an extend that
// came back false left the lock object invalid (extend sets valid = false
// after doExtend), so KeepAliveLock.doUnlock's unlock throws and nothing is
// written; an extend that threw — a statement timed out while the holder
// was cut off the database (JdbcTemplateStorageAccessor.extend does not
// catch DataAccessException) — left before valid = false, so the unlock is
// written, as it is when the keep-alive never stopped.
func TestWallTimeUnlockAfterKeepAliveStops(t *testing.T) {
	for _, tc := range []struct {
		name   string
		unlock bool
		setup  func(c *cluster)
	}{
		{"keep-alive ran", true, func(*cluster) {}},
		{"extend timed out", true, func(c *cluster) {
			c.s.At(sim.Time(5*time.Second), func() { c.cutFromStore(0) })
			c.s.At(sim.Time(35*time.Second), func() { c.s.Connect(0, c.store); c.s.Connect(c.store, 0) })
		}},
		{"extend refused", false, func(c *cluster) {
			// n1, 20 s ahead, takes the row at lock_until by its clock;
			// n0's next extend finds locked_by = n1.
			c.s.At(sim.Time(time.Second), func() { c.s.Restart(1, true) })
			c.s.At(sim.Time(2*time.Second), func() { c.s.StepWall(1, 20*time.Second) })
		}},
	} {
		cfg := wallConfig()
		cfg.TaskDuration = 40 * time.Second
		c := newCluster(t, 1, 2, cfg, 1)
		tc.setup(c)
		c.s.RunFor(41 * time.Second)
		down, ok := c.firstStepDown(0, 0)
		require.True(t, ok, tc.name)
		assert.Equal(t, "task finished", down.Detail, tc.name)
		assert.Equal(t, tc.unlock, len(c.effects(EffectReleased, 0)) == 1, "%s: releases %d\n%s", tc.name, len(c.effects(EffectReleased, 0)), c.timeline())
	}
}

// TestWallTimeStaleUnlockFreesSuccessor: a holder paused past
// lockAtMostFor resumes, its keep-alive's failsafe stops extending
// (KeepAliveLock.extendForNextPeriod: currentLockAtMostUntil passed; the
// lock stays valid), its task ends and it unlocks. The unlock statement
// names the row only (SqlStatementsSource.getUnlockStatement before ShedLock
// 7.0.0, used by JdbcTemplateStorageAccessor.unlock), so it releases the
// lock the second candidate took meanwhile, and a candidate locks the row
// again — the third, or the first competing anew — while the second still
// runs its task, with correct clocks. With unlock by_holder (7.0.0's "AND
// locked_by = :lockedBy") the second keeps the row to the end.
func TestWallTimeStaleUnlockFreesSuccessor(t *testing.T) {
	for _, unlock := range []string{UnlockByName, UnlockByHolder} {
		for seed := uint64(1); seed <= 10; seed++ {
			cfg := wallConfig()
			cfg.TaskDuration = 60 * time.Second
			cfg.Unlock = unlock
			c := newCluster(t, seed, 3, cfg)
			c.s.RunUntil(sim.Time(10 * time.Second))
			first := c.leader(t)
			c.s.Pause(first)
			c.s.RunFor(40 * time.Second)
			lead, ok := c.firstLead(sim.Time(10*time.Second), first)
			require.True(t, ok, "seed %d: lock_until passed: another candidate locks", seed)
			second := lead.Node
			c.s.Resume(first)
			resumed := c.s.Now()
			c.s.RunFor(20 * time.Second) // first's task ends at 60 s, its unlock, a poll
			next, took := c.firstLead(resumed, second)
			_, secondStopped := c.firstStepDown(second, 0)
			require.False(t, secondStopped, "seed %d: the second's task runs to %v", seed, lead.At.Add(cfg.TaskDuration))
			if unlock == UnlockByHolder {
				assert.False(t, took, "seed %d: by_holder: the stale unlock changes nothing\n%s", seed, c.timeline())
				assert.Equal(t, []sim.NodeID{second}, c.s.Leaders(), "seed %d", seed)
				continue
			}
			require.True(t, took, "seed %d: by_name: the freed row is locked again\n%s", seed, c.timeline())
			assert.ElementsMatch(t, []sim.NodeID{second, next.Node}, c.s.Leaders(), "seed %d: two act at once", seed)
		}
	}
}

// TestWallTimeFailoverBound: with synchronized clocks, after the holder
// crashes a candidate takes the lock once its wall clock reaches lock_until
// (the holder's now + LockAtMostFor at its last extension), at its next poll.
func TestWallTimeFailoverBound(t *testing.T) {
	cfg := wallConfig()
	var lat []time.Duration
	for seed := uint64(1); seed <= 20; seed++ {
		c := newCluster(t, seed, 3, cfg)
		crashAt := sim.Time(40*time.Second + c.s.Stream("crash").DurationRange(0, 15*time.Second))
		c.s.RunUntil(crashAt)
		old := c.leader(t)
		rec, ok := c.st.Get(cfg.Key)
		require.True(t, ok)
		c.s.Crash(old)
		c.s.RunFor(60 * time.Second)
		a, ok := c.firstLead(crashAt, old)
		require.True(t, ok)
		until := sim.Time(rec.LockUntilWallNs - sim.DefaultWallStart.UnixNano())
		assert.GreaterOrEqual(t, a.At, until, "seed %d", seed)
		assert.LessOrEqual(t, a.At.Sub(until), maxPoll(cfg)+3*maxLat, "seed %d", seed)
		lat = append(lat, a.At.Sub(crashAt))
	}
	t.Logf("walltime failover after crash: min %v max %v", slices.Min(lat), slices.Max(lat))
}

// TestWallTimeResignUnlock: Resign with ReleaseOnCancel runs ShedLock's
// unlock (lock_until = max(now, locked_at + lockAtLeastFor)); with
// LockAtLeastFor 0 the next poll takes the lock.
func TestWallTimeResignUnlock(t *testing.T) {
	cfg := wallConfig()
	cfg.ReleaseOnCancel = true
	c := newCluster(t, 2, 3, cfg)
	c.s.RunUntil(sim.Time(20 * time.Second))
	old := c.leader(t)
	at := c.s.Now()
	c.s.At(at, func() { c.s.Node(old).(*Node).Resign() })
	c.s.RunFor(20 * time.Second)
	require.Len(t, c.effects(EffectReleased, at), 1)
	a, ok := c.firstLead(at, old)
	require.True(t, ok)
	assert.LessOrEqual(t, a.At.Sub(at), maxPoll(cfg)+3*maxLat)
}
