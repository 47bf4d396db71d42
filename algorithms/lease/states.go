package lease

import "github.com/electsim/electsim/sim"

// The protocol states a lease candidate reports (registry.Algorithm.States),
// so a fault can fire right after one (docs/hunting.md, "Protocol states"):
// their order is the index each sim.FactProtocolState effect carries in A.
const (
	// StateAcquired: the candidate just took the lease and starts its
	// tenure (before the application's token read, k8s with token fence).
	StateAcquired = iota
	// StateRenewSent: the leader sent a renewal (client-go's
	// tryAcquireOrRenew inside renew, a ttl or walltime extension) and
	// waits for its answer: a cut here leaves the renewal in flight.
	StateRenewSent
	// StateRenewed: a renewal succeeded; the lease now runs a full
	// duration from it, the latest point a holder can be cut off and still
	// believe it leads for longest.
	StateRenewed
)

// States names the protocol states in index order.
var States = []string{"lease_acquired", "renew_sent", "renewed"}

// stateNames are the effects' names, for people (the typed meaning is the
// fact and A).
var stateNames = [...]string{"lease.lease_acquired", "lease.renew_sent", "lease.renewed"}

// one effect name per state: a state added without its name does not compile.
var _ = [1]struct{}{}[len(stateNames)-(StateRenewed+1)]

// reached records that the candidate just reached protocol state st, in
// its tenure's token (0 outside a tenure).
func (n *Node) reached(st int) {
	n.env.Effect(sim.StateFields{State: int64(st), Epoch: n.token}.StateEffect(stateNames[st]))
}
