package bully

import (
	"time"

	"github.com/electsim/electsim/contract"
)

// sourceModel is where the contract's model comes from.
const sourceModel = "Garcia-Molina 1982, §3 (assumptions: messages to a live node answered within T, crash failures) and the textbook form (Coulouris et al. 5th ed. §15.3: a synchronous system with reliable links, crash-stop processes)"

// Contract is what the bully algorithm promises with configuration c
// (docs/algorithms/bully.md, "Contract"): within its model — every
// message delivered, answered within T (one-way latency at most T/2 rounded
// down), processes that stop when they fail and never come back, clocks
// that run at rate 1 — only the highest live node declares itself
// coordinator, so no two nodes lead at once (split_brain, no overlap at
// all) and no epoch has two coordinators (election_safety).
//
// Every fault class outside that model is an exception: partition and loss
// (lost or duplicated messages) anywhere; and on a node the finding
// involves: restart (crash-recovery: a recovered node bullies its way back
// with a possibly reused epoch; a crash alone, crash-stop, is the model),
// disk_loss (the epoch counter forgotten), pause (a paused coordinator
// still believes it leads), clock_rate (a fast clock shortens T below a
// round trip) and disk (a slow epoch write holds ANSWER and COORDINATOR
// past T). Wall clocks are never read, so clock_step is no exception. A
// network (or a link fault) slower than T/2 breaks the synchronous
// assumption itself: the run gets no contract (contract.LatencyTerms.Assume);
// a link fault within it (class link) is inside the model.
func Contract(c Config) contract.Contract {
	return contract.Synchronous(c.AnswerTimeout, sourceModel).WithAftermath(Aftermath(c))
}

// Aftermath is how long after a fault ends it can still explain a finding
// (contract.Guarantee.Aftermath): three times two failure-detection
// periods (HeartbeatTimeout, each after a heartbeat that may just have
// gone) and one election round (T and T′): an election a fault set off can
// fail and restart twice before the cluster agrees (a hunt found one that
// needed more than one), docs/algorithms/bully.md, "Contract".
func Aftermath(c Config) time.Duration {
	return 3 * (2*(c.HeartbeatTimeout+c.HeartbeatInterval) + c.AnswerTimeout + c.CoordinatorTimeout)
}
