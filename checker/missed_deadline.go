package checker

import (
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// slotDeadline dates a missed slot that fell due at due (true time) under
// the missed_slots guarantee g (docs/cron.md, "Missed slots: the bound"):
// the run that should have applied it starts at due on a tenure that
// covers due and lasts g.Deadline past it, else at the start of the first
// tenure that begins within g.Recovery after due and lasts g.Deadline;
// the slot is due applied g.Deadline after that start. With no such
// tenure it was never going to be recovered, and the deadline is the
// last such start, due + Recovery, + Deadline. A tenure still open when
// the trace ends counts as lasting (the deadline is then past the end,
// and the finding within bound).
//
// nodes are the ones the finding involves, from the tenures (RecLead,
// RecStepDown, crashes): every node leading at due (none: the last to
// lead before it, whose loss left the slot leaderless) and the node whose
// tenure was due to run it.
func (c *checker) slotDeadline(due sim.Time, g contract.Guarantee) (end sim.Time, nodes []sim.NodeID) {
	d, rec := sim.Time(g.Deadline), sim.Time(g.Recovery)
	lasts := func(t *tenure, from sim.Time) bool { return t.open() || t.end >= from+d }
	add := func(n sim.NodeID) {
		if !containsID(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	start := sim.Never
	prev := -1 // the last tenure to end at or before due
	for i := range c.tl.tenures {
		t := &c.tl.tenures[i]
		switch {
		case t.start <= due && (t.end > due || t.open()):
			add(t.node)
			if lasts(t, due) {
				start = min(start, due)
			}
		case t.start <= due && (prev < 0 || t.end >= c.tl.tenures[prev].end):
			prev = i
		}
	}
	if len(nodes) == 0 && prev >= 0 {
		add(c.tl.tenures[prev].node)
	}
	if start == sim.Never {
		for i := range c.tl.tenures { // in start order: the first that lasts
			t := &c.tl.tenures[i]
			if t.start > due && t.start <= due+rec && lasts(t, t.start) {
				start = t.start
				add(t.node)
				break
			}
		}
	}
	if start == sim.Never {
		start = due + rec
	}
	return start + d, nodes
}
