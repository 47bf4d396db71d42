package lease

import "github.com/electsim/electsim/sim"

// The walltime flavour is ShedLock (github.com/lukas-krecan/ShedLock) used
// for leader election with KeepAliveLockProvider. Its SQL provider locks with
//
//	UPDATE shedlock SET lock_until = :lockUntil, locked_at = :now, locked_by = :lockedBy
//	 WHERE name = :name AND lock_until <= :now
//
// (or INSERT when the row is absent), extends with "... WHERE locked_by =
// :lockedBy AND lock_until > :now" and unlocks by setting lock_until, where
// :now and :lockUntil come from the client's wall clock (ClockProvider). The
// keep-alive extends every lockAtMostFor/2 and stops when its own
// currentLockAtMostUntil has passed or an extension fails. Nothing else ends a
// tenure: the holder acts until the next extension notices.

// wallState is the holder's bookkeeping.
type wallState struct {
	reqNow      int64 // the pending Lock's :now
	reqUntil    int64 // the pending Lock's :lockUntil
	lockedAt    int64 // locked_at of our tenure
	atMostUntil int64 // KeepAliveLock.currentLockAtMostUntil
}

func (n *Node) wallAttempt() {
	now := n.env.WallNanos()
	n.w.reqNow, n.w.reqUntil = now, now+int64(n.cfg.LockAtMostFor)
	n.request(&Request{Op: OpLock, Holder: n.env.ID(), Identity: n.identity(),
		NowWallNs: n.w.reqNow, UntilWallNs: n.w.reqUntil}, stepWallLock)
}

func (n *Node) wallTick() {
	switch n.phase {
	case phaseAcquire:
		n.wallAttempt()
	case phaseLead:
		n.arm(&n.tick, n.cfg.extendInterval(), tagTick) // scheduleAtFixedRate
		if n.pendID != 0 {
			return
		}
		now := n.env.WallNanos()
		if n.w.atMostUntil < now {
			n.lost("lock expired (failsafe)")
			n.believe(sim.None, 0)
			return
		}
		n.w.atMostUntil = now + int64(n.cfg.LockAtMostFor)
		n.request(&Request{Op: OpExtend, Holder: n.env.ID(), NowWallNs: now, UntilWallNs: n.w.atMostUntil}, stepWallExtend)
	}
}

func (n *Node) wallReply(st step, r *Reply) {
	switch st {
	case stepWallLock:
		switch {
		case r == nil:
			n.retryLater()
		case !r.OK:
			n.believe(r.Rec.Holder, r.Rec.Token)
			n.retryLater()
		default:
			n.w.lockedAt, n.w.atMostUntil = n.w.reqNow, n.w.reqUntil
			n.lead(r.Rec.Token)
			n.believe(n.env.ID(), r.Rec.Token)
			n.arm(&n.tick, n.cfg.extendInterval(), tagTick)
		}
	case stepWallExtend:
		if r != nil && r.OK {
			return
		}
		n.lost("extend failed")
		if r != nil {
			n.believe(r.Rec.Holder, r.Rec.Token)
		} else {
			n.believe(sim.None, 0)
		}
	}
}

func (n *Node) wallResign() {
	if n.leading {
		n.stopLeading("resign")
		if n.cfg.ReleaseOnCancel {
			now := n.env.WallNanos()
			until := max(now, n.w.lockedAt+int64(n.cfg.LockAtLeastFor))
			n.sendOneway(&Request{Op: OpUnlock, Holder: n.env.ID(), NowWallNs: now, UntilWallNs: until})
		}
	}
	n.afterStop()
}
