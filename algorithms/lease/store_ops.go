package lease

import "github.com/electsim/electsim/sim"

// opCall is one request being applied: the record the store held under
// its key when the request arrived (found, cur), which the operation
// replaces with the record it leaves there, and the reply's Value.
type opCall struct {
	req   *Request
	found bool
	cur   Record
	value int64
}

// storeOps is the store's operations, one function per Op: each checks
// its precondition against c.cur (returning the Err that refuses the
// request, before any write) or writes and reports its effect. An Op with
// no entry (none today) applies as a read.
var storeOps = [numOps]func(*Store, *opCall) Err{
	OpGet:        (*Store).opGet,
	OpCreate:     (*Store).opCreate,
	OpUpdate:     (*Store).opUpdate,
	OpSetNX:      (*Store).opSetNX,
	OpCheckRenew: (*Store).opCheckRenew,
	OpRelease:    (*Store).opRelease,
	OpIncr:       (*Store).opIncr,
	OpLock:       (*Store).opLock,
	OpExtend:     (*Store).opExtend,
	OpUnlock:     (*Store).opUnlock,
}

// apply executes one request atomically: expired keys go first (the
// request must not see them), a request that asks for the store's time
// (StoreTime) takes it now, then the operation runs. A refused request
// replies with the record as it was, like Redis 7's SET ... NX GET.
func (st *Store) apply(req *Request) *Reply {
	st.expireDue()
	i, found := st.find(req.Key)
	c := &opCall{req: req, found: found}
	if found {
		c.cur = st.records[i]
	}
	if req.StoreTime && (req.Op == OpLock || req.Op == OpExtend || req.Op == OpUnlock) {
		timed := *req
		storeTime(&timed, st.env.WallNanos(), c.cur)
		c.req = &timed
	}
	if op := storeOps[c.req.Op]; op != nil {
		if e := op(st, c); e != ErrNone {
			return &Reply{Err: e, Found: found, Rec: c.cur}
		}
	}
	return &Reply{OK: true, Found: c.cur.Key != "", Rec: c.cur, Value: c.value}
}

func (st *Store) opGet(c *opCall) Err {
	if !c.found {
		return ErrNotFound
	}
	return ErrNone
}

// opCreate writes the request's record under a key that must be absent
// (k8s Create).
func (st *Store) opCreate(c *opCall) Err {
	if c.found {
		return ErrExists
	}
	rec := c.req.Rec
	rec.Key = c.req.Key
	st.put(c, rec, "", classify(false, Record{}, rec))
	return ErrNone
}

// opUpdate replaces the record if it still has the revision the request
// read (k8s Update's resourceVersion check).
func (st *Store) opUpdate(c *opCall) Err {
	if !c.found {
		return ErrNotFound
	}
	if c.cur.Revision != c.req.Revision {
		return ErrConflict
	}
	rec := c.req.Rec
	rec.Key = c.req.Key
	before := c.cur
	st.write(c.req.Op, &rec, true, before, "")
	c.cur = rec
	name, who := classify(true, before, rec), rec.Holder
	if name == EffectReleased {
		who = before.Holder // A names who gave it up
	}
	st.effect(name, rec.Key, who, rec.Token, rec.Revision)
	return ErrNone
}

// opSetNX takes an absent key for the requester (Redis SET NX), bumping
// the fence counter FenceKey names in the same step if any.
func (st *Store) opSetNX(c *opCall) Err {
	if c.found {
		return ErrExists
	}
	c.value = st.put(c, st.newHeld(c.req), c.req.FenceKey, EffectAcquired)
	return ErrNone
}

// opCheckRenew renews the requester's key (the compare-and-extend script
// of a Redis lock), or takes it when absent if SetIfAbsent says so.
func (st *Store) opCheckRenew(c *opCall) Err {
	req := c.req
	if !c.found && req.SetIfAbsent {
		st.put(c, st.newHeld(req), "", EffectAcquired)
		return ErrNone
	}
	if !c.found || !holds(c.cur, req) {
		return ErrNotHolder
	}
	rec := c.cur
	st.setExpiry(&rec, req)
	rec.RenewTimeWallNs = req.NowWallNs
	st.put(c, rec, "", EffectRenewed)
	return ErrNone
}

// put writes rec under the request's key, over the record the request
// found if there was one, and reports the effect, naming rec's holder.
// A fenceKey counter is bumped in the same write; put returns its value.
// (The effect's name depends only on holders, which write leaves alone.)
func (st *Store) put(c *opCall, rec Record, fenceKey, effect string) int64 {
	v := st.write(c.req.Op, &rec, c.found, c.cur, fenceKey)
	c.cur = rec
	st.effect(effect, rec.Key, rec.Holder, rec.Token, rec.Revision)
	return v
}

// newHeld is a fresh record held by the requester from now, with the
// expiry the request asks for.
func (st *Store) newHeld(req *Request) Record {
	rec := Record{Key: req.Key, Holder: req.Holder, HolderIdentity: req.Identity,
		AcquireTimeWallNs: req.NowWallNs, RenewTimeWallNs: req.NowWallNs}
	st.setExpiry(&rec, req)
	return rec
}

// opRelease deletes the requester's key (the compare-and-delete script).
func (st *Store) opRelease(c *opCall) Err {
	if !c.found || !holds(c.cur, c.req) {
		return ErrNotHolder
	}
	st.write(c.req.Op, nil, true, c.cur, "")
	st.effect(EffectReleased, c.cur.Key, c.cur.Holder, c.cur.Token, st.rev)
	c.cur = Record{}
	return ErrNone
}

// opIncr increments the counter named by the key (Redis INCR).
func (st *Store) opIncr(c *opCall) Err {
	c.value = st.write(c.req.Op, nil, false, Record{}, c.req.Key)
	st.effect(EffectIncr, c.req.Key, sim.None, c.value, st.rev)
	return ErrNone
}

// opLock takes a ShedLock row whose lock_until has passed (or a new one).
func (st *Store) opLock(c *opCall) Err {
	req := c.req
	if c.found && c.cur.LockUntilWallNs > req.NowWallNs {
		return ErrHeld
	}
	rec := c.cur
	rec.Key, rec.Holder, rec.HolderIdentity = req.Key, req.Holder, req.Identity
	rec.LockedAtWallNs, rec.LockUntilWallNs = req.NowWallNs, req.UntilWallNs
	rec.Token = -1 // the acquiring revision, set by write
	st.put(c, rec, "", EffectAcquired)
	return ErrNone
}

// opExtend moves the requester's unexpired ShedLock row's lock_until.
func (st *Store) opExtend(c *opCall) Err {
	req := c.req
	if !c.found || c.cur.Holder != req.Holder || c.cur.LockUntilWallNs <= req.NowWallNs {
		return ErrNotHolder
	}
	rec := c.cur
	rec.LockUntilWallNs = req.UntilWallNs
	st.put(c, rec, "", EffectRenewed)
	return ErrNone
}

// opUnlock sets a ShedLock row's lock_until to the request's. Without
// CheckLockedBy the row is updated by name alone
// (SqlStatementsSource.getUnlockStatement before ShedLock 7.0.0,
// MongoLockProvider.unlock): the released lock may be another holder's,
// and the effect names that holder.
func (st *Store) opUnlock(c *opCall) Err {
	req := c.req
	if !c.found || req.CheckLockedBy && c.cur.Holder != req.Holder {
		return ErrNotHolder
	}
	rec := c.cur
	rec.LockUntilWallNs = req.UntilWallNs
	st.put(c, rec, "", EffectReleased)
	return ErrNone
}
