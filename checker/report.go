package checker

import (
	"fmt"
	"strings"
	"time"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// Status is a check's verdict.
type Status string

// The verdicts.
const (
	// StatusOK: the property held over the whole run.
	StatusOK Status = "ok"
	// StatusViolated: at least one violation was found (see Violations).
	StatusViolated Status = "violated"
	// StatusUnknown: the check could not decide (a porcupine timeout). Never
	// read it as ok.
	StatusUnknown Status = "unknown"
	// StatusSkipped: the run lacks what the check needs (no resource, no
	// settle phase); Check.Summary says what.
	StatusSkipped Status = "skipped"
)

// Check names, as used in Report.Checks and in Expect.
const (
	CheckElectionSafety        = "election_safety"        // at most one leader per epoch
	CheckSplitBrain            = "split_brain"            // no two leaders at one instant (belief level)
	CheckDoubleExecution       = "double_execution"       // no slot applied from two runs
	CheckStaleWrite            = "stale_write"            // no token applied below one applied before
	CheckLinearizability       = "linearizability"        // porcupine: resource history vs fenced store
	CheckLeaderLinearizability = "leader_linearizability" // porcupine: leadership history vs lock
	CheckLiveness              = "liveness"               // a leader (and cron) back within the settle bound
	CheckMissedSlots           = "missed_slots"           // every due slot in the cron window applied
	CheckCrashed               = "crashed"                // no handler panicked or broke the engine's contract
)

// CheckNames lists every check in report order.
var CheckNames = []string{CheckElectionSafety, CheckSplitBrain, CheckDoubleExecution, CheckStaleWrite,
	CheckLinearizability, CheckLeaderLinearizability, CheckLiveness, CheckMissedSlots, CheckCrashed}

// ContractCheckNames are the checks a report has only when the run's
// contract promises them (CheckDisruption).
var ContractCheckNames = []string{CheckDisruption}

// Check is one named property and its verdict.
type Check struct {
	// Name is one of the Check* constants.
	Name string
	// Status is the verdict.
	Status Status
	// Summary is one line saying what was found (or why it was skipped).
	Summary string
	// Count is the number of violations found; Violations lists at most
	// Input.MaxViolations of them, in time order.
	Count int
	// HarmlessCount is how many of the Count violations are harmless.
	HarmlessCount int
	// Breaches, Excused and WithinBound count the Count violations by
	// their contract verdict (Violation.Contract); all zero when the
	// contract does not cover the check.
	Breaches, Excused, WithinBound int
	// KnownBugs counts the Breaches labelled with a known bug of the
	// configured release (Violation.KnownBug).
	KnownBugs int
	// Violations are the findings, each with its explanation.
	Violations []Violation
}

// OnlyHarmless reports whether the check is violated only by harmless
// findings (belief-level overlaps the resource neutralised).
func (c Check) OnlyHarmless() bool {
	return c.Status == StatusViolated && c.Count > 0 && c.HarmlessCount == c.Count
}

// Violation is one finding.
type Violation struct {
	// Kind is the check's name.
	Kind string
	// At is when it happened in true time (an overlap's start, the
	// offending write's acceptance).
	At sim.Time
	// End is when it ended, for findings that last (an overlap); else At.
	End sim.Time
	// Duration is End-At.
	Duration time.Duration
	// Nodes are the nodes involved, by name.
	Nodes []string
	// NodeIDs are Nodes as IDs, for code that acts on a finding (the
	// property suites); Epochs, for election_safety and split_brain, are
	// the tenures' epochs in the same order.
	NodeIDs []sim.NodeID
	Epochs  []int64
	// Tokens are the fencing tokens (or epochs) involved, in Nodes' order.
	Tokens []int64
	// Slot names the cron slot involved, if any (cron.SlotName).
	Slot string
	// Harmless marks a belief-level finding that did no damage at the
	// resource (see docs/checkers.md); Why says why.
	Harmless bool
	// Why explains the harm verdict of a split-brain overlap.
	Why string
	// Restates, for a linearizability finding, names the check that
	// already reports the same write or slot (double_execution,
	// stale_write); empty when none does.
	Restates string
	// Details is a one-line statement of the finding.
	Details string
	// Explanation is a short narrative built from the trace, with true and
	// local times, ending in the verdict.
	Explanation string
	// Replay is the command that reproduces the run.
	Replay string
	// Stack is, for a crashed finding, the failing handler's stack
	// (sim.Failure.Stack): for people, never parsed.
	Stack string
	// Contract is the finding's verdict under Input.Contract; for an
	// excused one, Excuse is the fault that voided the guarantee (for a
	// split_brain overlap within a bound that pauses stretched, the pauses;
	// for a breach past a stretched bound, the pauses that did not explain
	// it), and ExcusedBy, ExcusedNode and ExcusedAt repeat its class, node
	// name and start.
	Contract contract.Verdict
	// WriteLag, for a split_brain overlap judged under a guarantee with
	// WriteLag, is how much its bound stretched for the holder's stale
	// lease write (sim.FactLeaseWriteLag); zero when none counted.
	WriteLag time.Duration
	// KnownBug, on a breach, labels the known bug of the configured
	// library release that a fault reaching the finding triggered
	// (contract.Guarantee.Known); Excuse then names that fault.
	KnownBug    string
	Excuse      *Excuse
	ExcusedBy   contract.FaultClass
	ExcusedNode string
	ExcusedAt   sim.Time
	judged      bool // the verdict was shared from the split-brain overlap it stands for
}

// KindCount is a message count for one message kind.
type KindCount struct {
	Kind  string
	Count int
}

// Failover is one fault that removed the acting leader and what it took to
// get a recognised leader back.
type Failover struct {
	// Fault describes the fault, e.g. "n2 paused".
	Fault string
	// FaultAt is when it hit.
	FaultAt sim.Time
	// Leader is the leader it removed, and LeaderEpoch its epoch.
	Leader      string
	LeaderEpoch int64
	// Detected reports whether the system noticed before a leader was
	// recognised again; DetectedAt is the first such observation, by
	// DetectedBy, and Detection = DetectedAt-FaultAt.
	Detected   bool
	DetectedAt sim.Time
	DetectedBy string
	Detection  time.Duration
	// Completed reports whether a leader was recognised again before the
	// trace ended; NewLeader (possibly the same node, recovered), its epoch
	// and token, when (LeaderAt) and Latency = LeaderAt-FaultAt.
	Completed bool
	NewLeader string
	NewEpoch  int64
	NewToken  int64
	LeaderAt  sim.Time
	Latency   time.Duration
	// Leaderless is the part of [FaultAt, LeaderAt] during which no working
	// node other than the removed leader acted as leader and the removed
	// leader had not recovered.
	Leaderless time.Duration
	// ElectionsDuring counts the distinct epochs newer than LeaderEpoch
	// that appeared in observations during the failover (Raft: terms
	// campaigned in, split votes included; leases: tokens issued).
	ElectionsDuring int
	// LeadsDuring counts the tenures started during the failover.
	LeadsDuring int
	// Messages counts election messages (every kind but the cron layer's)
	// sent during the failover and delivered or lost; MessagesByKind splits
	// it by kind, sorted by kind name.
	Messages       int
	MessagesByKind []KindCount
	// FencedRun reports whether the resource accepted a write carrying the
	// new tenure's token; FirstFencedRunAt is the first such acceptance and
	// ToFencedRun = FirstFencedRunAt-FaultAt.
	FencedRun        bool
	FirstFencedRunAt sim.Time
	ToFencedRun      time.Duration
}

// Report is the checker's verdict on a run.
type Report struct {
	// Checks are the named checks, in CheckNames order.
	Checks []Check
	// Failovers lists every fault that removed the acting leader, in order.
	Failovers []Failover
	// HasLeader reports whether a leader was ever recognised; FirstLeaderAt
	// is the first such instant.
	HasLeader     bool
	FirstLeaderAt sim.Time
	// Leaderless is the total true time with no recognised leader, from
	// time 0 to End.
	Leaderless time.Duration
	// Tenures counts tenures begun (every RecLead: a won election or a
	// lease acquisition).
	Tenures int
	// LeaderChanges counts tenures that started after the first one.
	LeaderChanges int
	// FlapsPerMinute is LeaderChanges per minute of the run, and
	// MaxChangesPerMinute the most tenure starts in any 60 s window.
	FlapsPerMinute      float64
	MaxChangesPerMinute int
	// Cron summarises the resource log over (CronFrom, CronTo]; nil
	// without a resource or window.
	Cron *cron.Results
	// Linearizability holds the porcupine runs (leadership, resource), with
	// their visualizations.
	Linearizability []Linearization
	// End is the last record's true time.
	End sim.Time
	// Replay is Input.Replay.
	Replay string
	// Overlaps are every split-brain overlap in time order and
	// DoubledSlots every slot applied from more than one run, listed as
	// violations or not (the checks list at most Input.MaxViolations each,
	// with their stories): what a figure of the whole run draws. They grow
	// with the findings only.
	Overlaps     []Overlap
	DoubledSlots []SlotRef
	// Contract is Input.Contract, and Breaches the findings, over every
	// check, that break it: a run with a breach fails whatever its
	// scenario allows.
	Contract contract.Contract
	Breaches int
	// Workers are queue mode's executions per worker node (taken,
	// heartbeats, acked, redelivered, completed, failed), by node ID, at
	// most MaxWorkersReported; WorkersOmitted counts the nodes left out.
	// Nil without queue mode.
	Workers        []WorkerExecs
	WorkersOmitted int
	// Redeliveries are the run's first MaxRedeliveriesReported messages
	// delivered again after their visibility timeout, in time order, with
	// the worker that held each; RedeliveriesOmitted counts the rest.
	Redeliveries        []Redelivery
	RedeliveriesOmitted int
}

// Overlap is one split-brain overlap: Nodes both acted as leader from
// From to To, a positive stretch of true time.
type Overlap struct {
	From, To sim.Time
	Nodes    [2]sim.NodeID
}

// SlotRef names a cron slot as the resource's log does: the job's index
// in the configuration and the slot's scheduled wall time
// (cron.LogEntry's JobIndex and Slot).
type SlotRef struct {
	Job  int
	Slot int64
}

// Check returns the named check.
func (r Report) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// String renders the report for humans: one line per check, then failovers
// and the explanations of the first violations.
func (r Report) String() string {
	var b strings.Builder
	for _, c := range r.Checks {
		mark := string(c.Status)
		if c.OnlyHarmless() {
			mark += " (harmless)"
		}
		fmt.Fprintf(&b, "%-23s %-18s %s\n", c.Name, mark, c.Summary)
	}
	for _, f := range r.Failovers {
		if f.Completed {
			fmt.Fprintf(&b, "failover t=%v %s: %s leads after %v (detected after %v, leaderless %v, %d elections, %d messages)\n",
				f.FaultAt, f.Fault, f.NewLeader, ms(f.Latency), ms(f.Detection), ms(f.Leaderless), f.ElectionsDuring, f.Messages)
		} else {
			fmt.Fprintf(&b, "failover t=%v %s: no leader recognised before the end\n", f.FaultAt, f.Fault)
		}
	}
	fmt.Fprintf(&b, "leader changes %d (%.2f/min, max %d in a minute), leaderless %v\n",
		r.LeaderChanges, r.FlapsPerMinute, r.MaxChangesPerMinute, ms(r.Leaderless))
	for _, c := range r.Checks {
		for _, v := range c.Violations {
			fmt.Fprintf(&b, "\n%s: %s\n  %s\n", c.Name, v.Details, v.Explanation)
			if v.Stack != "" {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(v.Stack, "\n", "\n  "))
			}
			if v.Replay != "" {
				fmt.Fprintf(&b, "  replay: %s\n", v.Replay)
			}
		}
	}
	return b.String()
}
