package etcdelect

import "github.com/electsim/electsim/sim"

// The protocol states an etcd election candidate reports
// (registry.Algorithm.States), so a fault can fire right after one
// (docs/hunting.md, "Protocol states"): their order is the index each
// sim.FactProtocolState effect carries in A.
const (
	// StateKeyPut: the candidate's key under the election prefix exists,
	// attached to its session's lease (Campaign's Txn answered).
	StateKeyPut = iota
	// StateKeepAliveSent: the session sent a lease keep-alive and waits for
	// its answer.
	StateKeepAliveSent
	// StateKeyDeleted: the watch on the predecessor's key fired (it was
	// deleted or its lease expired: waitDeletes returns) and the candidate
	// looks again.
	StateKeyDeleted
	// StateLeading: Campaign returned; the candidate acts as leader.
	StateLeading
)

// States names the protocol states in index order.
var States = []string{"key_put", "keepalive_sent", "key_deleted", "leading"}

// stateNames are the effects' names, for people (the typed meaning is the
// fact and A).
var stateNames = [...]string{"etcd.key_put", "etcd.keepalive_sent", "etcd.key_deleted", "etcd.leading"}

// one effect name per state: a state added without its name does not compile.
var _ = [1]struct{}{}[len(stateNames)-(StateLeading+1)]

// reached records that the candidate just reached protocol state st; B is
// its key's create revision (0 before it has one).
func (n *Node) reached(st int) {
	n.env.Effect(sim.StateFields{State: int64(st), Epoch: n.myRev}.StateEffect(stateNames[st]))
}
