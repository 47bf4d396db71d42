package hunt

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/scenario"
)

// Strategy names what produced a run's schedule.
type Strategy string

// The strategies (see the package doc and docs/hunting.md).
const (
	StrategySwarm    Strategy = "swarm"
	StrategyState    Strategy = "state"
	StrategyExtremes Strategy = "extremes"
	StrategyFeedback Strategy = "feedback"
)

// Strategies lists every strategy in the order Options.Strategies takes
// them by default.
var Strategies = []Strategy{StrategySwarm, StrategyState, StrategyExtremes, StrategyFeedback}

// Options configure a search.
type Options struct {
	// Algo is the algorithm to hunt (a registry name). With Scenario it
	// overrides the file's algorithm (its parameters then take their
	// defaults); "" keeps the file's.
	Algo string
	// Sets are -set overrides (path=value) applied to the base scenario:
	// a parameter they set (algorithm.KEY) is pinned, never varied.
	Sets []string
	// Scenario is an optional base scenario file; "" starts from the
	// built-in base cluster (BaseYAML).
	Scenario string
	// Budget bounds the search's wall time (0: none; then Runs must be
	// set). The run in progress when it runs out finishes first.
	Budget time.Duration
	// Runs, if positive, is the exact number of runs after which the
	// search stops (the deterministic stopping point for tests).
	Runs int
	// Seed seeds every draw of the search.
	Seed uint64
	// Workers runs that many runs at once (default 1). Results are merged
	// in draw order, so a given Workers gives the same search every time.
	Workers int
	// Strategies restricts the strategies used (default all).
	Strategies []Strategy
	// OnStart, if set, is told before the first run which algorithm the
	// hunt judges and what its configuration does not promise about two
	// leaders at once (scenario.Scenario.Caveat; "" when nothing).
	OnStart func(algo, caveat string)
	// Checks, if set, restricts findings to failures of these checks
	// (checker.CheckNames): a run that fails only others (a scenario's
	// tight expect under the search's extra faults) is not a finding.
	Checks []string
	// Kinds, if set, are the fault kinds drawn (FaultKinds lists them);
	// default DefaultKinds (less the store's on a cluster without one).
	Kinds []string
	// ShrinkBudget bounds the minimisation of a finding (default 20s).
	ShrinkBudget time.Duration
	// Program names the command in the replay line (default "simrun").
	Program string
	// Out, if set, is a folder Search writes a finding's repro.yaml to
	// (created if missing). An existing repro.yaml there is never
	// overwritten: Search then returns the result with an error. simrun
	// hunt leaves it empty and writes its own numbered output folders.
	Out string
	// Progress, if set, receives a progress line every few seconds and
	// the finding's shrink notice; Quiet silences it.
	Progress io.Writer
	Quiet    bool
	// OnRun, if set, is called after each judged run, in order.
	OnRun func(RunInfo)
	// Prepare, if set, is called with every run after it is built and
	// before it executes: the search's runs, the finding's replay and the
	// shrink's trials (a test plants a bug in a run's fenced resource this
	// way). With Workers > 1 it is called from several goroutines at once.
	// The repro file does not carry what it does.
	Prepare func(*scenario.Run)
	// Runner, if set, executes the runs, and a finding's replay and
	// shrink, in worker processes (see Runner): a run that ends its
	// process is then that run's crashed finding. nil runs them in this
	// process. Prepare, a function, cannot reach a worker: the two do
	// not go together.
	Runner Runner
}

// RunInfo is one judged run, for OnRun.
type RunInfo struct {
	// Index counts runs from 0.
	Index int
	// Strategy made its schedule; Seed is its run seed.
	Strategy Strategy
	Seed     uint64
	// Hash is the run's trace hash (hex).
	Hash string
	// Finding reports whether the run broke the contract or the base's
	// expectations; Failure names how (scenario.Failure, without budget).
	Finding bool
	Failure []string
	// NewCoverage reports whether it reached coverage no earlier run did.
	NewCoverage bool
}

// Result is what a search found.
type Result struct {
	// Found reports a finding; the fields below Strategy describe it.
	Found bool
	// Runs is how many runs were judged (up to and including the finding);
	// SimTime their simulated time; Exhausted how many an event budget
	// stopped (runaways, not findings).
	Runs      int
	SimTime   time.Duration
	Exhausted int
	// ByStrategy counts the runs each strategy made.
	ByStrategy map[Strategy]int
	// Strategy made the finding's schedule; Seed is its run seed, Check
	// the first check it broke and Failure every one (scenario.Failure).
	Strategy Strategy
	Seed     uint64
	Check    string
	Failure  []string
	// Repro is the shrunk reproduction, a scenario file (empty if the
	// shrink failed; Explicit then holds the unshrunk explicit scenario).
	Repro    []byte
	Explicit []byte
	// Replay is the command that replays Repro saved as repro.yaml.
	Replay string
	// Explanation is the first harmful finding's kind and story.
	Explanation string
	// Coverage is what the search reached.
	Coverage Coverage
}

// NotReplayedError is a finding whose reproduction does not replay to it:
// a defect of the hunt (its judging and the file's expect disagree), so
// no finding is reported.
type NotReplayedError struct {
	Failure []string
	Seed    uint64
	Why     string
	Repro   []byte
}

func (e *NotReplayedError) Error() string {
	return fmt.Sprintf("a defect of the hunt, not a finding: run seed %d failed with %s, but %s; please report it with the hunt's command line",
		e.Seed, strings.Join(e.Failure, ", "), e.Why)
}

// UsageError is an invalid Options value (simrun hunt exits 2 on it).
type UsageError struct{ Msg string }

// Error implements error.
func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// MaxWorkers bounds Options.Workers.
const MaxWorkers = 256

// check validates o and fills its defaults.
func (o *Options) check() error {
	switch {
	case o.Budget < 0:
		return usagef("budget must not be negative, got %v", o.Budget)
	case o.Runs < 0:
		return usagef("runs must not be negative, got %d", o.Runs)
	case o.Budget == 0 && o.Runs == 0:
		return usagef("give a budget or a number of runs: the search needs a stopping point")
	case o.Workers < 0 || o.Workers > MaxWorkers:
		return usagef("workers must be within [1, %d], got %d", MaxWorkers, o.Workers)
	case o.Runner != nil && o.Prepare != nil:
		return usagef("Prepare runs in this process; it does not go with a Runner")
	case o.Algo == "" && o.Scenario == "":
		return usagef("name the algorithm to hunt (-algo NAME) or a base scenario (-scenario FILE)")
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.ShrinkBudget <= 0 {
		o.ShrinkBudget = 20 * time.Second
	}
	if o.Quiet {
		o.Progress = nil
	}
	if o.Program == "" {
		o.Program = "simrun"
	}
	if len(o.Strategies) == 0 {
		o.Strategies = Strategies
	}
	for _, s := range o.Strategies {
		if !containsStrategy(Strategies, s) {
			return usagef("unknown strategy %q (one of %v)", s, Strategies)
		}
	}
	known := append(append(append([]string(nil), checker.CheckNames...), checker.QueueCheckNames...), checker.ContractCheckNames...)
	for _, c := range o.Checks {
		if !containsStr(known, c) {
			return usagef("unknown check %q (one of %v)", c, known)
		}
	}
	for _, k := range o.Kinds {
		if !containsStr(FaultKinds, k) {
			return usagef("unknown fault kind %q (one of %v)", k, FaultKinds)
		}
	}
	return nil
}

func containsStrategy(list []Strategy, s Strategy) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
