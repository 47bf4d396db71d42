package etcdelect

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagKeepAlive = iota + 1 // the next keep-alive is due (or a retry)
	tagDeadline             // the session's deadline: TTL since the last keep-alive response
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
		n.armDeadline(rep.TTL)
		n.arm(&n.kaTimer, rep.TTL/3, tagKeepAlive)
		n.request(&Request{Op: OpPut, Key: n.myKey, Holder: n.env.ID(), Lease: n.lease}, stepPut)
	case stepPut:
		if !rep.Found {
			n.sessionDone("lease not found") // the lease expired before the put
			return
		}
		n.myRev = rep.CreateRev
		n.rangeBelow()
	case stepRange:
		if !rep.Found {
			n.lead()
			return
		}
		n.believe(rep.Holder, rep.CreateRev)
		n.request(&Request{Op: OpWatchDelete, Key: rep.Key, Lease: n.lease}, stepWatch)
	case stepWatch:
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
			n.arm(&n.kaTimer, keepAliveRetry, tagKeepAlive) // until a response moves it
		}
	case tagDeadline:
		if id == n.deadline {
			n.deadline = 0
			n.sessionDone("session done: keep-alive deadline passed")
		}
	case tagRequest:
		if req, st, ok := n.pend.Expired(id); ok {
			// Sent again — a watch too: a restarted server has forgotten
			// it, as a reconnecting clientv3 re-establishes its watches.
			again := *req
			n.request(&again, st)
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

// Resign gives up leadership (Election.Resign: delete the key) and stops
// competing until restarted.
func (n *Node) Resign() {
	if n.env == nil || n.resigned {
		return
	}
	n.resigned = true
	if n.leading {
		n.leading = false
		n.env.StopLeading("resign")
	}
	if n.myKey != "" {
		n.env.Send(requestMessage(n.server, &Request{ID: n.pend.NextID(), Op: OpDelete, Key: n.myKey, Lease: n.lease}))
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

// onKeepAlive is clientv3's recvKeepAlive: TTL 0 means the lease is gone;
// otherwise the next keep-alive is due TTL/3 from now and the deadline
// moves to TTL from now (by the client's clock).
func (n *Node) onKeepAlive(rep *Response) {
	if n.lease == 0 || rep.Lease != 0 && rep.Lease != n.lease {
		return
	}
	if rep.TTL <= 0 {
		n.sessionDone("session done: lease not found")
		return
	}
	n.armDeadline(rep.TTL)
	n.arm(&n.kaTimer, rep.TTL/3, tagKeepAlive)
}

func (n *Node) rangeBelow() {
	n.request(&Request{Op: OpRangeBelow, Key: n.cfg.Name + "/", MaxCreateRev: n.myRev - 1, Lease: n.lease}, stepRange)
}

func (n *Node) lead() {
	n.leading = true
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

func (n *Node) armDeadline(ttl time.Duration) { n.arm(&n.deadline, ttl, tagDeadline) }

func (n *Node) arm(t *sim.TimerID, d time.Duration, tag int) { coord.Arm(n.env, t, d, tag) }

func (n *Node) disarm(t *sim.TimerID) { coord.Disarm(n.env, t) }
