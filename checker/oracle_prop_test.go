package checker_test

import (
	"fmt"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// oracleCases is the property's default size: a few seconds of go test.
// RAPID_CHECKS (or -rapid.checks) scales it.
const oracleCases = 300

// TestCheckerAgreesWithOracle runs random traces through checker.Run and
// through the oracle, and requires the same findings from every safety
// check: statuses, counts, the split-brain overlaps (nodes, start, end,
// harm), the doubled slots and their runs, the stale writes and the token
// each was compared with, and both linearizability verdicts.
func TestCheckerAgreesWithOracle(t *testing.T) {
	proptest.Check(t, oracleCases, func(t *rapid.T) {
		c := genCase(t)
		if problems := compareWithOracle(c); len(problems) > 0 {
			proptest.Fail(t, "checker and oracle disagree:\n  %s\ncase: %v", joinLines(problems), c)
		}
	})
}

// oInput is the checker's input for a case.
func oInput(c oCase) checker.Input {
	names := make([]string, c.n+1)
	cands := make([]sim.NodeID, c.n)
	for i := 0; i < c.n; i++ {
		names[i], cands[i] = fmt.Sprintf("n%d", i), sim.NodeID(i)
	}
	names[c.n] = "resource"
	var log []cron.LogEntry
	if c.resource {
		log = append([]cron.LogEntry{}, c.log...)
	}
	return checker.Input{Records: c.recs, Names: names, Candidates: cands, Resource: log, Policy: c.policy, MaxViolations: 1 << 20, Contract: c.contract}
}

// compareWithOracle judges c with checker.Run (which keeps the story and
// decides the resource history with one porcupine call) and with a
// streaming Checker without a story, as a sweep's runs are judged (the
// resource history then goes segment by segment) and reporting what it
// decides online (Input.OnViolation), and lists every disagreement of
// either with the oracle.
func compareWithOracle(c oCase) []string {
	in := oInput(c)
	bad := compareReport(c, "Run", checker.Run(in))
	recs := in.Records
	in.Records = nil
	told := map[string]bool{}
	in.OnViolation = func(check string) {
		if told[check] {
			bad = append(bad, "OnViolation told "+check+" twice")
		}
		told[check] = true
	}
	k := checker.New(in)
	for i := range recs {
		k.Record(&recs[i])
	}
	// The online verdicts (simrun -fail-fast) of the two checks decided
	// while the records stream by.
	ts := oracleTenures(c.recs)
	for check, want := range map[string]bool{checker.CheckElectionSafety: len(oracleElectionSafety(ts)) > 0,
		checker.CheckSplitBrain: len(oracleOverlaps(ts, nil, c.policy, false)) > 0} {
		if told[check] != want {
			bad = append(bad, fmt.Sprintf("streaming: OnViolation(%s): checker %v, oracle %v", check, told[check], want))
		}
	}
	return append(bad, compareReport(c, "streaming", k.Finish(in.Resource))...)
}

// compareReport lists every disagreement of rep with the oracle.
func compareReport(c oCase, how string, rep checker.Report) []string {
	var bad []string
	diff := func(what string, got, want any) {
		g, w := fmt.Sprint(got), fmt.Sprint(want)
		if g != w {
			bad = append(bad, fmt.Sprintf("%s: %s: checker %s, oracle %s", how, what, g, w))
		}
	}
	get := func(name string) checker.Check {
		ch, ok := rep.Check(name)
		if !ok {
			bad = append(bad, "no check "+name)
		}
		return ch
	}
	status := func(n int) checker.Status {
		if n > 0 {
			return checker.StatusViolated
		}
		return checker.StatusOK
	}
	name := func(id sim.NodeID) string { return fmt.Sprintf("n%d", id) }

	ts := oracleTenures(c.recs)
	diff("tenures", rep.Tenures, len(ts))

	// election_safety: per offending epoch, its leaders.
	es, ch := oracleElectionSafety(ts), get(checker.CheckElectionSafety)
	diff("election_safety status", ch.Status, status(len(es)))
	diff("election_safety count", ch.Count, len(es))
	var gotES, wantES []string
	for _, v := range ch.Violations {
		gotES = append(gotES, fmt.Sprintf("epoch %d %v", v.Epochs[0], v.NodeIDs))
	}
	for _, e := range es {
		wantES = append(wantES, fmt.Sprintf("epoch %d %v", e.epoch, e.nodes))
	}
	diff("election_safety epochs", sorted(gotES), sorted(wantES))

	// split_brain: every overlap, its interval, tenures and harm.
	ov, ch := oracleOverlaps(ts, c.log, c.policy, c.resource), get(checker.CheckSplitBrain)
	diff("split_brain status", ch.Status, status(len(ov)))
	diff("split_brain count", ch.Count, len(ov))
	harmless := 0
	var gotOv, wantOv, gotV, wantV []string
	for _, o := range ov {
		if c.resource && !o.harmful {
			harmless++
		}
		wantOv = append(wantOv, fmt.Sprintf("%v %v–%v", [2]sim.NodeID{o.a.node, o.b.node}, o.from, o.to))
		wantV = append(wantV, fmt.Sprintf("%v–%v %v tokens %v epochs %v harmless %v", o.from, o.to,
			[]sim.NodeID{o.a.node, o.b.node}, []int64{o.a.token, o.b.token}, []int64{o.a.epoch, o.b.epoch}, c.resource && !o.harmful))
	}
	for _, o := range rep.Overlaps {
		gotOv = append(gotOv, fmt.Sprintf("%v %v–%v", o.Nodes, o.From, o.To))
	}
	for _, v := range ch.Violations {
		gotV = append(gotV, fmt.Sprintf("%v–%v %v tokens %v epochs %v harmless %v", v.At, v.End, v.NodeIDs, v.Tokens, v.Epochs, v.Harmless))
	}
	diff("split_brain harmless", ch.HarmlessCount, harmless)
	diff("Report.Overlaps", sorted(gotOv), sorted(wantOv))
	diff("split_brain violations", sorted(gotV), sorted(wantV))
	for i := 1; i < len(rep.Overlaps); i++ {
		if rep.Overlaps[i].From < rep.Overlaps[i-1].From {
			bad = append(bad, "Report.Overlaps not in time order")
		}
	}

	// leader_linearizability: the tenures as a lock.
	lockOK := 0
	if !oracleLeaderLinearizable(ts) {
		lockOK = 1
	}
	diff("leader_linearizability status", get(checker.CheckLeaderLinearizability).Status, status(lockOK))

	if !c.resource {
		for _, n := range []string{checker.CheckDoubleExecution, checker.CheckStaleWrite, checker.CheckLinearizability} {
			diff(n+" status", get(n).Status, checker.StatusSkipped)
		}
		return append(bad, compareContract(c, how, rep)...)
	}

	// double_execution: every slot applied from two or more runs.
	dd, ch := oracleDoubled(c.log), get(checker.CheckDoubleExecution)
	diff("double_execution status", ch.Status, status(len(dd)))
	diff("double_execution count", ch.Count, len(dd))
	var gotD, wantD, gotDV, wantDV []string
	for _, d := range dd {
		wantD = append(wantD, fmt.Sprintf("%d/%d", d.job, d.slot))
		var nodes []string
		for _, r := range d.runs {
			nodes = append(nodes, name(r.node))
		}
		wantDV = append(wantDV, fmt.Sprintf("%s %v", cron.SlotName([]string{"a", "b"}[d.job], d.slot), nodes))
	}
	for _, s := range rep.DoubledSlots {
		gotD = append(gotD, fmt.Sprintf("%d/%d", s.Job, s.Slot))
	}
	for _, v := range ch.Violations {
		gotDV = append(gotDV, fmt.Sprintf("%s %v", v.Slot, v.Nodes))
	}
	diff("Report.DoubledSlots", sorted(gotD), sorted(wantD))
	diff("double_execution runs", sorted(gotDV), sorted(wantDV))

	// stale_write: every stale applied write and the highest token before it.
	st, ch := oracleStale(c.log, c.policy), get(checker.CheckStaleWrite)
	diff("stale_write status", ch.Status, status(len(st)))
	diff("stale_write count", ch.Count, len(st))
	var gotS, wantS []string
	for _, s := range st {
		e := c.log[s.idx]
		wantS = append(wantS, fmt.Sprintf("%v %s token %d after %d", e.At, name(e.Node), e.Token, s.highest))
	}
	for _, v := range ch.Violations {
		gotS = append(gotS, fmt.Sprintf("%v %s token %d after %d", v.At, v.Nodes[0], v.Tokens[0], v.Tokens[1]))
	}
	diff("stale_write writes", sorted(gotS), sorted(wantS))

	// linearizability: the resource history against a fenced store.
	illegal, ch := oracleResourceIllegal(c.log, c.sent, c.policy), get(checker.CheckLinearizability)
	diff("linearizability status", ch.Status, status(illegal))
	return append(bad, compareContract(c, how, rep)...)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}
