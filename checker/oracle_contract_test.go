package checker_test

// The oracle's contract verdicts: for every finding of a covered check, a
// brute-force scan of the whole trace for a fault of an excepted class
// that reached it (docs/checkers.md, "Contracts"), written without the
// checker's code: it classifies records itself and keeps nothing between
// findings.

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// genContract draws a contract over the four checks the oracle judges:
// each covered or not, with a random set of exceptions and, for
// split_brain, a random overlap bound.
func genContract(t *rapid.T) contract.Contract {
	var c contract.Contract
	classes := []contract.FaultClass{contract.Crash, contract.Restart, contract.DiskLoss, contract.Pause, contract.Partition, contract.Link, contract.Loss, contract.ClockRate, contract.ClockStep}
	for _, check := range []string{checker.CheckElectionSafety, checker.CheckSplitBrain, checker.CheckDoubleExecution, checker.CheckStaleWrite} {
		if !rapid.Bool().Draw(t, "covers "+check) {
			continue
		}
		g := contract.Guarantee{Check: check}
		for _, cls := range classes {
			if rapid.IntRange(0, 3).Draw(t, "unless "+cls.String()) == 0 {
				g.Unless = append(g.Unless, cls)
				if cls.PerNode() && rapid.IntRange(0, 3).Draw(t, "anywhere "+cls.String()) == 0 {
					g.Anywhere = append(g.Anywhere, cls)
				}
				if rapid.IntRange(0, 3).Draw(t, "lasting "+cls.String()) == 0 {
					g.Lasting = append(g.Lasting, cls)
				}
			}
		}
		if check == checker.CheckSplitBrain {
			g.MaxOverlap = time.Duration(rapid.SampledFrom([]int64{0, 1, 2, 4}).Draw(t, "maxOverlapMs")) * time.Millisecond
		}
		g.Aftermath = time.Duration(rapid.SampledFrom([]int64{0, 1, 3, 1000}).Draw(t, "aftermathMs")) * time.Millisecond
		c.Guarantees = append(c.Guarantees, g)
	}
	return c
}

// oFinding is what a contract verdict needs of a finding.
type oFinding struct {
	nodes    []sim.NodeID
	at, end  sim.Time
	duration time.Duration
	// also are nodes the finding involves without naming them (a missed
	// slot's due recoverers).
	also []sim.NodeID
}

// oFault is one fault the oracle found: its class, the node it hit
// (sim.None: every node or the network), its links (nil: every link), and
// from when to when (sim.Never: it lasted).
type oFault struct {
	cls        contract.FaultClass
	node       sim.NodeID
	links      []sim.Link
	start, end sim.Time
	// dev, for a clock-rate fault, is the largest |rate − 1| its node's
	// clock ran at from its start to its end.
	dev float64
}

// oracleFaults lists the trace's faults with their ends, by scanning
// forward from each fault's first record for the record that ends it:
// written without the checker's span bookkeeping.
func oracleFaults(recs []sim.Record) []oFault {
	var out []oFault
	endOf := func(i int, ends func(r sim.Record) bool) sim.Time {
		for _, r := range recs[i+1:] {
			if ends(r) {
				return r.At
			}
		}
		return sim.Never
	}
	for i, r := range recs {
		node, at := r.Node, r.At
		same := func(t sim.RecordType, f sim.Fact) func(sim.Record) bool {
			return func(x sim.Record) bool { return x.Node == node && x.Type == t && x.Fact == f }
		}
		one := func(cls contract.FaultClass, end sim.Time) {
			out = append(out, oFault{cls: cls, node: node, start: at, end: end})
		}
		switch {
		case r.Type == sim.RecPause:
			one(contract.Pause, endOf(i, func(x sim.Record) bool {
				return x.Node == node && (x.Type == sim.RecResume || x.Type == sim.RecCrash)
			}))
		case r.Type == sim.RecCrash:
			one(contract.Crash, endOf(i, func(x sim.Record) bool { return x.Node == node && x.Type == sim.RecStart && x.A == 1 }))
		case r.Type == sim.RecStart:
			if r.A == 1 {
				one(contract.Restart, at)
			}
			if r.Fact == sim.FactDiskLost {
				one(contract.DiskLoss, sim.Never)
			}
		case r.Type == sim.RecEffect && r.Fact == sim.FactServiceDown:
			one(contract.ServiceDown, endOf(i, same(sim.RecEffect, sim.FactServiceUp)))
		case r.Type != sim.RecFault:
		case r.Fact == sim.FactClockRate:
			end := endOf(i, same(sim.RecFault, sim.FactClockExact))
			if len(out) > 0 && func() bool { // a second rate change of a span still open: not a new fault
				for j := len(out) - 1; j >= 0; j-- {
					if out[j].cls == contract.ClockRate && out[j].node == node {
						return out[j].end == end
					}
				}
				return false
			}() {
				break
			}
			dev := 0.0
			for _, x := range recs[i:] {
				if x.At > end {
					break
				}
				if x.Node == node && x.Type == sim.RecFault && x.Fact == sim.FactClockRate {
					d := float64(x.RatePPB)/float64(sim.RateOne) - 1
					dev = max(dev, d, -d)
				}
			}
			out = append(out, oFault{cls: contract.ClockRate, node: node, start: at, end: end, dev: dev})
		case r.Fact == sim.FactClockStep:
			one(contract.ClockStep, endOf(i, same(sim.RecFault, sim.FactClockUnstepped)))
		case r.Fact == sim.FactDiskLatency:
			end := endOf(i, same(sim.RecFault, sim.FactDiskRestored))
			for _, x := range recs[i+1:] { // a write issued under it holds the node until it is durable
				if x.Type == sim.RecPersist && x.Node == node && x.At <= end {
					end = max(end, sim.Time(x.B))
				}
			}
			one(contract.Disk, end)
		case r.Fact == sim.FactLinksCut && len(r.Links) > 0:
			cut := map[sim.Link]bool{}
			for _, l := range r.Links {
				cut[l] = true
			}
			end := endOf(i, func(x sim.Record) bool {
				if x.Type == sim.RecFault && x.Fact == sim.FactLinksRestored {
					for _, l := range x.Links {
						delete(cut, l)
					}
				}
				return len(cut) == 0
			})
			out = append(out, oFault{cls: contract.Partition, node: sim.None, links: r.Links, start: at, end: end})
		case r.Fact == sim.FactLinkChanged || r.Fact == sim.FactLinkLossy || r.Fact == sim.FactLinkLossyChanged:
			end := endOf(i, func(x sim.Record) bool {
				if x.Type != sim.RecFault || x.Fact != sim.FactLinksReset {
					return false
				}
				return len(x.Links) == 0 || len(r.Links) == 1 && len(x.Links) == 1 && x.Links[0] == r.Links[0]
			})
			for _, cls := range []contract.FaultClass{contract.Link, contract.Loss} {
				if cls == contract.Link && r.Fact == sim.FactLinkLossy || cls == contract.Loss && r.Fact == sim.FactLinkChanged {
					continue
				}
				out = append(out, oFault{cls: cls, node: sim.None, links: r.Links, start: at, end: end})
			}
		}
	}
	return out
}

// oracleLost reports whether a node involved names lost a message to the
// network's loss within [from, to]: a loss drop of its in that window, or
// two consecutive loss drops of its, at most a second apart, on either
// side of it (the checker merges drops that close into one lossy stretch,
// docs/checkers.md "Excuses").
func oracleLost(recs []sim.Record, involved func(sim.NodeID) bool, from, to sim.Time) bool {
	drops := map[sim.NodeID][]sim.Time{}
	for _, r := range recs {
		if r.Type == sim.RecDrop && r.Reason == sim.DropLoss {
			for _, n := range []sim.NodeID{r.Node, r.Peer} {
				if n >= 0 && involved(n) {
					drops[n] = append(drops[n], r.At)
				}
			}
		}
	}
	for _, ts := range drops {
		for i, t := range ts {
			if t >= from && t <= to {
				return true
			}
			if i > 0 && ts[i-1] < from && t > to && t-ts[i-1] <= sim.Time(time.Second) {
				return true
			}
		}
	}
	return false
}

// oracleUsed reports whether a message went between a and b either way.
func oracleUsed(recs []sim.Record, a, b sim.NodeID) bool {
	for _, r := range recs {
		if (r.Type == sim.RecDeliver || r.Type == sim.RecDrop) && (r.Node == a && r.Peer == b || r.Node == b && r.Peer == a) {
			return true
		}
	}
	return false
}

// oracleVerdict judges one finding of check: within the overlap bound, else
// excused if a fault of an excepted class reached it (below), else within
// a bound the reaching pauses stretch, else a breach. A fault reaches the
// finding if it began no later than the finding ended and ended no earlier
// than Aftermath before it began (any time, for a class the guarantee
// voids anywhere), and it hit a node the finding involves (its nodes; for a
// check of the cron layer, any node that is not a candidate), or a link
// between such a node and one it exchanged a message with, or every node
// or link.
func oracleVerdict(c oCase, check string, f oFinding) contract.Verdict {
	g, ok := c.contract.For(check)
	if !ok {
		return contract.Uncovered
	}
	if check == checker.CheckSplitBrain && g.MaxOverlap > 0 && f.duration <= g.MaxOverlap {
		return contract.WithinBound
	}
	election := check == checker.CheckElectionSafety || check == checker.CheckSplitBrain
	involved := func(n sim.NodeID) bool {
		if n >= sim.NodeID(c.n) && !election {
			return true
		}
		for _, x := range append(append([]sim.NodeID(nil), f.nodes...), f.also...) {
			if x == n {
				return true
			}
		}
		return false
	}
	var stretch time.Duration
	paused := false
	for _, flt := range oracleFaults(c.recs) {
		excepted, anywhere := false, false
		for _, u := range g.Unless {
			excepted = excepted || u == flt.cls
		}
		for _, a := range g.Anywhere {
			anywhere = anywhere || a == flt.cls
		}
		if !excepted || flt.start > f.end {
			continue
		}
		lasting := false
		for _, a := range g.Lasting {
			lasting = lasting || a == flt.cls && excepted
		}
		if !lasting && flt.end != sim.Never && flt.end+sim.Time(g.Aftermath) < f.at {
			continue
		}
		reached := false
		switch {
		case flt.node >= 0:
			reached = anywhere || involved(flt.node)
		case flt.links == nil:
			reached = true
		default:
			for _, l := range flt.links {
				reached = reached || (involved(l.From) || involved(l.To)) && oracleUsed(c.recs, l.From, l.To)
			}
		}
		if !reached {
			continue
		}
		if flt.cls == contract.Loss {
			named := func(n sim.NodeID) bool { // the finding's own nodes (every one it involves when it names none)
				if len(f.nodes) == 0 {
					return involved(n)
				}
				for _, x := range f.nodes {
					if x == n {
						return true
					}
				}
				return false
			}
			from := f.at - sim.Time(g.Aftermath)
			if lasting {
				from = 0
			}
			if !oracleLost(c.recs, named, max(from, flt.start), f.end) {
				continue
			}
		}
		if (flt.cls == contract.Pause || flt.cls == contract.ClockRate) && check == checker.CheckSplitBrain && g.MaxOverlap > 0 {
			paused = true
			d := time.Duration(min(flt.end, f.end) - flt.start)
			if flt.cls == contract.ClockRate {
				d = time.Duration(float64(d) * flt.dev)
			}
			stretch += d
			continue
		}
		return contract.Excused
	}
	if paused && f.duration <= g.MaxOverlap+stretch {
		return contract.WithinBound
	}
	return contract.Breach
}

// oracleFindings lists, per check, what the contract verdicts need of each
// finding the oracle makes.
func oracleFindings(c oCase) map[string][]oFinding {
	out := map[string][]oFinding{}
	ts := oracleTenures(c.recs)
	for _, e := range oracleElectionSafety(ts) {
		for _, t := range ts { // the second node's first tenure of the epoch
			if t.epoch == e.epoch && t.node == e.nodes[1] {
				out[checker.CheckElectionSafety] = append(out[checker.CheckElectionSafety], oFinding{nodes: e.nodes, at: t.start, end: t.start})
				break
			}
		}
	}
	for _, o := range oracleOverlaps(ts, c.log, c.policy, c.resource) {
		out[checker.CheckSplitBrain] = append(out[checker.CheckSplitBrain],
			oFinding{nodes: []sim.NodeID{o.a.node, o.b.node}, at: o.from, end: o.to, duration: time.Duration(o.to - o.from)})
	}
	if !c.resource {
		return out
	}
	for _, d := range oracleDoubled(c.log) {
		var nodes []sim.NodeID
		for _, r := range d.runs {
			nodes = append(nodes, r.node)
		}
		var end sim.Time
		for _, e := range c.log { // the second run's first applied write
			if e.Accepted && e.JobIndex == d.job && e.Slot == d.slot && e.Node == d.runs[1].node && e.Run == d.runs[1].run {
				end = e.At
				break
			}
		}
		out[checker.CheckDoubleExecution] = append(out[checker.CheckDoubleExecution], oFinding{nodes: nodes, at: end, end: end})
	}
	for _, s := range oracleStale(c.log, c.policy) {
		e := c.log[s.idx]
		var prior sim.NodeID
		for _, f := range c.log[:s.idx] { // the first write of the highest token before it
			if f.Accepted && sameScope(c.policy, e, f) && f.Token == s.highest {
				prior = f.Node
				break
			}
		}
		out[checker.CheckStaleWrite] = append(out[checker.CheckStaleWrite], oFinding{nodes: []sim.NodeID{e.Node, prior}, at: e.At, end: e.At})
	}
	return out
}

// compareContract requires the checker's contract verdicts, counted per
// check, to be the oracle's, and a report with an oracle breach to fail
// whatever expect allows.
func compareContract(c oCase, how string, rep checker.Report) []string {
	var bad []string
	breaches := 0
	for check, fs := range oracleFindings(c) {
		var want [4]int // by contract.Verdict
		for _, f := range fs {
			want[oracleVerdict(c, check, f)]++
		}
		breaches += want[contract.Breach]
		ch, _ := rep.Check(check)
		got := [4]int{ch.Count - ch.Breaches - ch.Excused - ch.WithinBound, ch.Breaches, ch.Excused, ch.WithinBound}
		if got != want {
			bad = append(bad, fmt.Sprintf("%s: %s contract verdicts (uncovered, breach, excused, within bound): checker %v, oracle %v", how, check, got, want))
		}
	}
	if ok, _ := rep.Judge(checker.Expect{Allow: checker.CheckNames}); breaches > 0 && ok {
		bad = append(bad, fmt.Sprintf("%s: %d breaches, yet the run passed with every check allowed", how, breaches))
	}
	return bad
}
