package checker_test

// The oracle of the queue-mode checks (lost_slot, duplicate_execution,
// overlap, late_start): each re-derived by brute force from a random trace
// and resource log, with its own reading of the definitions in
// docs/checkers.md and no code shared with the checker.

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// oqCase is one random queue-mode trace.
type oqCase struct {
	recs   []sim.Record
	log    []cron.LogEntry
	forbid bool
	end    sim.Time
}

const (
	oqDeadline = 5 * time.Second
	oqWindow   = 90 * time.Second
)

// genQueueCase draws leadership changes of n0, n1, worker runs of the
// 10 s job's slots (started, completed or failed or cut by the worker's
// crash), and writes. Every time is a whole millisecond plus a distinct
// microsecond, so no two records (and no record and slot) tie.
func genQueueCase(t *rapid.T) oqCase {
	var c oqCase
	c.forbid = rapid.Bool().Draw(t, "forbid")
	seq := 0
	stamp := func(ms int) sim.Time {
		seq++
		return sim.Time(time.Duration(ms)*time.Millisecond + time.Duration(seq)*time.Microsecond)
	}
	for k := rapid.IntRange(0, 8).Draw(t, "leads"); k > 0; k-- {
		typ := sim.RecLead
		if rapid.Bool().Draw(t, "down") {
			typ = sim.RecStepDown
		}
		c.recs = append(c.recs, sim.Record{At: stamp(rapid.IntRange(0, 100_000).Draw(t, "leadAt")), Type: typ,
			Node: sim.NodeID(rapid.IntRange(0, 1).Draw(t, "cand")), Epoch: 1, Token: 1})
	}
	runs := rapid.IntRange(0, 10).Draw(t, "runs")
	for i := 0; i < runs; i++ {
		w := sim.NodeID(rapid.IntRange(2, 4).Draw(t, "worker"))
		slot := time.Duration(rapid.IntRange(1, 9).Draw(t, "slot")) * 10 * time.Second
		startMs := int(slot/time.Millisecond) + rapid.IntRange(-3_000, 12_000).Draw(t, "lateness")
		c.recs = append(c.recs, qExec(time.Duration(stamp(startMs)), w, sim.FactExecStarted, int64(i+1), slot))
		switch rapid.IntRange(0, 3).Draw(t, "ending") {
		case 0:
			c.recs = append(c.recs, qExec(time.Duration(stamp(startMs+rapid.IntRange(1, 15_000).Draw(t, "dur"))), w, sim.FactExecCompleted, int64(i+1), slot))
		case 1:
			c.recs = append(c.recs, qExec(time.Duration(stamp(startMs+rapid.IntRange(1, 15_000).Draw(t, "dur"))), w, sim.FactExecFailed, int64(i+1), slot))
		case 2:
			c.recs = append(c.recs, sim.Record{At: stamp(startMs + rapid.IntRange(-5_000, 15_000).Draw(t, "crashAt")), Type: sim.RecCrash, Node: w})
		}
		for k := rapid.IntRange(0, 2).Draw(t, "writes"); k > 0; k-- {
			c.log = append(c.log, qWrite(time.Duration(stamp(startMs+1)), w, int64(i+1), slot, rapid.Bool().Draw(t, "accepted")))
		}
	}
	sort.SliceStable(c.recs, func(i, j int) bool { return c.recs[i].At < c.recs[j].At })
	sort.SliceStable(c.log, func(i, j int) bool { return c.log[i].At < c.log[j].At })
	for _, r := range c.recs {
		c.end = max(c.end, r.At)
	}
	return c
}

// oqLeading reports whether some candidate acts as leader at t: its last
// lead or step-down record at or before t is a lead.
func oqLeading(recs []sim.Record, t sim.Time) bool {
	for _, n := range []sim.NodeID{0, 1} {
		leading := false
		for _, r := range recs {
			if r.At > t {
				break
			}
			if r.Node == n && (r.Type == sim.RecLead || r.Type == sim.RecStepDown) {
				leading = r.Type == sim.RecLead
			}
		}
		if leading {
			return true
		}
	}
	return false
}

// oqRun is one worker run with its end by the docs' rule: its completion
// or failure, else its worker's first crash after it started, else the
// end of the trace.
type oqRun struct {
	node       sim.NodeID
	slot       int64
	start, end sim.Time
}

func oqRuns(c oqCase) []oqRun {
	var out []oqRun
	for i, r := range c.recs {
		if r.Type != sim.RecEffect || r.Fact != sim.FactExecStarted {
			continue
		}
		run := oqRun{node: r.Node, slot: r.B, start: r.At, end: c.end}
		for _, e := range c.recs[i+1:] {
			ends := e.Type == sim.RecEffect && (e.Fact == sim.FactExecCompleted || e.Fact == sim.FactExecFailed) && e.Node == r.Node && e.A == r.A
			if ends || e.Type == sim.RecCrash && e.Node == r.Node {
				run.end = e.At
				break
			}
		}
		out = append(out, run)
	}
	return out
}

// oracleQueue counts each check's findings (duplicate_execution: all, and
// the harmless ones).
func oracleQueue(c oqCase) (lost, dup, harmless, overlaps, late int) {
	for s := 10 * time.Second; s <= oqWindow; s += 10 * time.Second {
		done, started := false, false
		for _, r := range c.recs {
			done = done || r.Type == sim.RecEffect && r.Fact == sim.FactExecCompleted && r.B == qSlot(s)
			started = started || r.Type == sim.RecEffect && r.Fact == sim.FactExecStarted && r.B == qSlot(s)
		}
		// Due while some candidate led, or started whatever the
		// leadership (issue 36), and never completed.
		if !done && (started || oqLeading(c.recs, sim.Time(s))) {
			lost++
		}
	}
	slots := map[int64]bool{}
	for _, e := range c.log {
		slots[e.Slot] = true
	}
	for s := range slots {
		type who struct {
			node sim.NodeID
			run  int64
		}
		execs := map[who]bool{} // execution → some write of it applied
		for _, e := range c.log {
			if e.Slot == s {
				execs[who{e.Node, e.Run}] = execs[who{e.Node, e.Run}] || e.Accepted
			}
		}
		if len(execs) < 2 {
			continue
		}
		dup++
		applied := 0
		for _, a := range execs {
			if a {
				applied++
			}
		}
		if applied <= 1 {
			harmless++
		}
	}
	runs := oqRuns(c)
	for i, r := range runs {
		for _, l := range runs[:i] { // started earlier (records are in time order)
			if r.start < l.end {
				overlaps++
				break
			}
		}
	}
	seen := map[int64]bool{}
	for _, r := range runs {
		if seen[r.slot] {
			continue
		}
		seen[r.slot] = true
		if r.start.Sub(sim.Time(time.Unix(0, r.slot).Sub(qStart))) > oqDeadline {
			late++
		}
	}
	return
}

// TestQueueChecksOracle: the checker's four queue-mode checks count what
// the brute-force oracle counts, over random traces.
func TestQueueChecksOracle(t *testing.T) {
	jobs := cron.Table{{Name: "report", Schedule: "@every 10s"}}
	require.NoError(t, jobs.Validate())
	var seen [5]int // cases where each count was positive: the property is not vacuous
	rapid.Check(t, func(t *rapid.T) {
		c := genQueueCase(t)
		in := checker.Input{Records: c.recs, Candidates: []sim.NodeID{0, 1}, Jobs: jobs, WallStart: qStart,
			CronFrom: qStart, CronTo: qStart.Add(oqWindow), Resource: append([]cron.LogEntry{}, c.log...),
			Exec: &checker.ExecInput{StartDeadline: oqDeadline, ForbidOverlap: c.forbid}}
		r := checker.Run(in)
		lost, dup, harmless, overlaps, late := oracleQueue(c)
		for i, n := range []int{lost, dup, harmless, overlaps, late} {
			if n > 0 {
				seen[i]++
			}
		}
		get := func(name string) checker.Check {
			ch, ok := r.Check(name)
			if !ok {
				t.Fatalf("no %s check", name)
			}
			return ch
		}
		if got := get(checker.CheckLostSlot).Count; got != lost {
			t.Fatalf("lost_slot: checker %d, oracle %d", got, lost)
		}
		d := get(checker.CheckDuplicateExecution)
		if d.Count != dup || d.HarmlessCount != harmless {
			t.Fatalf("duplicate_execution: checker %d (%d harmless), oracle %d (%d harmless)", d.Count, d.HarmlessCount, dup, harmless)
		}
		o := get(checker.CheckOverlap)
		if c.forbid && o.Count != overlaps || !c.forbid && (o.Count != 0 || o.Status != checker.StatusOK) {
			t.Fatalf("overlap (forbid %v): checker %d %s, oracle %d", c.forbid, o.Count, o.Status, overlaps)
		}
		if got := get(checker.CheckLateStart).Count; got != late {
			t.Fatalf("late_start: checker %d, oracle %d", got, late)
		}
	})
	for i, name := range []string{"lost", "duplicate", "harmless duplicate", "overlap", "late"} {
		require.Positive(t, seen[i], "no random case had a %s finding", name)
	}
}
