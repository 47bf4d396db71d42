package etcdelect

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/electsim/electsim/algorithms/internal/coord"
	"github.com/electsim/electsim/sim"
)

// The server's effects. Detail is the election name; A the holder, B its
// token (the key's create revision). Checkers act on the typed facts.
const (
	EffectLeader   = "etcd.leader"   // a key became the lowest of the election: its holder leads (FactLeaseAcquired)
	EffectRenewed  = "etcd.renewed"  // the leading key's lease was kept alive (FactLeaseRenewed)
	EffectReleased = "etcd.released" // the leading key was deleted (FactLeaseReleased)
	EffectExpired  = "etcd.expired"  // the leading key's lease was revoked on expiry, deleting the key (FactLeaseExpired)
	EffectPromote  = "etcd.promote"  // a server failover extended every lease (lessor Promote)
)

// ServerConfig configures the server. The zero value is the default.
type ServerConfig struct {
	// Name is the election name: keys live under Name + "/", and effects
	// name it in Detail. Default "leader".
	Name string
	// PromoteExtend is how much a failover adds to every lease beyond its
	// full TTL (etcd's lessor Promote(extend), extend being the server's
	// election timeout). Default 1s (etcd's 100 ms heartbeat × 10).
	PromoteExtend time.Duration
	// RevokeDelay is how long an expired lease's revoke takes from the
	// lessor's loop finding it to its keys' deletion (and the watches
	// firing): etcdserver's revokeExpiredLeases checks leadership and
	// proposes a LeaseRevoke through raft, applied once committed. Default
	// 5 ms, the low end of a LAN commit with fsync: a longer one shortens a
	// cut-off leader's overlap with its successor by as much.
	RevokeDelay time.Duration
}

// revokeLoopPeriod is the lessor's runLoop ticker (server/lease/lessor.go,
// runLoop: revokeExpiredLeases every 500 ms, from the lessor's start).
const revokeLoopPeriod = 500 * time.Millisecond

// tagApply marks the server's timer for the next committed revoke (tag 0
// is the revoke loop's tick).
const tagApply = 1

// revoke is a LeaseRevoke proposed by the revoke loop, applied at At.
type revoke struct {
	Lease int64
	At    int64
}

// client is a client's pending answer: a keep-alive of an expired lease
// (answered TTL 0 once the revoke applies) or an Observe.
type client struct {
	who   sim.NodeID
	lease int64
	id    int64
}

type leaseRec struct {
	ID       int64
	TTLNs    int64
	ExpiryNs int64 // by the server's monotonic clock
}

type kv struct {
	Key       string
	Holder    sim.NodeID
	CreateRev int64
	Lease     int64
}

type snapshot struct {
	Rev, NextLease int64
	Leases         []leaseRec
	Keys           []kv
}

// Server is the simulated etcd: one logical service node, linearizable,
// durable (its state survives its own crash, as a raft-replicated etcd's
// does), with leases judged by its monotonic clock.
type Server struct {
	cfg         ServerConfig
	env         sim.Env
	rev         int64
	nextLease   int64
	leases      []leaseRec // sorted by ID
	keys        []kv       // sorted by Key
	watches     coord.Watches
	unavailable bool
	leader      kv          // the lowest key of the election as last reported (Holder sim.None: none)
	timer       coord.Timer // the revoke loop's next tick that matters

	phase     int64       // the revoke loop ticks at phase + k·revokeLoopPeriod (monotonic ns)
	revoking  []revoke    // proposed revokes in commit order
	applyT    sim.TimerID // aimed at revoking[0].At
	waiting   []client    // keep-alives of expired leases, answered when revoked
	observers []client    // Observe streams, sent every change of the first key
}

// NewServer returns a server node.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Name == "" {
		cfg.Name = "leader"
	}
	if cfg.PromoteExtend == 0 {
		cfg.PromoteExtend = time.Second
	}
	if cfg.RevokeDelay == 0 {
		cfg.RevokeDelay = 5 * time.Millisecond
	}
	return &Server{cfg: cfg}
}

// Start implements sim.Node: the state comes back from disk, and the server
// takes over its leases as a new etcd leader does (Promote).
func (s *Server) Start(env sim.Env, restored []byte) {
	*s = Server{cfg: s.cfg, env: env, unavailable: s.unavailable, leader: kv{Holder: sim.None}}
	s.newPhase()
	if len(restored) > 0 {
		var snap snapshot
		if json.Unmarshal(restored, &snap) == nil {
			s.rev, s.nextLease, s.leases, s.keys = snap.Rev, snap.NextLease, snap.Leases, snap.Keys
			s.promote()
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
	rep := &Response{ID: req.ID, Op: req.Op, Session: req.Lease}
	switch req.Op {
	case OpGrant:
		s.nextLease++
		l := leaseRec{ID: s.nextLease, TTLNs: int64(req.TTL), ExpiryNs: s.now() + int64(req.TTL)}
		s.leases = append(s.leases, l)
		rep.Lease, rep.TTL = l.ID, req.TTL
	case OpKeepAlive:
		if i, ok := s.findLease(req.Lease); ok {
			l := &s.leases[i]
			if l.ExpiryNs <= s.now() {
				// lessor.Renew: an expired lease may be pending revoke;
				// the renewal waits for the deletion, then fails.
				s.waiting = append(s.waiting, client{who: m.From, lease: l.ID, id: req.ID})
				return
			}
			l.ExpiryNs = s.now() + l.TTLNs
			rep.Lease, rep.TTL = l.ID, time.Duration(l.TTLNs)
			if s.leader.Holder != sim.None && s.leader.Lease == l.ID {
				s.effect(EffectRenewed, s.leader, sim.FactLeaseRenewed)
			}
		}
	case OpPut:
		if i, ok := s.findKey(req.Key); ok {
			rep.Found, rep.Key, rep.Holder, rep.CreateRev = true, req.Key, s.keys[i].Holder, s.keys[i].CreateRev
			break
		}
		if _, ok := s.findLease(req.Lease); !ok {
			break // lease gone: the put fails (etcd: lease not found)
		}
		s.rev++
		k := kv{Key: req.Key, Holder: req.Holder, CreateRev: s.rev, Lease: req.Lease}
		i, _ := s.findKey(req.Key)
		s.keys = slices.Insert(s.keys, i, k)
		rep.Found, rep.Key, rep.Holder, rep.CreateRev = true, k.Key, k.Holder, k.CreateRev
	case OpRangeBelow:
		var best *kv
		for i := range s.keys {
			k := &s.keys[i]
			if strings.HasPrefix(k.Key, req.Key) && k.CreateRev <= req.MaxCreateRev && (best == nil || k.CreateRev > best.CreateRev) {
				best = k
			}
		}
		if best != nil {
			rep.Found, rep.Key, rep.Holder, rep.CreateRev = true, best.Key, best.Holder, best.CreateRev
		}
	case OpWatchDelete:
		if _, ok := s.findKey(req.Key); ok {
			s.watches.Add(req.Key, m.From, req.Lease, req.ID) // a re-sent watch replaces the older one
			s.settle()
			return // answered when the key goes
		}
	case OpDelete:
		if i, ok := s.findKey(req.Key); ok && s.keys[i].CreateRev == req.CreateRev {
			s.deleteKey(req.Key)
		}
	case OpObserve:
		s.observers = slices.DeleteFunc(s.observers, func(c client) bool { return c.who == m.From })
		s.observers = append(s.observers, client{who: m.From, lease: req.Lease, id: req.ID})
		k, ok := s.first()
		s.observed(rep, k, ok)
	}
	switch req.Op {
	case OpKeepAlive, OpRangeBelow, OpObserve:
		// Nothing durable changed: a renewal moves the lease's expiry
		// in the leader's memory only (server/lease/lessor.go Renew; a
		// new leader's Promote resets every expiry, as Start does here),
		// and a read writes nothing, so the answer waits for no fsync.
		s.report()
		s.rearm()
	default:
		s.settle()
	}
	s.env.Send(sim.Message{Kind: KindResponse, To: m.From, Index: req.ID, Body: rep})
}

// OnTimer implements sim.Node: a tick of the revoke loop proposes the
// expired leases' revokes; a committed revoke deletes the lease's keys.
func (s *Server) OnTimer(id sim.TimerID, tag int) {
	if tag == tagApply {
		if id == s.applyT {
			s.applyT = 0
			s.apply()
		}
		return
	}
	s.timer.Fired()
	s.propose()
	s.settle()
}

// TimerName implements sim.TimerNamer.
func (s *Server) TimerName(tag int) string {
	if tag == tagApply {
		return "etcd.revoke_commit"
	}
	return "etcd.revoke_loop"
}

// --- faults.StoreService ---

// Unavailable reports whether the server ignores requests.
func (s *Server) Unavailable() bool { return s.unavailable }

// SetUnavailable makes the server ignore requests (clients time out), as
// an etcd cluster without a leader does. No lease expires meanwhile (only a
// leader's lessor revokes), and when it serves again the new leader
// extends every lease (Promote).
func (s *Server) SetUnavailable(on bool) {
	if s.unavailable == on {
		return
	}
	s.unavailable = on
	if s.env == nil {
		return
	}
	if on {
		// No quorum: a proposed revoke does not commit; the leader that
		// follows finds its leases afresh (after Promote).
		s.revoking = s.revoking[:0]
		coord.Disarm(s.env, &s.applyT)
	} else {
		s.promote()
		s.settle()
	}
	coord.Availability(s.env, on)
}

// FailoverLoseLast is an etcd leader change: a raft-replicated etcd loses
// no acknowledged write, and the new leader extends every lease to its full
// TTL plus PromoteExtend (server/lease/lessor.go, Promote → refresh). It
// returns 0 (writes lost).
func (s *Server) FailoverLoseLast(int) int {
	if s.env == nil {
		return 0
	}
	s.promote()
	s.settle()
	return 0
}

// LeaseHolder returns the election's leader as the server judges it: the
// holder of the lowest create revision under the election's prefix whose
// lease has not run out by the server's clock, and that revision.
func (s *Server) LeaseHolder(key string, monoNs, _ int64) (sim.NodeID, int64, bool) {
	if key != s.cfg.Name {
		return sim.None, 0, false
	}
	k, ok := s.lowest(monoNs)
	return k.Holder, k.CreateRev, ok
}

// --- internals ---

func (s *Server) now() int64 { return int64(s.env.Now()) }

// promote is the lessor's Promote on a new etcd leader: every lease
// refreshed, the new leader's own revoke loop (its phase), renewals that
// waited on the old leader failed with ErrNotPrimary (the client sends
// again at its next tick). Revokes the old leader proposed still commit.
func (s *Server) promote() {
	s.newPhase()
	s.waiting = s.waiting[:0]
	now := s.now()
	for i := range s.leases {
		s.leases[i].ExpiryNs = now + int64(s.cfg.PromoteExtend) + s.leases[i].TTLNs
	}
	s.env.Effect(sim.Effect{Name: EffectPromote, Detail: s.cfg.Name, A: int64(len(s.leases))})
}

// newPhase starts a lessor's revoke loop at a random point of its period:
// when an etcd member's lessor started is unrelated to any client.
func (s *Server) newPhase() {
	s.phase = s.now() + int64(s.env.Rand().DurationRange(0, revokeLoopPeriod))
}

// revokingLease reports whether a revoke of lease id is in flight.
func (s *Server) revokingLease(id int64) bool {
	return slices.ContainsFunc(s.revoking, func(r revoke) bool { return r.Lease == id })
}

// propose is revokeExpiredLeases at a tick of the loop: every lease
// expired by now (lessor expireExists: !now.Before(expiry)) is proposed
// for revoke; the revoke applies RevokeDelay later.
func (s *Server) propose() {
	if s.unavailable {
		return
	}
	now := s.now()
	for _, l := range s.leases {
		if l.ExpiryNs <= now && !s.revokingLease(l.ID) {
			s.revoking = append(s.revoking, revoke{Lease: l.ID, At: now + int64(s.cfg.RevokeDelay)})
		}
	}
	s.armApply()
}

func (s *Server) armApply() {
	if s.applyT != 0 || len(s.revoking) == 0 {
		return
	}
	s.applyT = s.env.SetTimer(time.Duration(max(s.revoking[0].At-s.now(), 0)), tagApply)
}

// apply applies the committed revokes: each lease goes with its keys
// (watches fire), and renewals waiting on it fail (TTL 0).
func (s *Server) apply() {
	now := s.now()
	for len(s.revoking) > 0 && s.revoking[0].At <= now {
		id := s.revoking[0].Lease
		s.revoking = s.revoking[1:]
		s.revokeLease(id)
	}
	s.armApply()
	s.settle()
}

func (s *Server) revokeLease(id int64) {
	i, ok := s.findLease(id)
	if !ok {
		return
	}
	s.leases = slices.Delete(s.leases, i, i+1)
	if s.leader.Holder != sim.None && s.leader.Lease == id {
		s.effect(EffectExpired, s.leader, sim.FactLeaseExpired)
		s.leader = kv{Holder: sim.None}
	}
	for j := 0; j < len(s.keys); {
		if s.keys[j].Lease == id {
			s.deleteKey(s.keys[j].Key)
			continue
		}
		j++
	}
	s.waiting = slices.DeleteFunc(s.waiting, func(c client) bool {
		if c.lease != id {
			return false
		}
		s.env.Send(sim.Message{Kind: KindResponse, To: c.who, Index: c.id, Body: &Response{ID: c.id, Op: OpKeepAlive, Lease: id, Session: id}})
		return true
	})
	s.observers = slices.DeleteFunc(s.observers, func(c client) bool { return c.lease == id })
}

func (s *Server) deleteKey(key string) {
	i, ok := s.findKey(key)
	if !ok {
		return
	}
	k := s.keys[i]
	s.keys = slices.Delete(s.keys, i, i+1)
	s.rev++
	if s.leader.Holder != sim.None && s.leader.Key == k.Key {
		s.effect(EffectReleased, s.leader, sim.FactLeaseReleased)
		s.leader = kv{Holder: sim.None}
	}
	s.watches.Fire(key, func(who sim.NodeID, lease, id int64) {
		s.env.Send(sim.Message{Kind: KindResponse, To: who, Index: id, Body: &Response{ID: id, Op: OpWatchDelete, Session: lease}})
	})
}

// lowest is the election's lowest key whose lease is alive at monoNs.
func (s *Server) lowest(monoNs int64) (kv, bool) {
	best, found := kv{Holder: sim.None}, false
	prefix := s.cfg.Name + "/"
	for _, k := range s.keys {
		if !strings.HasPrefix(k.Key, prefix) {
			continue
		}
		if i, ok := s.findLease(k.Lease); !ok || s.leases[i].ExpiryNs <= monoNs {
			continue
		}
		if !found || k.CreateRev < best.CreateRev {
			best, found = k, true
		}
	}
	return best, found
}

// first is the election's first-created key, whatever its lease's
// expiry: a key lives until its lease's revoke applies.
func (s *Server) first() (kv, bool) {
	best, found := kv{Holder: sim.None}, false
	prefix := s.cfg.Name + "/"
	for _, k := range s.keys {
		if strings.HasPrefix(k.Key, prefix) && (!found || k.CreateRev < best.CreateRev) {
			best, found = k, true
		}
	}
	return best, found
}

// report records a new leader of the election (the first-created key
// changed) and tells the observers.
func (s *Server) report() {
	k, ok := s.first()
	if !ok || (s.leader.Holder != sim.None && k.Key == s.leader.Key && k.CreateRev == s.leader.CreateRev) {
		return
	}
	s.leader = k
	s.effect(EffectLeader, k, sim.FactLeaseAcquired)
	for _, c := range s.observers {
		s.env.Send(sim.Message{Kind: KindResponse, To: c.who, Index: c.id, Body: &Response{ID: c.id, Op: OpObserve, Session: c.lease, Found: true, Key: k.Key, Holder: k.Holder, CreateRev: k.CreateRev}})
	}
}

// observed fills an Observe answer with the first key.
func (s *Server) observed(rep *Response, k kv, ok bool) {
	if ok {
		rep.Found, rep.Key, rep.Holder, rep.CreateRev = true, k.Key, k.Holder, k.CreateRev
	}
}

func (s *Server) effect(name string, k kv, f sim.Fact) {
	s.env.Effect(sim.Effect{Name: name, Detail: s.cfg.Name, Key: s.cfg.Name, A: int64(k.Holder), B: k.CreateRev, C: s.rev, Fact: f})
}

// rearm points the revoke loop's timer at its first tick at or after the
// earliest expiry not yet being revoked: the ticks in between find
// nothing, so they are skipped.
func (s *Server) rearm() {
	var e coord.Earliest
	if s.unavailable {
		// No leader, no lessor revoking: the loop waits for the next
		// leader (SetUnavailable(false) promotes and re-aims it). Aiming
		// it at an expired lease while propose refuses to act fired it
		// again at the same instant, forever (found by simrun hunt:
		// TestUnavailableStoreDoesNotSpin).
		s.timer.Point(s.env, e)
		return
	}
	for _, l := range s.leases {
		if !s.revokingLease(l.ID) {
			e.Consider(s.tickFrom(max(l.ExpiryNs, s.now())))
		}
	}
	s.timer.Point(s.env, e)
}

// tickFrom is the revoke loop's first tick at or after t.
func (s *Server) tickFrom(t int64) int64 {
	p := int64(revokeLoopPeriod)
	if t <= s.phase {
		return s.phase
	}
	return s.phase + (t-s.phase+p-1)/p*p
}

// settle follows every change of state: it writes the durable state,
// reports a new leader and re-aims the expiry timer.
func (s *Server) settle() {
	s.persist()
	s.report()
	s.rearm()
}

func (s *Server) persist() {
	coord.PersistJSON(s.env, snapshot{Rev: s.rev, NextLease: s.nextLease, Leases: s.leases, Keys: s.keys})
}

func (s *Server) findLease(id int64) (int, bool) {
	return slices.BinarySearchFunc(s.leases, id, func(l leaseRec, id int64) int { return cmp.Compare(l.ID, id) })
}

func (s *Server) findKey(key string) (int, bool) {
	return slices.BinarySearchFunc(s.keys, key, func(k kv, key string) int { return cmp.Compare(k.Key, key) })
}
