package consulelect

import (
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagLockRequest  = iota + 1 // the Lock loop's request failed to come back
	tagRenew                   // RenewPeriodic's next renewal (or retry) is due
	tagRenewRequest            // the renewal failed to come back
	tagKeepAlive               // the connection's next keep-alive ping is due
	tagPingRequest             // the ping went unanswered: the connection is dead
	tagRetry                   // LockRetryTime after Acquire failed on a free key
	tagRejoin                  // RejoinDelay elapsed: call Lock again
)

// step says what the Lock loop's pending request continues.
type step uint8

const (
	stepCreate  step = iota + 1 // Session.Create
	stepWait                    // Get, blocking while another session holds the key
	stepAcquire                 // KV Acquire
	stepWhy                     // Get after a failed Acquire: held, or a lock-delay?
	stepMonitor                 // monitorLock's blocking Get while holding
	stepToken                   // the application's KV Get for its fencing token (Config.Token)
)

// Node is a Consul lock candidate: api.Lock over a session it creates and
// renews (Session.RenewPeriodic), leading while it holds the key.
type Node struct {
	cfg    Config
	server sim.NodeID
	env    sim.Env

	session   int64
	leading   bool
	token     int64
	boot      int64  // the server process the connection reaches (0: none yet)
	conn      uint64 // this connection's identity (the server retransmits only on it)
	lastRenew time.Duration
	belief    coord.Belief
	// releaseID and releasing: Unlock's Release out, and the session to
	// destroy once it answers (api/lock.go Unlock closes the renewal only
	// after kv.Release returned, in a deferred call).
	releaseID int64
	releasing int64

	lock      coord.Pending[*Request, step] // the Lock loop's request; its NextID numbers every request
	renew     coord.Pending[*Request, step] // RenewPeriodic's request
	ping      coord.Pending[*Request, step] // the keep-alive ping
	renewT    sim.TimerID
	keepAlive sim.TimerID
	retry     sim.TimerID
	rejoin    sim.TimerID
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

// Start implements sim.Node: a fresh process opens a connection and calls
// Lock, which creates a new session.
func (n *Node) Start(env sim.Env, _ []byte) {
	*n = Node{cfg: n.cfg, server: n.server, env: env}
	n.conn = env.Rand().Uint64()
	n.arm(&n.keepAlive, n.cfg.KeepAliveInterval, tagKeepAlive)
	n.createSession()
}

// Leading reports whether the candidate holds the lock.
func (n *Node) Leading() bool { return n.leading }

// Token is the key's ModifyIndex when it acquired the lock (its fencing
// token), or 0.
func (n *Node) Token() int64 { return n.token }

// TimerName implements sim.TimerNamer.
func (n *Node) TimerName(tag int) string {
	switch tag {
	case tagLockRequest:
		return "consul.request"
	case tagRenew:
		return "consul.renew"
	case tagRenewRequest:
		return "consul.renew_request"
	case tagKeepAlive:
		return "yamux.keepalive"
	case tagPingRequest:
		return "yamux.ping_timeout"
	case tagRetry:
		return "consul.lock_retry"
	case tagRejoin:
		return "consul.rejoin"
	}
	return ""
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	if req, ok := m.Body.(*Request); ok {
		if m.Kind == kindAgentProbe || m.Kind == kindAgentAck {
			// A host kind delivered to the process: the node is run by a
			// wrapper that does not name it (sim.HostAgent); the live
			// process answers as its agent would.
			agentGossip(n.env, n.server, m, req)
			return
		}
		n.gossip(m, req)
		return
	}
	rep, ok := m.Body.(*Response)
	if !ok || m.Kind != KindResponse || rep.Conn != n.conn {
		return // an answer on a connection that is gone
	}
	if n.boot != rep.Boot {
		reset := n.boot != 0
		n.boot = rep.Boot
		if reset {
			// A new server process: the old connection was reset, and every
			// request sent on it failed.
			n.connectionFailed()
			return
		}
	}
	switch rep.Op {
	case OpPing:
		n.ping.Answer(n.env, rep.ID)
	case OpRelease:
		if rep.ID == n.releaseID && n.releasing != 0 {
			n.send(&Request{ID: n.lock.NextID(), Op: OpSessionDestroy, Session: n.releasing})
			n.releaseID, n.releasing = 0, 0
		}
	case OpSessionRenew:
		if _, ok := n.renew.Answer(n.env, rep.ID); ok {
			n.renewed(rep.OK)
		}
	default:
		if st, ok := n.lock.Answer(n.env, rep.ID); ok {
			n.answered(st, rep)
		}
	}
}

// gossip is the agent's part in serf's failure detection: it answers a
// probe of itself to whoever sent it, probes another node when asked, and
// forwards that node's answer to the server.
func (n *Node) gossip(m sim.Message, req *Request) {
	switch {
	case m.Kind == opKinds[OpProbe] && req.Op == OpProbe && req.Node == n.env.ID():
		n.env.Send(requestMessage(m.From, &Request{Op: OpPing, Node: n.env.ID()}))
	case m.Kind == opKinds[OpProbe] && req.Op == OpProbe:
		n.env.Send(requestMessage(req.Node, &Request{Op: OpProbe, Node: req.Node}))
	case m.Kind == opKinds[OpPing] && req.Op == OpPing && req.ID == 0 && m.From != n.server:
		n.send(&Request{Op: OpPing, Node: req.Node})
	}
}

// OnHostMessage implements sim.HostAgent: the candidate's Consul agent,
// a separate process on its host (AgentSeparate), answers serf's probes
// whatever the application's state.
func (n *Node) OnHostMessage(h sim.Host, m sim.Message) {
	if req, ok := m.Body.(*Request); ok {
		agentGossip(h, n.server, m, req)
	}
}

// agentGossip is the host agent's part in serf's failure detection, as
// gossip is the process's with AgentHost: it answers a probe of its host,
// probes another member when asked (memberlist's indirect probe, ping-req)
// and forwards that member's answer to the server.
func agentGossip(h sim.Host, server sim.NodeID, m sim.Message, req *Request) {
	me := h.ID()
	switch {
	case m.Kind == kindAgentProbe && req.Op == OpProbe && req.Node == me:
		h.Send(sim.Message{Kind: kindAgentAck, To: m.From, Body: &Request{Op: OpPing, Node: me}})
	case m.Kind == kindAgentProbe && req.Op == OpProbe:
		h.Send(probeMessage(req.Node, req.Node, true))
	case m.Kind == kindAgentAck && req.Op == OpPing && m.From != server:
		h.Send(sim.Message{Kind: kindAgentAck, To: server, Body: &Request{Op: OpPing, Node: req.Node}})
	}
}

// answered advances the Lock loop (api/lock.go Lock, monitorLock).
func (n *Node) answered(st step, rep *Response) {
	switch st {
	case stepCreate:
		n.session = rep.Session
		n.reached(StateSessionCreated)
		// RenewPeriodic starts with lastRenewTime = now and waits TTL/2.
		n.lastRenew = n.env.Now()
		n.arm(&n.renewT, n.cfg.SessionTTL/2, tagRenew)
		n.get(0, stepWait)
	case stepWait:
		switch p := rep.Pair; {
		case p.Session == n.session:
			n.lead(p.ModifyIndex)
		case p.Session != 0:
			n.believe(p.Holder, p.ModifyIndex)
			n.get(rep.Index, stepWait)
		default:
			n.request(&Request{Op: OpAcquire, Session: n.session, Key: n.cfg.Key}, stepAcquire, n.cfg.RequestTimeout)
		}
	case stepAcquire:
		if rep.Invalid {
			n.lockFailed() // Lock returns the error; the application calls it again
			return
		}
		if rep.OK {
			n.lead(rep.Pair.ModifyIndex)
			return
		}
		n.get(0, stepWhy)
	case stepWhy:
		if p := rep.Pair; p.Session != 0 {
			n.believe(p.Holder, p.ModifyIndex)
			n.get(rep.Index, stepWait)
			return
		}
		// A free key refused: a lock-delay is in force; a timed wait.
		n.reached(StateLockDelayActive)
		n.arm(&n.retry, n.cfg.LockRetryTime, tagRetry)
	case stepToken:
		n.tokenRead(rep)
	case stepMonitor:
		if rep.Pair.Session == n.session {
			n.get(rep.Index, stepMonitor)
			return
		}
		n.lost("the lock key names another session")
	}
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagLockRequest:
		if req, st, ok := n.lock.Expired(id); ok {
			if st == stepToken {
				// The application's token read failed: it reads again,
				// and acts only when a read answers.
				again := *req
				n.request(&again, stepToken, n.cfg.RequestTimeout)
				return
			}
			n.lockFailed()
		}
	case tagRenew:
		if id == n.renewT {
			n.renewT = 0
			r := &Request{ID: n.lock.NextID(), Op: OpSessionRenew, Session: n.session}
			n.renew.Await(n.env, r.ID, 0, r, n.cfg.RequestTimeout, tagRenewRequest)
			n.send(r)
		}
	case tagRenewRequest:
		if _, _, ok := n.renew.Expired(id); ok {
			n.renewFailed()
		}
	case tagKeepAlive:
		if id == n.keepAlive {
			n.keepAlive = 0
			r := &Request{ID: n.lock.NextID(), Op: OpPing}
			n.ping.Await(n.env, r.ID, 0, r, n.cfg.KeepAliveTimeout, tagPingRequest)
			n.send(r)
			n.arm(&n.keepAlive, n.cfg.KeepAliveInterval, tagKeepAlive)
		}
	case tagPingRequest:
		if _, _, ok := n.ping.Expired(id); ok {
			n.connectionFailed()
		}
	case tagRetry:
		if id == n.retry {
			n.retry = 0
			n.get(0, stepWait)
		}
	case tagRejoin:
		if id == n.rejoin {
			n.rejoin = 0
			n.createSession()
		}
	}
}

// Resign is Unlock: leadership ends, the key is released and the session
// destroyed; the candidate does not call Lock again.
func (n *Node) Resign() {
	if n.env == nil {
		return
	}
	if n.leading {
		n.leading = false
		n.env.StopLeading("resign")
	}
	n.unlock()
}

// --- the session ---

func (n *Node) createSession() {
	n.session, n.token = 0, 0
	// The session is bound to its host's serfHealth (api.Lock names no
	// checks). With the agent a separate process (AgentSeparate) serf
	// probes the host's agent, which outlives the application's crash or
	// pause but not a cut of the host's links.
	n.request(&Request{Op: OpSessionCreate, TTL: n.cfg.SessionTTL, LockDelay: n.cfg.LockDelay, Serf: n.cfg.serfCanFail(), Sidecar: n.cfg.Agent == AgentSeparate}, stepCreate, n.cfg.RequestTimeout)
}

// renewed is RenewPeriodic's answer: renewed, or the session is gone
// (ErrSessionExpired: renewing stops; the lock learns of it through
// monitorLock, not from here).
func (n *Node) renewed(live bool) {
	if !live {
		return
	}
	n.lastRenew = n.env.Now()
	n.reached(StateRenewed)
	n.arm(&n.renewT, n.cfg.SessionTTL/2, tagRenew)
}

// renewFailed: RenewPeriodic retries after a second, and gives up once TTL
// has passed since its last successful renewal.
func (n *Node) renewFailed() {
	if n.session == 0 || n.env.Now()-n.lastRenew > n.cfg.SessionTTL {
		return
	}
	n.arm(&n.renewT, time.Second, tagRenew)
}

// connectionFailed: the RPC connection died (a ping went unanswered, or the
// server restarted): every request on it fails.
func (n *Node) connectionFailed() {
	n.conn = n.env.Rand().Uint64() // the next request opens a new connection
	n.ping.Drop(n.env)
	if n.renew.Waiting() {
		n.renew.Drop(n.env)
		n.renewFailed()
	}
	if n.lock.Waiting() {
		n.lock.Drop(n.env)
		n.lockFailed()
	}
}

// lockFailed: a request of the Lock loop failed. Holding the lock, that
// is monitorLock giving up (MonitorRetries 0): leadership ends. Otherwise
// Lock returns the error and its deferred cleanup destroys the session;
// the application calls Lock again after RejoinDelay.
func (n *Node) lockFailed() {
	if n.leading {
		n.lost("the monitor's query failed")
		return
	}
	n.destroy()
	n.arm(&n.rejoin, n.cfg.RejoinDelay, tagRejoin)
}

// lost: leaderCh closed. The application stops leading, calls Unlock and,
// after RejoinDelay, Lock again.
func (n *Node) lost(why string) {
	n.leading = false
	n.env.StopLeading("lock lost: " + why)
	n.unlock()
	n.arm(&n.rejoin, n.cfg.RejoinDelay, tagRejoin)
}

// unlock is Unlock: release the key, and when the release has answered
// stop renewing, which destroys the session (api/lock.go Unlock closes
// sessionRenew in a deferred call, after kv.Release returned; a session
// destroyed while it still held the key would set its lock-delay). The
// application does not wait: leadership has ended already. A release that
// never answers leaves the session to its TTL.
func (n *Node) unlock() {
	if n.session != 0 {
		n.releaseID, n.releasing = n.lock.NextID(), n.session
		n.send(&Request{ID: n.releaseID, Op: OpRelease, Session: n.session, Key: n.cfg.Key})
		n.session = 0 // destroy below leaves it to the release's answer
	}
	n.destroy()
}

func (n *Node) destroy() {
	if n.session != 0 {
		n.send(&Request{ID: n.lock.NextID(), Op: OpSessionDestroy, Session: n.session})
	}
	n.session, n.token = 0, 0
	n.lock.Drop(n.env)
	n.renew.Drop(n.env)
	n.disarm(&n.renewT)
	n.disarm(&n.retry)
}

// --- the lock ---

// lead: Lock has returned. index is the key's ModifyIndex at the
// acquisition (the tenure's epoch, and where monitorLock starts).
func (n *Node) lead(index int64) {
	n.leading, n.token = true, index
	n.reached(StateLockAcquired)
	if n.cfg.Token != TokenNone {
		// api.Lock's Lock returns only leaderCh (a <-chan struct{};
		// api/lock.go Lock): the application reads the key's LockIndex or
		// ModifyIndex itself with a KV Get and acts when it answers
		// (answered, stepToken).
		n.believe(n.env.ID(), index)
		n.request(&Request{Op: OpGet, Key: n.cfg.Key}, stepToken, n.cfg.RequestTimeout)
		return
	}
	// The default: the application acts at once, with no token (0).
	n.env.ActAsLeader(index, 0)
	n.believe(n.env.ID(), index)
	n.get(index, stepMonitor)
}

// tokenRead is the answer to the application's KV Get: it acts with the
// field Config.Token names while the key is still its session's, then
// monitorLock watches the key as before.
func (n *Node) tokenRead(rep *Response) {
	if rep.Pair.Session != n.session {
		n.lost("the lock key names another session")
		return
	}
	token := rep.Pair.LockIndex
	if n.cfg.Token == TokenModifyIndex {
		token = rep.Pair.ModifyIndex
	}
	n.env.ActAsLeader(n.token, token)
	n.get(n.token, stepMonitor)
}

// get reads the key; with index > 0 a blocking query, waiting
// LockWaitTime in Lock's loop (QueryOptions{WaitTime: LockWaitTime}) and the
// server's default QueryWait in monitorLock (whose options name no wait).
func (n *Node) get(index int64, st step) {
	wait := n.cfg.LockWaitTime
	if st == stepMonitor {
		wait = n.cfg.QueryWait
	}
	timeout := n.cfg.RequestTimeout
	if index > 0 {
		timeout += wait + wait/16
	}
	n.request(&Request{Op: OpGet, Key: n.cfg.Key, Index: index, Wait: wait}, st, timeout)
}

func (n *Node) believe(holder sim.NodeID, epoch int64) { n.belief.Report(n.env, holder, epoch) }

func (n *Node) request(req *Request, st step, timeout time.Duration) {
	req.ID = n.lock.NextID()
	n.lock.Await(n.env, req.ID, st, req, timeout, tagLockRequest)
	n.send(req)
}

// send sends a request on the current connection.
func (n *Node) send(r *Request) {
	r.Conn = n.conn
	n.env.Send(requestMessage(n.server, r))
}

func (n *Node) arm(t *sim.TimerID, d time.Duration, tag int) { coord.Arm(n.env, t, d, tag) }

func (n *Node) disarm(t *sim.TimerID) { coord.Disarm(n.env, t) }
