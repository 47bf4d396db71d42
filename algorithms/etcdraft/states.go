package etcdraft

import (
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/electsim/electsim/sim"
)

// The protocol states an etcdraft node reports (registry.Algorithm.States),
// read off the library's Ready (the adapter cannot see inside raft.go),
// so a fault can fire right after one (docs/hunting.md, "Protocol
// states"): their order is the index each sim.FactProtocolState effect
// carries in A. The names are raft's (algorithms/raftelect/states.go).
const (
	// StateVoteGranted: a Ready carried a MsgVoteResp that grants the vote
	// (raft.go stepFollower's grant); the engine sends it once the Ready's
	// HardState is durable.
	StateVoteGranted = iota
	// StateTermBumped: the Ready's HardState carries a higher term.
	StateTermBumped
	// StatePersisted: the adapter issued the write of the Ready's HardState
	// and entries (MustSync); durable after the disk's fsync latency.
	StatePersisted
)

// States names the protocol states in index order.
var States = []string{"vote_granted", "term_bumped", "persisted"}

// stateNames are the effects' names, for people (the typed meaning is the
// fact and A).
var stateNames = [...]string{"etcdraft.vote_granted", "etcdraft.term_bumped", "etcdraft.persisted"}

// one effect name per state: a state added without its name does not compile.
var _ = [1]struct{}{}[len(stateNames)-(StatePersisted+1)]

// reached records that the node just reached protocol state st, in term.
func (n *Node) reached(st int) {
	n.env.Effect(sim.StateFields{State: int64(st), Epoch: int64(n.term)}.StateEffect(stateNames[st]))
}

// grantsVote reports whether m grants a vote (not a pre-vote: a pre-vote
// changes no durable state).
func grantsVote(m *pb.Message) bool { return m.GetType() == pb.MsgVoteResp && !m.GetReject() }
