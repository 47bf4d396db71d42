// Package reports turns simrun's results into what people read and
// machines parse: the versioned JSON summary (docs/output.md), plots
// (gonum/plot, PNG and SVG) and a self-contained HTML report. It knows
// nothing about how runs are made: cmd/simrun fills these types.
package reports

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
)

// Schema identifies the JSON summary's format; it changes only when a field
// changes meaning or disappears.
const Schema = "electsim.summary/v2"

// Summary is the machine-readable result of a sweep. Everything except
// Timing is a deterministic function of the scenario, seeds and algorithms.
type Summary struct {
	Schema    string       `json:"schema"`
	Scenario  ScenarioInfo `json:"scenario"`
	GoVersion string       `json:"go_version"`
	Seeds     SeedRange    `json:"seeds"`
	Shard     *Shard       `json:"shard,omitempty"`
	// Config fingerprints what was run, so merge can refuse shards of
	// different configurations.
	Config     *Config       `json:"config,omitempty"`
	Algorithms []AlgoSummary `json:"algorithms"`
	// Grid describes a parameter sweep (simrun -vary): its dimensions and
	// values. Runs and Algorithms then carry the grid cell they belong to
	// (Vary) and the group label they are shown under (Group).
	Grid *Grid `json:"grid,omitempty"`
	// NotApplicable lists the algorithms asked for that cannot run the
	// scenario (n/a, as in the matrix), with why.
	NotApplicable []NotApplicable `json:"not_applicable,omitempty"`
	// Runs are the runs kept in full, in run order (group, then seed):
	// every run of a sweep of at most KeepAllRuns runs, else the first
	// MaxKeptRuns notable ones (RunsKept says which). Counts, rates and
	// distributions come from Algorithms, never from Runs.
	Runs []RunSummary `json:"runs"`
	// RunsKept is KeptAll or KeptNotable.
	RunsKept string `json:"runs_kept"`
	// RunsFile names the file with every run, one JSON object per line in
	// run order, relative to the summary (simrun writes runs.jsonl.gz);
	// empty when there is none.
	RunsFile string `json:"runs_file,omitempty"`
	// Partial is set when the sweep was interrupted (SIGINT, SIGTERM):
	// Runs, and everything aggregated from them, cover only the runs that
	// finished.
	Partial *Partial `json:"partial,omitempty"`
	// Timing is wall-clock information about the sweep; it is the only part
	// that differs between identical sweeps.
	Timing *Timing `json:"timing,omitempty"`
}

// Grid is a parameter sweep's grid: every combination of its dimensions'
// values ran (docs/studies.md).
type Grid struct {
	Dims []GridDim `json:"dims"`
	// Heat is the rate a two-dimensional grid's heatmap shows: one of
	// HeatMetrics.
	Heat string `json:"heat,omitempty"`
}

// GridDim is one dimension of a grid: a scenario path (as -set writes it)
// and its values, in order.
type GridDim struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// Partial says why a sweep stopped before its last run, and how far it got.
type Partial struct {
	// Reason is the signal that stopped it, e.g. "interrupt".
	Reason string `json:"reason"`
	// RunsDone and RunsPlanned count the finished and the planned runs.
	RunsDone    int `json:"runs_done"`
	RunsPlanned int `json:"runs_planned"`
}

// Config is a sweep's configuration fingerprint: everything besides the
// seeds that decides its runs. Shards merge only if their Configs are
// equal.
type Config struct {
	// ScenarioSHA256 is the SHA-256 of the scenario file's bytes.
	ScenarioSHA256 string `json:"scenario_sha256"`
	// Sets are the -set overrides, in order.
	Sets []string `json:"sets,omitempty"`
	// Algorithms are the algorithms run (-algo, or the scenario's).
	Algorithms []string `json:"algorithms"`
	// Vary are the -vary dimensions, as given.
	Vary []string `json:"vary,omitempty"`
	// Simrun is simrun's version (module version and VCS revision).
	Simrun string `json:"simrun"`
	// FailFast records -fail-fast, which stops runs at their first
	// violation (a different run).
	FailFast bool `json:"fail_fast,omitempty"`
}

// Diff names the first difference between two configurations ("" if none).
func (c *Config) Diff(d *Config) string {
	switch {
	case c == nil && d == nil:
		return ""
	case c == nil || d == nil:
		return "one summary has no configuration fingerprint (written by an older simrun)"
	case c.ScenarioSHA256 != d.ScenarioSHA256:
		return fmt.Sprintf("the scenario files differ (sha256 %.12s… and %.12s…)", c.ScenarioSHA256, d.ScenarioSHA256)
	case !slices.Equal(c.Sets, d.Sets):
		return fmt.Sprintf("the -set overrides differ (%q and %q)", c.Sets, d.Sets)
	case !slices.Equal(c.Algorithms, d.Algorithms):
		return fmt.Sprintf("the algorithms differ (%v and %v)", c.Algorithms, d.Algorithms)
	case !slices.Equal(c.Vary, d.Vary):
		return fmt.Sprintf("the -vary grids differ (%q and %q)", c.Vary, d.Vary)
	case c.Simrun != d.Simrun:
		return fmt.Sprintf("simrun versions differ (%s and %s)", c.Simrun, d.Simrun)
	case c.FailFast != d.FailFast:
		return "one shard ran with -fail-fast, another without"
	}
	return ""
}

// NotApplicable is an algorithm that cannot run a scenario.
type NotApplicable struct {
	Algorithm string `json:"algorithm"`
	Reason    string `json:"reason"`
}

// ScenarioInfo names the scenario a sweep ran.
type ScenarioInfo struct {
	Name        string  `json:"name"`
	File        string  `json:"file"`
	Description string  `json:"description,omitempty"`
	DurationMs  float64 `json:"duration_ms"`
	SettleMs    float64 `json:"settle_ms"`
	Nodes       int     `json:"nodes"`
}

// SeedRange is the seeds a sweep covers: First, First+1, …, First+Count-1.
type SeedRange struct {
	First uint64 `json:"first"`
	Count int    `json:"count"`
}

// Shard says which slice of the seeds a sharded run covered: seeds whose
// offset from First is ≡ Index (mod Count).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Stats summarises a sample. Percentiles use the nearest-rank method.
type Stats struct {
	Count int     `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// AlgoSummary aggregates the runs of one algorithm (of one grid cell, in
// a parameter sweep).
type AlgoSummary struct {
	Algorithm string `json:"algorithm"`
	// Token says where the fencing token the group's leaders wrote with
	// came from, for an algorithm whose library hands its application none
	// (Curator's LeaderLatch, Consul's api.Lock, the lease libraries);
	// absent when the library hands one out (a raft term, etcd's
	// Election.Rev).
	Token *Token `json:"token,omitempty"`
	// Caveat says what the group's configuration does not promise about
	// two nodes acting as leader at once ("promises no exclusion under
	// partition, loss"; contract.Contract.Caveat); absent when its
	// contract excuses overlaps only by faults of the nodes involved.
	Caveat string `json:"caveat,omitempty"`
	// Vary is the grid cell's values, one per Grid dimension, and Group
	// the label its runs are shown under; both empty outside a sweep.
	Vary  []string `json:"vary,omitempty"`
	Group string   `json:"group,omitempty"`
	Runs  int      `json:"runs"`
	OK    int      `json:"ok"`
	// FirstSeed is the group's first seed run; FirstFailingSeed its first
	// run that did not meet the expectations (absent if none did).
	FirstSeed        uint64  `json:"first_seed"`
	FirstFailingSeed *uint64 `json:"first_failing_seed,omitempty"`
	// Violations counts runs with a (non-harmless) violation, by check,
	// whatever the contract's verdict on it; ViolationsByVerdict splits
	// each count by that verdict (VerdictCounts; absent in a summary
	// from before the split, and when no run has a violation).
	Violations          map[string]int           `json:"violations"`
	ViolationsByVerdict map[string]VerdictCounts `json:"violations_by_verdict,omitempty"`
	verdictsUnknown     bool                     // merged with a group without the split (mergeVerdicts)
	// Harmless counts runs with only harmless findings, by check.
	Harmless map[string]int `json:"harmless,omitempty"`
	// BreachRuns counts runs with a finding that breaks the algorithm's
	// contract.
	BreachRuns int `json:"breach_runs,omitempty"`
	// Unknown counts runs whose check ended unknown (porcupine ran out of
	// its wall-time bound), by check: the one verdict that depends on the
	// machine, never counted as ok.
	Unknown map[string]int `json:"unknown,omitempty"`
	// Counters sums the runs' cron-mode counters (RunSummary.Counters) by
	// name: how often, over the group, a beat exited, a run was skipped, …
	Counters map[string]int `json:"counters,omitempty"`
	// Findings tallies every finding by kind (harmless ones apart), in
	// kind order.
	Findings []FindingTally `json:"findings,omitempty"`
	// FailoverMs summarises the completed failovers (FailoverDist);
	// FailoversNever counts the failovers that never completed (never
	// recovered), which no percentile of FailoverMs includes; Failovers
	// counts both.
	FailoverMs     Stats `json:"failover_ms"`
	FailoversNever int   `json:"failovers_never"`
	Failovers      int   `json:"failovers"`
	// LeaderlessMs summarises each run's time without a leader
	// (LeaderlessDist).
	LeaderlessMs Stats `json:"leaderless_ms"`
	// ElectionsPerFailover and MessagesPerFailover are FailoverElections
	// and FailoverMessages (totals over every failover) per failover.
	ElectionsPerFailover float64 `json:"elections_per_failover"`
	MessagesPerFailover  float64 `json:"messages_per_failover"`
	FailoverElections    int     `json:"failover_elections"`
	FailoverMessages     int     `json:"failover_messages"`
	Events               uint64  `json:"events"`
	// SplitBrainRate and DoubleExecutionRate are the fractions of runs with
	// a split_brain (harmless included) or double_execution finding:
	// SplitBrainRuns and DoubleExecutionRuns of Runs.
	SplitBrainRate      float64 `json:"split_brain_rate"`
	DoubleExecutionRate float64 `json:"double_execution_rate"`
	SplitBrainRuns      int     `json:"split_brain_runs"`
	DoubleExecutionRuns int     `json:"double_execution_runs"`
	// The distributions the statistics and plots come from, mergeable
	// across shards: completed failovers' latency (ms), each run's
	// leaderless time (ms), and each failover's messages per election
	// (failovers with an election).
	FailoverDist            Dist `json:"failover_dist"`
	LeaderlessDist          Dist `json:"leaderless_dist"`
	MessagesPerElectionDist Dist `json:"messages_per_election_dist"`
}

// Ms returns a pointer to x, for the nullable millisecond fields.
func Ms(x float64) *float64 { return &x }

// RunSummary is one run (one seed under one algorithm).
type RunSummary struct {
	Seed      uint64 `json:"seed"`
	Algorithm string `json:"algorithm"`
	// Vary and Group: the run's grid cell and group label in a parameter
	// sweep (AlgoSummary).
	Vary     []string `json:"vary,omitempty"`
	Group    string   `json:"group,omitempty"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
	// WorkerDied marks a run whose worker process died (a stack overflow,
	// a handler that never returned): its outcome is crashed and it has
	// no trace or statistics; simrun does not run it again in-process.
	WorkerDied     bool               `json:"worker_died,omitempty"`
	Outcome        string             `json:"outcome"`
	TraceHash      string             `json:"trace_hash"`
	Events         uint64             `json:"events"`
	MessagesByKind map[string]uint64  `json:"messages_by_kind"`
	Elections      int                `json:"elections"`
	LeaderlessMs   float64            `json:"leaderless_ms"`
	LeaderChanges  int                `json:"leader_changes"`
	Failovers      []FailoverSummary  `json:"failovers"`
	Cron           *CronSummary       `json:"cron,omitempty"`
	Checks         map[string]string  `json:"checks"`
	Violations     []ViolationSummary `json:"violations"`
	// Breaches counts the run's findings that break the algorithm's
	// contract (every check, listed or not): a run with one fails.
	Breaches int `json:"breaches,omitempty"`
	// Workers are queue mode's executions per worker node, by node ID
	// (at most checker.MaxWorkersReported; WorkersOmitted counts the rest);
	// absent outside queue mode.
	Workers        []WorkerSummary `json:"workers,omitempty"`
	WorkersOmitted int             `json:"workers_omitted,omitempty"`
	// Counters are the cron mode's counts of its effects in this run, by
	// name (cron.Counters: beat_exits, kube_runs_skipped_active, …);
	// absent for a mode with none.
	Counters map[string]int `json:"counters,omitempty"`
	// Explained is, for a failing run the human summary prints, its
	// finding's explanation (scenario.Run.Explain: its own check, the
	// faults on its nodes and services, its story, at most a dozen
	// lines). Only the run re-run with its story has one; never written.
	Explained string `json:"-"`
}

// WorkerSummary is what one node did as a queue-mode worker in a run:
// messages taken, heartbeats and acknowledgements sent, messages it held
// that the queue delivered again after their visibility timeout, and
// executions completed and failed.
type WorkerSummary struct {
	Node        string `json:"node"`
	Taken       int    `json:"taken"`
	Heartbeats  int    `json:"heartbeats"`
	Acked       int    `json:"acked"`
	Redelivered int    `json:"redelivered"`
	Completed   int    `json:"completed"`
	Failed      int    `json:"failed"`
}

// FailoverSummary is one fault that removed the acting leader.
type FailoverSummary struct {
	Fault     string  `json:"fault"`
	FaultAtMs float64 `json:"fault_at_ms"`
	// LeaderAtMs and LatencyMs are null for a failover that never completed
	// (no leader recognised again before the run ended): a missing latency
	// is not a latency of zero.
	LeaderAtMs   *float64 `json:"leader_at_ms"`
	LatencyMs    *float64 `json:"latency_ms"`
	DetectionMs  float64  `json:"detection_ms"`
	LeaderlessMs float64  `json:"leaderless_ms"`
	Completed    bool     `json:"completed"`
	Elections    int      `json:"elections"`
	Messages     int      `json:"messages"`
}

// CronSummary is the fate of the run's due cron slots.
type CronSummary struct {
	Due    int `json:"due"`
	Once   int `json:"once"`
	Twice  int `json:"twice"`
	Missed int `json:"missed"`
}

// ViolationSummary is one finding of a check.
type ViolationSummary struct {
	Kind string  `json:"kind"`
	AtMs float64 `json:"at_ms"`
	// DurationMs is how long the finding lasted (an overlap's length); 0
	// for instants.
	DurationMs float64 `json:"duration_ms,omitempty"`
	Harmless   bool    `json:"harmless,omitempty"`
	// Details is the one-line finding; Explanation the narrative, present
	// for the runs simrun re-ran with their story (the featured run and the
	// failing runs it prints), empty for the others (docs/output.md).
	Details string `json:"details,omitempty"`
	// Restates, for a linearizability finding, names the check that
	// already reports the same write or slot (double_execution,
	// stale_write; checker.Violation.Restates).
	Restates    string `json:"restates,omitempty"`
	Explanation string `json:"explanation"`
	Replay      string `json:"replay"`
	// Stack is a crashed finding's stack, from the panic to the engine
	// (sim.Failure.Stack): for people, never parsed.
	Stack string `json:"stack,omitempty"`
	// Contract is the finding's verdict under the algorithm's contract
	// (breach, excused, within_bound; absent when the contract does not
	// cover the check) and ExcusedBy the fault class that excused it.
	Contract  string `json:"contract,omitempty"`
	ExcusedBy string `json:"excused_by,omitempty"`
	// Excuse names the fault that excused the finding (or whose pauses
	// stretched its bound), when the contract's verdict rests on one; for
	// a breach with KnownBug, the fault that triggered the bug.
	Excuse *ExcuseSummary `json:"excuse,omitempty"`
	// KnownBug labels a breach that a known bug of the configured library
	// release explains ("CURATOR-696 (Curator 5.4–5.6)"): the real system
	// breaks the guarantee there too (checker.Violation.KnownBug).
	KnownBug string `json:"known_bug,omitempty"`
	// WriteLagMs is how much a split_brain bound stretched for the
	// holder's stale lease write (checker.Violation.WriteLag).
	WriteLagMs float64 `json:"write_lag_ms,omitempty"`
}

// ExcuseSummary is the fault behind a finding's excuse (checker.Excuse):
// which fault of the run, its class, the node it hit, and when.
type ExcuseSummary struct {
	// Class is the fault's class (contract.FaultClass).
	Class string `json:"class"`
	// Node is the node it hit, "network" for a network fault, "every
	// node" for a standing one.
	Node string `json:"node"`
	// Fault is its 1-based ordinal among the run's faults, in trace order.
	Fault int `json:"fault"`
	// Source is the scheduled fault it came from ("faults[2]",
	// "nemesis[0]"), when the run kept its fault history.
	Source string `json:"source,omitempty"`
	// StartMs is when it struck; EndMs when it ended (absent: it lasted
	// to the end of the run, or its effect lasts).
	StartMs float64  `json:"start_ms"`
	EndMs   *float64 `json:"end_ms,omitempty"`
	// BeforeMs is how long before the finding began it ended (0: it was
	// acting during the finding).
	BeforeMs float64 `json:"before_ms"`
	// StretchMs, for an overlap judged against a bound stretched by
	// pauses, is how much the pauses added.
	StretchMs float64 `json:"stretch_ms,omitempty"`
}

// String is the excuse in one phrase, as the terminal and the report show
// it: "pause of n2 (fault 3, faults[1]) ended 120 ms before".
func (e *ExcuseSummary) String() string {
	if e == nil {
		return ""
	}
	s := e.Class + " of " + e.Node
	if e.Node == "network" {
		s = e.Class + " (network)"
	}
	src := fmt.Sprintf("fault %d", e.Fault)
	if e.Source != "" {
		src += ", " + e.Source
	}
	s += " (" + src + ")"
	switch {
	case e.BeforeMs > 0:
		s += fmt.Sprintf(" ended %s ms before", strconv.FormatFloat(e.BeforeMs, 'f', -1, 64))
	default:
		s += " acting during it"
	}
	if e.StretchMs > 0 {
		s += fmt.Sprintf("; the bound stretched by %s ms of pauses and clock drift", strconv.FormatFloat(e.StretchMs, 'f', -1, 64))
	}
	return s
}

// Timing is the sweep's wall-clock cost.
type Timing struct {
	WallSeconds    float64 `json:"wall_seconds"`
	Workers        int     `json:"workers"`
	RunsPerSecond  float64 `json:"runs_per_second"`
	ReportsSeconds float64 `json:"reports_seconds,omitempty"`
}

// NewStats summarises xs (which it sorts in place).
func NewStats(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	sort.Float64s(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return Stats{Count: len(xs), Min: xs[0], Mean: round3(sum / float64(len(xs))),
		P50: Percentile(xs, 50), P90: Percentile(xs, 90), P99: Percentile(xs, 99), Max: xs[len(xs)-1]}
}

// Percentile returns the nearest-rank p-th percentile of sorted xs.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p / 100 * float64(len(sorted))))
	if k < 1 {
		k = 1
	}
	return sorted[k-1]
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Key is the group a run is aggregated and shown in: its Group in a
// parameter sweep, else its algorithm.
func (r *RunSummary) Key() string {
	if r.Group != "" {
		return r.Group
	}
	return r.Algorithm
}

// Key is the group's key (RunSummary.Key).
func (a *AlgoSummary) Key() string {
	if a.Group != "" {
		return a.Group
	}
	return a.Algorithm
}

// Aggregate fills s.Algorithms from s.Runs (which must hold every run),
// one entry per group (an algorithm, or an algorithm in one grid cell) in
// the order groups first appear, and keeps in s.Runs what a summary keeps:
// every run of at most KeepAllRuns, else the first MaxKeptRuns notable
// ones (RunsKept).
func (s *Summary) Aggregate() {
	c := NewCollector(len(s.Runs) <= KeepAllRuns)
	rank := map[string]int{}
	for _, r := range s.Runs {
		k, ok := rank[r.Key()]
		if !ok {
			k = len(rank)
			rank[r.Key()] = k
		}
		c.Add(k, r)
	}
	s.Algorithms = c.Groups()
	s.Runs = c.Kept()
	s.RunsKept = c.KeptMode()
}

// Timeline is what the leadership-timeline plot shows for one run.
type Timeline struct {
	Title string
	// Algorithm names the run's algorithm: a comparison draws one timeline
	// per algorithm, the first named "timeline", the others
	// "timeline-<algorithm>".
	Algorithm string
	Nodes     []string // candidates, top to bottom
	EndMs     float64
	// SettleMs is when the settle phase began (0: none): shaded to the end.
	SettleMs float64
	Tenures  []Span // leadership: Node, FromMs, ToMs, Label "e=3"
	Faults   []Span // shaded: Node ("" = whole cluster), FromMs, ToMs, Kind, Label
	// Overlaps are split-brain overlaps, one span per node involved.
	Overlaps []Span
	Writes   []Mark // cron writes at the resource, by writer
	// Execs are queue mode's worker runs on their workers' rows, from
	// start to end (Label: the job); Kind "redelivered" marks a run whose
	// message the queue delivered again, to another worker, while it ran.
	Execs []Span
}

// Span is an interval on one node's row.
type Span struct {
	Node   string
	FromMs float64
	ToMs   float64
	Label  string
	// Kind is a fault's kind (pause, down, partition, clock, link, store,
	// disk, resign), which picks its colour.
	Kind string
}

// Mark is an instant on one node's row.
type Mark struct {
	Node     string
	AtMs     float64
	Accepted bool
	Label    string
	// Double marks an accepted write of a slot that ran twice (a
	// double_execution finding).
	Double bool
}
