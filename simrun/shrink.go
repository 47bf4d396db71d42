package simrun

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun/outdir"
)

// shrinkResult is a failing run minimised to repro.yaml.
type shrinkResult struct {
	seed                      uint64
	yaml                      []byte
	faultsBefore, faultsAfter int
	durBefore, durAfter       string
	explanation               string
}

func (s *shrinkResult) info() *reports.ShrinkInfo {
	return &reports.ShrinkInfo{FaultsBefore: s.faultsBefore, FaultsAfter: s.faultsAfter,
		DurationBefore: s.durBefore, DurationAfter: s.durAfter, ReproFile: "repro.yaml", Explanation: s.explanation}
}

// featuredOut is what the outputs need of the featured run: read off the
// run here (featuredHere), or what a worker process sent back for a
// user's algorithm (rerun_worker.go).
type featuredOut struct {
	seed      uint64
	algo      string
	ok        bool
	failure   []string // scenario.Failure
	timeline  *reports.Timeline
	spaceTime *reports.SpaceTime
	// porcupine are the visualizations a worker wrote into the staged
	// folder (for a run here, fillOutputs writes them: porcupineFiles).
	porcupine []reports.Link
}

// featuredHere is the featured run fr of this process, with its exports.
func featuredHere(fr *scenario.Run, ex *exports) *featuredOut {
	return &featuredOut{seed: fr.Seed, algo: fr.Algorithm, ok: fr.OK, failure: scenario.Failure(fr), timeline: timeline(fr), spaceTime: ex.spaceTime(fr)}
}

// shrunkRun is a shrink's result as the report needs it: here
// (shrinkHere), or from a worker process for a user's algorithm.
type shrunkRun struct {
	Failure                       []string      `json:"failure"`
	FaultsBefore, FaultsAfter     int           `json:",omitempty"`
	DurationBefore, DurationAfter time.Duration `json:",omitempty"`
	NodesBefore, NodesAfter, Runs int           `json:",omitempty"`
	TimedOut                      bool          `json:",omitempty"`
	// Repro is the shrunk scenario as YAML, named by reproName; its
	// Explanation the first harmful finding's; Err why there is none.
	Repro       string `json:"repro,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	Err         string `json:"err,omitempty"`
}

// reproName is the name of a repro of the scenario named name.
func reproName(name string) string { return derivedName(name, "-repro") }

// shrinkHere shrinks fr in this process within budget (the shrink's
// trials with beat and guard when a worker process shrinks: hooks).
func shrinkHere(fr *scenario.Run, budget time.Duration, beat func() *atomic.Int64, guard func() sim.Guard) shrunkRun {
	sh, err := scenario.Shrink(fr, scenario.ShrinkOptions{Budget: budget, Beat: beat, Guard: guard})
	if err != nil {
		return shrunkRun{Err: err.Error()}
	}
	repro := *sh.Scenario
	repro.Name = reproName(fr.Scenario.Name)
	out := shrunkRun{Failure: sh.Failure, FaultsBefore: sh.FaultsBefore, FaultsAfter: sh.FaultsAfter, DurationBefore: sh.DurationBefore, DurationAfter: sh.DurationAfter,
		NodesBefore: sh.NodesBefore, NodesAfter: sh.NodesAfter, Runs: sh.Runs, TimedOut: sh.TimedOut, Repro: string(repro.YAML())}
	for _, c := range sh.Run.Report.Checks {
		for _, v := range c.Violations {
			if !v.Harmless && out.Explanation == "" {
				out.Explanation = v.Kind + ": " + v.Explanation
			}
		}
	}
	return out
}

// maybeShrink minimises the featured run if it failed and -shrink is on
// (shrink does it: here or in a worker process). A run that failed only
// because an expected finding never occurred has nothing to minimise (any
// run lacks it: the shrink ended at one node and no fault); simrun says
// in how many of the sweep's runs (s) it occurred instead.
func maybeShrink(o *options, sc *scenario.Scenario, fr *featuredOut, s *reports.Summary, stderr io.Writer, shrink func() shrunkRun) *shrinkResult {
	if !o.shrink || fr.ok {
		return nil
	}
	if missing := onlyMissing(fr.failure); len(missing) > 0 {
		if !o.quiet {
			for _, kind := range missing {
				runs, with := 0, 0
				for _, a := range s.Algorithms {
					if a.Algorithm == fr.algo {
						runs += a.Runs
						with += a.Violations[kind] + a.Harmless[kind]
					}
				}
				fmt.Fprintf(stderr, "%s: not shrunk: %s, which the scenario expects, occurred in %d of %s under %s; a missing finding has no smaller reproduction\n",
					progName(o), kind, with, reports.Plural(runs, "run", "runs"), fr.algo)
			}
		}
		return nil
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "%s: shrinking seed %d (%s), at most %v...\n", progName(o), fr.seed, fr.algo, o.shrinkTime)
	}
	sh := shrink()
	if sh.Err != "" {
		if !o.quiet {
			fmt.Fprintln(stderr, progName(o)+": not shrunk:", sh.Err)
		}
		return nil
	}
	header := fmt.Sprintf(`repro.yaml — the minimal reproduction simrun found for
  %s
It fails the same way (%s) and replays bit for bit:
  %s -scenario repro.yaml
Shrunk from %d to %d fault(s), %v to %v, %d to %d node(s) in %d trial runs.`,
		sc.ReplayCommand(fr.seed, algoOverride(sc, fr.algo)), strings.Join(sh.Failure, ", "), o.prog,
		sh.FaultsBefore, sh.FaultsAfter, sh.DurationBefore, sh.DurationAfter, sh.NodesBefore, sh.NodesAfter, sh.Runs)
	if sh.TimedOut {
		header += "\nThe shrink ran out of time; a smaller reproduction may exist."
	}
	var b strings.Builder
	for _, line := range strings.Split(header, "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.WriteString(sh.Repro)
	return &shrinkResult{seed: fr.seed, yaml: []byte(b.String()), faultsBefore: sh.FaultsBefore, faultsAfter: sh.FaultsAfter,
		durBefore: sh.DurationBefore.String(), durAfter: sh.DurationAfter.String(), explanation: sh.Explanation}
}

// onlyMissing is the expected findings a failure (scenario.Failure) is
// made of, if it is made of nothing else.
func onlyMissing(failure []string) []string {
	var kinds []string
	for _, f := range failure {
		kind, ok := strings.CutPrefix(f, "missing:")
		if !ok {
			return nil
		}
		kinds = append(kinds, kind)
	}
	return kinds
}

// materialize writes the explicit scenario of one seed and exits.
func materialize(o *options, sc *scenario.Scenario, seed uint64, algo string, stdout io.Writer) (int, error) {
	m, code, err := materializeRun(o, sc, seed, algoOverride(sc, algo)) // in a worker for a user's algorithm (materialize_worker.go)
	if err != nil {
		return code, err
	}
	header := fmt.Sprintf("materialized from %s, seed %d (trace %s):\nevery random choice made concrete; run it with %s -scenario FILE",
		sc.ReplayCommand(seed, algoOverride(sc, algo)), seed, m.Hash, o.prog)
	var b strings.Builder
	for _, line := range strings.Split(header, "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.WriteString(m.YAML)
	body := []byte(b.String())
	if o.materialize == "-" {
		_, err := stdout.Write(body)
		return exitOK, err
	}
	f, err := outdir.CreateAtomic(o.materialize)
	if err != nil {
		return exitUsage, err
	}
	f.W.Write(body)
	if err := f.Commit(); err != nil {
		return exitUsage, err
	}
	if !o.quiet {
		fmt.Fprintf(stdout, "wrote %s: seed %d of %s with %d explicit fault(s); trace %s\n", o.materialize, seed, sc.Name, m.Faults, m.Hash)
	}
	return exitOK, nil
}

// derivedName is the scenario name of a file simrun derives from the
// scenario name: name with suffix (once: a repro of a repro keeps one
// "-repro"), cut to scenario.MaxNameLen. Its results then go to their own
// out/<derived name>/ folders, apart from the sweep they came from. The
// name changes no run: nothing random is drawn from it.
func derivedName(name, suffix string) string {
	name = strings.TrimSuffix(name, suffix)
	if n := scenario.MaxNameLen - len(suffix); len(name) > n {
		name = name[:n]
	}
	return name + suffix
}
