// Package bully implements Garcia-Molina's bully election (IEEE Trans.
// Computers C-31(1), 1982) in the three-message form of the textbooks:
// ELECTION to every higher-priority node, ANSWER from the live ones,
// COORDINATOR from the highest live node to every lower one, with the answer
// timeout T and the coordinator timeout T'. A pushed HEARTBEAT is the failure
// detector, and an epoch counter (highest known + 1, minted by each new
// coordinator) is a weak fencing token. See docs/algorithms/bully.md.
package bully

import (
	"fmt"

	"github.com/electsim/electsim/sim"
)

// Timer tags.
const (
	tagAnswer      = iota + 1 // T expired: no ANSWER, become coordinator
	tagCoordinator            // T' expired: ANSWER but no COORDINATOR, elect again
	tagHeartbeat              // coordinator: send the next heartbeat
	tagMonitor                // follower: coordinator silent for HeartbeatTimeout
)

// Node is one bully participant. It implements sim.Node.
type Node struct {
	// Immutable, shared by every incarnation.
	cfg   Config
	peers []sim.NodeID
	prio  []int   // priority of peers[i]
	pos   []int32 // NodeID -> index in peers, -1 if not a peer

	// Volatile, rebuilt by Start.
	env         sim.Env
	higher      []sim.NodeID // peers that outrank the node, ascending ID
	lower       []sim.NodeID // peers it outranks, ascending ID
	others      []sim.NodeID // every peer but itself: heartbeat targets
	self        sim.NodeID
	role        Role
	epoch       int64      // highest epoch known (persisted)
	owner       sim.NodeID // who minted epoch (persisted)
	tenure      int64      // own epoch while Coordinator
	leader      sim.NodeID // believed coordinator
	leaderEpoch int64
	answer      sim.TimerID
	coord       sim.TimerID
	beat        sim.TimerID
	monitor     sim.TimerID
	buf         [stateLen]byte
}

// New returns a node for cfg. peers lists every candidate, ascending and
// including the node itself (which one it is becomes known in Start). New
// panics if cfg.ValidatePeers(peers) fails.
func New(cfg Config, peers []sim.NodeID) (*Node, error) {
	if err := cfg.ValidatePeers(peers); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, peers: append([]sim.NodeID(nil), peers...), prio: make([]int, len(peers))}
	n.pos = make([]int32, int(peers[len(peers)-1])+1)
	for i := range n.pos {
		n.pos[i] = -1
	}
	for i, p := range peers {
		n.pos[p] = int32(i)
		n.prio[i] = int(p)
		if cfg.Priorities != nil {
			n.prio[i] = cfg.Priorities[i]
		}
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

// Start implements sim.Node: it forgets everything but the persisted epoch
// and then runs an election (ElectOnStart) or waits for a coordinator.
func (n *Node) Start(env sim.Env, restored []byte) {
	*n = Node{cfg: n.cfg, peers: n.peers, prio: n.prio, pos: n.pos,
		env: env, self: env.ID(), leader: sim.None, owner: sim.None}
	if n.index(n.self) < 0 {
		panic(fmt.Sprintf("bully: node %d is not in peers %v", n.self, n.peers))
	}
	for _, p := range n.peers {
		if p == n.self {
			continue
		}
		// Heartbeats go to higher nodes too, so a recovering higher node that
		// waits (ElectOnStart off) learns the current epoch before it bullies.
		n.others = append(n.others, p)
		if n.outranks(p, n.self) {
			n.higher = append(n.higher, p)
		} else {
			n.lower = append(n.lower, p)
		}
	}
	if e, o, ok := restore(restored); ok {
		n.epoch, n.owner = e, o
	}
	if n.cfg.ElectOnStart {
		n.startElection()
	} else {
		n.armMonitor()
	}
}

// index returns id's position in peers, or -1.
func (n *Node) index(id sim.NodeID) int {
	if id < 0 || int(id) >= len(n.pos) {
		return -1
	}
	return int(n.pos[id])
}

// outranks reports whether a has a higher priority than b. Non-peers rank
// below everyone.
func (n *Node) outranks(a, b sim.NodeID) bool {
	ia, ib := n.index(a), n.index(b)
	if ia < 0 {
		return false
	}
	if ib < 0 {
		return true
	}
	return n.prio[ia] > n.prio[ib]
}

// OnMessage implements sim.Node.
func (n *Node) OnMessage(m sim.Message) {
	if n.index(m.From) < 0 {
		return
	}
	switch m.Kind {
	case KindElection:
		n.onElection(m)
	case KindAnswer:
		n.onAnswer(m)
	case KindCoordinator, KindHeartbeat:
		n.onClaim(m)
	}
}

// OnTimer implements sim.Node. A fired timer whose ID is no longer the one
// the node keeps for that purpose is ignored.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	switch tag {
	case tagAnswer:
		if id == n.answer && n.role == Electing {
			n.becomeCoordinator()
		}
	case tagCoordinator:
		if id == n.coord && n.role == AwaitingCoordinator {
			n.role = Follower
			n.startElection()
		}
	case tagHeartbeat:
		if id == n.beat && n.role == Coordinator {
			n.broadcast(KindHeartbeat, n.others)
			n.beat = n.env.SetTimer(n.cfg.HeartbeatInterval, tagHeartbeat)
		}
	case tagMonitor:
		if id == n.monitor && n.role == Follower {
			n.believe(sim.None, n.leaderEpoch)
			n.startElection()
		}
	}
}

// Role returns the node's protocol state.
func (n *Node) Role() Role { return n.role }

// Epoch returns the highest epoch the node knows.
func (n *Node) Epoch() int64 { return n.epoch }

// Leader returns the coordinator the node believes in (sim.None if none) and
// its epoch.
func (n *Node) Leader() (sim.NodeID, int64) { return n.leader, n.leaderEpoch }

// Priority returns the priority of peer id (its NodeID unless
// Config.Priorities is set); ok is false if id is not a peer.
func (n *Node) Priority(id sim.NodeID) (prio int, ok bool) {
	if i := n.index(id); i >= 0 {
		return n.prio[i], true
	}
	return 0, false
}
