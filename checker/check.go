package checker

import (
	"fmt"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// checker holds one run's inputs and shared analyses while the checks run.
type checker struct {
	in                  Input
	tl                  *timeline
	rp                  replayed
	writes              writes
	kept                []storyRec  // with Input.KeepStory: the records stories tell
	keptFaults          int         // fault-driven records in kept (MaxStoryFaults)
	storyDropped        int         // records left out past MaxStoryFaults or MaxStoryRecords
	writeSends          []writeSend // deliveries of writes to the resource, in order
	faults              faultSpans  // every fault's class, place and span (Input.Contract's exceptions)
	sentAt              []sim.Time  // per log entry: when its write message was sent, -1 if unknown
	runStarts           map[runKey][]sim.Time
	splitBrain          Check
	harmfulOverlaps     int
	allOverlaps         []Overlap  // every split-brain overlap, listed or not
	doubled             []SlotRef  // every slot applied from more than one run
	exec                *execState // queue-mode executions (Input.Exec), nil without
	stab                *stability // the disruption check's tracker, nil unless the contract promises it
	workers             []WorkerExecs
	workersOmitted      int
	redeliveries        []Redelivery
	redeliveriesOmitted int
}

// Run judges a recorded run and returns its report: it streams in.Records
// through a Checker (keeping them as the story, so every violation is
// explained). It is deterministic for a given Input, except that a
// porcupine check may report "unknown" if one porcupine call (the
// leadership history, or one segment of the resource history) exceeds
// Input.PorcupineTimeout of wall time.
func Run(in Input) Report {
	if len(in.Candidates) == 0 {
		in.Candidates = observedCandidates(in.Records)
	}
	recs := in.Records
	in.Records = nil
	in.KeepStory = true
	n := len(in.Names)
	if m := numNodes(recs); m > n {
		names := make([]string, m)
		copy(names, in.Names)
		in.Names = names
	}
	k := New(in)
	for i := range recs {
		k.Record(&recs[i])
	}
	return k.Finish(in.Resource)
}

// run runs every check once the trace has streamed by.
func (c *checker) run() Report {
	c.writes = analyseWrites(c.in.Resource, c.in.Policy)
	c.sentAt = writeSendTimes(c.writeSends, c.in.Resource)

	r := Report{End: c.tl.end, Replay: c.in.Replay, Leaderless: c.rp.leaderless, Tenures: len(c.tl.tenures)}
	r.Checks = append(r.Checks, c.checkElectionSafety())
	c.splitBrain = c.checkSplitBrain()
	r.Checks = append(r.Checks, c.splitBrain, c.checkDoubleExecution(), c.checkStaleWrite())
	lin, linR := c.checkLinearizability()
	lead, leadR := c.checkLeaderLinearizability()
	r.Checks = append(r.Checks, lin, lead, c.checkLiveness())
	missed, res := c.checkMissedSlots()
	r.Checks = append(r.Checks, missed, c.checkCrashed())
	if ch, ok := c.checkDisruption(); ok {
		r.Checks = append(r.Checks, ch)
	}
	if c.exec != nil {
		r.Checks = append(r.Checks, c.execChecks()...)
	}
	r.Cron = res
	r.Linearizability = []Linearization{leadR, linR}
	r.Failovers = c.finishFailovers()
	if at, _, ok := c.firstRecognisedFrom(0); ok {
		r.HasLeader, r.FirstLeaderAt = true, at
	}
	c.flapping(&r)
	r.Overlaps, r.DoubledSlots = c.allOverlaps, c.doubled
	r.Contract = c.in.Contract
	r.Workers, r.WorkersOmitted = c.workers, c.workersOmitted
	r.Redeliveries, r.RedeliveriesOmitted = c.redeliveries, c.redeliveriesOmitted
	for _, ch := range r.Checks {
		r.Breaches += ch.Breaches
	}
	return r
}

// writeSendTimes finds, for each log entry, when its write was sent: the
// SentAt of the resource's delivery of that write (same true time, sender
// and token), matched in order.
func writeSendTimes(sends []writeSend, log []cron.LogEntry) []sim.Time {
	out := make([]sim.Time, len(log))
	j := 0
	for i := range log {
		out[i] = -1
		e := &log[i]
		for j < len(sends) && sends[j].at < e.At {
			j++
		}
		for k := j; k < len(sends) && sends[k].at == e.At; k++ {
			w := &sends[k]
			if w.from == e.Node && w.token == e.Token {
				out[i] = w.sentAt
				j = k + 1 // the next entry's delivery comes later in the trace
				break
			}
		}
	}
	return out
}

// hasStory reports whether explanations can be built (Input.KeepStory).
func (c *checker) hasStory() bool { return c.in.KeepStory }

// wants reports whether the next violation of ch will be listed (so its
// explanation is worth building).
func (c *checker) wants(ch *Check) bool {
	return len(ch.Violations) < c.in.MaxViolations && c.hasStory()
}

// listed reports whether the next violation of ch will be listed.
func (c *checker) listed(ch *Check) bool { return len(ch.Violations) < c.in.MaxViolations }

// add counts a violation and lists it if there is room.
func (c *checker) add(ch *Check, v Violation) {
	ch.Count++
	if v.Harmless {
		ch.HarmlessCount++
	}
	c.judge(ch.Name, &v)
	switch v.Contract {
	case contract.Breach:
		ch.Breaches++
		if v.KnownBug != "" {
			ch.KnownBugs++
		}
	case contract.Excused:
		ch.Excused++
	case contract.WithinBound:
		ch.WithinBound++
	}
	v.Replay = c.in.Replay
	if v.Kind == "" {
		v.Kind = ch.Name
	}
	if c.listed(ch) {
		ch.Violations = append(ch.Violations, v)
	}
}

// finish sets the status and summary from the violations found.
func (c *checker) finish(ch Check, okSummary, violatedFormat string) Check {
	if ch.Count == 0 {
		ch.Status, ch.Summary = StatusOK, okSummary
		return ch
	}
	ch.Status, ch.Summary = StatusViolated, fmt.Sprintf(violatedFormat, ch.Count)
	return ch
}

func skipped(ch Check, why string) Check {
	ch.Status, ch.Summary = StatusSkipped, why
	return ch
}
