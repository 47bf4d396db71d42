package bully

import "github.com/electsim/electsim/sim"

// This file is the protocol: ELECTION, ANSWER, COORDINATOR and HEARTBEAT.

// learn raises the known epoch to (term, minter) if it is higher.
func (n *Node) learn(term int64, minter sim.NodeID) {
	if term > n.epoch {
		n.epoch, n.owner = term, minter
		n.persist()
	}
}

// startElection sends ELECTION to every higher-priority node and waits T for
// an ANSWER; with no higher node it wins at once.
func (n *Node) startElection() {
	if n.role == Coordinator {
		n.stopLeading("election")
		n.believe(sim.None, n.tenure)
	}
	n.env.CancelTimer(n.monitor)
	n.env.CancelTimer(n.coord)
	n.role = Electing
	if len(n.higher) == 0 {
		n.becomeCoordinator()
		return
	}
	for _, p := range n.higher {
		n.env.Send(epochClaim{Epoch: n.epoch, EpochMinter: n.owner}.message(KindElection, p))
	}
	n.env.CancelTimer(n.answer)
	n.answer = n.env.SetTimer(n.cfg.AnswerTimeout, tagAnswer)
}

// becomeCoordinator starts a new tenure: it mints epoch = highest known + 1,
// persists it, acts as leader and announces itself to every lower node.
func (n *Node) becomeCoordinator() {
	n.env.CancelTimer(n.answer)
	n.env.CancelTimer(n.coord)
	n.env.CancelTimer(n.monitor)
	if n.role == Coordinator {
		n.env.StopLeading("new epoch")
	}
	n.epoch++
	n.owner = n.self
	n.persist()
	n.tenure = n.epoch
	n.role = Coordinator
	n.env.ActAsLeader(n.tenure, n.tenure)
	n.believe(n.self, n.tenure)
	n.broadcast(KindCoordinator, n.lower)
	n.env.CancelTimer(n.beat)
	n.beat = n.env.SetTimer(n.cfg.HeartbeatInterval, tagHeartbeat)
}

// stopLeading ends the node's tenure.
func (n *Node) stopLeading(why string) {
	n.env.StopLeading(why)
	n.env.CancelTimer(n.beat)
	n.role = Follower
}

// broadcast sends a COORDINATOR or HEARTBEAT for the current tenure.
func (n *Node) broadcast(kind sim.MsgKind, to []sim.NodeID) {
	for _, p := range to {
		n.env.Send(epochClaim{Epoch: n.tenure, EpochMinter: n.self}.message(kind, p))
	}
}

// onElection: a lower node asks whether a higher one is alive. Answer it and
// take over: a follower starts its own election (unless it is already in
// one); the coordinator re-announces itself to the challenger, or to everyone
// in a new epoch if the challenger knows an epoch the coordinator did not mint.
func (n *Node) onElection(m sim.Message) {
	// known: the challenger knows no epoch the coordinator did not mint.
	c := epochClaimOf(&m)
	known := c.Epoch < n.tenure || (c.Epoch == n.tenure && c.EpochMinter == n.self)
	n.learn(c.Epoch, c.EpochMinter)
	if !n.outranks(n.self, m.From) {
		return // ELECTION only goes up; ignore a misconfigured sender
	}
	n.env.Send(epochClaim{Epoch: n.epoch, EpochMinter: n.owner}.message(KindAnswer, m.From))
	switch n.role {
	case Follower:
		n.startElection()
	case Coordinator:
		if known {
			n.env.Send(epochClaim{Epoch: n.tenure, EpochMinter: n.self}.message(KindCoordinator, m.From))
		} else {
			n.becomeCoordinator()
		}
	}
}

// onAnswer: a higher node is alive and takes over; wait T' for its
// COORDINATOR.
func (n *Node) onAnswer(m sim.Message) {
	c := epochClaimOf(&m)
	n.learn(c.Epoch, c.EpochMinter)
	if n.role != Electing {
		return
	}
	n.env.CancelTimer(n.answer)
	n.role = AwaitingCoordinator
	n.coord = n.env.SetTimer(n.cfg.CoordinatorTimeout, tagCoordinator)
}

// onClaim handles COORDINATOR and HEARTBEAT: p claims to coordinate epoch e.
// The claim is fresh if e is above every epoch the node knows, or is the
// known epoch and p minted it (its own coordinator's heartbeat). A fresh claim
// from a higher node is followed; one from a lower node is bullied. A stale
// claim from a higher node (it does not know the current epoch, e.g. it just
// recovered) starts an election, whose ELECTION tells it the epoch to beat.
func (n *Node) onClaim(m sim.Message) {
	p, e := m.From, epochClaimOf(&m).Epoch
	fresh := e > n.epoch || (e == n.epoch && n.owner == p)
	higher := n.outranks(p, n.self)
	switch {
	case fresh && higher:
		n.learn(e, p)
		n.follow(p, e)
	case fresh:
		n.learn(e, p)
		switch n.role {
		case Coordinator:
			n.becomeCoordinator()
		case Follower:
			n.startElection()
		}
	case higher:
		if n.role == Follower || n.role == Coordinator {
			n.startElection()
		}
	default:
		if n.role == Coordinator {
			n.env.Send(epochClaim{Epoch: n.tenure, EpochMinter: n.self}.message(KindCoordinator, p))
		}
	}
}

// follow accepts p as coordinator of epoch e.
func (n *Node) follow(p sim.NodeID, e int64) {
	if n.role == Coordinator {
		n.stopLeading("higher coordinator")
	}
	n.env.CancelTimer(n.answer)
	n.env.CancelTimer(n.coord)
	n.role = Follower
	n.believe(p, e)
	n.armMonitor()
}

// armMonitor (re)starts the follower's heartbeat timeout.
func (n *Node) armMonitor() {
	if !n.env.ResetTimer(n.monitor, n.cfg.HeartbeatTimeout) {
		n.monitor = n.env.SetTimer(n.cfg.HeartbeatTimeout, tagMonitor)
	}
}

// believe reports a change of the believed coordinator.
func (n *Node) believe(id sim.NodeID, e int64) {
	if id == n.leader && e == n.leaderEpoch {
		return
	}
	n.leader, n.leaderEpoch = id, e
	n.env.BelieveLeader(id, e)
}
