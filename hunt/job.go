package hunt

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// Isolation. An algorithm's handler that overflows its stack, never
// returns or calls os.Exit ends the process it runs in: the Go runtime
// cannot recover from the first, and nothing can stop the other two from
// inside. With Options.Runner set, the search's runs (and a finding's
// replay and shrink) execute as Jobs in worker processes the runner
// keeps; a run whose worker died is that run's crashed finding, and the
// search goes on to report it. simrun hunt supplies the runner
// (docs/hunting.md, "Isolation").

// Runner executes a search's runs outside the searching process.
type Runner interface {
	// Run executes j in worker slot slot (0 ≤ slot < Options.Workers;
	// the search gives a slot one job at a time) and returns its result:
	// RunJob's in a worker, or Died with the worker's fatal error when it
	// died. A done ctx may end it early with any result (the search then
	// discards it).
	Run(ctx context.Context, slot int, j Job) JobResult
	// Reproduce replays and shrinks a finding (ReproduceJob) in a worker;
	// an error says the worker died or overran (the search then keeps
	// the unshrunk schedule as the reproduction).
	Reproduce(ctx context.Context, j ReproJob) (ReproResult, error)
	// Cluster builds j's run (BuildCluster) in a worker; an error says
	// the worker died (a *DiedError: os.Exit or a stack overflow in the
	// algorithm's factory, the watchdog) or could not start.
	Cluster(ctx context.Context, j ClusterJob) (ClusterResult, error)
}

// Job is one run of a search as a self-contained value that crosses a
// process boundary as JSON: the run's scenario (the base's configuration
// with the schedule's faults) as YAML, its seed and what to judge.
type Job struct {
	// Name is the scenario's file name (for the loader's messages).
	Name string `json:"name"`
	// Scenario is the run's scenario file (scenario.Scenario.YAML).
	Scenario string `json:"scenario"`
	// Seed is the run seed; Algorithm overrides the file's algorithm
	// (scenario.RunOptions.Algorithm; "" keeps it).
	Seed      uint64 `json:"seed"`
	Algorithm string `json:"algorithm,omitempty"`
	// States are the algorithm's protocol states, the coverage alphabet's
	// tail (newAlphabet).
	States []string `json:"states,omitempty"`
	// Checks restricts findings as Options.Checks does.
	Checks []string `json:"checks,omitempty"`
}

// JobResult is what a Job's run came to.
type JobResult struct {
	// Hash is the trace hash (hex); SimTime the simulated time; Exhausted
	// reports an event budget's end.
	Hash      string        `json:"hash,omitempty"`
	SimTime   time.Duration `json:"sim_time_ns,omitempty"`
	Exhausted bool          `json:"exhausted,omitempty"`
	// Failure is how the run failed, as a finding (findings).
	Failure []string `json:"failure,omitempty"`
	// Events, Pairs and Edges are the coverage the run reached (the
	// probe's sets, sorted).
	Events []int `json:"events,omitempty"`
	Pairs  []int `json:"pairs,omitempty"`
	Edges  []int `json:"edges,omitempty"`
	// Crash is a panic outside the handlers with its stack, or, with
	// Died, the dead worker's fatal error and the top of its stack.
	Crash string `json:"crash,omitempty"`
	// Died reports that the worker process died during the run (a stack
	// overflow, a handler that never returned, os.Exit).
	Died bool `json:"died,omitempty"`
	// Err is why the run could not be built (not a finding).
	Err string `json:"err,omitempty"`
}

// Hooks are a worker process's handles on a run it executes (RunJob);
// each is optional.
type Hooks struct {
	// They go to the run (scenario.RunOptions).
	Beat  *atomic.Int64
	Abort *atomic.Bool
	Guard sim.Guard
	// Reader, if set, reads the job's scenario (keeping what the runs
	// of one configuration share: scenario.Reparser); else
	// scenario.Parse.
	Reader *scenario.Reparser
}

// RunJob executes j in this process (a worker's side of Runner.Run) with
// the worker's hooks.
func RunJob(j Job, h Hooks) (res JobResult) {
	defer func() {
		if p := recover(); p != nil {
			res = JobResult{Failure: []string{"crashed"}, Crash: fmt.Sprintf("panic: %v\n\n%s", p, debug.Stack())}
		}
	}()
	parse := scenario.Parse
	if h.Reader != nil {
		parse = h.Reader.Parse
	}
	sc, err := parse(j.Name, []byte(j.Scenario))
	if err != nil {
		return JobResult{Err: err.Error()}
	}
	p := newProbe(newAlphabet(j.States))
	ro := scenario.RunOptions{Seed: j.Seed, Algorithm: j.Algorithm, Lean: true, Sinks: []sim.Sink{p},
		Replay: "(hunt run; the repro replays it)", Beat: h.Beat, Abort: h.Abort, DiscardAborted: true, Guard: h.Guard}
	r, err := sc.Build(ro)
	if err != nil {
		return JobResult{Err: err.Error()}
	}
	r.Execute(ro)
	res = JobResult{Hash: r.Sim.TraceHashHex(), SimTime: r.Sim.Now().Duration(), Exhausted: r.Outcome.Exhausted(),
		Failure: findings(r, j.Checks)}
	res.Events, res.Pairs, res.Edges = keys(p.events), keys(p.pairs), keys(p.edges)
	return res
}

// keys is a set's members, sorted.
func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// probeOf is a probe holding a JobResult's coverage, for reach.merge.
func probeOf(a alphabet, r *JobResult) *probe {
	p := newProbe(a)
	for _, s := range []struct {
		into map[int]bool
		from []int
	}{{p.events, r.Events}, {p.pairs, r.Pairs}, {p.edges, r.Edges}} {
		for _, k := range s.from {
			s.into[k] = true
		}
	}
	return p
}

// job is the Job of a drawn schedule.
func (h *hunter) job(sc *scenario.Scenario, s *schedule, states []string) Job {
	return Job{Name: h.b.name, Scenario: string(h.b.yamlOf(sc)), Seed: s.seed, Algorithm: h.b.over, States: states, Checks: h.o.Checks}
}

// runIsolated executes one schedule through Options.Runner in slot.
func (h *hunter) runIsolated(ctx context.Context, slot int, out *outcome) {
	sc, err := h.scenarioOfLocked(&out.s)
	if err != nil {
		out.err = err
		return
	}
	out.sc = sc
	r := h.o.Runner.Run(ctx, slot, h.job(sc, &out.s, h.states))
	switch {
	case r.Err != "":
		out.err = fmt.Errorf("%s", r.Err)
	case r.Crash != "":
		out.failure, out.panic, out.died = []string{"crashed"}, r.Crash, r.Died
	default:
		out.hash, out.simTime, out.exhaust, out.failure = r.Hash, r.SimTime, r.Exhausted, r.Failure
		out.probe = probeOf(h.reach.a, &r)
	}
}
