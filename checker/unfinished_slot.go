package checker

import (
	"sort"

	"github.com/electsim/electsim/sim"
)

// unfinishedSlots follows, for lost_slot, the slots some execution
// started and none completed, whatever the leadership when they came due:
// a slot due while no scheduler led (a failover gap) that a new leader
// started late and something then killed (Kubernetes' Replace deleting
// its Job, a crash with at-most-once delivery) is as lost as one due
// while a scheduler led. Memory: one entry per slot started and not yet
// completed.
type unfinishedSlots struct {
	open map[slotID]sim.Time // lookups only: first start of a slot no run completed yet
}

// observe takes an execution fact of slot k; first says no run of k
// started before (execState.started): a start after a completion is a
// re-run of a slot already done, not a new loss.
func (u *unfinishedSlots) observe(r *sim.Record, k slotID, first bool) {
	switch r.Fact {
	case sim.FactExecStarted:
		if first {
			if u.open == nil {
				u.open = map[slotID]sim.Time{}
			}
			u.open[k] = r.At
		}
	case sim.FactExecCompleted:
		delete(u.open, k)
	}
}

// startedNeverCompleted lists the slots of the window (from, to] (wall
// ns) some run started and none completed, by slot then job, with their
// first start.
func (u *unfinishedSlots) startedNeverCompleted(from, to int64) []unfinished {
	var out []unfinished
	for k, at := range u.open { // collected then sorted: order cannot leak
		if k.slot > from && k.slot <= to {
			out = append(out, unfinished{k: k, start: at})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].k.slot != out[j].k.slot {
			return out[i].k.slot < out[j].k.slot
		}
		return out[i].k.job < out[j].k.job
	})
	return out
}

// unfinished is a slot started at start and never completed.
type unfinished struct {
	k     slotID
	start sim.Time
}
