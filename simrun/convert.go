package simrun

import (
	"slices"
	"sort"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func msT(t sim.Time) float64 { return ms(t.Duration()) }

// summarize turns one executed run into its JSON summary entry.
func summarize(r *scenario.Run) reports.RunSummary {
	st := r.Sim.Stats()
	rs := reports.RunSummary{
		Seed: r.Seed, Algorithm: r.Algorithm, OK: r.OK, Problems: r.Problems,
		Outcome: r.Outcome.String(), TraceHash: r.Sim.TraceHashHex(), Events: st.Events,
		MessagesByKind: map[string]uint64{}, LeaderlessMs: ms(r.Report.Leaderless),
		LeaderChanges: r.Report.LeaderChanges, Checks: map[string]string{},
		Failovers: []reports.FailoverSummary{}, Violations: []reports.ViolationSummary{},
	}
	for k := 1; k < sim.MaxKinds; k++ {
		if n := st.Sent[k]; n > 0 {
			rs.MessagesByKind[sim.MsgKind(k).String()] = n
		}
	}
	rs.Elections = r.Report.Tenures
	for _, f := range r.Report.Failovers {
		fs := reports.FailoverSummary{
			Fault: f.Fault, FaultAtMs: msT(f.FaultAt),
			DetectionMs: ms(f.Detection), LeaderlessMs: ms(f.Leaderless), Completed: f.Completed,
			Elections: f.ElectionsDuring, Messages: f.Messages,
		}
		if f.Completed {
			fs.LeaderAtMs, fs.LatencyMs = reports.Ms(msT(f.LeaderAt)), reports.Ms(ms(f.Latency))
		}
		rs.Failovers = append(rs.Failovers, fs)
	}
	if c := r.Report.Cron; c != nil {
		rs.Cron = &reports.CronSummary{Due: c.Due, Once: c.Once, Twice: c.MoreThanOnce, Missed: c.Missed}
	}
	for _, c := range r.Report.Checks {
		rs.Checks[c.Name] = string(c.Status)
		for _, v := range c.Violations {
			vs := reports.ViolationSummary{
				Kind: v.Kind, AtMs: msT(v.At), DurationMs: ms(v.Duration), Harmless: v.Harmless, Details: v.Details, Restates: v.Restates, Explanation: v.Explanation, Replay: v.Replay, Stack: v.Stack}
			if v.Contract != contract.Uncovered {
				vs.Contract = v.Contract.String()
			}
			if v.Contract == contract.Excused {
				vs.ExcusedBy = v.ExcusedBy.String()
			}
			vs.KnownBug = v.KnownBug
			vs.WriteLagMs = ms(v.WriteLag)
			if e := v.Excuse; e != nil {
				es := &reports.ExcuseSummary{Class: e.Class.String(), Node: e.NodeName, Fault: e.Ordinal, Source: r.FaultSource(e),
					StartMs: msT(e.Start), BeforeMs: ms(e.Before), StretchMs: ms(e.Stretch)}
				if e.End != sim.Never {
					end := msT(e.End)
					es.EndMs = &end
				}
				vs.Excuse = es
			}
			rs.Violations = append(rs.Violations, vs)
		}
	}
	rs.Breaches = r.Report.Breaches
	for _, w := range r.Report.Workers {
		rs.Workers = append(rs.Workers, reports.WorkerSummary{Node: w.Name, Taken: w.Taken, Heartbeats: w.Heartbeats,
			Acked: w.Acked, Redelivered: w.Redelivered, Completed: w.Completed, Failed: w.Failed})
	}
	rs.WorkersOmitted = r.Report.WorkersOmitted
	rs.Counters = r.Counters.Map()
	sort.SliceStable(rs.Violations, func(i, j int) bool { return rs.Violations[i].AtMs < rs.Violations[j].AtMs })
	return rs
}

// timeline extracts the leadership timeline of one run for the plot:
// tenures, every fault on the rows of the nodes it hit (coloured by kind),
// the settle phase, split-brain overlaps and the cron writes, with the
// writes of slots that ran twice marked.
func timeline(r *scenario.Run) *reports.Timeline {
	tl := &reports.Timeline{Title: r.Scenario.Name + " · " + r.Algorithm + " · seed " + uitoa(r.Seed), Algorithm: r.Algorithm}
	for _, id := range r.Candidates {
		tl.Nodes = append(tl.Nodes, r.Sim.NodeName(id))
	}
	tl.EndMs = msT(r.Sim.Now())
	if r.SettleStart > 0 && r.SettleStart < r.Sim.Now() {
		tl.SettleMs = msT(r.SettleStart)
	}
	ex := traceSpans(tl, r)
	appliedFaults(tl, r)
	overlapsAndWrites(tl, r, ex)
	return tl
}

// traceSpans adds to tl, from the run's trace, the leaders' tenures and the
// pauses and crashes (open ones last to the end), and returns the cron
// executions it observed on the way.
func traceSpans(tl *reports.Timeline, r *scenario.Run) *execSpans {
	open := map[sim.NodeID]int{}
	pausedAt := map[sim.NodeID]float64{}
	downAt := map[sim.NodeID]float64{}
	closeTenure := func(id sim.NodeID, at float64) {
		if k, ok := open[id]; ok {
			tl.Tenures[k].ToMs = at
			delete(open, id)
		}
	}
	ex := newExecSpans(r)
	for _, rec := range r.Checker.Story() {
		at := msT(rec.At)
		name := r.Sim.NodeName(rec.Node)
		ex.observe(&rec)
		switch rec.Type {
		case sim.RecLead:
			closeTenure(rec.Node, at)
			open[rec.Node] = len(tl.Tenures)
			tl.Tenures = append(tl.Tenures, reports.Span{Node: name, FromMs: at, ToMs: tl.EndMs, Label: "e=" + itoa(rec.Epoch)})
		case sim.RecStepDown:
			closeTenure(rec.Node, at)
		case sim.RecPause:
			pausedAt[rec.Node] = at
		case sim.RecResume:
			if from, ok := pausedAt[rec.Node]; ok {
				tl.Faults = append(tl.Faults, reports.Span{Node: name, FromMs: from, ToMs: at, Label: "paused", Kind: "pause"})
				delete(pausedAt, rec.Node)
			}
		case sim.RecCrash:
			downAt[rec.Node] = at
		case sim.RecStart:
			if from, ok := downAt[rec.Node]; ok {
				tl.Faults = append(tl.Faults, reports.Span{Node: name, FromMs: from, ToMs: at, Label: "down", Kind: "down"})
				delete(downAt, rec.Node)
			}
		}
	}
	for _, id := range sortedIDs(pausedAt) {
		tl.Faults = append(tl.Faults, reports.Span{Node: r.Sim.NodeName(id), FromMs: pausedAt[id], ToMs: tl.EndMs, Label: "paused", Kind: "pause"})
	}
	for _, id := range sortedIDs(downAt) {
		tl.Faults = append(tl.Faults, reports.Span{Node: r.Sim.NodeName(id), FromMs: downAt[id], ToMs: tl.EndMs, Label: "down", Kind: "down"})
	}
	return ex
}

// appliedFaults adds to tl the injected faults other than pauses and
// crashes (those come from the trace), on the rows of the candidates they
// hit, and sorts the faults by time.
func appliedFaults(tl *reports.Timeline, r *scenario.Run) {
	candidate := map[sim.NodeID]bool{}
	for _, id := range r.Candidates {
		candidate[id] = true
	}
	for _, a := range r.Injector.Applied() {
		if a.Kind != "partition" && a.Kind != "clock" && a.Kind != "link" && a.Kind != "store" && a.Kind != "disk" {
			continue // pauses and crashes come from the trace above
		}
		to := tl.EndMs
		if a.Reverted {
			to = msT(a.RevertedAt)
		}
		// On the rows of the candidates it hit: a clock fault on n4 does not
		// shade n2's row. Faults of no candidate (a store fault, links
		// between every node) shade every row.
		onRows := false
		for _, id := range a.Nodes {
			if candidate[id] {
				onRows = true
				tl.Faults = append(tl.Faults, reports.Span{Node: r.Sim.NodeName(id), FromMs: msT(a.At), ToMs: to, Label: a.Kind, Kind: a.Kind})
			}
		}
		if !onRows {
			label := a.Kind
			if len(a.Nodes) > 0 {
				label += " " + r.Sim.NodeName(a.Nodes[0])
			}
			tl.Faults = append(tl.Faults, reports.Span{FromMs: msT(a.At), ToMs: to, Label: label, Kind: a.Kind})
		}
	}
	sort.SliceStable(tl.Faults, func(i, j int) bool {
		a, b := tl.Faults[i], tl.Faults[j]
		if a.FromMs != b.FromMs {
			return a.FromMs < b.FromMs
		}
		return a.Node < b.Node
	})
}

// overlapsAndWrites adds to tl the split-brain overlaps, the cron
// executions (ex) and the fenced writes, marking the writes of slots that
// ran twice.
func overlapsAndWrites(tl *reports.Timeline, r *scenario.Run, ex *execSpans) {
	// Every overlap and doubled slot, not only the violations listed (at
	// most 20 per check): a long run's figure would otherwise stop showing
	// them after its twentieth.
	for _, o := range r.Report.Overlaps {
		for _, n := range o.Nodes {
			tl.Overlaps = append(tl.Overlaps, reports.Span{Node: r.Sim.NodeName(n), FromMs: msT(o.From), ToMs: msT(o.To), Label: "split-brain"})
		}
	}
	doubled := map[checker.SlotRef]bool{}
	for _, d := range r.Report.DoubledSlots {
		doubled[d] = true
	}
	tl.Execs = ex.finish(tl.EndMs)
	if r.Resource != nil {
		for _, e := range r.Resource.Log() {
			tl.Writes = append(tl.Writes, reports.Mark{Node: r.Sim.NodeName(e.Node), AtMs: msT(e.At), Accepted: e.Accepted,
				Label: e.Job + " tok " + itoa(e.Token) + " " + e.Reason, Double: e.Accepted && doubled[checker.SlotRef{Job: e.JobIndex, Slot: e.Slot}]})
		}
	}
}

// sortedIDs are m's keys in order.
func sortedIDs(m map[sim.NodeID]float64) []sim.NodeID {
	ids := make([]sim.NodeID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// addExplanations gives run's violations the explanations of the same
// violations in again, the run re-run with its story. Only explanations
// move: the verdicts stay those of the sweep. A violation matches by kind,
// time and duration, in order; one the re-run did not find (a porcupine
// verdict that went the other way) stays unexplained.
func addExplanations(run *reports.RunSummary, again reports.RunSummary) {
	used := make([]bool, len(again.Violations))
	for i := range run.Violations {
		v := &run.Violations[i]
		for k, w := range again.Violations {
			if !used[k] && w.Kind == v.Kind && w.AtMs == v.AtMs && w.DurationMs == v.DurationMs {
				used[k] = true
				v.Explanation = w.Explanation
				break
			}
		}
	}
}
