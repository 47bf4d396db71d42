// Package ring implements ring election on a unidirectional logical ring:
// Chang & Roberts' selective-extinction algorithm ("An improved algorithm for
// decentralized extrema-finding in circular configurations of processes",
// CACM 22(5), 1979) and the collect-all-IDs variant it improves upon (LeLann
// 1977). Ring hops are acknowledged so a dead successor is skipped; the leader
// sends heartbeats and a silent leader triggers a new round; the round number
// is the epoch and (weak) fencing token. See docs/algorithms/ring.md.
package ring

import (
	"fmt"
	"slices"

	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagAck       = iota + 1 // a ring hop was not acknowledged in time
	tagHeartbeat            // leader: send the next heartbeat
	tagMonitor              // no leader heartbeat / election progress
)

// hop is a ring message waiting for its acknowledgement.
type hop struct {
	seq   int64
	m     sim.Message
	to    int // position in order
	timer sim.TimerID
}

// Node is one ring participant. It implements sim.Node.
type Node struct {
	// Immutable, shared by every incarnation.
	cfg   Config
	peers []sim.NodeID
	order []sim.NodeID // the ring
	pos   []int32      // NodeID -> position in order, -1 if not a peer

	// Volatile, rebuilt by Start.
	env         sim.Env
	self        sim.NodeID
	me          int   // own position in order
	round       int64 // highest election round seen (persisted)
	participant bool  // has sent or forwarded an ELECTION in this round
	leading     bool
	leadRound   int64 // the round the node leads, while leading
	leader      sim.NodeID
	leaderRound int64
	dead        []bool // by position: successor found unresponsive
	pending     []hop
	seq         int64
	monitor     sim.TimerID
	beat        sim.TimerID
	buf         [8]byte
}

// New returns a node for cfg. peers lists every candidate, ascending and
// including the node itself. New panics if cfg.ValidatePeers(peers) fails.
func New(cfg Config, peers []sim.NodeID) (*Node, error) {
	if err := cfg.ValidatePeers(peers); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, peers: slices.Clone(peers)}
	n.order = slices.Clone(cfg.Order)
	if n.order == nil {
		n.order = Arrange(Sorted, peers, nil)
	}
	n.pos = make([]int32, int(slices.Max(peers))+1)
	for i := range n.pos {
		n.pos[i] = -1
	}
	for i, id := range n.order {
		n.pos[id] = int32(i)
	}
	return n, nil
}

// MustNew is New for configurations known to be valid (tests, fixed
// examples): it panics on the error New would return.
func MustNew(cfg Config, peers []sim.NodeID) *Node {
	n, err := New(cfg, peers)
	if err != nil {
		panic(err)
	}
	return n
}

// Start implements sim.Node: it forgets everything but the persisted round
// and starts an election if it is an initiator.
func (n *Node) Start(env sim.Env, restored []byte) {
	*n = Node{cfg: n.cfg, peers: n.peers, order: n.order, pos: n.pos,
		env: env, self: env.ID(), leader: sim.None, dead: make([]bool, len(n.order))}
	n.me = n.position(n.self)
	if n.me < 0 {
		panic(fmt.Sprintf("ring: node %d is not in peers %v", n.self, n.peers))
	}
	if r, ok := restore(restored); ok {
		n.round = r
	}
	if n.cfg.AllInitiate || slices.Contains(n.cfg.Initiators, n.self) {
		n.startElection()
	} else {
		n.armMonitor()
	}
}

// position returns id's position in the ring, or -1.
func (n *Node) position(id sim.NodeID) int {
	if id < 0 || int(id) >= len(n.pos) {
		return -1
	}
	return int(n.pos[id])
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	p := n.position(m.From)
	if p < 0 {
		return
	}
	n.dead[p] = false // it is evidently alive
	switch m.Kind {
	case KindAck:
		n.onAck(m)
	case KindElection, KindCoordinator:
		l := lapOf(&m)
		n.env.Send(ack{Round: l.Round, HopSeq: l.HopSeq}.message(m.From))
		n.onRing(m)
	case KindHeartbeat:
		n.onHeartbeat(m)
	}
}

// OnTimer implements sim.Node.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagAck:
		n.onAckTimeout(id)
	case tagHeartbeat:
		if id == n.beat && n.leading {
			for _, p := range n.peers {
				if p != n.self {
					n.env.Send(heartbeat{Round: n.leadRound}.message(p))
				}
			}
			n.beat = n.env.SetTimer(n.cfg.HeartbeatInterval, tagHeartbeat)
		}
	case tagMonitor:
		if id == n.monitor && !n.leading {
			n.believe(sim.None, n.leaderRound)
			n.startElection()
		}
	}
}

// Round returns the highest election round the node has seen (the epoch).
func (n *Node) Round() int64 { return n.round }

// Leader returns the leader the node believes in (sim.None if none) and the
// round it was elected in.
func (n *Node) Leader() (sim.NodeID, int64) { return n.leader, n.leaderRound }

// Leading reports whether the node acts as leader.
func (n *Node) Leading() bool { return n.leading }

// Participant reports whether the node has taken part in the current round.
func (n *Node) Participant() bool { return n.participant }

// Order returns a copy of the ring order.
func (n *Node) Order() []sim.NodeID { return slices.Clone(n.order) }
