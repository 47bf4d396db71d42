// Package etcdraft runs the production go.etcd.io/raft/v3 library (RawNode)
// inside the simulator, as a reference election algorithm under the same
// faults as the others. The adapter drives the library the way etcd server
// does — ticks from a clock, Step for every received message, and the Ready /
// Advance loop with HardState and entries made durable before the messages
// that depend on them leave — but with the node's simulated monotonic clock,
// Env.Persist and Env.Send, and with the library's global randomness routed to
// the node's own stream (see rand.go).
package etcdraft

import (
	"fmt"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/electsim/electsim/sim"
)

// tagTick is the tag of the node's only timer, the tick timer.
const tagTick = 1

// Node is one etcd raft member. Raft IDs are sim node IDs plus one (raft
// reserves 0 for "none").
type Node struct {
	cfg   Config
	peers []sim.NodeID

	env     sim.Env
	rn      *raft.RawNode
	storage *raft.MemoryStorage
	rr      streamReader
	tick    sim.TimerID
	buf     []byte
	halted  string // the library's panic message once halted
	// received is the message a delivery of a kind the library does not
	// keep is stepped as (see receive): reused, so a heartbeat costs no
	// copy on the heap.
	received pb.Message

	// The library's state as of the last Ready, and what was reported.
	term       uint64
	state      raft.StateType
	lead       uint64
	leading    bool
	leaderTerm uint64
	belief     sim.NodeID
	beliefTerm uint64
}

// New returns a member of the group made of peers (all members' IDs,
// including this node's). It panics if cfg is invalid; check cfg.Validate
// first for a friendly error.
func New(cfg Config, peers []sim.NodeID) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, peers: append([]sim.NodeID(nil), peers...)}, nil
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

func raftID(id sim.NodeID) uint64 { return uint64(id) + 1 }

func simID(id uint64) sim.NodeID {
	if id == raft.None {
		return sim.None
	}
	return sim.NodeID(id - 1)
}

// Start implements sim.Node. The group's membership is bootstrapped the way
// the library recommends (rawnode.go, NewRawNode): a storage whose snapshot
// carries the ConfState, rather than ConfChange entries — so terms start at 0
// and the first election is for term 1. Durable HardState and entries, if
// any, are loaded on top.
func (n *Node) Start(env sim.Env, restored []byte) {
	*n = Node{cfg: n.cfg, peers: n.peers, env: env, belief: sim.None}
	n.rr.r = env.Rand()
	n.enter()
	defer n.exit()
	defer n.recoverLib()

	n.storage = raft.NewMemoryStorage()
	voters := make([]uint64, len(n.peers))
	for i, p := range n.peers {
		voters[i] = raftID(p)
	}
	boot := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{ConfState: &pb.ConfState{Voters: voters}}}
	if err := n.storage.ApplySnapshot(boot); err != nil {
		panic(fmt.Sprintf("etcdraft: %s: bootstrap: %v", env.Name(), err))
	}
	if len(restored) > 0 {
		n.restore(restored)
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              raftID(env.ID()),
		ElectionTick:    n.cfg.ElectionTick,
		HeartbeatTick:   n.cfg.HeartbeatTick,
		Storage:         n.storage,
		MaxSizePerMsg:   maxSizePerMsgBytes,
		MaxInflightMsgs: maxInflightMsgs,
		PreVote:         n.cfg.PreVote,
		CheckQuorum:     n.cfg.CheckQuorum,
		Logger:          discardLogger{},
	})
	if err != nil {
		panic(fmt.Sprintf("etcdraft: %s: %v", env.Name(), err))
	}
	n.rn = rn
	st := rn.BasicStatus()
	n.term, n.state, n.lead = st.GetTerm(), st.RaftState, st.Lead
	n.tick = env.SetTimer(n.cfg.TickInterval, tagTick)
	n.handleReady()
}

// OnTimer implements sim.Node: one library tick per TickInterval of the
// node's monotonic clock.
func (n *Node) OnTimer(id sim.TimerID, tag int) {
	if tag != tagTick || id != n.tick || n.rn == nil {
		return
	}
	n.enter()
	defer n.exit()
	defer n.recoverLib()
	n.tick = n.env.SetTimer(n.cfg.TickInterval, tagTick)
	n.rn.Tick()
	n.handleReady()
}

// OnMessage implements sim.Node: the raftpb.Message in the body is stepped
// into the library.
func (n *Node) OnMessage(m sim.Message) {
	msg, ok := m.Body.(*pb.Message)
	if !ok || n.rn == nil {
		return
	}
	n.enter()
	defer n.exit()
	defer n.recoverLib()
	// Errors are the library refusing a message (e.g. a local type from the
	// network); a real transport would drop it too.
	_ = n.rn.Step(n.receive(msg))
	n.handleReady()
}

// Term returns the node's current term (as of its last Ready).
func (n *Node) Term() int64 { return int64(n.term) }

// State returns the library's role for this node.
func (n *Node) State() raft.StateType { return n.state }

// Role returns the role as a short word: follower, candidate,
// pre-candidate or leader.
func (n *Node) Role() string {
	switch n.state {
	case raft.StateLeader:
		return "leader"
	case raft.StateCandidate:
		return "candidate"
	case raft.StatePreCandidate:
		return "pre-candidate"
	}
	return "follower"
}

// Leader returns the leader this node knows of (sim.None if none).
func (n *Node) Leader() sim.NodeID { return simID(n.lead) }

// IsLeader reports whether the node is the leader.
func (n *Node) IsLeader() bool { return n.state == raft.StateLeader }

// Config returns the node's configuration.
func (n *Node) Config() Config { return n.cfg }
