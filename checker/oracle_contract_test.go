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
			}
		}
		if check == checker.CheckSplitBrain {
			g.MaxOverlap = time.Duration(rapid.SampledFrom([]int64{0, 1, 2, 4}).Draw(t, "maxOverlapMs")) * time.Millisecond
		}
		c.Guarantees = append(c.Guarantees, g)
	}
	return c
}

// oFinding is what a contract verdict needs of a finding.
type oFinding struct {
	nodes    []sim.NodeID
	end      sim.Time
	duration time.Duration
}

// oracleClass names the fault class a record shows, "" if none.
func oracleClass(r sim.Record) (contract.FaultClass, bool) {
	switch {
	case r.Type == sim.RecCrash:
		return contract.Crash, true
	case r.Type == sim.RecPause:
		return contract.Pause, true
	case r.Type == sim.RecStart && r.Fact == sim.FactDiskLost:
		return contract.DiskLoss, true
	case r.Type == sim.RecStart && r.A == 1:
		return contract.Restart, true
	case r.Type == sim.RecFault && r.Fact == sim.FactLinksCut:
		return contract.Partition, true
	case r.Type == sim.RecFault && r.Fact == sim.FactLinkChanged:
		return contract.Link, true
	case r.Type == sim.RecFault && r.Fact == sim.FactLinkLossy:
		return contract.Loss, true
	case r.Type == sim.RecFault && r.Fact == sim.FactClockRate:
		return contract.ClockRate, true
	case r.Type == sim.RecFault && r.Fact == sim.FactClockStep:
		return contract.ClockStep, true
	case r.Type == sim.RecFault && r.Fact == sim.FactDiskLatency:
		return contract.Disk, true
	case r.Type == sim.RecEffect && r.Fact == sim.FactServiceDown:
		return contract.ServiceDown, true
	}
	return 0, false
}

// oracleVerdict judges one finding of check: within the overlap bound, else
// excused if any record up to its end shows an excepted class on a node it
// involves, on a node that is not a candidate, or on the network, else a
// breach.
func oracleVerdict(c oCase, check string, f oFinding) contract.Verdict {
	g, ok := c.contract.For(check)
	if !ok {
		return contract.Uncovered
	}
	if check == checker.CheckSplitBrain && g.MaxOverlap > 0 && f.duration <= g.MaxOverlap {
		return contract.WithinBound
	}
	var recs []sim.Record // a record of a lossy latency change counts as one of each
	for _, r := range c.recs {
		if r.Type == sim.RecFault && r.Fact == sim.FactLinkLossyChanged {
			a, b := r, r
			a.Fact, b.Fact = sim.FactLinkChanged, sim.FactLinkLossy
			recs = append(recs, a, b)
			continue
		}
		if r.Type == sim.RecStart && r.A == 1 && r.Fact == sim.FactDiskLost { // a restart that lost its disk
			a, b := r, r
			a.Fact = sim.FactNone
			recs = append(recs, a, b)
			continue
		}
		recs = append(recs, r)
	}
	for _, r := range recs {
		cls, ok := oracleClass(r)
		if !ok || r.At > f.end {
			continue
		}
		excepted := false
		for _, u := range g.Unless {
			excepted = excepted || u == cls
		}
		if !excepted {
			continue
		}
		network := cls == contract.Partition || cls == contract.Link || cls == contract.Loss || cls == contract.ServiceDown
		involved := false
		for _, n := range f.nodes {
			involved = involved || n == r.Node
		}
		anywhere := false
		for _, a := range g.Anywhere {
			anywhere = anywhere || a == cls
		}
		if network || anywhere || r.Node < 0 || int(r.Node) >= c.n || involved {
			return contract.Excused
		}
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
				out[checker.CheckElectionSafety] = append(out[checker.CheckElectionSafety], oFinding{nodes: e.nodes, end: t.start})
				break
			}
		}
	}
	for _, o := range oracleOverlaps(ts, c.log, c.policy, c.resource) {
		out[checker.CheckSplitBrain] = append(out[checker.CheckSplitBrain],
			oFinding{nodes: []sim.NodeID{o.a.node, o.b.node}, end: o.to, duration: time.Duration(o.to - o.from)})
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
		out[checker.CheckDoubleExecution] = append(out[checker.CheckDoubleExecution], oFinding{nodes: nodes, end: end})
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
		out[checker.CheckStaleWrite] = append(out[checker.CheckStaleWrite], oFinding{nodes: []sim.NodeID{e.Node, prior}, end: e.At})
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
