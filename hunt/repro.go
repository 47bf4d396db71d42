package hunt

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// ReproJob is a finding to replay with its fault history and shrink
// (Runner.Reproduce, ReproduceJob): the run's Job and what the
// reproduction's header says about where it comes from.
type ReproJob struct {
	Run Job `json:"run"`
	// Program, Algo and HuntSeed name the search; RunIndex counts the
	// finding's run from 1; Strategy drew it; Failure is how it failed.
	Program  string   `json:"program"`
	Algo     string   `json:"algo"`
	HuntSeed uint64   `json:"hunt_seed"`
	RunIndex int      `json:"run_index"`
	Strategy Strategy `json:"strategy"`
	Failure  []string `json:"failure"`
	// BaseName is the base scenario's name (the repro's is derived from
	// it); Replay the command that replays the repro.
	BaseName string `json:"base_name"`
	Replay   string `json:"replay"`
	// ShrinkBudget bounds the shrink's wall time.
	ShrinkBudget time.Duration `json:"shrink_budget_ns"`
}

// ReproResult is a finding's reproduction (Result.Repro, Explicit and
// Explanation).
type ReproResult struct {
	Repro       string `json:"repro,omitempty"`
	Explicit    string `json:"explicit,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	// NotReplayed, when set, says how the reproduction failed to replay to
	// the finding: a defect of the hunt, which then reports no finding.
	NotReplayed string `json:"not_replayed,omitempty"`
}

// ReproduceJob replays and shrinks j in this process (a worker's side of
// Runner.Reproduce); guard, if set, gives the replay and each trial run
// a fresh guard (scenario.RunOptions.Guard).
func ReproduceJob(j ReproJob, guard func() sim.Guard) ReproResult {
	sc, err := scenario.Parse(j.Run.Name, []byte(j.Run.Scenario))
	if err != nil {
		return ReproResult{Explanation: fmt.Sprintf("the finding did not replay: %v", err)}
	}
	return reproduce(sc, &j, nil, guard, nil)
}

// repro replays a finding with its fault history, shrinks it (through
// Options.Runner when set) and fills the result's reproduction, replay
// line and explanation.
func (h *hunter) repro(out *outcome) {
	res := &h.res
	res.Replay = h.o.Program + " -scenario repro.yaml"
	if out.sc == nil {
		return
	}
	j := ReproJob{Program: h.o.Program, Algo: h.b.algo, HuntSeed: h.o.Seed, RunIndex: h.res.Runs, Strategy: out.s.strategy,
		Failure: out.failure, BaseName: h.b.sc.Name, Replay: res.Replay, ShrinkBudget: h.o.ShrinkBudget,
		Run: Job{Seed: out.s.seed, Algorithm: h.b.over}}
	unshrunk := func(note string) []byte {
		// The run's schedule, as a scenario with the run's seed, is the
		// reproduction.
		sc := *out.sc
		sc.Seed, sc.Name = out.s.seed, reproName(h.b.sc.Name)
		return withHeader(note, &j, h.b.yamlOf(&sc))
	}
	if out.panic != "" {
		res.Explanation = "crashed: " + out.panic
		note := "Not shrunk: the run panicked outside the algorithm's handlers."
		if out.died {
			note = "Not shrunk: the run's worker process died (a stack overflow, a handler that never returned, or os.Exit);\n" +
				"replayed in one process, it ends that process the same way. simrun hunt ran it isolated (docs/hunting.md, \"Isolation\")."
		}
		res.Repro = unshrunk(note)
		return
	}
	if h.o.Progress != nil {
		fmt.Fprintf(h.o.Progress, "%s hunt: shrinking seed %d (%s), at most %v...\n", h.o.Program, out.s.seed, strings.Join(out.failure, ", "), h.o.ShrinkBudget)
	}
	var rr ReproResult
	if h.o.Runner != nil {
		j.Run = h.job(out.sc, &out.s, h.states)
		var err error
		if rr, err = h.o.Runner.Reproduce(h.stopCtx, j); err != nil {
			res.Explanation = fmt.Sprintf("%s (the replay did not finish: %v)", strings.Join(out.failure, ", "), err)
			res.Repro = unshrunk(fmt.Sprintf("Not shrunk: the worker process replaying the finding did not finish: %v", err))
			return
		}
	} else {
		rr = reproduce(out.sc, &j, h.o.Prepare, nil, h.stopped)
	}
	res.Repro, res.Explicit, res.Explanation = bytesOf(rr.Repro), bytesOf(rr.Explicit), rr.Explanation
	h.notReplayed = rr.NotReplayed
}

// bytesOf is s as bytes, nil when empty.
func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// reproduce replays j's run of sc with its fault history and shrinks it;
// guard, if set, guards the replay and each trial; abort, if set, stops
// them (the smallest reproduction so far stands).
func reproduce(sc *scenario.Scenario, j *ReproJob, prepare func(*scenario.Run), guard func() sim.Guard, abort *atomic.Bool) (res ReproResult) {
	defer func() {
		if res.NotReplayed == "" && res.Repro != "" && (abort == nil || !abort.Load()) {
			res.NotReplayed = replaysTo(res.Repro, j.Failure, prepare, guard)
		}
	}()
	own := *sc
	own.Expect = reproExpect(sc.Expect, j.Failure)
	sc = &own
	ro := scenario.RunOptions{Seed: j.Run.Seed, Algorithm: j.Run.Algorithm, Story: true, Abort: abort}
	if guard != nil {
		ro.Guard = guard()
	}
	r, err := runWith(sc, ro, prepare)
	if err != nil {
		res.Explanation = fmt.Sprintf("the finding did not replay: %v", err)
		return res
	}
	explicit := r.Explicit()
	explicit.Name = reproName(j.BaseName)
	res.Explicit = string(explicit.YAML())
	res.Explanation = explain(r, j.Failure)
	sh, err := scenario.Shrink(r, scenario.ShrinkOptions{Budget: j.ShrinkBudget, Prepare: prepare, Guard: guard, Abort: abort})
	if err != nil {
		res.Repro = string(withHeader(fmt.Sprintf("explicit (unshrunk) reproduction: %v", err), j, []byte(res.Explicit)))
		return res
	}
	repro := *sh.Scenario
	repro.Name = reproName(j.BaseName)
	note := fmt.Sprintf("Shrunk from %d to %d fault(s), %v to %v, %d to %d node(s) in %d trial runs.",
		sh.FaultsBefore, sh.FaultsAfter, sh.DurationBefore, sh.DurationAfter, sh.NodesBefore, sh.NodesAfter, sh.Runs)
	switch {
	case abort != nil && abort.Load():
		note += "\nThe shrink was stopped (a signal); a smaller reproduction may exist."
	case sh.TimedOut:
		note += "\nThe shrink ran out of time; a smaller reproduction may exist."
	}
	res.Repro = string(withHeader(note, j, repro.YAML()))
	if e := explain(sh.Run, j.Failure); e != "" {
		res.Explanation = e
	}
	return res
}

// huntExpect is the expect block a hunt judges its runs by: the base's,
// judging the contract (docs/hunting.md, "What a hunt judges"), with the
// checks -checks names no longer allowed (the built-in base allows
// liveness; a scenario may allow or expect the very check hunted) and no
// violation required (a hunt looks for failures, not for the base's story);
// with election_safety or split_brain listed, harmless overlaps count.
func huntExpect(e checker.Expect, checks []string) checker.Expect {
	e.ContractOnly = true
	e.MustOccur = nil
	e.Allow = slices.DeleteFunc(slices.Clone(e.Allow), func(c string) bool { return slices.Contains(checks, c) })
	if slices.Contains(checks, checker.CheckElectionSafety) || slices.Contains(checks, checker.CheckSplitBrain) {
		// Two leaders at once is the election's own failure, whether or
		// not the fenced resource absorbed it (issue 38 point 6); the
		// harm is reported beside it. Only the listed checks count, so
		// no other harmless finding becomes one.
		e.FailOnHarmless = true
	}
	return e
}

// reproExpect is the expect block of a finding's reproduction: the
// base's, with the finding's checks no longer allowed (a hunt judges
// liveness and the base's allowed checks only with -checks), harmless
// overlaps failing when the finding is the election's own two leaders at
// once (a hunt holds an algorithm with no contract to it, fenced resource
// or not: docs/hunting.md, "What a hunt judges"), and no violation the
// base expected required, so the file fails exactly when the finding
// does and `simrun -scenario repro.yaml` replays it.
func reproExpect(e checker.Expect, failure []string) checker.Expect {
	e.MustOccur = nil
	e.Allow = slices.DeleteFunc(slices.Clone(e.Allow), func(c string) bool { return slices.Contains(failure, c) })
	if slices.Contains(failure, checker.CheckElectionSafety) || slices.Contains(failure, checker.CheckSplitBrain) {
		e.FailOnHarmless = true
	}
	return e
}

// replaysTo runs a reproduction file as `simrun -scenario repro.yaml`
// does and says how it fails to fail with every check of failure ("" when
// it does).
func replaysTo(repro string, failure []string, prepare func(*scenario.Run), guard func() sim.Guard) string {
	sc, err := scenario.Parse("repro.yaml", []byte(repro))
	if err != nil {
		return fmt.Sprintf("repro.yaml does not load: %v", err)
	}
	r, err := runWith(sc, guarded(scenario.RunOptions{Seed: sc.Seed}, guard), prepare)
	if err != nil {
		return fmt.Sprintf("repro.yaml does not run: %v", err)
	}
	got := scenario.Failure(r)
	for _, f := range failure {
		if !slices.Contains(got, f) {
			if len(got) == 0 {
				return fmt.Sprintf("repro.yaml passes; the finding was %s", strings.Join(failure, ", "))
			}
			return fmt.Sprintf("repro.yaml fails with %s, not %s", strings.Join(got, ", "), strings.Join(failure, ", "))
		}
	}
	return ""
}

// guarded is ro with a fresh guard from guard, if set.
func guarded(ro scenario.RunOptions, guard func() sim.Guard) scenario.RunOptions {
	if guard != nil {
		ro.Guard = guard()
	}
	return ro
}

// withHeader prefixes a reproduction with comments saying where it comes
// from and how to replay it.
func withHeader(note string, j *ReproJob, body []byte) []byte {
	header := fmt.Sprintf(`repro.yaml — found by %s hunt (algorithm %s, -seed %d, run %d, strategy %s)
It fails the same way (%s) and replays bit for bit:
  %s
%s`, j.Program, j.Algo, j.HuntSeed, j.RunIndex, j.Strategy, strings.Join(j.Failure, ", "), j.Replay, note)
	var b strings.Builder
	for _, line := range strings.Split(header, "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.Write(body)
	return []byte(b.String())
}

// reproName is the reproduction's scenario name: the base's with -repro.
func reproName(name string) string {
	const suffix = "-repro"
	name = strings.TrimSuffix(name, suffix)
	if n := scenario.MaxNameLen - len(suffix); len(name) > n {
		name = name[:n]
	}
	return name + suffix
}
