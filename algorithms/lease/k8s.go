package lease

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// The k8s flavour follows client-go tools/leaderelection/leaderelection.go:
// acquire (wait.JitterUntil over tryAcquireOrRenew), renew (wait.Until over
// wait.PollUntilContextTimeout bounded by RenewDeadline), tryAcquireOrRenew
// with its optimistic fast path, release/tryRelease, and
// maybeReportTransition. Expiry is judged only by the candidate's monotonic
// clock (observedTime) and the lease duration written in the record; the
// wall-clock timestamps in the record are never compared, only used to detect
// change.

// k8sState is the LeaderElector's bookkeeping.
type k8sState struct {
	observed     Record        // observedRecord: IsLeader and the expiry use it
	observedRaw  Record        // observedRawRecord: the last Get's content
	rawSet       bool          // observedRaw holds a Get's content
	observedRev  int64         // LeaseLock's cached resourceVersion (last Get or own write)
	observedTime time.Duration // monotonic reading when observed was set
	reported     string        // reportedLeader
	now          time.Duration // tryAcquireOrRenew's now (monotonic)
	nowWall      int64         // ... and as written into the record
	roundActive  bool          // a renewal round (PollUntilContextTimeout) is running
	roundStart   time.Duration
	attemptStart time.Duration
	stopWhy      string // why the tenure ends, reported when a release finishes
}

// identity is the holder identity this incarnation writes: the node's
// name, or with IdentityProcess the name and the UUID it drew at boot
// (kube-controller-manager's hostname_UUID).
func (n *Node) identity() string {
	if n.incarnation != "" {
		return n.env.Name() + "_" + n.incarnation
	}
	return n.env.Name()
}

func (n *Node) k8sIsLeader() bool { return n.k.observed.HolderIdentity == n.identity() }

// k8sValid is isLeaseValid: observedTime + the observed record's lease
// duration is after now.
func (n *Node) k8sValid(now time.Duration) bool {
	return n.k.observedTime+time.Duration(n.k.observed.LeaseDurationNs) > now
}

// k8sSetObserved is setObservedRecord: it also restarts observedTime.
func (n *Node) k8sSetObserved(r Record) {
	n.k.observed = r
	n.k.observedTime = n.env.Now()
}

// k8sRecord is the record tryAcquireOrRenew would write: us as holder,
// acquire and renew time now, the lease duration in whole seconds.
func (n *Node) k8sRecord() Record {
	return Record{
		Key:               n.cfg.Key,
		Holder:            n.env.ID(),
		HolderIdentity:    n.identity(),
		LeaseDurationNs:   int64(n.cfg.LeaseDuration/time.Second) * int64(time.Second),
		AcquireTimeWallNs: n.k.nowWall,
		RenewTimeWallNs:   n.k.nowWall,
	}
}

// k8sSameRaw compares records as client-go compares the raw JSON of a
// LeaderElectionRecord: times are metav1.Time, serialized in whole seconds,
// and resourceVersion is not part of it.
func k8sSameRaw(a, b Record) bool {
	const s = int64(time.Second)
	return a.HolderIdentity == b.HolderIdentity && a.LeaseDurationNs/s == b.LeaseDurationNs/s &&
		a.AcquireTimeWallNs/s == b.AcquireTimeWallNs/s && a.RenewTimeWallNs/s == b.RenewTimeWallNs/s &&
		a.Transitions == b.Transitions
}

// k8sAttempt starts one tryAcquireOrRenew.
func (n *Node) k8sAttempt() {
	n.k.now, n.k.nowWall = n.env.Now(), n.env.WallNanos()
	n.k.attemptStart = n.k.now
	// 1. Fast path: a leader whose lease is still valid updates optimistically
	// with the revision it last saw.
	if n.k8sIsLeader() && n.k8sValid(n.k.now) {
		rec := n.k8sRecord()
		rec.AcquireTimeWallNs = n.k.observed.AcquireTimeWallNs
		rec.Transitions = n.k.observed.Transitions
		rec.Token = rec.Transitions
		n.request(&Request{Op: OpUpdate, Rec: rec, Revision: n.k.observedRev}, stepK8sFastUpdate)
		n.reached(StateRenewSent)
		return
	}
	n.request(&Request{Op: OpGet}, stepK8sGet)
}

func (n *Node) k8sReply(st step, r *Reply) {
	switch st {
	case stepK8sFastUpdate:
		if r != nil && r.OK {
			n.k.observedRev = r.Rec.Revision
			n.k8sSetObserved(r.Rec)
			n.k8sWriteLag()
			n.k8sAttemptDone(true)
			return
		}
		n.request(&Request{Op: OpGet}, stepK8sGet) // fall back to the slow path
	case stepK8sGet:
		switch {
		case r == nil:
			n.k8sAttemptDone(false)
		case !r.OK: // not found: create it
			rec := n.k8sRecord()
			n.request(&Request{Op: OpCreate, Rec: rec}, stepK8sCreate)
		default:
			cur := r.Rec
			n.k.observedRev = cur.Revision
			if !n.k.rawSet || !k8sSameRaw(n.k.observedRaw, cur) {
				n.k8sSetObserved(cur)
				n.k.observedRaw, n.k.rawSet = cur, true
			}
			if cur.HolderIdentity != "" && n.k8sValid(n.k.now) && !n.k8sIsLeader() {
				n.k8sAttemptDone(false) // held and not yet expired by our clock
				return
			}
			rec := n.k8sRecord()
			if n.k8sIsLeader() {
				rec.AcquireTimeWallNs = cur.AcquireTimeWallNs
				rec.Transitions = cur.Transitions
			} else {
				rec.Transitions = cur.Transitions + 1
			}
			rec.Token = rec.Transitions
			n.request(&Request{Op: OpUpdate, Rec: rec, Revision: cur.Revision}, stepK8sUpdate)
			if n.phase == phaseLead {
				n.reached(StateRenewSent) // the slow path's renewal
			}
		}
	case stepK8sCreate, stepK8sUpdate:
		if r != nil && r.OK {
			n.k.observedRev = r.Rec.Revision
			n.k8sSetObserved(r.Rec)
			n.k8sWriteLag()
			n.k8sAttemptDone(true)
			return
		}
		n.k8sAttemptDone(false)
	case stepK8sRelGet:
		switch {
		case r == nil || !r.OK:
			n.k8sReleaseDone()
		default:
			n.k.observedRev = r.Rec.Revision // LeaseLock.Get refreshes the cached object...
			if !n.k8sIsLeader() {            // ...but IsLeader still judges the observed record
				n.k8sReleaseDone()
				return
			}
			rec := Record{Key: n.cfg.Key, Holder: sim.None, LeaseDurationNs: int64(time.Second),
				Transitions: r.Rec.Transitions, Token: r.Rec.Transitions,
				AcquireTimeWallNs: n.env.WallNanos(), RenewTimeWallNs: n.env.WallNanos()}
			n.request(&Request{Op: OpUpdate, Rec: rec, Revision: r.Rec.Revision}, stepK8sRelUpdate)
		}
	case stepK8sRelUpdate:
		switch {
		case r != nil && r.OK:
			n.k.observedRev = r.Rec.Revision
			n.k8sSetObserved(r.Rec)
			n.k8sReleaseDone()
		case r != nil && r.Err == ErrConflict:
			n.request(&Request{Op: OpGet}, stepK8sRelGet) // tryRelease retries on conflict
		default:
			n.k8sReleaseDone()
		}
	}
}

// k8sAttemptDone continues after tryAcquireOrRenew returned ok.
func (n *Node) k8sAttemptDone(ok bool) {
	switch n.phase {
	case phaseAcquire:
		n.k8sReport()
		if !ok {
			n.retryLater()
			return
		}
		n.lead(n.k.observed.Transitions)
		n.k8sStartRound() // renew's wait.Until runs its first round at once
	case phaseLead:
		if ok {
			// The round succeeded; the next starts RetryPeriod later
			// (wait.Until is sliding).
			n.reached(StateRenewed)
			n.k.roundActive = false
			n.disarm(&n.deadline)
			n.k8sReport()
			n.arm(&n.tick, n.cfg.RetryPeriod, tagTick)
			return
		}
		// PollUntilContextTimeout's ticker fires every RetryPeriod from the
		// round's start; a tick that passed during the attempt is buffered.
		rp := n.cfg.RetryPeriod
		k := (n.k.attemptStart-n.k.roundStart)/rp + 1
		d := n.k.roundStart + k*rp - n.env.Now()
		if d < 0 {
			d = 0
		}
		n.arm(&n.tick, d, tagTick)
	}
}

// k8sStartRound starts one renewal round: RenewDeadline from now, first
// attempt immediately.
func (n *Node) k8sStartRound() {
	n.k.roundActive = true
	n.k.roundStart = n.env.Now()
	n.arm(&n.deadline, n.cfg.RenewDeadline, tagDeadline)
	n.k8sAttempt()
}

func (n *Node) k8sTick() {
	switch n.phase {
	case phaseAcquire:
		n.k8sAttempt()
	case phaseLead:
		if !n.k.roundActive {
			n.k8sStartRound()
			return
		}
		if n.env.Now() >= n.k.roundStart+n.cfg.RenewDeadline {
			return // the context's deadline wins a tie with the ticker
		}
		n.k8sAttempt()
	}
}

// k8sDeadline handles the RenewDeadline of a renewal round or a release.
func (n *Node) k8sDeadline() {
	switch n.phase {
	case phaseLead:
		// The round timed out: the in-flight request is cancelled with the
		// context, renew returns, and the leader stops (after releasing, with
		// ReleaseOnCancel).
		n.abandon()
		n.disarm(&n.tick)
		n.k.roundActive = false
		n.k8sReport()
		n.k8sEnd("renew deadline exceeded")
	case phaseRelease:
		n.abandon()
		n.k8sReleaseDone()
	}
}

// k8sEnd finishes a tenure that failed to renew: renew() returns, releases
// the lease if ReleaseOnCancel, and only then does Run return and cancel the
// leader's context — so with ReleaseOnCancel the candidate keeps acting while
// it releases.
func (n *Node) k8sEnd(why string) {
	if !n.cfg.ReleaseOnCancel {
		n.lost(why)
		return
	}
	n.k8sStartRelease(why)
}

// k8sStartRelease is release(): tryRelease under a RenewDeadline timeout.
func (n *Node) k8sStartRelease(why string) {
	n.phase = phaseRelease
	n.k.stopWhy = why
	n.arm(&n.deadline, n.cfg.RenewDeadline, tagDeadline)
	n.request(&Request{Op: OpGet}, stepK8sRelGet)
}

func (n *Node) k8sReleaseDone() {
	n.disarm(&n.deadline)
	n.lost(n.k.stopWhy)
}

func (n *Node) k8sResign() {
	switch n.phase {
	case phaseLead:
		// Cancelling the caller's context cancels the leader's context at
		// once; renew then returns and releases.
		n.stopLeading("resign")
		n.abandon()
		n.disarm(&n.tick)
		n.disarm(&n.deadline)
		if n.cfg.ReleaseOnCancel {
			n.k8sStartRelease("resign")
			return
		}
		n.afterStop()
	case phaseRelease:
		// Releasing after a lost renewal: the caller's cancel ends the
		// leader's context now; resigned keeps it from rejoining afterwards.
		n.stopLeading("resign")
	default:
		n.afterStop()
	}
}

// k8sReport is maybeReportTransition: report the observed holder when its
// identity differs from the last one reported.
func (n *Node) k8sReport() {
	id := n.k.observed.HolderIdentity
	if id == n.k.reported {
		return
	}
	n.k.reported = id
	holder := n.k.observed.Holder
	if id == "" {
		holder = sim.None
	}
	n.belief.Set(n.env, holder, n.k.observed.Transitions)
}

// k8sWriteLagMin is the shortest write lag k8sWriteLag reports: longer
// than a round trip on any network the shipped scenarios configure, so a
// renewal in the normal course reports nothing.
const k8sWriteLagMin = 100 * time.Millisecond

// k8sWriteLag reports (sim.FactLeaseWriteLag) how much older than its
// success the record it just wrote is: tryAcquireOrRenew takes now once,
// when the attempt starts, and writes it as acquireTime and renewTime
// however long the fast path's Update, then the slow path's Get and
// Update, took. Followers compare records in whole seconds, so a record
// whose renewTime is a second already written looks unchanged to them
// while the holder starts its own clock afresh at the success: the
// k8s contract's bound stretches by this lag (Guarantee.WriteLag).
func (n *Node) k8sWriteLag() {
	if lag := n.env.Now() - n.k.now; lag >= k8sWriteLagMin {
		n.env.Effect(sim.Effect{Name: "lease.write_lag", B: int64(lag), Fact: sim.FactLeaseWriteLag,
			Detail: fmt.Sprintf("the record it wrote carries the time of %v ago", lag.Round(time.Millisecond))})
	}
}
