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
// keep-alive extends every lockAtMostFor/2 and stops extending when its own
// currentLockAtMostUntil has passed or an extension fails: KeepAliveLock.stop
// only cancels its timer (future.cancel(false)); the task is never
// interrupted or told (shedlock-core, support/KeepAliveLockProvider.java).
// So a failed extension does not end a tenure: the holder acts until its
// task ends (Config.TaskDuration; default never), and then its unlock is
// not written if an extend came back false, because that invalidated the
// lock object (AbstractSimpleLock.extend sets valid = false after doExtend
// returns) and KeepAliveLock.doUnlock's unlock throws. The two other ways
// the keep-alive stops leave the lock valid, and the unlock is written:
// the failsafe (currentLockAtMostUntil already passed when the timer
// fires, after a pause) only calls stop(), and an extend that throws (a
// timed-out statement: JdbcTemplateStorageAccessor.extend does not catch
// DataAccessException) leaves before valid = false and silently ends
// scheduleAtFixedRate. The unlock statement then releases the row by name
// (Config.Unlock): if the lock had expired meanwhile, that is the
// successor's lock, and a third candidate takes it.

// wallState is the holder's bookkeeping.
type wallState struct {
	reqNow      int64 // the pending Lock's :now
	reqUntil    int64 // the pending Lock's :lockUntil
	lockedAt    int64 // locked_at of our tenure
	atMostUntil int64 // KeepAliveLock.currentLockAtMostUntil
	stopped     bool  // the keep-alive stopped: no more extensions
	invalid     bool  // an extend came back false: the lock object is invalid, no unlock
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
		if n.w.stopped {
			return
		}
		now := n.env.WallNanos()
		if n.w.atMostUntil < now {
			n.wallStopKeepAlive("lock expired (failsafe)") // the lock stays valid: the unlock is written
			return
		}
		n.w.atMostUntil = now + int64(n.cfg.LockAtMostFor)
		n.request(&Request{Op: OpExtend, Holder: n.env.ID(), NowWallNs: now, UntilWallNs: n.w.atMostUntil}, stepWallExtend)
		n.reached(StateRenewSent)
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
			if n.cfg.TaskDuration > 0 {
				n.arm(&n.validity, n.cfg.TaskDuration, tagTaskDone)
			}
		}
	case stepWallExtend:
		switch {
		case r == nil:
			// The statement threw (timed out): the lock stays valid.
			n.wallStopKeepAlive("extend timed out")
		case r.OK:
			n.reached(StateRenewed)
		default:
			n.w.invalid = true // AbstractSimpleLock.extend: valid = false
			n.wallStopKeepAlive("extend failed")
			n.believe(r.Rec.Holder, r.Rec.Token)
		}
	}
}

// wallStopKeepAlive is KeepAliveLock.stop: the extensions end, the task
// (the tenure) goes on. The effect records it for people and traces.
func (n *Node) wallStopKeepAlive(why string) {
	n.w.stopped = true
	n.disarm(&n.tick)
	n.env.Effect(sim.Effect{Name: EffectKeepAliveStopped, Detail: why, A: int64(n.env.ID()), B: n.token})
}

// wallTaskDone ends a tenure whose task finished: unlock (unless an
// extend came back false: the invalidated lock writes nothing), then
// compete again after a jittered RetryPeriod.
func (n *Node) wallTaskDone() {
	if n.phase != phaseLead {
		return
	}
	n.stopLeading("task finished")
	if !n.w.invalid {
		n.wallUnlock()
	}
	n.afterStop()
}

// wallUnlock is ShedLock's unlock: lock_until = max(now, locked_at +
// LockAtLeastFor), sent without waiting, on the row by name unless
// Config.Unlock is UnlockByHolder.
func (n *Node) wallUnlock() {
	now := n.env.WallNanos()
	until := max(now, n.w.lockedAt+int64(n.cfg.LockAtLeastFor))
	n.sendOneway(&Request{Op: OpUnlock, Holder: n.env.ID(), NowWallNs: now, UntilWallNs: until,
		CheckLockedBy: n.cfg.Unlock == UnlockByHolder})
}

func (n *Node) wallResign() {
	if n.leading {
		n.stopLeading("resign")
		if n.cfg.ReleaseOnCancel && !n.w.invalid {
			n.wallUnlock()
		}
	}
	n.afterStop()
}
