package sim

import "fmt"

// Fact is the typed meaning of a trace record, for the code that judges a
// run. A checker acts on Record.Type, the numeric fields, Links and Fact;
// never on Name, Detail or notes, which are written for people and may
// change wording at any time (docs/checkers.md, "The typed vocabulary").
//
// The vocabulary is declared here, in the engine, because its emitters live
// in several packages (the engine, services, the fault injector) and its
// readers (the checker) must not name any algorithm: a lease store declares
// that a holder's lease expired with FactLeaseExpired, whatever the store is.
type Fact uint8

// The facts. Each says which record type carries it and what its fields mean.
const (
	// FactNone: the record carries no typed fact beyond its Type.
	FactNone Fact = iota
	// FactCrashed: on RecStepDown, the engine ended the tenure because the
	// node crashed.
	FactCrashed
	// FactLinksCut: on a network RecFault, every directed link in
	// Record.Links went from up to cut.
	FactLinksCut
	// FactLinksRestored: on a network RecFault, every directed link in
	// Record.Links went from cut to up.
	FactLinksRestored
	// FactResigning: on RecFault, the node (Record.Node) is shutting down
	// gracefully at this instant (a SIGTERM with a grace period); its
	// RecStart brings it back.
	FactResigning
	// FactServiceDown: on RecEffect of a service node (a lease store), the
	// service stopped answering every client; on RecCrash of a service
	// node, the same by its crash.
	FactServiceDown
	// FactServiceUp: on RecEffect of a service node, it answers again.
	FactServiceUp
	// FactLeaseAcquired: on RecEffect of a lease service, node A acquired
	// the lease with token B.
	FactLeaseAcquired
	// FactLeaseRenewed: on RecEffect of a lease service, holder A renewed
	// its lease (token B).
	FactLeaseRenewed
	// FactLeaseReleased: on RecEffect of a lease service, holder A released
	// its lease (token B).
	FactLeaseReleased
	// FactLeaseExpired: on RecEffect of a lease service, holder A's lease
	// (token B) expired by the service's clock.
	FactLeaseExpired
	// FactLeaseReverted: on RecEffect of a lease service, a service
	// failover lost acknowledged writes (the lease went back to an older
	// state).
	FactLeaseReverted
	// FactRunStarted: on RecEffect of a cron node, a run of slot B of job
	// index C started with fencing token A.
	FactRunStarted
	// FactRunSkipped: on RecEffect of a cron node, it did not run slot B of
	// job index C (misfire policy, lock held elsewhere).
	FactRunSkipped
	// FactRunFinished: on RecEffect of a cron node, its run of slot B of job
	// index C (fencing token A) made its last write.
	FactRunFinished
	// FactClockRate: on RecFault, the node's monotonic or wall clock now
	// runs at a rate other than exact (a change back to exact carries no
	// fact).
	FactClockRate
	// FactClockStep: on RecFault, the node's wall clock was stepped.
	FactClockStep
	// FactLinkChanged: on RecFault, a link's (or every link's) latency or
	// ordering was reconfigured (its loss and duplication may have changed
	// too: then FactLinkLossyChanged).
	FactLinkChanged
	// FactDiskLatency: on RecFault, the node's disk write latency changed.
	FactDiskLatency
	// FactDiskLost: on RecStart, the node restarted without its durable
	// state (Sim.Restart with keepDisk false).
	FactDiskLost
	// FactLinkLossy: on RecFault, a link (or every link) was reconfigured
	// to lose or duplicate messages, its latency and ordering unchanged.
	FactLinkLossy
	// FactLinkLossyChanged: on RecFault, a link's latency or ordering was
	// reconfigured and it now loses or duplicates messages.
	FactLinkLossyChanged
	// FactProtocolState: on RecEffect of a candidate, the node just
	// reached protocol state number A of the states its algorithm declares
	// (registry.Algorithm.States: "vote_granted", "term_bumped", ...), or,
	// past those, of its cron mode's step states (cron.ModeStates), which
	// the cron layer's services and workers report too; B
	// is the node's epoch (a term) when the state has one. Fault triggers
	// (faults.Trigger.State) and the hunt's coverage act on it. It is an
	// observation, not behaviour: the trace hash leaves it out, as it does
	// notes, so declaring states changes no run's hash.
	FactProtocolState
	// The execution lifecycle of queue-mode cron (cron.Scheduler,
	// cron.Worker, the queue and the execution store): one contiguous block.
	//
	// FactExecCreated: on RecEffect of the execution store, it created
	// execution A for slot B of job index C.
	FactExecCreated
	// FactExecStarted: on RecEffect of a worker, its run A (unique per
	// worker) of slot B of job index C started.
	FactExecStarted
	// FactExecCompleted: on RecEffect of a worker, its run A of slot B of
	// job index C completed (its last write sent, the job succeeded).
	FactExecCompleted
	// FactExecFailed: on RecEffect of a worker, its run A of slot B of job
	// index C failed or timed out and stopped.
	FactExecFailed
	// FactExecDead: on RecEffect of the execution store or a worker,
	// execution A of slot B of job index C was declared dead (stale
	// heartbeat, retries exhausted, dead-lettered).
	FactExecDead
	// FactExecRedelivered: on RecEffect of the queue, the message of
	// execution A (slot B, job index C) became visible again after its
	// visibility timeout passed unacknowledged.
	FactExecRedelivered
	// FactExecHeartbeat: on RecEffect of a worker, it sent a heartbeat of
	// execution A (slot B, job index C) to the execution store; its first
	// one follows the message's receipt at once.
	FactExecHeartbeat
	// FactExecAcked: on RecEffect of a worker, it acknowledged the message
	// of execution A (slot B, job index C) to the queue.
	FactExecAcked
	// The ends of faults, so a checker can tell how long a fault lasted
	// (docs/checkers.md, "Excuses"), not only when it first struck.
	//
	// FactClockExact: on RecFault, the node's clock (monotonic, wall or
	// both) runs at the exact rate again.
	FactClockExact
	// FactDiskRestored: on RecFault, the node's disk write latency is back
	// to what it was configured with before the run started.
	FactDiskRestored
	// FactLinksReset: on RecFault, every directed link in Record.Links
	// (every link of the network when Links is empty) is back to the
	// latency, ordering, loss and duplication it had when the run started.
	FactLinksReset
	// FactClockUnstepped: on RecFault, the node's wall clock was stepped
	// back by exactly what the steps since the run started added: the
	// end of a clock offset (its wall clock still carries whatever its
	// rate lost or gained meanwhile).
	FactClockUnstepped
	// FactLeaseWriteLag: on RecEffect of a candidate, a write of its lease
	// record it made just succeeded carrying a time B nanoseconds older
	// than its success (client-go's tryAcquireOrRenew takes now once, at
	// the attempt's start, and writes it as renewTime however long the
	// attempt took). An observation, not behaviour: like FactProtocolState
	// it is left out of the trace hash.
	FactLeaseWriteLag
	numFacts
)

var factNames = [...]string{"", "crashed", "links_cut", "links_restored", "resigning", "service_down", "service_up",
	"lease_acquired", "lease_renewed", "lease_released", "lease_expired", "lease_reverted", "run_started", "run_skipped", "run_finished",
	"clock_rate", "clock_step", "link_changed", "disk_latency", "disk_lost", "link_lossy", "link_lossy_changed", "protocol_state",
	"exec_created", "exec_started", "exec_completed", "exec_failed", "exec_dead", "exec_redelivered",
	"exec_heartbeat", "exec_acked", "clock_exact", "disk_restored", "links_reset", "clock_unstepped", "lease_write_lag"}

// factNames has one name per Fact: a Fact added without its name, or a
// name without its Fact, does not compile.
var _ = [1]struct{}{}[len(factNames)-int(numFacts)]

// String names the fact, for test failures and %v ("" for FactNone).
func (f Fact) String() string {
	if int(f) < len(factNames) {
		return factNames[f]
	}
	return fmt.Sprintf("fact(%d)", uint8(f))
}

// Link is one directed link, from one node to another.
type Link struct {
	From, To NodeID
}
