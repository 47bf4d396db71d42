package zkelect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// The server's effects. Detail is the latch name; A the holder, B its token
// (the znode's czxid). Checkers act on the typed facts.
const (
	EffectLeader   = "zk.leader"   // a znode became the latch's first: its holder leads (FactLeaseAcquired)
	EffectRenewed  = "zk.renewed"  // the leading session pinged (FactLeaseRenewed)
	EffectReleased = "zk.released" // the leading znode was deleted by its client (FactLeaseReleased)
	EffectExpired  = "zk.expired"  // the leading session expired by the server's clock (FactLeaseExpired)
)

// ServerConfig configures the server. The zero value is the default.
type ServerConfig struct {
	// Name is the latch: znodes live under /Name/latch-. Default "leader".
	Name string
	// TickTime bounds session timeouts to [2, 20] ticks and is the width of
	// the session-expiry buckets. Default 2s: conf/zoo_sample.cfg's
	// tickTime=2000 (an ensemble's zoo.cfg must set it, QuorumPeerConfig;
	// ZooKeeperServer.DEFAULT_TICK_TIME, 3000, serves only a standalone
	// server built in code).
	TickTime time.Duration
}

type session struct {
	ID        int64
	TimeoutNs int64
	// ExpiryNs is the bucket the session expires in, by the server's
	// monotonic clock: each touch moves it to the tick boundary after
	// now + timeout (ExpiryQueue.update, roundToNextInterval).
	ExpiryNs int64
	Client   sim.NodeID // the connection's client, told when it closes
}

type snapshot struct {
	Zxid, NextSession, NextSeq int64
	Sessions                   []session
	Nodes                      []ownedNode
}

type ownedNode struct {
	Znode
	Session int64
	Protect int64
}

// Server is the simulated ZooKeeper ensemble as one logical node: durable
// znodes and sessions, session expiry judged by its monotonic clock in
// tickTime buckets, every client connection closed when it loses its
// quorum or its leader.
type Server struct {
	cfg ServerConfig
	env sim.Env
	// phase is where the tick buckets fall on the server's clock:
	// ExpiryQueue rounds Time.currentElapsedTime() (System.nanoTime in ms,
	// an arbitrary origin), so the bucket edges have no relation to when
	// the clients connected; drawn in [0, tickTime) at each start.
	phase       int64
	zxid        int64
	nextSession int64
	nextSeq     int64
	sessions    []session // sorted by ID
	nodes       []ownedNode
	watches     coord.Watches
	unavailable bool
	leader      ownedNode // the latch's first znode as last reported (Holder sim.None: none)
	timer       coord.Timer
}

// NewServer returns a server node.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Name == "" {
		cfg.Name = "leader"
	}
	if cfg.TickTime == 0 {
		cfg.TickTime = 2 * time.Second
	}
	return &Server{cfg: cfg}
}

func (s *Server) prefix() string { return "/" + s.cfg.Name + "/latch-" }

// Start implements sim.Node: durable state comes back, and every session
// gets a fresh timeout, as a newly elected ZooKeeper leader's session
// tracker does.
func (s *Server) Start(env sim.Env, restored []byte) {
	*s = Server{cfg: s.cfg, env: env, unavailable: s.unavailable, leader: ownedNode{Znode: Znode{Holder: sim.None}}}
	s.phase = int64(env.Rand().DurationRange(0, s.cfg.TickTime))
	if len(restored) > 0 {
		var snap snapshot
		if json.Unmarshal(restored, &snap) == nil {
			s.zxid, s.nextSession, s.nextSeq, s.sessions, s.nodes = snap.Zxid, snap.NextSession, snap.NextSeq, snap.Sessions, snap.Nodes
			s.touchAll()
		}
	}
	s.report()
	s.rearm()
}

// OnMessage implements sim.Node.
func (s *Server) OnMessage(m sim.Message) {
	req, ok := m.Body.(*Request)
	if !ok || req.Op == 0 || req.Op >= numOps || m.Kind != opKinds[req.Op] || s.unavailable {
		return
	}
	s.expire()
	rep := &Response{ID: req.ID, Op: req.Op}
	if req.Op != OpConnect {
		rep.Session = req.Session // answered on the session's own connection
		i, live := s.findSession(req.Session)
		if !live {
			rep.Expired = true
			s.finish(m, rep)
			return
		}
		s.touch(i)
		s.sessions[i].Client = m.From
		if s.leader.Holder != sim.None && s.leader.Session == req.Session && req.Op == OpPing {
			s.effect(EffectRenewed, s.leader, sim.FactLeaseRenewed)
		}
	}
	switch req.Op {
	case OpConnect:
		t := negotiate(req.Timeout, s.cfg.TickTime)
		s.nextSession++
		s.sessions = append(s.sessions, session{ID: s.nextSession, TimeoutNs: int64(t), Client: m.From})
		s.touch(len(s.sessions) - 1)
		rep.Session, rep.Timeout = s.nextSession, t
	case OpCreate:
		if i := slices.IndexFunc(s.nodes, func(n ownedNode) bool {
			return req.Protect != 0 && n.Session == req.Session && n.Protect == req.Protect
		}); i >= 0 {
			rep.Node = s.nodes[i].Znode // a protected create re-sent: the same znode
			break
		}
		s.zxid++
		s.nextSeq++
		n := ownedNode{Znode: Znode{Path: fmt.Sprintf("%s%010d", req.Path, s.nextSeq), Seq: s.nextSeq, Czxid: s.zxid, Holder: req.Holder}, Session: req.Session, Protect: req.Protect}
		s.nodes = append(s.nodes, n)
		rep.Node = n.Znode
	case OpChildren:
		for _, n := range s.nodes {
			if strings.HasPrefix(n.Path, req.Path) {
				rep.Nodes = append(rep.Nodes, n.Znode)
			}
		}
	case OpWatch:
		if s.find(req.Path) >= 0 {
			s.watches.Add(req.Path, m.From, req.Session, req.ID) // a re-sent watch replaces the older one
			s.settle()
			return // answered when it goes
		}
	case OpDelete:
		s.zxid++
		s.remove(req.Path, false)
	case OpGetData:
		if i := s.find(req.Path); i >= 0 {
			rep.Node, rep.Owner = s.nodes[i].Znode, s.nodes[i].Session
		}
	}
	s.finish(m, rep)
}

func (s *Server) finish(m sim.Message, rep *Response) {
	s.settle()
	s.env.Send(sim.Message{Kind: KindResponse, To: m.From, Index: rep.ID, Body: rep})
}

// OnTimer implements sim.Node: a session may have expired.
func (s *Server) OnTimer(sim.TimerID, int) {
	s.timer.Fired()
	s.expire()
	s.settle()
}

// TimerName implements sim.TimerNamer.
func (s *Server) TimerName(int) string { return "zk.session_expiry" }

// Unavailable reports whether the server ignores requests.
func (s *Server) Unavailable() bool { return s.unavailable }

// SetUnavailable makes the ensemble ignore requests, as one that lost its
// quorum does. Every server closes all its client connections as it
// stops serving (Leader.shutdown and Learner.shutdown call
// QuorumPeer.closeAllConnections), so each client is Disconnected at once
// rather than after its read timeout. No session expires meanwhile (only a
// serving leader's session tracker expires sessions), and when it serves
// again every session's timeout starts afresh, as under a newly elected
// leader.
func (s *Server) SetUnavailable(on bool) {
	if s.unavailable == on {
		return
	}
	s.unavailable = on
	if s.env == nil {
		return
	}
	if on {
		s.closeAllConnections()
		s.rearm() // no expiry timer while nothing can expire
	} else {
		s.touchAll()
		s.settle()
	}
	coord.Availability(s.env, on)
}

// FailoverLoseLast is a ZooKeeper leader change: no committed write is
// lost; every server closes its client connections as it leaves the old
// epoch (closeAllConnections), and the new leader's session tracker starts
// every session's timeout afresh. It returns 0.
func (s *Server) FailoverLoseLast(int) int {
	if s.env == nil {
		return 0
	}
	s.closeAllConnections()
	s.touchAll()
	s.settle()
	return 0
}

// closeAllConnections tells every live session's client that its
// connection closed (QuorumPeer.closeAllConnections); the sessions live.
func (s *Server) closeAllConnections() {
	for _, ss := range s.sessions {
		if ss.Client != sim.None {
			s.env.Send(sim.Message{Kind: KindDisconnect, To: ss.Client, Index: ss.ID, Body: &Disconnect{Session: ss.ID}})
		}
	}
}

// LeaseHolder returns the latch's leader as the server sees it: the holder
// of the first znode of a live session, and its czxid.
func (s *Server) LeaseHolder(key string, monoNs, _ int64) (sim.NodeID, int64, bool) {
	if key != s.cfg.Name {
		return sim.None, 0, false
	}
	n, ok := s.first(monoNs)
	return n.Holder, n.Czxid, ok
}

func (s *Server) now() int64 { return int64(s.env.Now()) }

// touch is SessionTrackerImpl.touchSession: the session now expires in the
// bucket at the first tick boundary after now + its timeout
// (ExpiryQueue.update: roundToNextInterval(now + timeout) =
// (t / tickTime + 1) · tickTime, on a clock whose origin is the server's
// phase), so between T and T + tickTime after it was last heard from.
func (s *Server) touch(i int) {
	tick := int64(s.cfg.TickTime)
	s.sessions[i].ExpiryNs = ((s.now()-s.phase+s.sessions[i].TimeoutNs)/tick+1)*tick + s.phase
}

func (s *Server) touchAll() {
	for i := range s.sessions {
		s.touch(i)
	}
}

// expire ends every session whose bucket is due (SessionTrackerImpl.run
// polls the ExpiryQueue when now reaches the bucket), deleting its
// ephemeral znodes. The closeSession it submits commits through the quorum
// at once here: the real commit takes a round of proposals, so the model's
// successor takes over no later than the real one does.
func (s *Server) expire() {
	if s.unavailable {
		return
	}
	now := s.now()
	for i := 0; i < len(s.sessions); {
		ss := s.sessions[i]
		if now < ss.ExpiryNs {
			i++
			continue
		}
		s.sessions = slices.Delete(s.sessions, i, i+1)
		s.watches.DropOwner(ss.ID) // its connection closes: DataTree.removeCnxn drops the watches it set (the ServerCnxn is the Watcher)
		s.zxid++
		for j := 0; j < len(s.nodes); {
			if s.nodes[j].Session == ss.ID {
				s.remove(s.nodes[j].Path, true)
				continue
			}
			j++
		}
	}
}

func (s *Server) remove(path string, expired bool) {
	i := s.find(path)
	if i < 0 {
		return
	}
	n := s.nodes[i]
	s.nodes = slices.Delete(s.nodes, i, i+1)
	if s.leader.Holder != sim.None && s.leader.Path == n.Path {
		if expired {
			s.effect(EffectExpired, s.leader, sim.FactLeaseExpired)
		} else {
			s.effect(EffectReleased, s.leader, sim.FactLeaseReleased)
		}
		s.leader = ownedNode{Znode: Znode{Holder: sim.None}}
	}
	s.watches.Fire(path, func(who sim.NodeID, session, id int64) {
		s.env.Send(sim.Message{Kind: KindResponse, To: who, Index: id, Body: &Response{ID: id, Op: OpWatch, Session: session}})
	})
}

// first is the latch's first znode whose session is alive at monoNs.
func (s *Server) first(monoNs int64) (ownedNode, bool) {
	best, found := ownedNode{Znode: Znode{Holder: sim.None}}, false
	for _, n := range s.nodes {
		if !strings.HasPrefix(n.Path, s.prefix()) {
			continue
		}
		if i, ok := s.findSession(n.Session); !ok || monoNs >= s.sessions[i].ExpiryNs {
			continue
		}
		if !found || n.Seq < best.Seq {
			best, found = n, true
		}
	}
	return best, found
}

func (s *Server) report() {
	n, ok := s.first(s.now())
	if !ok || (s.leader.Holder != sim.None && n.Path == s.leader.Path) {
		return
	}
	s.leader = n
	s.effect(EffectLeader, n, sim.FactLeaseAcquired)
}

func (s *Server) effect(name string, n ownedNode, f sim.Fact) {
	s.env.Effect(sim.Effect{Name: name, Detail: s.cfg.Name, Key: s.cfg.Name, A: int64(n.Holder), B: n.Czxid, C: s.zxid, Fact: f})
}

// rearm points the expiry timer at the earliest session's bucket; an
// unavailable ensemble expires nothing, so it has no timer (a timer left on
// a past bucket would fire again at once, for ever).
func (s *Server) rearm() {
	var e coord.Earliest
	for _, ss := range s.sessions {
		if !s.unavailable {
			e.Consider(ss.ExpiryNs)
		}
	}
	s.timer.Point(s.env, e)
}

// settle follows every change of state: it writes the durable state,
// reports a new leader and re-aims the expiry timer.
func (s *Server) settle() {
	s.persist()
	s.report()
	s.rearm()
}

func (s *Server) persist() {
	coord.PersistJSON(s.env, snapshot{Zxid: s.zxid, NextSession: s.nextSession, NextSeq: s.nextSeq, Sessions: s.sessions, Nodes: s.nodes})
}

func (s *Server) findSession(id int64) (int, bool) {
	for i := range s.sessions {
		if s.sessions[i].ID == id {
			return i, true
		}
	}
	return -1, false
}

func (s *Server) find(path string) int {
	for i := range s.nodes {
		if s.nodes[i].Path == path {
			return i
		}
	}
	return -1
}

// negotiate is the session timeout a server grants a request: clamped to
// [minSessionTimeout, maxSessionTimeout], 2 and 20 ticks by default
// (ZooKeeperServer.processConnectRequest).
func negotiate(requested, tick time.Duration) time.Duration {
	return min(max(requested, 2*tick), 20*tick)
}
