package lease

import (
	"encoding/hex"
	"math/bits"
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// The redlock flavour is Redlock ("Distributed Locks with Redis", the
// Redlock algorithm) over Config.Masters independent Redis masters, each its
// own store node with its own clocks, as go-redsync implements it (mutex.go,
// lockContext and ExtendContext):
//
//   - acquire: one random value per acquisition (genValue); SET key value
//     NX PX TTL on every master in parallel, the round bounded by
//     TTL·TimeoutFactor; with n successes the validity runs until
//     until = now + TTL − (now − start) − drift, where drift =
//     TTL·ClockDriftFactor + ClockDriftMargin (go-redsync has no constant
//     margin: set ClockDriftMargin to 0 for its exact formula); the lock is
//     held if n ≥ Masters/2+1 and now < until, else the value is deleted
//     from every master (compare-and-delete) and the client retries after
//     a random 50–250 ms;
//   - extend: "if GET == value then PEXPIRE" on every master, waiting for
//     every master's answer (actOnPoolsAsync) with no deadline of its own:
//     Extend() passes context.Background(); Config.RequestTimeout is the
//     application's own deadline on ExtendContext, none by default; it
//     holds on with n ≥ quorum and now < until (recomputed from the
//     extension's start), else the tenure ends;
//   - release: compare-and-delete on every master.
//
// Each master's answer comes through its go-redis client (redisclient.go):
// timeouts, retries and dials are go-redis v9's, so one unreachable master
// keeps a round going for its whole retry budget — and a round's context
// deadline (the acquisition's TTL·TimeoutFactor, or RequestTimeout) cuts a
// socket read short only with ContextTimeoutEnabled.
//
// Each master expires keys by its own wall clock (Config.ExpiryClock, as
// Redis does), so a clock step on one master of the majority can hand the
// lock to a second client (Kleppmann, "How to do distributed locking").
// Redlock has no fencing token; for the cron layer's fencing the masters
// INCR a counter in the SET NX script and the holder uses the highest value
// its quorum returned — an addition the application makes, not Redlock's,
// and not monotonic in general (two quorums intersect in one master only).

// redlockOp is what a round does.
type redlockOp uint8

const (
	rlAcquire redlockOp = iota + 1
	rlExtend
)

// go-redsync's retry delay between acquisition attempts (redsync.go,
// NewMutex's delayFunc): uniform in [50ms, 250ms).
const (
	redsyncMinRetryDelay = 50 * time.Millisecond
	redsyncMaxRetryDelay = 250 * time.Millisecond
)

// redlockState is a candidate's Redlock bookkeeping.
type redlockState struct {
	value    string                 // this acquisition's random value
	round    int64                  // a round is in flight (its first request ID; 0: none)
	op       redlockOp              // what the round does
	start    time.Duration          // monotonic reading before the round was sent
	answered uint32                 // the masters whose call ended this round (bit i: n.stores[i]; MaxMasters ≤ 32)
	ok       int                    // masters that applied it
	token    int64                  // highest fence value an applied SET NX returned
	holder   sim.NodeID             // a holder named by a refusing master
	timer    sim.TimerID            // the round's context deadline
	ctxDone  bool                   // the round's context deadline passed
	calls    [MaxMasters]masterCall // each master's go-redis call
	broken   uint32                 // masters whose pooled connection went bad (bit i): the next call dials
}

// quorum is go-redsync's len(pools)/2+1.
func (n *Node) quorum() int {
	if n.cfg.zooHalfQuorum {
		return n.zooQuorum()
	}
	return len(n.stores)/2 + 1
}

// redlockValue draws a fresh random value, as genValue draws 16 bytes.
func (n *Node) redlockValue() string {
	var b [16]byte
	r := n.env.Rand()
	for i := 0; i < len(b); i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return n.env.Name() + "-" + hex.EncodeToString(b[:])
}

func (n *Node) redlockAttempt() {
	n.rl.value = n.redlockValue()
	// lockContext: context.WithTimeout(ctx, expiry·timeoutFactor)
	n.redlockRound(rlAcquire, time.Duration(float64(n.cfg.TTL)*n.cfg.TimeoutFactor))
}

// redlockRequest is the round's command to one master, with request ID id.
func (n *Node) redlockRequest(id int64) *Request {
	if n.rl.op == rlAcquire {
		return &Request{ID: id, Op: OpSetNX, Key: n.cfg.Key, Holder: n.env.ID(), Identity: n.rl.value, TTL: n.cfg.TTL,
			ExpiryClock: n.cfg.ExpiryClock, FenceKey: n.fenceKey(), NowWallNs: n.env.WallNanos()}
	}
	return &Request{ID: id, Op: OpCheckRenew, Key: n.cfg.Key, Holder: n.env.ID(), Identity: n.rl.value, TTL: n.cfg.TTL,
		ExpiryClock: n.cfg.ExpiryClock, SetIfAbsent: n.cfg.SetNXOnExtend, NowWallNs: n.env.WallNanos()}
}

// redlockRound sends the round's command to every master in parallel,
// each through its go-redis client; deadline is the round's context
// deadline (0: none, context.Background()).
func (n *Node) redlockRound(op redlockOp, deadline time.Duration) {
	n.rl.round, n.rl.op, n.rl.start = n.reqSeq+1, op, n.env.Now()
	n.rl.answered, n.rl.ok, n.rl.token, n.rl.holder, n.rl.ctxDone = 0, 0, 0, sim.None, false
	if deadline > 0 {
		n.arm(&n.rl.timer, deadline, tagRound)
	}
	for i := range n.stores {
		n.rl.calls[i].attempt = 0
		n.callStart(i)
	}
}

// redlockReply takes one master's reply to the round in flight.
func (n *Node) redlockReply(from sim.NodeID, r *Reply) {
	i := slices.Index(n.stores, from)
	if n.rl.round == 0 || i < 0 || n.rl.answered&(1<<i) != 0 {
		// Stale (no round), or a second copy of a master's answer (the
		// network duplicated it): go-redsync's actOnPoolsAsync takes
		// exactly one result per pool, so a master counts once. Counting
		// copies gave a client holding two masters of five a "quorum"
		// (found by simrun hunt: TestRedlockCountsMastersNotAnswers).
		return
	}
	if !n.callAnswer(i, r) {
		return // a dial's answer, or one to an abandoned attempt
	}
	n.rl.answered |= 1 << i
	switch {
	case r.OK:
		n.rl.ok++
		n.rl.token = max(n.rl.token, r.Rec.Token)
	case r.Found && r.Rec.Holder != sim.None:
		n.rl.holder = r.Rec.Holder
	}
	n.redlockMaybeDone()
}

// redlockCallTimer handles master i's go-redis call timer.
func (n *Node) redlockCallTimer(i int) {
	if n.rl.round == 0 || i >= len(n.stores) {
		return
	}
	if n.callTimer(i) {
		n.rl.answered |= 1 << i // failed: counts as no
		n.redlockMaybeDone()
	}
}

// redlockDeadline is the round's context deadline: calls that honour it
// end now; reads in progress end at their own socket deadline unless
// ContextTimeoutEnabled.
func (n *Node) redlockDeadline() {
	n.rl.ctxDone = true
	for i := range n.stores {
		if n.callContextDone(i) {
			n.rl.answered |= 1 << i
		}
	}
	n.redlockMaybeDone()
}

// redlockMaybeDone ends the round once every master's call has ended
// (actOnPoolsAsync reads one result per pool).
func (n *Node) redlockMaybeDone() {
	if bits.OnesCount32(n.rl.answered) == len(n.stores) {
		n.redlockRoundDone()
	}
}

// redlockRoundDone ends the round: every master's call has ended.
func (n *Node) redlockRoundDone() {
	n.disarm(&n.rl.timer)
	n.callsStop()
	n.rl.round = 0
	now := n.env.Now()
	// go-redsync: until := now.Add(expiry - now.Sub(start) - expiry*driftFactor)
	until := now + n.cfg.TTL - (now - n.rl.start) - n.cfg.drift()
	held := n.rl.ok >= n.quorum() && now < until
	switch n.rl.op {
	case rlAcquire:
		if n.phase != phaseAcquire {
			return
		}
		if !held {
			n.redlockDelete() // unlock on every master, then retry
			if n.rl.holder != sim.None {
				n.believe(n.rl.holder, 0)
			}
			n.arm(&n.tick, n.env.Rand().DurationRange(redsyncMinRetryDelay, redsyncMaxRetryDelay-1), tagTick)
			return
		}
		n.lead(n.rl.token)
		n.believe(n.env.ID(), n.rl.token)
		n.armValidity(until)
		n.arm(&n.tick, n.cfg.renewInterval(), tagTick)
	case rlExtend:
		if n.phase != phaseLead {
			return
		}
		if !held {
			n.lost("extend failed") // ErrExtendFailed: the application stops
			return
		}
		n.armValidity(until)
		n.reached(StateRenewed)
	}
}

func (n *Node) redlockTick() {
	switch n.phase {
	case phaseAcquire:
		n.redlockAttempt()
	case phaseLead:
		n.arm(&n.tick, n.cfg.renewInterval(), tagTick)
		if n.rl.round != 0 {
			return // the previous extension is still out
		}
		// ExtendContext: the application's deadline, if it sets one.
		n.redlockRound(rlExtend, n.cfg.RequestTimeout)
		n.reached(StateRenewSent)
	}
}

// redlockDelete runs go-redsync's compare-and-delete on every master,
// without waiting for the answers.
func (n *Node) redlockDelete() {
	for _, st := range n.stores {
		n.reqSeq++
		n.env.Send(RequestMessage(st, &Request{ID: n.reqSeq, Op: OpRelease, Key: n.cfg.Key, Holder: n.env.ID(), Identity: n.rl.value}))
	}
}

func (n *Node) redlockResign() {
	if n.leading {
		n.stopLeading("resign")
		if n.cfg.ReleaseOnCancel {
			n.redlockDelete()
		}
	}
	n.afterStop()
}
