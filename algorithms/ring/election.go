package ring

import (
	"slices"
	"time"

	"github.com/electsim/electsim/sim"
)

// This file is the election: rounds, ELECTION, COORDINATOR and heartbeats.

// enterRound moves the node to election round r: it has not participated
// yet, and successors marked dead get another chance (a recovered node
// rejoins the ring at the next election).
//
// A leader that enters a newer round stops leading: its tenure belongs to the
// older round, and its heartbeats would carry that round, which every node
// already in the newer one ignores. Were the new round's ELECTION then lost,
// nobody would ever end its tenure (the property suite found exactly that).
// Stepping down arms its monitor, so a lost round is retried like anyone's.
func (n *Node) enterRound(r int64) {
	if n.leading && r > n.leadRound {
		n.leading = false
		n.env.StopLeading("new round")
		n.env.CancelTimer(n.beat)
		n.armMonitor()
	}
	n.round = r
	n.participant = false
	clear(n.dead)
	n.persist()
}

// startElection opens round = highest seen + 1 and sends the node's own
// ELECTION (its ID, or a list holding only its ID).
func (n *Node) startElection() {
	n.enterRound(n.round + 1)
	n.participant = true
	n.armMonitor()
	m := lap{Round: n.round, ID: n.self, OriginAndHops: pack(n.self, 1)}.message(KindElection)
	if n.cfg.Variant == CollectAll {
		m.Body = []int64{int64(n.self)}
	}
	n.forward(m)
}

// onRing handles an ELECTION or COORDINATOR after it was acknowledged.
func (n *Node) onRing(m sim.Message) {
	p := lapOf(&m)
	if p.Round < n.round {
		return // an older round: extinguished
	}
	if p.Round > n.round {
		n.enterRound(p.Round)
	}
	origin, hops := unpack(p.OriginAndHops)
	if hops >= len(n.order) && origin != n.self {
		// A full lap without meeting its origin: the origin died after
		// sending it. Without this the message would circle forever.
		return
	}
	if m.Kind == KindElection && n.decided() {
		// The round is over here. A candidate above its leader (a node that
		// was down and reused a round number it had not seen end) lifts the
		// election into a new round; anything else is a late straggler.
		if n.candidate(m) <= n.leader {
			return
		}
		n.enterRound(n.round + 1)
		p.Round = n.round
	}
	if !n.leading {
		n.armMonitor() // the round makes progress
	}
	next := m
	p.OriginAndHops = pack(origin, hops+1)
	p.into(&next)
	switch {
	case m.Kind == KindCoordinator:
		n.onCoordinator(next, origin)
	case n.cfg.Variant == CollectAll:
		n.onCollect(next)
	default:
		n.onCandidate(next)
	}
}

// onCandidate is Chang & Roberts' rule: forward a larger ID, swallow a
// smaller one (sending the node's own instead if it has not yet taken part),
// and win when the node's own ID comes back.
func (n *Node) onCandidate(m sim.Message) {
	j := lapOf(&m).ID
	switch {
	case j > n.self:
		n.participant = true
		n.forward(m)
	case j < n.self:
		if !n.participant {
			n.participant = true
			n.forward(lap{Round: n.round, ID: n.self, OriginAndHops: pack(n.self, 1)}.message(KindElection))
		}
	default:
		n.participant = false
		n.announce(n.self)
	}
}

// onCollect appends the node's ID and forwards; back at its initiator the list
// holds every live node and its maximum is the leader.
func (n *Node) onCollect(m sim.Message) {
	ids, _ := m.Body.([]int64)
	if len(ids) == 0 {
		return // malformed
	}
	if lapOf(&m).ID == n.self {
		n.participant = false
		n.announce(sim.NodeID(slices.Max(ids)))
		return
	}
	if slices.Contains(ids, int64(n.self)) {
		return // its initiator died: the list came round again
	}
	n.participant = true
	m.Body = append(slices.Clip(ids), int64(n.self)) // a copy: Body is never mutated after Send
	n.forward(m)
}

// announce starts a COORDINATOR lap from this node naming leader.
func (n *Node) announce(leader sim.NodeID) {
	if leader == n.self {
		n.lead()
	} else {
		n.follow(leader, n.round)
	}
	n.forward(lap{Round: n.round, ID: leader, OriginAndHops: pack(n.self, 1)}.message(KindCoordinator))
}

// onCoordinator records the leader and passes the announcement on until it
// is back at its origin.
func (n *Node) onCoordinator(m sim.Message, origin sim.NodeID) {
	n.participant = false
	p := lapOf(&m)
	leader := p.ID
	if leader == n.self {
		n.lead()
	} else {
		n.follow(leader, p.Round)
	}
	if origin != n.self {
		n.forward(m)
	}
}

// lead makes the node the leader of the current round (once per round).
func (n *Node) lead() {
	if n.leading && n.leadRound == n.round {
		return
	}
	if n.leading {
		n.env.StopLeading("new round")
	}
	n.leading = true
	n.leadRound = n.round
	n.env.CancelTimer(n.monitor)
	n.env.ActAsLeader(n.round, n.round)
	n.believe(n.self, n.round)
	n.env.CancelTimer(n.beat)
	n.beat = n.env.SetTimer(n.cfg.HeartbeatInterval, tagHeartbeat)
}

// follow accepts leader of round r.
func (n *Node) follow(leader sim.NodeID, r int64) {
	if n.leading {
		n.leading = false
		n.env.StopLeading("other leader")
		n.env.CancelTimer(n.beat)
	}
	n.believe(leader, r)
	n.armMonitor()
}

// onHeartbeat accepts a heartbeat of the current (or a newer) round. Two
// leaders of the same round — possible only when a partition split the ring —
// resolve to the higher ID. Heartbeats of older rounds are ignored: their
// sender learns from the newer leader's heartbeats.
func (n *Node) onHeartbeat(m sim.Message) {
	p, r := m.From, heartbeatOf(&m).Round
	if r < n.round {
		return
	}
	if r > n.round {
		n.enterRound(r)
	}
	if n.leading && r == n.leadRound && p < n.self {
		return
	}
	n.follow(p, r)
}

// decided reports whether the node knows the leader of the current round.
func (n *Node) decided() bool { return n.leader != sim.None && n.leaderRound == n.round }

// candidate returns the highest ID an ELECTION speaks for.
func (n *Node) candidate(m sim.Message) sim.NodeID {
	if ids, ok := m.Body.([]int64); ok && len(ids) > 0 {
		return sim.NodeID(slices.Max(ids))
	}
	return lapOf(&m).ID
}

// armMonitor (re)starts the failure-detection timeout: HeartbeatTimeout
// while a leader is known, and HeartbeatTimeout + (n−1)·AckTimeout while the
// round is undecided, so that one ELECTION may skip every other node once
// before the round is given up.
func (n *Node) armMonitor() {
	d := n.cfg.HeartbeatTimeout
	if !n.decided() {
		d += time.Duration(len(n.order)-1) * n.cfg.AckTimeout
	}
	if !n.env.ResetTimer(n.monitor, d) {
		n.monitor = n.env.SetTimer(d, tagMonitor)
	}
}

// believe reports a change of the believed leader.
func (n *Node) believe(id sim.NodeID, r int64) {
	if id == n.leader && r == n.leaderRound {
		return
	}
	n.leader, n.leaderRound = id, r
	n.env.BelieveLeader(id, r)
}
