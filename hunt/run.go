package hunt

import (
	"fmt"
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/registry"
	"runtime/debug"
	"strings"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// run executes one schedule (concurrently with the rest of its batch). A
// panic outside the algorithm's handlers (which the engine already turns
// into a crashed finding), in a factory or a checker, is this run's crashed
// finding too, not the end of the search.
func (h *hunter) run(out *outcome) {
	defer func() {
		if p := recover(); p != nil {
			out.failure = []string{"crashed"}
			out.panic = fmt.Sprintf("panic: %v\n\n%s", p, debug.Stack())
		}
	}()
	sc, err := h.scenarioOfLocked(&out.s)
	if err != nil {
		out.err = err
		return
	}
	out.sc = sc
	out.probe = newProbe(h.reach.a)
	r, err := h.runOne(sc, scenario.RunOptions{Seed: out.s.seed, Algorithm: h.b.over, Lean: true, Sinks: []sim.Sink{out.probe},
		Replay: "(hunt run; the repro replays it)", Abort: h.abort, DiscardAborted: true})
	if err != nil {
		out.err = err
		return
	}
	out.hash = r.Sim.TraceHashHex()
	out.simTime = r.Sim.Now().Duration()
	out.exhaust = r.Outcome.Exhausted()
	out.failure = findings(r, h.o.Checks)
}

// scenarioOfLocked is scenarioOf for a schedule whose configuration was
// loaded when it was drawn (so the cache is only read, never written, by
// the batch's goroutines).
func (h *hunter) scenarioOfLocked(s *schedule) (*scenario.Scenario, error) {
	c := h.clusters[s.configKey()]
	if c == nil {
		return nil, fmt.Errorf("configuration %v does not load", s.params)
	}
	sc := *c.sc
	sc.Faults = append(append([]faults.Fault(nil), c.sc.Faults...), s.faults...)
	return &sc, nil
}

// findings is how a run failed, as a finding: scenario.Failure without an
// event budget's exhaustion (a runaway, reported apart) or an expected
// finding that did not occur (a demonstration's, not a bug), and only the
// checks listed when checks is set. With no checks listed, a hunt judges
// the contracts (docs/hunting.md, "What a hunt judges"): a check with a
// breach, a crashed run, and, where the run's contract makes no promise on
// them, the election's own (election_safety; split_brain, even where the
// fenced resource absorbed the overlap); a scenario's other expectations
// (liveness, failover bounds, a demonstration's allowances) count only
// when -checks names them.
func findings(r *scenario.Run, checks []string) []string {
	var out []string
	for _, f := range scenario.Failure(r) {
		if f == "budget" || strings.HasPrefix(f, "missing:") || len(checks) > 0 && !containsStr(checks, f) {
			continue
		}
		if len(checks) == 0 && !judgedByDefault(r, f) {
			continue
		}
		out = append(out, f)
	}
	if len(checks) == 0 {
		for _, f := range []string{checker.CheckElectionSafety, checker.CheckSplitBrain} {
			if c, ok := r.Report.Check(f); ok && c.Status == checker.StatusViolated && !covered(r, f) && !containsStr(out, f) {
				out = append(out, f) // harmless or allowed: two leaders at once is the election's own failure
			}
		}
	}
	return out
}

// judgedByDefault reports whether a failure of check f is a finding of a
// hunt that names no checks.
func judgedByDefault(r *scenario.Run, f string) bool {
	if f == checker.CheckCrashed {
		return true
	}
	if c, ok := r.Report.Check(f); ok && c.Breaches > c.KnownBugs {
		// A breach a known bug of the configured release explains (the
		// hunt draws library versions too) is the release's, not news:
		// it counts only when -checks names the check.
		return true
	}
	return (f == checker.CheckElectionSafety || f == checker.CheckSplitBrain) && !covered(r, f)
}

// covered reports whether check f is the contract's to judge: the run's
// contract promises it, or the run has an election algorithm that declares
// a contract (it chose to promise nothing there) or none at all (shedlock
// and celery modes: no election). Only an algorithm that declares no
// contract is held to the election's own promises.
func covered(r *scenario.Run, f string) bool {
	if _, ok := r.Contract.For(f); ok {
		return true
	}
	d, ok := registry.Default.Lookup(r.Algorithm)
	return !ok || d.Contract != nil
}

// judge merges one run's outcome; done reports a finding.
func (h *hunter) judge(out *outcome) (done bool, err error) {
	if out.err != nil {
		return false, fmt.Errorf("run %d (seed %d): %v", h.res.Runs, out.s.seed, out.err)
	}
	idx := h.res.Runs
	h.res.Runs++
	h.res.SimTime += out.simTime
	h.res.ByStrategy[out.s.strategy]++
	if out.exhaust {
		h.res.Exhausted++
	}
	grew := out.probe != nil && h.reach.merge(out.probe)
	if grew && containsStrategy(h.o.Strategies, StrategyFeedback) {
		if len(h.corpus) == maxCorpus {
			h.corpus = h.corpus[1:]
		}
		h.corpus = append(h.corpus, out.s.clone())
	}
	found := len(out.failure) > 0
	if h.o.OnRun != nil {
		h.o.OnRun(RunInfo{Index: idx, Strategy: out.s.strategy, Seed: out.s.seed, Hash: out.hash, Finding: found, Failure: out.failure, NewCoverage: grew})
	}
	if !found {
		return false, nil
	}
	h.res.Found, h.res.Strategy, h.res.Seed, h.res.Failure, h.res.Check = true, out.s.strategy, out.s.seed, out.failure, out.failure[0]
	h.progress(true)
	h.repro(out)
	return true, nil
}

// runOne builds and executes one run, with Options.Prepare between.
func (h *hunter) runOne(sc *scenario.Scenario, o scenario.RunOptions) (*scenario.Run, error) {
	return runWith(sc, o, h.o.Prepare)
}

// runWith builds and executes one run, with prepare (if set) between.
func runWith(sc *scenario.Scenario, o scenario.RunOptions, prepare func(*scenario.Run)) (*scenario.Run, error) {
	r, err := sc.Build(o)
	if err != nil {
		return nil, err
	}
	if prepare != nil {
		prepare(r)
	}
	r.Execute(o)
	return r, nil
}
