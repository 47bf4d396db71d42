package checker

import (
	"slices"
	"sort"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// RelevantFaults lists the injected faults that could explain v, most
// relevant first: the one selection behind every explanation of a finding
// (a sweep's terminal summary and a hunt's, ExplainFinding).
//
// A fault is relevant when it acted on one of v's nodes, on a service node
// (a node that is not a candidate: a lease store, the fenced resource, a
// queue, its workers, the API server) or on every node (a fault of no
// node: links between every node), and did not begin after v's window
// ended (it cannot have caused it). A finding that names no node (a missed
// or lost slot without a contract) involves every node. A heal is never a
// cause: it ends faults. Neither are the injector's no-op notes (a skip,
// "settle: reverting 0 active faults"), which Applied never lists.
//
// They are ranked by: acting during v's window before not; on v's own
// nodes before only on service nodes; nearest in time (the latest to end
// before the window, the earliest to begin within it); then injection
// order.
func RelevantFaults(applied []faults.Applied, v Violation, candidates []sim.NodeID) []faults.Applied {
	from, to := findingWindow(v)
	own := func(n sim.NodeID) bool { return len(v.NodeIDs) == 0 || slices.Contains(v.NodeIDs, n) }
	service := func(n sim.NodeID) bool { return !slices.Contains(candidates, n) }
	type ranked struct {
		a        faults.Applied
		during   bool
		onOwn    bool
		distance sim.Time
	}
	var out []ranked
	for _, a := range applied {
		if a.Kind == faults.KindHeal || a.At > to {
			continue
		}
		onOwn := len(a.Nodes) == 0 || slices.ContainsFunc(a.Nodes, own)
		if !onOwn && !slices.ContainsFunc(a.Nodes, service) {
			continue
		}
		end := sim.Never
		if a.Reverted {
			end = a.RevertedAt
		}
		r := ranked{a: a, onOwn: onOwn}
		switch {
		case end < from:
			r.distance = from - end // ended before: the later, the nearer
		case a.At > from:
			r.during, r.distance = true, a.At-from // began within: the sooner, the nearer
		default:
			r.during = true // acting when it began
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.during != y.during {
			return x.during
		}
		if x.onOwn != y.onOwn {
			return x.onOwn
		}
		return x.distance < y.distance
	})
	res := make([]faults.Applied, len(out))
	for i, r := range out {
		res[i] = r.a
	}
	return res
}

// findingWindow is the stretch of true time in which a fault acting could
// have caused v: from its start to its end. A slot finding with no
// deadline (End == At: missed_slots without a contract, lost_slot) is a
// slot no run applied or completed by the end of the run, so its window
// runs from the slot's due time to the end.
func findingWindow(v Violation) (from, to sim.Time) {
	from, to = v.At, max(v.End, v.At)
	if to == from && (v.Kind == CheckMissedSlots || v.Kind == CheckLostSlot) {
		to = sim.Never
	}
	return from, to
}
