package consulelect

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// The server's effects. Detail is the lock's key; A the holder, B its
// token (the key's ModifyIndex at acquisition). Checkers act on the typed
// facts.
const (
	EffectLeader   = "consul.leader"   // a session acquired the lock: its node leads (FactLeaseAcquired)
	EffectRenewed  = "consul.renewed"  // the holding session was renewed (FactLeaseRenewed)
	EffectReleased = "consul.released" // the holder released the lock or destroyed its session (FactLeaseReleased)
	EffectExpired  = "consul.expired"  // the holding session was invalidated: TTL or serfHealth (FactLeaseExpired)
)

// ServerConfig configures the server. The zero value is the default.
type ServerConfig struct {
	// ProbeInterval is memberlist's probe interval: the serf failure
	// detector probes the nodes of check-bound sessions this often and
	// waits this long for an answer, direct or relayed. Default 1s
	// (memberlist's LAN ProbeInterval).
	ProbeInterval time.Duration
	// SuspicionMult is memberlist's SuspicionMult: a suspect node is
	// declared dead SuspicionMult × max(1, log10(n)) × ProbeInterval after
	// suspicion began once SuspicionMult − 2 other members confirmed it.
	// Default 4 (LAN).
	SuspicionMult int
	// SuspicionMaxTimeoutMult is memberlist's SuspicionMaxTimeoutMult: the
	// suspicion timeout starts at this many times the minimum and shrinks
	// toward it as confirmations arrive. Default 6 (LAN).
	SuspicionMaxTimeoutMult int
	// Members is n, the serf cluster's member count; 0 (default) counts
	// every node that has contacted the server plus the server itself.
	Members int
	// GossipInterval is how long a member's suspicion takes to reach the
	// others (memberlist's GossipInterval). Default 200ms.
	GossipInterval time.Duration
	// SerfTimeout, when positive, replaces memberlist's suspicion with a
	// simplification: a node unheard this long fails serfHealth. Default
	// 0: memberlist's suspicion (serf.go).
	SerfTimeout time.Duration
}

func (c *ServerConfig) defaults() {
	if c.ProbeInterval == 0 {
		c.ProbeInterval = time.Second
	}
	if c.SuspicionMult == 0 {
		c.SuspicionMult = defaultSuspicionMult
	}
	if c.SuspicionMaxTimeoutMult == 0 {
		c.SuspicionMaxTimeoutMult = defaultSuspicionMaxTimeoutMult
	}
	if c.GossipInterval == 0 {
		c.GossipInterval = defaultGossipInterval
	}
}

type session struct {
	ID          int64
	Node        sim.NodeID
	TTLNs       int64
	LockDelayNs int64
	Serf        bool
	Sidecar     bool  `json:",omitempty"` // its node's agent is a separate process: probed through the host's agent
	DeadlineNs  int64 `json:"-"`          // invalidated after this, by the server's monotonic clock
}

// delay is a key's lock-delay, until a wall-clock instant (kvs_endpoint.go
// compares it with time.Now).
type delay struct {
	key       string
	untilWall int64
}

// query is a blocking query held until its key changes or its wait ends.
type query struct {
	who        sim.NodeID
	conn       uint64
	id         int64
	key        string
	index      int64
	deadlineNs int64
}

// unacked is a blocking query's answer the client has not shown it
// received: the network may have lost it where TCP would retransmit it.
type unacked struct {
	who    sim.NodeID
	rep    *Response
	nextNs int64 // the next retransmission
	rtoNs  int64 // the retransmission timeout, doubled after each
}

// TCP's retransmission timeout: Linux's minimum to start with, doubled
// after each retransmission up to its maximum (TCP_RTO_MIN, TCP_RTO_MAX).
const (
	rtoMin = 200 * time.Millisecond
	rtoMax = 120 * time.Second
)

type snapshot struct {
	Boot, Index, NextSession int64
	Sessions                 []session
	Pairs                    []Pair
}

// Server is the simulated Consul cluster as one logical node: durable
// sessions and KV, session invalidation by TTL (judged by its monotonic
// clock) or by serfHealth, lock-delays by its wall clock, blocking
// queries.
type Server struct {
	cfg         ServerConfig
	env         sim.Env
	boot        int64
	index       int64
	nextSession int64
	sessions    []session // sorted by ID
	pairs       []Pair
	delays      []delay // in memory only, like the state store's lockDelay
	queries     []query
	unacked     []unacked
	serf        []member // the failure detector's view of the nodes it heard from
	nextProbeNs int64
	lastProbeNs int64 // the last probe round, -1 before the first
	unavailable bool
	leader      Pair // the lock as last reported (Session 0: none)
	timer       coord.Timer
	persisted   int64 // the index last persisted: every durable change bumps the index
}

// NewServer returns a server node.
func NewServer(cfg ServerConfig) *Server {
	cfg.defaults()
	return &Server{cfg: cfg}
}

// Start implements sim.Node. Sessions and KV are durable; lock-delays,
// held queries and connections are not. Every session's TTL timer starts
// afresh, as a new leader's initializeSessionTimers does, and the
// process has a new boot number, so clients see their connections reset.
func (s *Server) Start(env sim.Env, restored []byte) {
	*s = Server{cfg: s.cfg, env: env, unavailable: s.unavailable}
	if len(restored) > 0 {
		var snap snapshot
		if json.Unmarshal(restored, &snap) == nil {
			s.boot, s.index, s.nextSession, s.sessions, s.pairs = snap.Boot, snap.Index, snap.NextSession, snap.Sessions, snap.Pairs
		}
	}
	s.boot++
	s.lastProbeNs = -1
	s.resetTimers(true)
	s.leader = s.holding()
	s.persisted = -1
	s.persist()
	s.rearm()
}

// OnMessage implements sim.Node.
func (s *Server) OnMessage(m sim.Message) {
	req, ok := m.Body.(*Request)
	if !ok || req.Op == 0 || req.Op >= numOps || !kindFits(m.Kind, req.Op) {
		return
	}
	if s.unavailable {
		// Without a leader the servers still answer the transport's pings;
		// every RPC waits for a leader until the client gives up.
		if req.Op == OpPing && req.ID != 0 {
			s.env.Send(responseMessage(m.From, &Response{ID: req.ID, Op: OpPing, Boot: s.boot}))
		}
		return
	}
	s.tick()
	s.hear(m.From)
	rep := &Response{ID: req.ID, Op: req.Op, Boot: s.boot, Conn: req.Conn}
	if req.Op == OpPing && req.ID == 0 {
		s.hear(req.Node) // a probe's answer, maybe relayed: nothing to send back
		s.settle()
		return
	}
	s.acked(m.From, req)
	switch req.Op {
	case OpSessionCreate:
		s.nextSession++
		s.index++
		ss := session{ID: s.nextSession, Node: m.From, TTLNs: int64(req.TTL), LockDelayNs: int64(req.LockDelay), Serf: req.Serf, Sidecar: req.Sidecar}
		ss.DeadlineNs = s.now() + 2*ss.TTLNs
		s.sessions = append(s.sessions, ss)
		rep.Session, rep.OK = ss.ID, true
	case OpSessionRenew:
		// Session.Renew resets the TTL timer (resetSessionTimer).
		if i, ok := s.findSession(req.Session); ok {
			s.sessions[i].DeadlineNs = s.now() + 2*s.sessions[i].TTLNs
			rep.OK = true
			if s.leader.Session == req.Session {
				s.effect(EffectRenewed, s.leader, sim.FactLeaseRenewed)
			}
		}
	case OpSessionDestroy:
		if _, ok := s.findSession(req.Session); ok {
			s.invalidate(req.Session, EffectReleased, sim.FactLeaseReleased)
			rep.OK = true
		}
	case OpAcquire:
		_, live := s.findSession(req.Session)
		rep.Invalid = !live
		rep.OK = live && s.acquire(req, m.From)
		rep.Pair = s.pair(req.Key)
	case OpRelease:
		if i := s.findPair(req.Key); i >= 0 && s.pairs[i].Session == req.Session && req.Session != 0 {
			s.index++
			s.pairs[i].Session, s.pairs[i].ModifyIndex = 0, s.index
			rep.OK = true
		}
	case OpGet:
		if req.Index > 0 && s.keyIndex(req.Key) <= req.Index {
			// Blocking query: held until the key's index passes req.Index or
			// the wait (plus up to wait/16 of jitter, as blockingQuery adds)
			// ends.
			jitter := int64(0)
			if w := int64(req.Wait) / 16; w > 0 {
				jitter = s.env.Rand().Int63Range(0, w)
			}
			s.queries = append(s.queries, query{who: m.From, conn: req.Conn, id: req.ID, key: req.Key, index: req.Index, deadlineNs: s.now() + int64(req.Wait) + jitter})
			s.settle()
			return
		}
		rep.Pair, rep.Index = s.pair(req.Key), s.keyIndex(req.Key)
	}
	s.settle()
	s.env.Send(responseMessage(m.From, rep))
}

// acquire is kvsLockTxn behind the endpoint's lock-delay check: a free key
// whose lock-delay has passed (by the server's wall clock) goes to the
// session (which exists); its holder may acquire it again.
func (s *Server) acquire(req *Request, from sim.NodeID) bool {
	for _, d := range s.delays {
		if d.key == req.Key && s.env.WallNanos() < d.untilWall {
			return false
		}
	}
	i := s.findPair(req.Key)
	if i < 0 {
		s.pairs = append(s.pairs, Pair{Key: req.Key})
		i = len(s.pairs) - 1
	}
	p := &s.pairs[i]
	switch p.Session {
	case req.Session:
		s.index++
		p.ModifyIndex = s.index // the holder's re-acquire updates the entry only
		if s.leader.Session == p.Session {
			s.leader = *p
		}
		return true
	case 0:
		s.index++
		p.Session, p.Holder, p.ModifyIndex = req.Session, from, s.index
		p.LockIndex++
		return true
	}
	return false
}

func (s *Server) respond(q query) {
	rep := &Response{ID: q.id, Op: OpGet, Pair: s.pair(q.key), Index: s.keyIndex(q.key), Boot: s.boot, Conn: q.conn}
	s.unacked = append(s.unacked, unacked{who: q.who, rep: rep, nextNs: s.now() + int64(rtoMin), rtoNs: int64(rtoMin)})
	s.env.Send(responseMessage(q.who, rep))
}

// retransmit sends again, with TCP's doubling timeout, the blocking-query
// answers not yet acknowledged. Messages here are datagrams, but the real
// answer travels on a TCP connection that outlives a short partition and
// delivers it after the heal.
func (s *Server) retransmit() {
	now := s.now()
	for i := range s.unacked {
		u := &s.unacked[i]
		if now < u.nextNs {
			continue
		}
		s.env.Send(responseMessage(u.who, u.rep))
		u.rtoNs = min(2*u.rtoNs, int64(rtoMax))
		u.nextNs = now + u.rtoNs
	}
}

// acked forgets the answers a client's request shows it has: its Lock
// loop (Get, Acquire, SessionCreate; not RenewPeriodic, which runs beside
// it) sends its next request only after reading the previous answer, and
// a request on another connection means the old one is gone (a reset
// connection retransmits nothing).
func (s *Server) acked(who sim.NodeID, req *Request) {
	s.unacked = slices.DeleteFunc(s.unacked, func(u unacked) bool {
		lockLoop := req.Op == OpGet || req.Op == OpAcquire || req.Op == OpSessionCreate
		return u.who == who && (u.rep.Conn != req.Conn || (lockLoop && u.rep.ID < req.ID))
	})
}

// OnTimer implements sim.Node: a session, a query's wait or a probe is due.
func (s *Server) OnTimer(sim.TimerID, int) {
	s.timer.Fired()
	s.tick()
	s.settle()
}

// TimerName implements sim.TimerNamer.
func (s *Server) TimerName(int) string { return "consul.server" }

// tick does what is due: serf probes, session invalidations and the ends
// of blocking queries' waits.
func (s *Server) tick() {
	if s.unavailable {
		return
	}
	now := s.now()
	if s.anySerf() && now >= s.nextProbeNs {
		s.probe()
	}
	for i := 0; i < len(s.sessions); {
		ss := s.sessions[i]
		if now <= ss.DeadlineNs && !(ss.Serf && s.failed(ss.Node, now)) {
			i++
			continue
		}
		s.invalidate(ss.ID, EffectExpired, sim.FactLeaseExpired) // removes sessions[i]
	}
	s.retransmit()
	kept := s.queries[:0]
	for _, q := range s.queries {
		if now >= q.deadlineNs {
			s.respond(q)
			continue
		}
		kept = append(kept, q)
	}
	s.queries = kept
}

// probe is a round of serf's failure detector: every node with a
// check-bound session is probed directly and, as memberlist does when a
// direct probe fails (IndirectChecks 3), through up to three other such
// nodes; any answer, direct or relayed, keeps the node alive. Serf's
// member is the node's agent: with the agent a separate process on the
// node's host (the session's Sidecar, AgentSeparate) the probes and
// answers are host kinds, which the host's agent answers over the node's
// links whatever the application's state; otherwise the node's process
// answers (AgentHost).
//
// A node that answered none of the last round's probes within the round's
// ProbeInterval becomes suspect (serf.go suspect), unless a fixed
// SerfTimeout replaces memberlist's suspicion.
func (s *Server) probe() {
	now := s.now()
	s.nextProbeNs = now + int64(s.cfg.ProbeInterval)
	var nodes []sim.NodeID
	var sidecar []bool
	for _, ss := range s.sessions {
		if ss.Serf && !slices.Contains(nodes, ss.Node) {
			nodes = append(nodes, ss.Node)
			sidecar = append(sidecar, ss.Sidecar)
		}
	}
	if s.cfg.SerfTimeout == 0 && s.lastProbeNs >= 0 {
		for _, target := range nodes {
			if m := s.member(target); m != nil && m.suspectNs == 0 && m.heardNs < s.lastProbeNs {
				s.suspect(m, now)
			}
		}
	}
	s.lastProbeNs = now
	for i, target := range nodes {
		s.env.Send(probeMessage(target, target, sidecar[i]))
		for k := 1; k < len(nodes) && k <= 3; k++ {
			s.env.Send(probeMessage(nodes[(i+k)%len(nodes)], target, sidecar[i]))
		}
	}
}

// invalidate ends a session (session_ttl.go invalidateSession, or a
// destroy, or a critical check): the keys it holds are released and get
// its lock-delay.
func (s *Server) invalidate(id int64, name string, f sim.Fact) {
	i, ok := s.findSession(id)
	if !ok {
		return
	}
	ss := s.sessions[i]
	s.sessions = slices.Delete(s.sessions, i, i+1)
	s.index++
	for j := range s.pairs {
		p := &s.pairs[j]
		if p.Session != id {
			continue
		}
		p.Session, p.ModifyIndex = 0, s.index
		if ss.LockDelayNs > 0 {
			s.delays = slices.DeleteFunc(s.delays, func(d delay) bool { return d.key == p.Key })
			s.delays = append(s.delays, delay{key: p.Key, untilWall: s.env.WallNanos() + ss.LockDelayNs})
		}
		if s.leader.Session == id && s.leader.Key == p.Key {
			s.effect(name, s.leader, f)
			s.leader = Pair{}
		}
	}
}

// Unavailable reports whether the server ignores requests.
func (s *Server) Unavailable() bool { return s.unavailable }

// SetUnavailable makes the cluster ignore requests, as one without a
// leader does. No session is invalidated meanwhile (a server drops its
// session timers when it loses leadership: clearAllSessionTimers), and
// when it serves again every TTL timer starts afresh
// (initializeSessionTimers).
func (s *Server) SetUnavailable(on bool) {
	if s.unavailable == on {
		return
	}
	s.unavailable = on
	if s.env == nil {
		return
	}
	if !on {
		s.resetTimers(true)
	}
	s.settle()
	coord.Availability(s.env, on)
}

// FailoverLoseLast is a Consul leader change: no committed write is lost,
// and the new leader starts every session's TTL timer afresh
// (initializeSessionTimers). Serf's view of the nodes is gossip and does
// not change. It returns 0.
func (s *Server) FailoverLoseLast(int) int {
	if s.env == nil {
		return 0
	}
	s.resetTimers(false)
	s.settle()
	return 0
}

// LeaseHolder returns the node holding lock key through a session live at
// monoNs, and its token.
func (s *Server) LeaseHolder(key string, monoNs, _ int64) (sim.NodeID, int64, bool) {
	i := s.findPair(key)
	if i < 0 || s.pairs[i].Session == 0 {
		return sim.None, 0, false
	}
	p := s.pairs[i]
	j, ok := s.findSession(p.Session)
	if !ok {
		return sim.None, 0, false
	}
	ss := s.sessions[j]
	if monoNs > ss.DeadlineNs || (ss.Serf && s.failed(ss.Node, monoNs)) {
		return sim.None, 0, false
	}
	return p.Holder, p.ModifyIndex, true
}

func (s *Server) now() int64 { return int64(s.env.Now()) }

// resetTimers gives every session a full 2·TTL from now and, when serf is
// true, counts every node as just heard from.
func (s *Server) resetTimers(serf bool) {
	now := s.now()
	for i := range s.sessions {
		s.sessions[i].DeadlineNs = now + 2*s.sessions[i].TTLNs
		if serf {
			s.hear(s.sessions[i].Node)
		}
	}
}

func (s *Server) anySerf() bool {
	return slices.ContainsFunc(s.sessions, func(ss session) bool { return ss.Serf })
}

// holding is the pair held by a session, if any (the first by key order
// of creation: runs use one key).
func (s *Server) holding() Pair {
	for _, p := range s.pairs {
		if p.Session != 0 {
			return p
		}
	}
	return Pair{}
}

func (s *Server) report() {
	p := s.holding()
	if p.Session == 0 || (p.Session == s.leader.Session && p.Key == s.leader.Key) {
		return
	}
	s.leader = p
	s.effect(EffectLeader, p, sim.FactLeaseAcquired)
}

func (s *Server) effect(name string, p Pair, f sim.Fact) {
	s.env.Effect(sim.Effect{Name: name, Detail: p.Key, Key: p.Key, A: int64(p.Holder), B: p.ModifyIndex, C: s.index, Fact: f})
}

// wake answers the blocking queries whose key moved past their index.
func (s *Server) wake() {
	kept := s.queries[:0]
	for _, q := range s.queries {
		if s.keyIndex(q.key) > q.index {
			s.respond(q)
			continue
		}
		kept = append(kept, q)
	}
	s.queries = kept
}

// rearm points the timer at the first due session deadline, serf
// deadline, query wait or probe.
func (s *Server) rearm() {
	var e coord.Earliest
	if !s.unavailable {
		for _, ss := range s.sessions {
			e.Consider(ss.DeadlineNs + 1)
			if at := s.failsAt(ss.Node); ss.Serf && at >= 0 {
				e.Consider(at)
			}
		}
		for _, q := range s.queries {
			e.Consider(q.deadlineNs)
		}
		for _, u := range s.unacked {
			e.Consider(u.nextNs)
		}
		if s.anySerf() {
			e.Consider(s.nextProbeNs)
		}
	}
	s.timer.Point(s.env, e)
}

// settle follows every change of state: it writes the durable state,
// answers woken queries, reports a new leader and re-aims the timer.
func (s *Server) settle() {
	s.persist()
	s.wake()
	s.report()
	s.rearm()
}

func (s *Server) persist() {
	if s.index == s.persisted {
		return
	}
	s.persisted = s.index
	coord.PersistJSON(s.env, snapshot{Boot: s.boot, Index: s.index, NextSession: s.nextSession, Sessions: s.sessions, Pairs: s.pairs})
}

func (s *Server) findSession(id int64) (int, bool) {
	for i := range s.sessions {
		if s.sessions[i].ID == id {
			return i, true
		}
	}
	return -1, false
}

func (s *Server) findPair(key string) int {
	for i := range s.pairs {
		if s.pairs[i].Key == key {
			return i
		}
	}
	return -1
}

func (s *Server) pair(key string) Pair {
	if i := s.findPair(key); i >= 0 {
		return s.pairs[i]
	}
	return Pair{}
}

// keyIndex is the index a blocking query on key waits past: the key's
// ModifyIndex, or the store's index while the key does not exist.
func (s *Server) keyIndex(key string) int64 {
	if i := s.findPair(key); i >= 0 {
		return s.pairs[i].ModifyIndex
	}
	return s.index
}
