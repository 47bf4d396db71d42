package cron

import (
	"sort"
	"time"

	"github.com/electsim/electsim/sim"
)

// RunRef identifies one run of a slot: the node that ran it, its run ID and
// the token it carried.
type RunRef struct {
	Node  sim.NodeID
	Run   int64
	Token int64
}

// SlotResult is the fate of one due slot according to the resource's log.
type SlotResult struct {
	Job  string
	Slot int64 // scheduled wall time, Unix ns
	// Runs lists the distinct runs that had at least one write applied, in
	// the order of their first applied write.
	Runs []RunRef
}

// Results summarise a run of the cron layer, from the resource's log.
type Results struct {
	// Due counts the slots scheduled in the judged window.
	Due int
	// Once counts due slots applied by exactly one run.
	Once int
	// MoreThanOnce counts due slots applied by two or more runs.
	MoreThanOnce int
	// Missed counts due slots no run had a write applied for.
	Missed int
	// Multi lists the slots applied more than once, with the runs involved.
	Multi []SlotResult
	// MissedSlots lists the missed slots.
	MissedSlots []SlotResult
	// Rejected counts rejected writes by reason (stale_token, duplicate, claim_lost).
	Rejected map[string]int
	// Accepted counts accepted writes.
	Accepted int
}

// Compute judges the slots of jobs scheduled in (from, to] against log.
// Choose to early enough that a slot due at to had time to run.
func Compute(jobs Table, log []LogEntry, from, to time.Time) Results {
	res := Results{Rejected: map[string]int{}}
	type agg struct{ runs []RunRef }
	applied := map[slotKey]*agg{}
	for _, e := range log {
		if !e.Accepted {
			res.Rejected[e.Reason]++
			continue
		}
		res.Accepted++
		k := slotKey{e.JobIndex, e.Slot}
		a := applied[k]
		if a == nil {
			a = &agg{}
			applied[k] = a
		}
		ref := RunRef{Node: e.Node, Run: e.Run, Token: e.Token}
		found := false
		for _, r := range a.runs {
			if r.Node == ref.Node && r.Run == ref.Run {
				found = true
				break
			}
		}
		if !found {
			a.runs = append(a.runs, ref)
		}
	}
	for j := range jobs {
		for _, t := range SlotsBetween(jobs[j].sched, from, to) {
			res.Due++
			s := t.UnixNano()
			a := applied[slotKey{j, s}]
			switch {
			case a == nil:
				res.Missed++
				res.MissedSlots = append(res.MissedSlots, SlotResult{Job: jobs[j].Name, Slot: s})
			case len(a.runs) == 1:
				res.Once++
			default:
				res.MoreThanOnce++
				res.Multi = append(res.Multi, SlotResult{Job: jobs[j].Name, Slot: s, Runs: a.runs})
			}
		}
	}
	return res
}

// FailoverRun is the time from a leadership change to the new leader's first
// run whose write the resource applied with the new tenure's token.
type FailoverRun struct {
	Leader  sim.NodeID
	LeadAt  sim.Time // the new leader started acting
	Token   int64
	FirstAt sim.Time // the first applied write with that token (0 if none)
	Latency time.Duration
}

// FailoverToFencedRun pairs every change of acting leader in the trace (a
// RecLead by a node other than the previous one) with the first write the
// resource applied from that node with the new token.
func FailoverToFencedRun(recs []sim.Record, log []LogEntry) []FailoverRun {
	var out []FailoverRun
	prev := sim.None
	for _, r := range recs {
		if r.Type != sim.RecLead {
			continue
		}
		if prev != sim.None && r.Node != prev {
			f := FailoverRun{Leader: r.Node, LeadAt: r.At, Token: r.Token}
			for _, e := range log {
				if e.Accepted && e.Node == r.Node && e.Token == r.Token && e.At >= r.At {
					f.FirstAt = e.At
					f.Latency = e.At.Sub(r.At)
					break
				}
			}
			out = append(out, f)
		}
		prev = r.Node
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LeadAt < out[j].LeadAt })
	return out
}
