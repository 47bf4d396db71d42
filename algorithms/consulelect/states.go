package consulelect

import "github.com/electsim/electsim/sim"

// The protocol states a Consul lock candidate reports
// (registry.Algorithm.States), so a fault can fire right after one
// (docs/hunting.md, "Protocol states"): their order is the index each
// sim.FactProtocolState effect carries in A.
const (
	// StateSessionCreated: the candidate's session exists (Session.Create
	// answered) and its RenewPeriodic starts.
	StateSessionCreated = iota
	// StateRenewed: a session renewal succeeded; the session now runs a
	// full TTL (times the server's 2× grace) from it.
	StateRenewed
	// StateLockDelayActive: an acquire of a free key was refused: a
	// lock-delay from an invalidated session is in force, and the
	// candidate waits LockRetryTime (api/lock.go Lock's timed wait).
	StateLockDelayActive
	// StateLockAcquired: the lock is the candidate's (Lock returns its
	// leaderCh; before the application's token read, with a token).
	StateLockAcquired
)

// States names the protocol states in index order.
var States = []string{"session_created", "renewed", "lock_delay_active", "lock_acquired"}

// stateNames are the effects' names, for people (the typed meaning is the
// fact and A).
var stateNames = [...]string{"consul.session_created", "consul.renewed", "consul.lock_delay_active", "consul.lock_acquired"}

// one effect name per state: a state added without its name does not compile.
var _ = [1]struct{}{}[len(stateNames)-(StateLockAcquired+1)]

// reached records that the candidate just reached protocol state st; B is
// its tenure's index (0 outside one).
func (n *Node) reached(st int) {
	n.env.Effect(sim.StateFields{State: int64(st), Epoch: n.token}.StateEffect(stateNames[st]))
}
