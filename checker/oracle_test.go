package checker_test

// The oracle: a second, deliberately simple implementation of every safety
// check the streaming checker makes (docs/checkers.md, "The oracle"). It
// works on the whole recorded trace and the whole resource log at once,
// with quadratic loops and brute-force searches, and shares no code with
// the checker: it lives in the external test package, so it can only see
// what any user sees (sim records, cron log entries and the checker's
// exported result types).

import (
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// oTenure is one node's stretch of acting as leader, as the docs define it:
// from its lead record to its next step_down, lead or crash, or the end of
// the trace.
type oTenure struct {
	node         sim.NodeID
	epoch, token int64
	start, end   sim.Time
	open         bool // lasted to the end of the trace
}

// oracleTenures collects every tenure of recs, in the order they started.
func oracleTenures(recs []sim.Record) []oTenure {
	var ts []oTenure
	var end sim.Time
	for _, r := range recs {
		end = r.At
		switch r.Type {
		case sim.RecLead, sim.RecStepDown, sim.RecCrash:
		default:
			continue
		}
		// Close this node's tenure that is still going, if any.
		for i := range ts {
			if ts[i].node == r.Node && ts[i].open {
				ts[i].end, ts[i].open = r.At, false
			}
		}
		if r.Type == sim.RecLead {
			ts = append(ts, oTenure{node: r.Node, epoch: r.Epoch, token: r.Token, start: r.At, open: true})
		}
	}
	for i := range ts {
		if ts[i].open {
			ts[i].end = end
		}
	}
	return ts
}

// oElection is one epoch led by more than one node: the nodes, in the order
// of their first tenure of the epoch.
type oElection struct {
	epoch int64
	nodes []sim.NodeID
}

// oracleElectionSafety finds every epoch whose tenures belong to two or more
// different nodes, whenever they happened.
func oracleElectionSafety(ts []oTenure) []oElection {
	var out []oElection
	for i := range ts {
		seen := false // epoch already judged at an earlier tenure
		for j := 0; j < i; j++ {
			seen = seen || ts[j].epoch == ts[i].epoch
		}
		if seen {
			continue
		}
		var nodes []sim.NodeID
		for j := i; j < len(ts); j++ {
			if ts[j].epoch != ts[i].epoch {
				continue
			}
			dup := false
			for _, n := range nodes {
				dup = dup || n == ts[j].node
			}
			if !dup {
				nodes = append(nodes, ts[j].node)
			}
		}
		if len(nodes) > 1 {
			out = append(out, oElection{epoch: ts[i].epoch, nodes: nodes})
		}
	}
	return out
}

// oOverlap is a split-brain finding: tenures a (started first) and b of two
// different nodes acting as leader over [from, to), and its harm verdict.
type oOverlap struct {
	a, b     oTenure
	from, to sim.Time
	harmful  bool
}

// oracleOverlaps compares every pair of tenures of different nodes: they
// overlap when the later start is strictly before the earlier end.
func oracleOverlaps(ts []oTenure, log []cron.LogEntry, p cron.Policy, resource bool) []oOverlap {
	var out []oOverlap
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			a, b := ts[i], ts[j]
			if a.node == b.node {
				continue
			}
			from, to := b.start, a.end
			if a.start > from {
				from = a.start
			}
			if b.end < to {
				to = b.end
			}
			if to > from {
				out = append(out, oOverlap{a: a, b: b, from: from, to: to,
					harmful: resource && oracleHarm(a, b, log, p)})
			}
		}
	}
	return out
}

// oracleHarm is docs/checkers.md's harm verdict for an overlap: the resource
// applied one slot from both tenures, or one tenure's token after the
// other's higher token in one fencing scope. A write belongs to a tenure
// when its node and token are the tenure's.
func oracleHarm(a, b oTenure, log []cron.LogEntry, p cron.Policy) bool {
	of := func(e cron.LogEntry, t oTenure) bool { return e.Node == t.node && e.Token == t.token }
	for i, x := range log {
		for j, y := range log {
			if !x.Accepted || !y.Accepted {
				continue
			}
			if of(x, a) && of(y, b) && x.JobIndex == y.JobIndex && x.Slot == y.Slot {
				return true // one slot from both
			}
			if j < i && y.Token > x.Token && sameScope(p, x, y) && ((of(x, a) && of(y, b)) || (of(x, b) && of(y, a))) {
				return true // x applied after the other tenure's higher token
			}
		}
	}
	return false
}

// sameScope reports whether two writes share a fencing scope under p.
func sameScope(p cron.Policy, x, y cron.LogEntry) bool {
	return p.FencingScope == "global" || x.JobIndex == y.JobIndex
}

// oRun is a run, told apart by its node and its run ID.
type oRun struct {
	node sim.NodeID
	run  int64
}

// oDoubled is a slot applied from more than one run.
type oDoubled struct {
	job  int
	slot int64
	runs []oRun
}

// oracleDoubled finds every slot whose applied writes come from two or more
// runs.
func oracleDoubled(log []cron.LogEntry) []oDoubled {
	var out []oDoubled
	for i, e := range log {
		if !e.Accepted {
			continue
		}
		first := true // the slot's first applied write
		for _, f := range log[:i] {
			first = first && !(f.Accepted && f.JobIndex == e.JobIndex && f.Slot == e.Slot)
		}
		if !first {
			continue
		}
		var runs []oRun
		for _, f := range log[i:] {
			if !f.Accepted || f.JobIndex != e.JobIndex || f.Slot != e.Slot {
				continue
			}
			r := oRun{f.Node, f.Run}
			dup := false
			for _, x := range runs {
				dup = dup || x == r
			}
			if !dup {
				runs = append(runs, r)
			}
		}
		if len(runs) > 1 {
			out = append(out, oDoubled{job: e.JobIndex, slot: e.Slot, runs: runs})
		}
	}
	return out
}

// oStale is an applied write whose token is lower than the highest token
// applied before it in its fencing scope.
type oStale struct {
	idx     int
	highest int64
}

// oracleStale compares every applied write with every applied write before
// it in the same fencing scope.
func oracleStale(log []cron.LogEntry, p cron.Policy) []oStale {
	var out []oStale
	for i, e := range log {
		if !e.Accepted {
			continue
		}
		stale, highest := false, int64(0)
		for _, f := range log[:i] {
			if f.Accepted && sameScope(p, e, f) && f.Token > e.Token {
				if !stale || f.Token > highest {
					highest = f.Token
				}
				stale = true
			}
		}
		if stale {
			out = append(out, oStale{idx: i, highest: highest})
		}
	}
	return out
}
