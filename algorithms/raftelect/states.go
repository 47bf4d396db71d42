package raftelect

import "github.com/electsim/electsim/sim"

// The protocol states a raft node reports (registry.Algorithm.States), so a
// fault can fire right after one (docs/hunting.md): their order is the
// index each sim.FactProtocolState effect carries in A.
const (
	// StateVoteGranted: the node granted a RequestVote (Figure 2's
	// RequestVote receiver) and sent its answer; the answer leaves once the
	// vote is durable (with persist on).
	StateVoteGranted = iota
	// StateTermBumped: the node's currentTerm rose (it campaigned, or
	// adopted a higher term it saw).
	StateTermBumped
	// StatePersisted: the node issued the write of currentTerm and votedFor
	// (persist on); the write is durable after the disk's fsync latency,
	// so a crash right after this state loses it.
	StatePersisted
)

// States names the protocol states in index order.
var States = []string{"vote_granted", "term_bumped", "persisted"}

// stateNames are the effects' names, for people (the typed meaning is
// the fact and A).
var stateNames = [...]string{"raft.vote_granted", "raft.term_bumped", "raft.persisted"}

// one effect name per state: a state added without its name does not compile.
var _ = [1]struct{}{}[len(stateNames)-3]

// reached records that the node just reached protocol state st, in term.
func (n *Node) reached(st int) {
	n.env.Effect(sim.StateFields{State: int64(st), Epoch: n.term}.StateEffect(stateNames[st]))
}
