package etcdelect

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagKeepAlive = iota + 1 // a tick of the keep-alive send loop at which one is due
	tagDeadline             // a tick of the deadline loop after the session's deadline
	tagRequest              // the pending request timed out
	tagRejoin               // RejoinDelay elapsed
)

// step says what the pending request continues.
type step uint8

const (
	stepGrant step = iota + 1
	stepPut
	stepRange
	stepWatch
)

// Node is an etcd election candidate: a concurrency.Session and
// Election.Campaign, leading until the session is done.
type Node struct {
	cfg    Config
	server sim.NodeID
	env    sim.Env

	lease    int64 // the session's lease (0: none)
	myKey    string
	myRev    int64
	leading  bool
	resigned bool
	belief   coord.Belief

	pend     coord.Pending[*Request, step] // the request (or watch) awaited
	kaTimer  sim.TimerID
	deadline sim.TimerID
	rejoin   sim.TimerID

	// The client's keep-alive loops (lease.go) start at loopOrigin, the
	// process's first KeepAlive, and tick every sendLoopPeriod and
	// deadlineLoopPeriod (their waits and passLateness) from then on; all
	// times are the client's monotonic clock.
	loops      bool
	loopOrigin time.Duration
	kaNext     time.Duration // nextKeepAlive: a keep-alive goes out at the first send tick after it
	kaDeadline time.Duration // deadline: the session ends at the first deadline tick after it
}

// New returns a candidate talking to the server.
func New(cfg Config, server sim.NodeID) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, server: server}, nil
}

// MustNew is New for configurations known to be valid.
func MustNew(cfg Config, server sim.NodeID) *Node {
	n, err := New(cfg, server)
	if err != nil {
		panic(err)
	}
	return n
}

// Start implements sim.Node: a fresh process starts a new session.
func (n *Node) Start(env sim.Env, _ []byte) {
	*n = Node{cfg: n.cfg, server: n.server, env: env}
	n.newSession()
}

// Leading reports whether the candidate acts as leader.
func (n *Node) Leading() bool { return n.leading }

// Token is the create revision of its key (its fencing token).
func (n *Node) Token() int64 { return n.myRev }

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	rep, ok := m.Body.(*Response)
	if !ok || m.Kind != KindResponse {
		return
	}
	if rep.Op == OpKeepAlive {
		n.onKeepAlive(rep)
		return
	}
	if rep.Op == OpObserve {
		n.onObserve(rep)
		return
	}
	if rep.Session != n.lease {
		// Another session's answer: a previous process's on this node (a
		// watch it left behind fires later) or an earlier session's. Request
		// IDs restart with each process, so the ID alone could take it for
		// one of ours: a watch's empty answer for our RangeBelow, and we
		// would lead out of turn.
		return
	}
	st, ok := n.pend.Answer(n.env, rep.ID)
	if !ok {
		return // stale: timed out and sent again
	}
	switch st {
	case stepGrant:
		n.lease = rep.Lease
		n.myKey = fmt.Sprintf("%s/%x", n.cfg.Name, n.lease)
		n.keepAlive()
		n.request(&Request{Op: OpPut, Key: n.myKey, Holder: n.env.ID(), Lease: n.lease}, stepPut)
	case stepPut:
		if !rep.Found {
			n.sessionDone("lease not found") // the lease expired before the put
			return
		}
		n.myRev = rep.CreateRev
		n.reached(StateKeyPut)
		n.observe()
		n.rangeBelow()
	case stepRange:
		if !rep.Found {
			n.lead()
			return
		}
		n.request(&Request{Op: OpWatchDelete, Key: rep.Key, Lease: n.lease}, stepWatch)
	case stepWatch:
		n.reached(StateKeyDeleted)
		if n.cfg.zooLeadOnDelete {
			n.lead() // internal/bugzoo's planted bug (zoohook.go)
			return
		}
		n.rangeBelow() // the predecessor is gone: look again
	}
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagKeepAlive:
		if id == n.kaTimer && n.lease != 0 {
			n.kaTimer = 0
			n.env.Send(requestMessage(n.server, &Request{ID: n.pend.NextID(), Op: OpKeepAlive, Lease: n.lease}))
			n.reached(StateKeepAliveSent)
			// nextKeepAlive stays in the past until a reply moves it: the
			// loop sends again at its next tick.
			n.arm(&n.kaTimer, n.onTick(sendLoopPeriod)+sendLoopPeriod-n.env.Now(), tagKeepAlive)
		}
	case tagDeadline:
		if id == n.deadline {
			n.deadline = 0
			if n.kaDeadline < n.onTick(deadlineLoopPeriod) {
				n.sessionDone("session done: keep-alive deadline passed")
				return
			}
			n.armDeadline()
		}
	case tagRequest:
		if req, st, ok := n.pend.Expired(id); ok {
			// Sent again — a watch too: a restarted server has forgotten
			// it, as a reconnecting clientv3 re-establishes its watches
			// (and the application its Observe).
			again := *req
			n.request(&again, st)
			if n.myRev != 0 {
				n.observe()
			}
		}
	case tagRejoin:
		if id == n.rejoin {
			n.rejoin = 0
			n.newSession()
		}
	}
}

// TimerName implements sim.TimerNamer.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagKeepAlive:
		return "etcd.keepalive"
	case tagDeadline:
		return "etcd.session_deadline"
	case tagRequest:
		return "etcd.request"
	case tagRejoin:
		return "etcd.rejoin"
	}
	return ""
}

// Resign gives up leadership and stops competing until restarted.
// Election.Resign (client/v3/concurrency/election.go) is a transaction:
// If CreateRevision(key) == leaderRev Then Delete(key), and a no-op
// before Campaign's put has answered (leaderSession is nil until then).
func (n *Node) Resign() {
	if n.env == nil || n.resigned {
		return
	}
	n.resigned = true
	if n.leading {
		n.leading = false
		n.env.StopLeading("resign")
	}
	if n.myRev != 0 {
		n.env.Send(requestMessage(n.server, &Request{ID: n.pend.NextID(), Op: OpDelete, Key: n.myKey, Lease: n.lease, CreateRev: n.myRev}))
	}
	n.stop()
}

// --- session and campaign ---

func (n *Node) newSession() {
	if n.resigned {
		return
	}
	n.lease, n.myKey, n.myRev = 0, "", 0
	n.request(&Request{Op: OpGrant, TTL: n.cfg.TTL}, stepGrant)
}

// keepAlive is clientv3's KeepAlive for the new session's lease
// (lease.go): nextKeepAlive = now, so the send loop sends the first
// keep-alive at its next pass — at once when this call starts the loops
// (the process's first session: the loop's first pass follows the
// registration), else at its next 500 ms tick; and deadline = now +
// firstKeepAliveTimeout until a reply comes.
func (n *Node) keepAlive() {
	now := n.env.Now()
	n.kaNext, n.kaDeadline = now, now+n.cfg.FirstKeepAliveTimeout
	if !n.loops {
		n.loops, n.loopOrigin = true, now
		n.arm(&n.kaTimer, 0, tagKeepAlive)
	} else {
		n.armKeepAlive()
	}
	n.armDeadline()
}

// onKeepAlive is clientv3's recvKeepAlive: TTL 0 means the lease is gone;
// otherwise nextKeepAlive moves to TTL/3 from now and the deadline to TTL
// from now (by the client's clock); the loops act on them at their ticks.
func (n *Node) onKeepAlive(rep *Response) {
	if n.lease == 0 || rep.Lease != 0 && rep.Lease != n.lease {
		return
	}
	if rep.TTL <= 0 {
		n.sessionDone("session done: lease not found")
		return
	}
	now := n.env.Now()
	n.kaNext, n.kaDeadline = now+rep.TTL/3, now+rep.TTL
	n.armKeepAlive()
	n.armDeadline()
}

// observe is Election.Observe: the server answers with the election's
// first-created key and again whenever that changes.
func (n *Node) observe() {
	n.env.Send(requestMessage(n.server, &Request{ID: n.pend.NextID(), Op: OpObserve, Key: n.cfg.Name + "/", Lease: n.lease}))
}

// onObserve: a follower believes the leader is the owner of the
// election's first-created key (Election.Leader and Observe: Get with
// WithFirstCreate), not the predecessor it waits behind.
func (n *Node) onObserve(rep *Response) {
	if rep.Session != n.lease || n.lease == 0 || n.leading || !rep.Found {
		return
	}
	n.believe(rep.Holder, rep.CreateRev)
}

func (n *Node) rangeBelow() {
	n.request(&Request{Op: OpRangeBelow, Key: n.cfg.Name + "/", MaxCreateRev: n.myRev - 1, Lease: n.lease}, stepRange)
}

func (n *Node) lead() {
	n.leading = true
	n.reached(StateLeading)
	n.env.ActAsLeader(n.myRev, n.myRev)
	n.believe(n.env.ID(), n.myRev)
}

// sessionDone is the session's Done(): the application stops leading, and
// a new session campaigns again after RejoinDelay.
func (n *Node) sessionDone(why string) {
	if n.leading {
		n.leading = false
		n.env.StopLeading(why)
	}
	n.stop()
	if !n.resigned {
		n.arm(&n.rejoin, n.cfg.RejoinDelay, tagRejoin)
	}
}

func (n *Node) stop() {
	n.lease = 0
	n.pend.Drop(n.env)
	n.disarm(&n.kaTimer)
	n.disarm(&n.deadline)
}

func (n *Node) believe(holder sim.NodeID, epoch int64) { n.belief.Report(n.env, holder, epoch) }

// request sends req as the one pending request, resent after
// RequestTimeout.
func (n *Node) request(req *Request, st step) {
	req.ID = n.pend.NextID()
	n.pend.Await(n.env, req.ID, st, req, n.cfg.RequestTimeout, tagRequest)
	n.env.Send(requestMessage(n.server, req))
}

// armKeepAlive aims the send timer at the send loop's first tick after
// nextKeepAlive (sendKeepAliveLoop sends when nextKeepAlive.Before(now)).
func (n *Node) armKeepAlive() {
	n.arm(&n.kaTimer, tickAfter(n.loopOrigin, sendLoopPeriod, n.kaNext)-n.env.Now(), tagKeepAlive)
}

// armDeadline aims the deadline timer at the deadline loop's first tick
// after the deadline (deadlineLoop closes when deadline.Before(now)); its
// first tick is a period after the loop starts.
func (n *Node) armDeadline() {
	at := tickAfter(n.loopOrigin, deadlineLoopPeriod, max(n.kaDeadline, n.loopOrigin))
	n.arm(&n.deadline, at-n.env.Now(), tagDeadline)
}

// onTick is the loop tick of period nearest now: a timer aimed at a tick
// may fire a rounding step off it when the clock's rate is not 1.
func (n *Node) onTick(period time.Duration) time.Duration {
	k := (n.env.Now() - n.loopOrigin + period/2) / period
	return n.loopOrigin + k*period
}

// tickAfter is the first tick origin + k·period strictly after t (t at or
// after origin).
func tickAfter(origin, period, t time.Duration) time.Duration {
	if t < origin {
		return origin
	}
	return origin + ((t-origin)/period+1)*period
}

func (n *Node) arm(t *sim.TimerID, d time.Duration, tag int) { coord.Arm(n.env, t, d, tag) }

func (n *Node) disarm(t *sim.TimerID) { coord.Disarm(n.env, t) }
