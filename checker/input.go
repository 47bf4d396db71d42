package checker

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// DefaultPorcupineTimeout bounds each porcupine check when
// Input.PorcupineTimeout is zero.
const DefaultPorcupineTimeout = 10 * time.Second

// Input is everything the checker needs to judge one run. Only Records is
// required; every other field narrows or enables checks, as documented.
type Input struct {
	// Records is the run's full trace, in order (a sim.Recorder's Records),
	// for Run. A streaming Checker (New) ignores it.
	Records []sim.Record
	// OnViolation, if set, is called by a streaming Checker as soon as it
	// sees a violation it can decide online (election_safety: a second
	// node leads an epoch; split_brain: two nodes have acted as leader over
	// a positive stretch of time), with the check's name, once per check.
	// simrun -fail-fast stops the run there (sim.Stop).
	OnViolation func(check string)
	// KeepStory makes a streaming Checker keep the records that explain
	// violations (lifecycle, leadership, faults, notes, effects; never
	// messages, timers or disk writes), so every listed violation gets its
	// Explanation and porcupine's visualization its annotations. Off, the
	// checker's memory is what it reports, and explanations are empty
	// (Details still say what was found). Run always keeps the story.
	KeepStory bool
	// Names maps a NodeID to its display name (index = ID), e.g. from
	// NamesOf. Missing names print as "node<ID>".
	Names []string
	// Candidates are the nodes that take part in the election. The majority
	// used to recognise a leader is len(Candidates)/2+1. Default: every node
	// that reported a leadership observation (lead, step down or belief).
	Candidates []sim.NodeID
	// LeaseStore lists the lease store node(s) of a lease-based algorithm.
	// Non-empty switches leader recognition to "holds the lease" (a node is
	// recognised from its RecLead on) and makes cutting the holder off the
	// store, or the store becoming unavailable, a fault that removes the
	// leader. Empty: recognition by a majority's beliefs.
	LeaseStore []sim.NodeID

	// Resource is the fenced resource's log (cron.Resource.Log). The run
	// has a resource when Resource is non-nil or Jobs is non-empty (a
	// resource that received no write has a nil log). Without one,
	// double_execution, stale_write, linearizability and missed_slots are
	// skipped and split-brain harm is not assessed.
	Resource []cron.LogEntry
	// Policy is the resource's policy; its FencingScope decides the scope of
	// stale_write and the partitioning of the resource model.
	Policy cron.Policy
	// Jobs is the validated job table (cron.Config.Validate), for missed
	// slots and for cron resuming after the faults.
	Jobs cron.Table
	// CronFrom and CronTo delimit the calendar window (CronFrom, CronTo]
	// whose due slots are judged for missed_slots. Zero CronTo: no window,
	// missed_slots is skipped.
	CronFrom, CronTo time.Time
	// WallStart is the calendar time at true time 0 (sim.Config.WallStart),
	// used to place slots on the true-time axis. Default sim.DefaultWallStart.
	WallStart time.Time

	// FaultEnd is when the last fault ended (the heal). Informational: it is
	// shown in the liveness explanation.
	FaultEnd sim.Time
	// SettleStart is when the heal-and-settle phase began. With SettleBound,
	// a leader must be recognised by SettleStart+SettleBound.
	SettleStart sim.Time
	// SettleBound is how long after SettleStart a leader may take to be
	// recognised. Zero: the liveness check is skipped.
	SettleBound time.Duration

	// Replay is the command that reproduces the run, printed with every
	// violation, e.g. "simrun run scenarios/gc-pause.yaml --seed 7".
	Replay string
	// PorcupineTimeout bounds each porcupine check (wall time, not simulated
	// time). A check that runs out reports status "unknown", never "ok".
	// Default DefaultPorcupineTimeout.
	PorcupineTimeout time.Duration
	// MaxViolations caps the violations listed per check (Check.Count keeps
	// the total). Default 20.
	MaxViolations int
	// Failure is what crashed the run (sim.Sim.Failure: a handler's panic
	// or a refused Env call), nil if nothing did: the crashed check.
	Failure *sim.Failure

	// Contract is what the run's algorithm (and cron layer) guarantee:
	// each finding of a check it covers is judged a breach, excused by a
	// fault of an excepted class, or within its overlap bound
	// (Violation.Contract). Empty: every finding is uncovered and the
	// scenario's expect alone judges it.
	Contract contract.Contract
	// Exec, if set, is queue-mode cron's: the lost_slot,
	// duplicate_execution, overlap and late_start checks run
	// (QueueCheckNames), from the execution facts (sim.FactExecStarted …).
	Exec *ExecInput

	// Standing are faults the run suffers from its start, by configuration
	// rather than by a record the checker sees: a network that loses or
	// duplicates messages (contract.Link), a clock configured off exact
	// (contract.ClockRate, contract.ClockStep on that node).
	Standing []StandingFault
}

// StandingFault is a fault class a run suffers from time 0: on Node, or on
// every node when Node is sim.None.
type StandingFault struct {
	Class contract.FaultClass
	Node  sim.NodeID
}

// NamesOf returns the display names of all nodes of s, indexed by NodeID.
func NamesOf(s *sim.Sim) []string {
	out := make([]string, s.NumNodes())
	for i := range out {
		out[i] = s.NodeName(sim.NodeID(i))
	}
	return out
}

// withDefaults returns a copy of in with defaults filled in (Run supplies
// the candidates observed in its records when none are given).
func (in Input) withDefaults() Input {
	if in.WallStart.IsZero() {
		in.WallStart = sim.DefaultWallStart
	}
	if in.PorcupineTimeout <= 0 {
		in.PorcupineTimeout = DefaultPorcupineTimeout
	}
	if in.MaxViolations <= 0 {
		in.MaxViolations = 20
	}
	in.Candidates = sortedIDs(in.Candidates)
	return in
}

// observedCandidates lists, ascending, the nodes that reported a leadership
// observation.
func observedCandidates(recs []sim.Record) []sim.NodeID {
	var ids []sim.NodeID
	for i := range recs {
		switch recs[i].Type {
		case sim.RecLead, sim.RecStepDown, sim.RecBelieve:
			ids = append(ids, recs[i].Node)
		}
	}
	return sortedIDs(ids)
}

// sortedIDs returns the distinct non-negative IDs of ids, ascending.
func sortedIDs(ids []sim.NodeID) []sim.NodeID {
	var out []sim.NodeID
	for _, id := range ids {
		if id < 0 {
			continue
		}
		k := 0
		for k < len(out) && out[k] < id {
			k++
		}
		if k < len(out) && out[k] == id {
			continue
		}
		out = append(out, 0)
		copy(out[k+1:], out[k:])
		out[k] = id
	}
	return out
}

// hasResource reports whether the run had a fenced resource.
func (in *Input) hasResource() bool { return in.Resource != nil || len(in.Jobs) > 0 }

// name returns a node's display name.
func (in *Input) name(id sim.NodeID) string {
	switch {
	case id == sim.None:
		return "none"
	case id >= 0 && int(id) < len(in.Names) && in.Names[id] != "":
		return in.Names[id]
	default:
		return fmt.Sprintf("node%d", id)
	}
}

// trueTimeOf places a calendar instant on the true-time axis, assuming an
// exact clock (slots are named by calendar time; clocks may disagree).
func (in *Input) trueTimeOf(wall int64) sim.Time {
	return sim.Time(wall - in.WallStart.UnixNano())
}
