package lease

import (
	"time"

	"github.com/electsim/electsim/sim"
)

// The ttl flavour is the single-instance Redis lock of "Distributed Locks
// with Redis" (redis.io/docs/latest/develop/use/patterns/distributed-locks):
// SET key id NX PX ttl to acquire (here with an INCR of a fence counter in the
// same script, for a fencing token), a Lua check-and-PEXPIRE to renew, a Lua
// check-and-DEL to release. The store expires the key by its own wall clock,
// as Redis does (Config.ExpiryClock; keyIsExpired in Redis's src/db.c). The
// holder believes it leads until its local estimate of the lease runs out:
// Redlock's validity time, TTL − elapsed − (TTL·ClockDriftFactor + 2ms),
// measured on its monotonic clock from just before it sent the request that
// set or renewed the TTL.

// ttlState is the holder's bookkeeping.
type ttlState struct {
	sentAt time.Duration // monotonic reading before the pending SET/renewal was sent
}

func (n *Node) fenceKey() string { return n.cfg.Key + ":fence" }

func (n *Node) ttlAttempt() {
	n.t.sentAt = n.env.Now()
	n.request(&Request{Op: OpSetNX, Holder: n.env.ID(), Identity: n.identity(), TTL: n.cfg.TTL, ExpiryClock: n.cfg.ExpiryClock,
		FenceKey: n.fenceKey(), NowWallNs: n.env.WallNanos()}, stepTTLSet)
}

func (n *Node) ttlTick() {
	switch n.phase {
	case phaseAcquire:
		n.ttlAttempt()
	case phaseLead:
		n.arm(&n.tick, n.cfg.renewInterval(), tagTick)
		if n.pendID != 0 {
			return // the previous renewal is still outstanding
		}
		n.t.sentAt = n.env.Now()
		n.request(&Request{Op: OpCheckRenew, Holder: n.env.ID(), TTL: n.cfg.TTL, ExpiryClock: n.cfg.ExpiryClock, NowWallNs: n.env.WallNanos()}, stepTTLRenew)
		n.reached(StateRenewSent)
	}
}

func (n *Node) ttlReply(st step, r *Reply) {
	switch st {
	case stepTTLSet:
		switch {
		case r == nil:
			n.retryLater()
		case !r.OK:
			n.believe(r.Rec.Holder, r.Rec.Token)
			n.retryLater()
		default:
			until := n.t.sentAt + n.cfg.TTL - n.cfg.drift()
			if until <= n.env.Now() {
				// No validity left (Redlock: unlock and retry).
				n.request(&Request{Op: OpRelease, Holder: n.env.ID()}, stepTTLAbort)
				return
			}
			n.lead(r.Rec.Token)
			n.believe(n.env.ID(), r.Rec.Token)
			n.armValidity(until)
			n.arm(&n.tick, n.cfg.renewInterval(), tagTick)
		}
	case stepTTLAbort:
		n.retryLater()
	case stepTTLRenew:
		switch {
		case r == nil:
			// Timed out: keep the old estimate; the next tick retries.
		case !r.OK:
			n.lost("lease lost")
			holder := sim.None
			if r.Found {
				holder = r.Rec.Holder
			}
			n.believe(holder, r.Rec.Token)
		default:
			until := n.t.sentAt + n.cfg.TTL - n.cfg.drift()
			n.armValidity(until)
			n.reached(StateRenewed)
		}
	}
}

func (n *Node) ttlResign() {
	if n.leading {
		n.stopLeading("resign")
		if n.cfg.ReleaseOnCancel {
			n.sendOneway(&Request{Op: OpRelease, Holder: n.env.ID()})
		}
	}
	n.afterStop()
}
