package faults

import (
	"fmt"
	"slices"
	"strings"

	"github.com/electsim/electsim/sim"
)

// trigger is an armed Fault.After.
type trigger struct {
	f     *Fault
	src   string
	armAt sim.Time
	fired bool
}

// sink watches the trace for trigger events and, without a StoreNode, the
// lease holder. It is installed only when needed: a sink makes the engine
// build a record for every delivery.
type sink struct{ in *Injector }

// Record implements sim.Sink.
func (k sink) Record(r *sim.Record) { k.in.observe(r) }

// observe classifies a record as a trigger event and fires matching triggers.
func (in *Injector) observe(r *sim.Record) {
	var event string
	subject := r.Node
	if r.Type == sim.RecEffect {
		// Typed facts, emitted once by their owners (sim.Fact); a lease
		// service names the record an effect concerns in Key.
		switch r.Fact {
		case sim.FactProtocolState:
			st := r.ProtocolState().State
			if st < 0 || st >= int64(len(in.env.States)) {
				return
			}
			if !in.isCand[r.Node] && st < int64(len(in.env.States)-in.env.CronStates) {
				return // an algorithm's states count from candidates only
			}
			event = statePrefix + in.env.States[st]
		case sim.FactLeaseAcquired, sim.FactLeaseRenewed, sim.FactLeaseReleased, sim.FactLeaseExpired, sim.FactLeaseReverted:
			if r.Node != in.env.Store || r.Key != in.env.LeaseKey {
				return
			}
			in.followHolder(r)
			subject = r.Lease().Holder
		}
	}
	if i, ok := EventOf(r); ok {
		event = events[i]
	}
	if event == "" || in.settled {
		return
	}
	for _, t := range in.triggers {
		if t.fired || r.At < t.armAt || t.f.After.key() != event || !in.matches(t.f.After.Node, event, subject) {
			continue
		}
		t.fired = true
		delay := t.f.After.Delay.Draw(in.rng)
		f, src := t.f, t.src
		in.s.Note(NoteTrigger, fmt.Sprintf("%s: %s of %s at %v, firing in %v", src, strings.TrimPrefix(event, statePrefix), in.s.NodeName(subject), r.At, sim.Time(delay)), subject)
		c := &ctx{src: src, event: subject}
		in.s.AtLate(r.At.Add(delay), func() { in.fire(f, c, in.rng) })
	}
}

// followHolder tracks the lease holder from the store's effects (used only
// when there is no StoreNode to read).
func (in *Injector) followHolder(r *sim.Record) {
	switch r.Fact {
	case sim.FactLeaseAcquired, sim.FactLeaseRenewed, sim.FactLeaseReverted:
		l := r.Lease()
		in.effHolder, in.effToken = l.Holder, l.Token
	case sim.FactLeaseReleased, sim.FactLeaseExpired:
		in.effHolder, in.effToken = sim.None, 0
	}
}

// matches reports whether the event's node is the one the trigger waits for.
func (in *Injector) matches(t Target, event string, subject sim.NodeID) bool {
	if subject < 0 {
		return false
	}
	leading, _, _ := in.s.Leading(subject)
	switch t.Kind {
	case "":
		return true
	case TargetNode:
		return slices.Contains(t.Nodes, subject)
	case TargetAll:
		return in.isCand[subject]
	case TargetLeader:
		return event == EventElected || event == EventSteppedDown || (in.isCand[subject] && leading)
	case TargetLeaseHolder:
		if event == EventRenew || event == EventAcquired || event == EventExpired {
			return true
		}
		h, _, ok := in.holder()
		return ok && h == subject
	case TargetCandidate, TargetFollowers:
		return in.isCand[subject] && !leading
	case TargetStore:
		return subject == in.env.Store
	case TargetResource:
		return subject == in.env.Resource
	case TargetWorkers, TargetBusyWorker:
		return in.env.QueueMode != nil && slices.Contains(in.env.QueueMode.Workers, subject)
	case TargetQueue:
		return in.env.QueueMode != nil && subject == in.env.QueueMode.Queue
	case TargetExecStore:
		return in.env.QueueMode != nil && subject == in.env.QueueMode.ExecStore
	}
	return false
}
