package checker_test

// The oracle's missed_slots verdicts under a contract: each missed slot
// dated at its deadline and given its nodes from the tenures, recomputed
// here from docs/checkers.md ("missed_slots") without the checker's code,
// then judged by oracleVerdict, or within bound when the deadline is past
// the trace's end.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// oracleSlotDeadline: the run should start at due on a tenure that covers
// due and lasts deadline past it, else at the first tenure starting in
// (due, due+recovery] that lasts deadline, else at due+recovery; the nodes
// are those leading at due (none: the last to lead before), plus the
// tenure that was due to run it.
func oracleSlotDeadline(ts []oTenure, due sim.Time, g contract.Guarantee) (sim.Time, []sim.NodeID) {
	d, rec := sim.Time(g.Deadline), sim.Time(g.Recovery)
	var nodes []sim.NodeID
	has := func(n sim.NodeID) bool {
		for _, x := range nodes {
			if x == n {
				return true
			}
		}
		return false
	}
	startAt := sim.Time(-1)
	for _, t := range ts {
		if t.start <= due && (t.open || t.end > due) {
			if !has(t.node) {
				nodes = append(nodes, t.node)
			}
			if (t.open || t.end >= due+d) && startAt < 0 {
				startAt = due
			}
		}
	}
	if len(nodes) == 0 {
		last := -1
		for i, t := range ts {
			if t.start <= due && !t.open && t.end <= due && (last < 0 || t.end >= ts[last].end) {
				last = i
			}
		}
		if last >= 0 {
			nodes = append(nodes, ts[last].node)
		}
	}
	if startAt < 0 {
		for _, t := range ts {
			if t.start > due && t.start <= due+rec && (t.open || t.end >= t.start+d) {
				startAt = t.start
				if !has(t.node) {
					nodes = append(nodes, t.node)
				}
				break
			}
		}
	}
	if startAt < 0 {
		startAt = due + rec
	}
	return startAt + d, nodes
}

// TestOracleMissedSlotsContract holds the checker's missed_slots verdicts,
// deadlines and nodes to the oracle's on generated traces (genCase's
// tenures, crashes, pauses and faults; slot 02:00 of two hourly jobs
// falling due somewhere in the trace), under a random missed_slots
// guarantee.
func TestOracleMissedSlotsContract(t *testing.T) {
	var seen [4]int // by verdict: the property cannot pass by judging nothing
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(t)
		if !c.resource {
			return
		}
		g := contract.Guarantee{Check: checker.CheckMissedSlots,
			Deadline: time.Duration(rapid.SampledFrom([]int64{0, 1, 3, 10}).Draw(t, "deadlineMs")) * time.Millisecond,
			Recovery: time.Duration(rapid.SampledFrom([]int64{0, 2, 5, 20}).Draw(t, "recoveryMs")) * time.Millisecond}
		for _, cls := range contract.Classes() {
			if rapid.Bool().Draw(t, "unless "+cls.String()) {
				g.Unless = append(g.Unless, cls)
			}
		}
		c.contract = contract.Contract{Guarantees: []contract.Guarantee{g}}
		dueMs := rapid.IntRange(0, 60).Draw(t, "dueMs")
		wallStart := time.Unix(0, oSlot0).UTC().Add(-time.Duration(dueMs) * time.Millisecond)
		jobs := cron.Table{{Name: "a", Schedule: "0 * * * *"}, {Name: "b", Schedule: "0 * * * *"}}
		require.NoError(t, jobs.Validate())
		cands := make([]sim.NodeID, c.n)
		for i := range cands {
			cands[i] = sim.NodeID(i)
		}
		rep := checker.Run(checker.Input{Records: c.recs, Candidates: cands, Resource: append([]cron.LogEntry{}, c.log...),
			Policy: c.policy, Jobs: jobs, WallStart: wallStart, CronFrom: wallStart, CronTo: wallStart.Add(time.Second),
			Contract: c.contract, MaxViolations: 10})
		ch, ok := rep.Check(checker.CheckMissedSlots)
		require.True(t, ok)
		var traceEnd sim.Time
		if len(c.recs) > 0 {
			traceEnd = c.recs[len(c.recs)-1].At
		}
		ts := oracleTenures(c.recs)
		due := ms(int64(dueMs))
		for _, v := range ch.Violations {
			require.Equal(t, due, v.At, "%v", c)
			end, nodes := oracleSlotDeadline(ts, due, g)
			require.Equal(t, end, v.End, "deadline\n%v", c)
			require.ElementsMatch(t, nodes, v.NodeIDs, "nodes\n%v", c)
			want := contract.WithinBound
			if end <= traceEnd {
				judged := nodes
				var also []sim.NodeID
				if len(judged) == 0 { // a finding that names no node involves every node
					for n := 0; n <= c.n; n++ {
						judged = append(judged, sim.NodeID(n))
					}
				} else { // and one that does, also every node whose tenure began in its window
					for _, tn := range ts {
						if tn.start >= due && tn.start <= end {
							also = append(also, tn.node)
						}
					}
				}
				want = oracleVerdict(c, checker.CheckMissedSlots, oFinding{nodes: judged, also: also, at: due, end: end})
			}
			require.Equal(t, want, v.Contract, "verdict of the slot due at %v (deadline %v, nodes %v)\n%v", due, end, nodes, c)
			seen[want]++
		}
	})
	t.Logf("verdicts judged: %d breach, %d excused, %d within bound", seen[contract.Breach], seen[contract.Excused], seen[contract.WithinBound])
	for _, v := range []contract.Verdict{contract.Breach, contract.Excused, contract.WithinBound} {
		if seen[v] == 0 {
			t.Errorf("no finding was judged %v: the generator does not reach it", v)
		}
	}
}
