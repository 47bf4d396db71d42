package lease

import (
	"testing"
	"time"

	"github.com/electsim/electsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probe is a bare store client for the store's tests: requests are issued
// from sim.At callbacks and replies are kept by ID.
type probe struct {
	env     sim.Env
	seq     int64
	replies map[int64]*Reply // looked up by ID only, never iterated
}

func (p *probe) Start(env sim.Env, _ []byte) { p.env, p.replies = env, map[int64]*Reply{} }
func (p *probe) OnMessage(m sim.Message) {
	if r := ReplyOf(m); r != nil {
		p.replies[r.ID] = r
	}
}
func (p *probe) OnTimer(sim.TimerID, int) {}

// storeRig is a store and two probes (a, b) over 1ms links.
type storeRig struct {
	s     *sim.Sim
	rec   *sim.Recorder
	a, b  *probe
	ia    sim.NodeID
	ib    sim.NodeID
	st    *Store
	store sim.NodeID
}

func newStoreRig(cfg StoreConfig) *storeRig {
	r := &storeRig{rec: &sim.Recorder{}, a: &probe{}, b: &probe{}, st: NewStore(cfg)}
	r.s = sim.New(sim.Config{Seed: 1})
	r.s.AddSink(r.rec)
	r.ia = r.s.AddNode("a", r.a)
	r.ib = r.s.AddNode("b", r.b)
	r.store = r.s.AddNode("store", r.st, sim.Service())
	return r
}

// do sends req from p now and runs 10ms (one round trip is 2ms), returning
// the reply (nil if none came).
func (r *storeRig) do(p *probe, req Request) *Reply {
	p.seq++
	req.ID = p.seq
	if req.Key == "" {
		req.Key = "k"
	}
	p.env.Send(RequestMessage(r.store, &req))
	r.s.RunFor(10 * time.Millisecond)
	return p.replies[req.ID]
}

func (r *storeRig) effects(name string) []sim.Record {
	var out []sim.Record
	for _, x := range r.rec.Records {
		if x.Type == sim.RecEffect && x.Name == name {
			out = append(out, x)
		}
	}
	return out
}

func k8sRec(holder sim.NodeID, id string, transitions int64) Record {
	return Record{Holder: holder, HolderIdentity: id, LeaseDurationNs: int64(15 * time.Second), Transitions: transitions, Token: transitions}
}

// TestStoreCAS checks k8s optimistic concurrency: an Update applies only when
// the caller's resourceVersion matches (apiserver returns 409 Conflict
// otherwise); Create fails on an existing object; every write bumps the
// revision.
func TestStoreCAS(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.RunFor(time.Millisecond)
	rep := r.do(r.a, Request{Op: OpGet})
	require.NotNil(t, rep)
	assert.Equal(t, ErrNotFound, rep.Err)
	rep = r.do(r.a, Request{Op: OpUpdate, Rec: k8sRec(r.ia, "a", 0), Revision: 0})
	assert.Equal(t, ErrNotFound, rep.Err)

	rep = r.do(r.a, Request{Op: OpCreate, Rec: k8sRec(r.ia, "a", 0)})
	require.True(t, rep.OK)
	assert.Equal(t, int64(1), rep.Rec.Revision)
	assert.Equal(t, ErrExists, r.do(r.b, Request{Op: OpCreate, Rec: k8sRec(r.ib, "b", 0)}).Err)

	// Both read revision 1; both try to write with it: only the first wins.
	rev := r.do(r.b, Request{Op: OpGet}).Rec.Revision
	ra := r.do(r.a, Request{Op: OpUpdate, Rec: k8sRec(r.ia, "a", 0), Revision: rev})
	rb := r.do(r.b, Request{Op: OpUpdate, Rec: k8sRec(r.ib, "b", 1), Revision: rev})
	assert.True(t, ra.OK)
	assert.False(t, rb.OK)
	assert.Equal(t, ErrConflict, rb.Err)
	assert.Equal(t, r.ia, rb.Rec.Holder, "a conflict returns the current record")
	assert.Equal(t, int64(2), r.st.Revision())

	// A write with the fresh revision applies and changes hands.
	rb = r.do(r.b, Request{Op: OpUpdate, Rec: k8sRec(r.ib, "b", 1), Revision: ra.Rec.Revision})
	require.True(t, rb.OK)
	assert.Equal(t, int64(3), rb.Rec.Revision)
	assert.Len(t, r.effects(EffectAcquired), 2)
	assert.Len(t, r.effects(EffectRenewed), 1)
}

// TestStoreSetNXExclusive checks the Redis lock pattern's primitives: SET NX
// succeeds for exactly one of two simultaneous callers; check-and-PEXPIRE and
// check-and-DEL act only for the holder; the fence counter INCRs on every
// successful acquisition.
func TestStoreSetNXExclusive(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.RunFor(time.Millisecond)
	set := func(id sim.NodeID) Request {
		return Request{Op: OpSetNX, Key: "k", Holder: id, TTL: 10 * time.Second, FenceKey: "k:fence"}
	}
	r.a.seq, r.b.seq = 1, 1 // both send ID 1 at the same instant
	reqA, reqB := set(r.ia), set(r.ib)
	reqA.ID, reqB.ID = 1, 1
	r.a.env.Send(RequestMessage(r.store, &reqA))
	r.b.env.Send(RequestMessage(r.store, &reqB))
	r.s.RunFor(10 * time.Millisecond)
	ra, rb := r.a.replies[1], r.b.replies[1]
	require.NotNil(t, ra)
	require.NotNil(t, rb)
	assert.NotEqual(t, ra.OK, rb.OK, "exactly one SET NX wins")
	winner, loser, wid := r.a, r.b, r.ia
	if rb.OK {
		winner, loser, wid = r.b, r.a, r.ib
	}
	assert.Equal(t, int64(1), r.st.Counter("k:fence"))
	assert.Equal(t, ErrNotHolder, r.do(loser, Request{Op: OpCheckRenew, Holder: 99, TTL: time.Second}).Err)
	assert.Equal(t, ErrNotHolder, r.do(loser, Request{Op: OpRelease, Holder: 99}).Err)
	assert.True(t, r.do(winner, Request{Op: OpCheckRenew, Holder: wid, TTL: 10 * time.Second}).OK)
	assert.True(t, r.do(winner, Request{Op: OpRelease, Holder: wid}).OK)
	_, held := r.st.Get("k")
	assert.False(t, held)
	rep := r.do(loser, set(99))
	require.True(t, rep.OK)
	assert.Equal(t, int64(2), rep.Rec.Token)
	assert.Equal(t, int64(2), rep.Value)
	assert.Equal(t, int64(1), r.do(r.a, Request{Op: OpIncr, Key: "other"}).Value)
}

// TestStoreTTLExpiryByStoreClock: a key expires after TTL of the store
// clock its request names, never the client's (Redis keeps the expiry as an
// absolute time on the server). With that clock at rate 0.5 a 10s key lives
// 20s of true time; at rate 2, 5s. Until then SET NX fails; after, it
// succeeds. The other clock's rate changes nothing a client sees: the
// expiry timer runs on the monotonic clock, so a wall-clock expiry may be
// swept late, but the next command expires the key first (Redis's lazy
// expiry, expireIfNeeded), so the second SET NX wins on time.
func TestStoreTTLExpiryByStoreClock(t *testing.T) {
	for _, clock := range []ExpiryClock{ExpiryWall, ExpiryMonotonic} {
		for _, tc := range []struct {
			rate float64
			life time.Duration
		}{{1, 10 * time.Second}, {0.5, 20 * time.Second}, {2, 5 * time.Second}} {
			r := newStoreRig(StoreConfig{})
			if clock == ExpiryWall {
				r.s.SetWallRate(r.store, sim.Rate(tc.rate))
				r.s.SetMonoRate(r.store, sim.Rate(1/tc.rate)) // must not matter
			} else {
				r.s.SetMonoRate(r.store, sim.Rate(tc.rate))
				r.s.SetWallRate(r.store, sim.Rate(1/tc.rate))
			}
			r.s.RunFor(time.Millisecond)
			set := func(h sim.NodeID) Request {
				return Request{Op: OpSetNX, Holder: h, TTL: 10 * time.Second, ExpiryClock: clock}
			}
			rep := r.do(r.a, set(r.ia))
			require.True(t, rep.OK)
			setAt := r.effects(EffectAcquired)[0].At
			r.s.RunUntil(setAt.Add(tc.life - 100*time.Millisecond))
			assert.False(t, r.do(r.b, set(r.ib)).OK, "%s rate %v: still held", clock, tc.rate)
			r.s.RunUntil(setAt.Add(tc.life + 100*time.Millisecond))
			assert.True(t, r.do(r.b, set(r.ib)).OK, "%s rate %v: expired", clock, tc.rate)
			exp := r.effects(EffectExpired)
			require.Len(t, exp, 1, "%s rate %v", clock, tc.rate)
			assert.GreaterOrEqual(t, exp[0].At, setAt.Add(tc.life), "%s rate %v: not before its TTL", clock, tc.rate)
			if clock == ExpiryMonotonic || tc.rate == 1 {
				assert.Equal(t, setAt.Add(tc.life), exp[0].At, "%s rate %v: the timer sweeps it on time", clock, tc.rate)
			}
			assert.Equal(t, int64(r.ia), exp[0].A)
		}
	}
}

// TestStoreRedisExpiryWallStep reproduces Redis's expiry by wall-clock time
// (src/db.c, keyIsExpired: the key's absolute expiry, set by SET ... PX from
// the same cached wall-clock time, compared with commandTimeSnapshot()): a
// forward step of the Redis host's wall clock right after SET NX PX expires
// the key at once, so the next client's SET NX wins while the first holder
// still counts on its validity (Kleppmann, "How to do distributed locking",
// the clock-jump story). A monotonic-expiry store is not moved by the step.
func TestStoreRedisExpiryWallStep(t *testing.T) {
	for _, tc := range []struct {
		clock    ExpiryClock
		takeover bool
	}{{ExpiryWall, true}, {ExpiryMonotonic, false}} {
		r := newStoreRig(StoreConfig{})
		r.s.RunFor(time.Millisecond)
		set := func(h sim.NodeID) Request {
			return Request{Op: OpSetNX, Holder: h, TTL: 10 * time.Second, ExpiryClock: tc.clock}
		}
		require.True(t, r.do(r.a, set(r.ia)).OK)
		r.s.StepWall(r.store, 30*time.Second)
		r.s.RunFor(100 * time.Millisecond)
		assert.Equal(t, tc.takeover, r.do(r.b, set(r.ib)).OK, "%s: SET NX by another client 100ms after a +30s wall step", tc.clock)
		assert.Equal(t, !tc.takeover, r.do(r.a, Request{Op: OpCheckRenew, Holder: r.ia, TTL: 10 * time.Second, ExpiryClock: tc.clock}).OK,
			"%s: the first holder's check-and-PEXPIRE", tc.clock)
	}
}

// TestStoreUnavailable: while unavailable the store ignores requests (the
// client sees no reply and must time out); TTLs keep running.
func TestStoreUnavailable(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.RunFor(time.Millisecond)
	require.True(t, r.do(r.a, Request{Op: OpSetNX, Holder: r.ia, TTL: time.Second}).OK)
	r.st.SetUnavailable(true)
	assert.True(t, r.st.Unavailable())
	assert.Nil(t, r.do(r.b, Request{Op: OpGet}))
	assert.Nil(t, r.do(r.a, Request{Op: OpCheckRenew, Holder: r.ia, TTL: time.Second}))
	assert.Equal(t, uint64(2), r.st.Ignored())
	r.s.RunFor(2 * time.Second)
	assert.Len(t, r.effects(EffectExpired), 1, "expiry continues while unavailable")
	r.st.SetUnavailable(false)
	assert.True(t, r.do(r.b, Request{Op: OpSetNX, Holder: r.ib, TTL: time.Second}).OK)
	assert.Len(t, r.effects(EffectUnavailable), 1)
	assert.Len(t, r.effects(EffectAvailable), 1)
}

// TestStoreFailoverLoseLast: a failover to a standby that missed the last n
// writes reverts them, newest first — records, counters and the revision —
// and records each revert.
func TestStoreFailoverLoseLast(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.RunFor(time.Millisecond)
	set := Request{Op: OpSetNX, Holder: r.ia, TTL: time.Hour, FenceKey: "f"}
	require.True(t, r.do(r.a, set).OK)                                                     // rev 1, fence 1
	require.True(t, r.do(r.a, Request{Op: OpCheckRenew, Holder: r.ia, TTL: time.Hour}).OK) // rev 2
	require.True(t, r.do(r.a, Request{Op: OpRelease, Holder: r.ia}).OK)                    // rev 3
	set.Holder = r.ib
	rep := r.do(r.b, set) // rev 4, fence 2
	require.True(t, rep.OK)
	assert.Equal(t, int64(2), rep.Rec.Token)
	assert.Equal(t, 4, r.st.WriteLogLen())

	assert.Equal(t, 2, r.st.FailoverLoseLast(2))
	got, ok := r.st.Get("k")
	require.True(t, ok)
	assert.Equal(t, r.ia, got.Holder, "a's lease is back, as of its renewal")
	assert.Equal(t, int64(2), got.Revision)
	assert.Equal(t, int64(1), r.st.Counter("f"))
	assert.Equal(t, int64(2), r.st.Revision())
	rev := r.effects(EffectReverted)
	require.Len(t, rev, 2)
	assert.Equal(t, int64(sim.None), rev[0].A, "first undone: b's SET (key was absent)")
	assert.Equal(t, int64(r.ia), rev[1].A, "then a's release (a held it)")
	require.Len(t, r.effects(EffectFailover), 1)
	assert.Equal(t, int64(2), r.effects(EffectFailover)[0].A)

	// After a's release, b's acquisition gets fence value 2 and revision 4
	// again: tokens and revisions handed out before the failover repeat.
	assert.False(t, r.do(r.b, set).OK)
	require.True(t, r.do(r.a, Request{Op: OpRelease, Holder: r.ia}).OK)
	rep = r.do(r.b, set)
	require.True(t, rep.OK)
	assert.Equal(t, int64(2), rep.Rec.Token)
	assert.Equal(t, int64(4), rep.Rec.Revision)
	assert.Equal(t, 4, r.st.FailoverLoseLast(10), "only the 4 logged writes can be reverted")
	_, ok = r.st.Get("k")
	assert.False(t, ok)
	assert.Equal(t, int64(0), r.st.Revision())
}

// TestStoreShedLockOps checks the ShedLock statements: lock inserts or takes
// over a row whose lock_until <= :now; extend needs locked_by = me and
// lock_until > :now; unlock sets lock_until. :now is the caller's clock.
func TestStoreShedLockOps(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.RunFor(time.Millisecond)
	lock := func(p *probe, id sim.NodeID, now, until int64) *Reply {
		return r.do(p, Request{Op: OpLock, Holder: id, NowWallNs: now, UntilWallNs: until})
	}
	rep := lock(r.a, r.ia, 100, 200)
	require.True(t, rep.OK)
	assert.Equal(t, rep.Rec.Revision, rep.Rec.Token, "token = acquiring revision")
	assert.Equal(t, ErrHeld, lock(r.b, r.ib, 199, 299).Err)
	assert.True(t, r.do(r.a, Request{Op: OpExtend, Holder: r.ia, NowWallNs: 150, UntilWallNs: 250}).OK)
	assert.Equal(t, ErrNotHolder, r.do(r.b, Request{Op: OpExtend, Holder: r.ib, NowWallNs: 150, UntilWallNs: 250}).Err)
	assert.Equal(t, ErrNotHolder, r.do(r.a, Request{Op: OpExtend, Holder: r.ia, NowWallNs: 250, UntilWallNs: 350}).Err, "expired by the caller's clock")
	rb := lock(r.b, r.ib, 250, 350) // b's clock says lock_until passed
	require.True(t, rb.OK)
	assert.Greater(t, rb.Rec.Token, rep.Rec.Token)
	assert.True(t, r.do(r.b, Request{Op: OpUnlock, Holder: r.ib, NowWallNs: 260, UntilWallNs: 260}).OK)
	assert.True(t, lock(r.a, r.ia, 260, 360).OK)
}

// TestStoreDurability: by default (PersistDurable) and with aof_always the
// store persists every write and a restarted store serves the same records;
// with persistence none it forgets them.
func TestStoreDurability(t *testing.T) {
	for _, p := range []Persistence{PersistDurable, PersistAOFAlways, PersistNone} {
		r := newStoreRig(StoreConfig{Persistence: p})
		r.s.RunFor(time.Millisecond)
		require.True(t, r.do(r.a, Request{Op: OpSetNX, Holder: r.ia, TTL: time.Hour, FenceKey: "f"}).OK)
		r.s.Crash(r.store)
		r.s.Restart(r.store, true)
		r.s.RunFor(time.Millisecond)
		rec, ok := r.st.Get("k")
		assert.Equal(t, p != PersistNone, ok, "persistence %q", p)
		if ok {
			assert.Equal(t, r.ia, rec.Holder)
			assert.Equal(t, int64(1), r.st.Counter("f"))
		}
	}
}

// TestStoreShedLockStoreTime: with StoreTime (ShedLock's usingDbTime()) the
// store's wall clock supplies :now and lock_until, so a client whose own wall
// clock runs 20s ahead cannot take the lock early.
func TestStoreShedLockStoreTime(t *testing.T) {
	r := newStoreRig(StoreConfig{})
	r.s.StepWall(r.ib, 20*time.Second)
	r.s.RunFor(time.Millisecond)
	lock := func(p *probe, id sim.NodeID) *Reply {
		now := p.env.WallNanos()
		return r.do(p, Request{Op: OpLock, Holder: id, StoreTime: true, AtMostFor: 30 * time.Second,
			NowWallNs: now, UntilWallNs: now + int64(30*time.Second)})
	}
	rep := lock(r.a, r.ia)
	require.True(t, rep.OK)
	storeNow := rep.Rec.LockedAtWallNs
	assert.Equal(t, storeNow+int64(30*time.Second), rep.Rec.LockUntilWallNs)
	r.s.RunFor(15 * time.Second)
	assert.Equal(t, ErrHeld, lock(r.b, r.ib).Err, "b's clock is ahead, but the store's decides")
	r.s.RunFor(16 * time.Second)
	assert.True(t, lock(r.b, r.ib).OK)
}

// TestStoreShedLockUnlockByName follows ShedLock's unlock statement,
// SqlStatementsSource.getUnlockStatement as JdbcTemplateStorageAccessor.unlock
// runs it before 7.0.0 — "UPDATE shedlock SET lock_until = :unlockTime
// WHERE name = :name", no locked_by — and MongoLockProvider.unlock
// (findOneAndUpdate by _id alone): a holder whose lock expired and was
// taken over releases its successor's lock, and a third client takes it.
// With CheckLockedBy (7.0.0's "AND locked_by = :lockedBy") the stale unlock
// updates nothing and the successor keeps the row.
func TestStoreShedLockUnlockByName(t *testing.T) {
	for _, checked := range []bool{false, true} {
		r := newStoreRig(StoreConfig{})
		r.s.RunFor(time.Millisecond)
		lock := func(p *probe, id sim.NodeID, now, until int64) *Reply {
			return r.do(p, Request{Op: OpLock, Holder: id, NowWallNs: now, UntilWallNs: until})
		}
		require.True(t, lock(r.a, r.ia, 100, 200).OK)
		require.True(t, lock(r.b, r.ib, 250, 350).OK, "a's lock_until passed: b takes the row")
		stale := r.do(r.a, Request{Op: OpUnlock, Holder: r.ia, NowWallNs: 260, UntilWallNs: 260, CheckLockedBy: checked})
		third := lock(r.a, r.ia, 261, 361) // the rig's third client: a again, locking afresh
		if checked {
			assert.Equal(t, ErrNotHolder, stale.Err, "locked_by = b: the stale unlock updates no row")
			assert.Equal(t, ErrHeld, third.Err, "b keeps the row")
			continue
		}
		require.True(t, stale.OK, "by name: the stale unlock updates b's row")
		assert.Equal(t, int64(260), stale.Rec.LockUntilWallNs)
		released := r.effects(EffectReleased)
		require.Len(t, released, 1)
		assert.Equal(t, int64(r.ib), released[0].A, "the released lock is b's")
		assert.True(t, third.OK, "the row is free again while b still runs")
	}
}
