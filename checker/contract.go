package checker

import (
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// faultSeen records, per fault class, when the run first suffered it: per
// node for the per-node classes, once for the network and service classes.
// Its size is classes × nodes, whatever the run's length, because a
// contract's exception needs only "had it happened by then".
type faultSeen struct {
	perNode [contract.NumClasses][]sim.Time // sim.Never: not yet
	global  [contract.NumClasses]sim.Time
}

func newFaultSeen(standing []StandingFault) faultSeen {
	var f faultSeen
	for i := range f.global {
		f.global[i] = sim.Never
	}
	for _, sf := range standing {
		if sf.Class > 0 && int(sf.Class) < contract.NumClasses {
			f.observeAt(sf.Class, sf.Node, 0)
		}
	}
	return f
}

// observe notes the fault classes r shows, if any (contract.ClassesOf).
func (f *faultSeen) observe(r *sim.Record) {
	cls, n := contract.ClassesOf(r)
	for _, c := range cls[:n] {
		f.observeAt(c, r.Node, r.At)
	}
}

// observeAt notes that class cls hit node (every node: sim.None) at t.
func (f *faultSeen) observeAt(cls contract.FaultClass, node sim.NodeID, t sim.Time) {
	if !cls.PerNode() || node < 0 {
		f.global[cls] = min(f.global[cls], t)
		return
	}
	s := f.perNode[cls]
	for int(node) >= len(s) {
		s = append(s, sim.Never)
	}
	s[node] = min(s[node], t)
	f.perNode[cls] = s
}

// judge sets v's contract verdict under the guarantee on ch's check, if
// the contract has one.
func (c *checker) judge(check string, v *Violation) {
	if v.judged {
		return
	}
	g, ok := c.in.Contract.For(check)
	if !ok && check == CheckLeaderLinearizability {
		// The lock breaks exactly where tenures overlap: without a
		// guarantee of its own, it is held to split_brain's.
		g, ok = c.in.Contract.For(CheckSplitBrain)
		if ok && g.MaxOverlap > 0 {
			ok = false // its Duration is an operation's, not an overlap's: leave it to expect
		}
	}
	if !ok {
		v.Contract = contract.Uncovered
		return
	}
	if check == CheckSplitBrain && g.MaxOverlap > 0 && v.Duration <= g.MaxOverlap {
		v.Contract = contract.WithinBound
		return
	}
	if check == CheckMissedSlots && v.End > c.tl.end {
		// The run ended before the slot's deadline: the cron layer was
		// not yet due to have applied it.
		v.Contract = contract.WithinBound
		return
	}
	if cls, node, at, ok := c.excuse(g, v); ok {
		v.Contract, v.ExcusedBy, v.ExcusedAt = contract.Excused, cls, at
		v.ExcusedNode = c.in.name(node)
		return
	}
	v.Contract = contract.Breach
}

// excuse finds the first of g's exceptions that reached v: a network or
// service fault anywhere, or a per-node fault on a node v involves (every
// node when v names none), on a service node, or anywhere when g says so
// (Guarantee.Anywhere), that first happened no later than v ended.
func (c *checker) excuse(g contract.Guarantee, v *Violation) (contract.FaultClass, sim.NodeID, sim.Time, bool) {
	f := &c.faults
	for _, cls := range g.Unless {
		if cls <= 0 || int(cls) >= contract.NumClasses {
			continue
		}
		if !cls.PerNode() {
			if t := f.global[cls]; t <= v.End {
				return cls, sim.None, t, true
			}
			continue
		}
		if t := f.global[cls]; t <= v.End { // a standing per-node class: every node
			return cls, sim.None, t, true
		}
		for id, t := range f.perNode[cls] {
			node := sim.NodeID(id)
			if t <= v.End && (len(v.NodeIDs) == 0 || containsID(v.NodeIDs, node) || !containsID(c.in.Candidates, node) || g.ExcusesAnywhere(cls)) {
				return cls, node, t, true
			}
		}
	}
	return 0, sim.None, 0, false
}

func containsID(ids []sim.NodeID, id sim.NodeID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
