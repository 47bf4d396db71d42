package zkelect

import "github.com/electsim/electsim/sim"

// The protocol states a LeaderLatch candidate reports
// (registry.Algorithm.States), so a fault can fire right after one
// (docs/hunting.md, "Protocol states"): their order is the index each
// sim.FactProtocolState effect carries in A.
const (
	// StateLatchCreated: the candidate's EPHEMERAL_SEQUENTIAL latch znode
	// exists (LeaderLatch.start's create answered).
	StateLatchCreated = iota
	// StateSuspended: the connection went SUSPENDED (Curator's
	// ConnectionState): under the standard policy the latch stops leading,
	// under the session policy it leads on until LOST.
	StateSuspended
	// StateWatchFired: the watch on the predecessor's znode fired (it was
	// deleted), and the candidate checks its leadership again.
	StateWatchFired
	// StateLeading: the latch's isLeader() fired (before the application's
	// token read, with token czxid).
	StateLeading
)

// States names the protocol states in index order.
var States = []string{"latch_created", "suspended", "watch_fired", "leading"}

// stateNames are the effects' names, for people (the typed meaning is the
// fact and A).
var stateNames = [...]string{"zookeeper.latch_created", "zookeeper.suspended", "zookeeper.watch_fired", "zookeeper.leading"}

// one effect name per state: a state added without its name does not compile.
var _ = [1]struct{}{}[len(stateNames)-(StateLeading+1)]

// reached records that the candidate just reached protocol state st; B is
// its latch znode's czxid (0 before it has one).
func (n *Node) reached(st int) {
	n.env.Effect(sim.StateFields{State: int64(st), Epoch: n.myNode.Czxid}.StateEffect(stateNames[st]))
}
