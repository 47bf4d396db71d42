package faults

import (
	"fmt"

	"github.com/electsim/electsim/sim"
)

// TargetKind says how a Target is resolved when its fault fires.
type TargetKind string

// The target kinds. "Candidates" are Environment.Candidates (the election
// nodes, not the services). Role kinds are resolved from the algorithms'
// observations at the instant the fault fires, never from their internals.
const (
	// TargetLeader is the candidate acting as leader (Sim.Leading); with
	// several (a stale leader and a new one), the highest epoch, then the
	// lowest ID. Nothing if no candidate acts as leader.
	TargetLeader TargetKind = "leader"
	// TargetLeaseHolder is the holder of the lease record
	// (Environment.LeaseKey) in the lease store: nothing if the record is
	// absent, free, or (walltime) its lock_until has passed on the store's
	// wall clock.
	TargetLeaseHolder TargetKind = "lease_holder"
	// TargetCandidate is one up candidate not acting as leader, at random.
	TargetCandidate TargetKind = "candidate"
	// TargetFollowers is every candidate not acting as leader, provided some
	// candidate does (nothing when there is no leader).
	TargetFollowers TargetKind = "followers"
	// TargetRandom is Count (default 1) distinct up candidates at random.
	TargetRandom TargetKind = "random"
	// TargetRandomMinority is a random set of (len(Candidates)-1)/2 up
	// candidates (fewer if not enough are up).
	TargetRandomMinority TargetKind = "random_minority"
	// TargetNode is the nodes listed in Target.Nodes (candidates or services).
	TargetNode TargetKind = "node"
	// TargetAll is every candidate.
	TargetAll TargetKind = "all"
	// TargetStore is the lease store node (Environment.Store).
	TargetStore TargetKind = "store"
	// TargetResource is the fenced resource node (Environment.Resource).
	TargetResource TargetKind = "resource"
	// TargetEventNode is the node whose event fired the fault's trigger
	// ("the node that just renewed"); only for faults with After.
	TargetEventNode TargetKind = "event_node"
	// TargetService is one service node at random (sim.Service: a lease
	// store, each of Redlock's masters, the fenced resource), whichever the
	// run has: nothing when it has none. One nemesis can so aim at the
	// services of whatever algorithm a scenario runs under (simrun -algo),
	// where store would be refused for an algorithm without a store.
	TargetService TargetKind = "service"
	// TargetWorkers is every queue-mode worker (Environment.QueueMode).
	TargetWorkers TargetKind = "workers"
	// TargetBusyWorker is one up worker, at random, that is running an
	// execution (its node reports Busy); nothing if none is.
	TargetBusyWorker TargetKind = "busy_worker"
	// TargetQueue is queue mode's message queue node.
	TargetQueue TargetKind = "queue"
	// TargetExecStore is queue mode's execution store node.
	TargetExecStore TargetKind = "exec_store"
)

// queueTargets are the kinds that need queue mode's nodes.
var queueTargets = []TargetKind{TargetWorkers, TargetBusyWorker, TargetQueue, TargetExecStore}

var targetKinds = []TargetKind{TargetLeader, TargetLeaseHolder, TargetCandidate, TargetFollowers,
	TargetRandom, TargetRandomMinority, TargetNode, TargetAll, TargetStore, TargetResource, TargetEventNode, TargetService,
	TargetWorkers, TargetBusyWorker, TargetQueue, TargetExecStore}

// Target names the nodes a fault acts on, resolved when the fault fires.
type Target struct {
	// Kind says how to resolve the target.
	Kind TargetKind
	// Nodes lists the nodes for Kind "node".
	Nodes []sim.NodeID
	// Count is how many candidates Kind "random" picks. Default 1.
	Count int
}

// Leader returns the "leader" target.
func Leader() Target { return Target{Kind: TargetLeader} }

// LeaseHolder returns the "lease_holder" target.
func LeaseHolder() Target { return Target{Kind: TargetLeaseHolder} }

// Random returns the "random" target (one candidate).
func Random() Target { return Target{Kind: TargetRandom} }

// Nodes returns the "node" target for the given IDs.
func Nodes(ids ...sim.NodeID) Target { return Target{Kind: TargetNode, Nodes: ids} }

// Of returns a target of the given kind.
func Of(kind TargetKind) Target { return Target{Kind: kind} }

// Validate reports an unknown kind or fields that do not fit it.
func (t Target) Validate() error {
	known := false
	for _, k := range targetKinds {
		known = known || k == t.Kind
	}
	switch {
	case t.Kind == "":
		return fmt.Errorf("kind: missing (one of %v)", targetKinds)
	case !known:
		return fmt.Errorf("kind: unknown %q (one of %v)", string(t.Kind), targetKinds)
	case t.Kind == TargetNode && len(t.Nodes) == 0:
		return fmt.Errorf("nodes: kind %q needs at least one node", string(t.Kind))
	case t.Kind != TargetNode && len(t.Nodes) > 0:
		return fmt.Errorf("nodes: only for kind %q, not %q", string(TargetNode), string(t.Kind))
	case t.Count < 0:
		return fmt.Errorf("count: negative %d", t.Count)
	case t.Count > 0 && t.Kind != TargetRandom:
		return fmt.Errorf("count: only for kind %q, not %q", string(TargetRandom), string(t.Kind))
	}
	for i, id := range t.Nodes {
		if id < 0 {
			return fmt.Errorf("nodes[%d]: invalid node %d", i, id)
		}
	}
	return nil
}

// String formats the target as in trace notes: "leader", "random(2)", "node(1,3)".
func (t Target) String() string {
	switch {
	case t.Kind == TargetNode:
		s := "node("
		for i, id := range t.Nodes {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprint(int(id))
		}
		return s + ")"
	case t.Kind == TargetRandom && t.Count > 1:
		return fmt.Sprintf("random(%d)", t.Count)
	}
	return string(t.Kind)
}
