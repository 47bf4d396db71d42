package scenario

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/sim"
)

// ShrinkOptions bound a shrink.
type ShrinkOptions struct {
	// Budget bounds the shrink's wall time (default 30s); when it runs out
	// the smallest reproduction found so far is returned.
	Budget time.Duration
	// MaxRuns bounds the number of trial runs (default 2000).
	MaxRuns int
	// Prepare, if set, is called with every trial run after it is built
	// and before it executes, as it was with the run being shrunk (a test
	// that plants a bug in a run's resource, simrun hunt's
	// hunt.Options.Prepare). The shrunk file does not carry what it does.
	Prepare func(*Run)
	// Guard, if set, gives each trial run its guard (RunOptions.Guard),
	// armed afresh: simrun's worker processes check the trials of a
	// user's algorithm for goroutines as they check its runs.
	Guard func() sim.Guard
	// Beat, if set, gives each trial run its watchdog's beat
	// (RunOptions.Beat), its clock started afresh on the build: simrun's
	// worker processes time a trial's factory and handlers as they time
	// a run's (a trial of a user's algorithm may block as its run may).
	Beat func() *atomic.Int64
	// Abort, if set, stops the shrink once it holds true (a signal): the
	// trial in progress is abandoned (RunOptions.Abort) and the smallest
	// reproduction found so far is returned, marked TimedOut.
	Abort *atomic.Bool
}

// guarded is o with a fresh guard from newGuard and a fresh beat from
// newBeat, each if set.
func guarded(o RunOptions, newGuard func() sim.Guard, newBeat func() *atomic.Int64) RunOptions {
	if newGuard != nil {
		o.Guard = newGuard()
	}
	if newBeat != nil {
		o.Beat = newBeat()
	}
	return o
}

// runWith builds and executes one run of sc, calling prepare (if set)
// between the two.
func runWith(sc *Scenario, o RunOptions, prepare func(*Run)) (*Run, error) {
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

// Shrunk is a failing run minimised to a small explicit scenario that fails
// the same way.
type Shrunk struct {
	// Scenario is the minimal explicit scenario; Run is its run.
	Scenario *Scenario
	Run      *Run
	// Failure lists what keeps failing (Failure of the original run).
	Failure []string
	// Before and after.
	FaultsBefore, FaultsAfter     int
	DurationBefore, DurationAfter time.Duration
	NodesBefore, NodesAfter       int
	// Runs is the number of trial runs; TimedOut reports the budget ran out.
	Runs     int
	TimedOut bool
}

// Failure names how a run failed its expectations: each check with a
// contract breach, or with an unexpected violation (non-harmless, not
// allowed, not inside the contract's exceptions or bound) or unknown
// verdict, and
// "missing:<check>" for an expected violation that did not occur, sorted.
// A budget exhaustion is "budget". Empty for a run that met its expectations.
func Failure(r *Run) []string {
	if r.OK {
		return nil
	}
	e := r.Scenario.Expect
	set := map[string]bool{}
	for _, c := range r.Report.Checks {
		allowed := containsStr(e.Allow, c.Name) || containsStr(e.MustOccur, c.Name)
		switch c.Status {
		case checker.StatusViolated:
			switch {
			case c.Breaches > 0: // a contract breach fails whatever expect allows
				set[c.Name] = true
				continue
			case allowed, e.ContractOnly && c.Excused+c.WithinBound == c.Count: // allowed, or all inside the contract a `breaches: []` file judges by
				continue
			}
			if c.Count > c.HarmlessCount || e.FailOnHarmless {
				set[c.Name] = true
			}
		case checker.StatusUnknown:
			if !allowed {
				set[c.Name] = true
			}
		}
	}
	for _, must := range e.MustOccur {
		if c, ok := r.Report.Check(must); !ok || c.Status != checker.StatusViolated {
			set["missing:"+must] = true
		}
	}
	if r.Outcome.Exhausted() {
		set["budget"] = true
	}
	if len(set) == 0 {
		set["expectations"] = true // a bound in the expect block (failover_under, flapping)
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Shrink minimises a run that failed its expectations: it replays the run as
// an explicit scenario, then greedily drops faults (delta debugging),
// shortens their durations, moves them earlier, shortens the run and
// removes nodes, keeping every step that still fails the same way (the same
// Failure, or a superset). The result replays bit for bit: running
// Shrunk.Scenario with its seed gives Shrunk.Run's trace hash.
func Shrink(r *Run, o ShrinkOptions) (*Shrunk, error) {
	if r.OK {
		return nil, fmt.Errorf("run of seed %d met its expectations: nothing to shrink", r.Seed)
	}
	if o.Budget <= 0 {
		o.Budget = 30 * time.Second
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = 2000
	}
	want := Failure(r)
	sh := &shrinkState{want: want, seed: r.Seed, deadline: time.Now().Add(o.Budget), maxRuns: o.MaxRuns, prepare: o.Prepare, guard: o.Guard, beat: o.Beat, abort: o.Abort}
	cur := r.Explicit()
	cur.Expect = r.Scenario.Expect
	res := &Shrunk{Failure: want, FaultsBefore: len(cur.Faults), DurationBefore: cur.Duration, NodesBefore: cur.Nodes}
	run, ok := sh.try(cur)
	if !ok && sh.aborted() {
		return nil, fmt.Errorf("stopped before the explicit replay of seed %d finished", r.Seed)
	}
	if !ok {
		return nil, fmt.Errorf("the explicit replay of seed %d does not fail the same way (%s); cannot shrink", r.Seed, strings.Join(want, ", "))
	}
	cur, run = sh.dropFaults(cur, run)
	cur, run = sh.shortenFaults(cur, run)
	cur, run = sh.moveFaultsEarlier(cur, run)
	cur, run = sh.shortenRun(cur, run)
	cur, run = sh.removeNodes(cur, run)
	// The tries judged without a story; the minimal run is run once more
	// with it, so its violations come explained (runs are deterministic).
	if full, err := runWith(cur, guarded(RunOptions{Seed: sh.seed, Story: true}, sh.guard, sh.beat), sh.prepare); err == nil {
		run = full
	}
	res.Scenario, res.Run = cur, run
	res.FaultsAfter, res.DurationAfter, res.NodesAfter = len(cur.Faults), cur.Duration, cur.Nodes
	res.Runs, res.TimedOut = sh.runs, sh.timedOut
	return res, nil
}

type shrinkState struct {
	prepare  func(*Run)
	guard    func() sim.Guard
	beat     func() *atomic.Int64 // each trial's watchdog beat (ShrinkOptions.Beat)
	want     []string
	seed     uint64
	deadline time.Time
	maxRuns  int
	runs     int
	timedOut bool
	abort    *atomic.Bool
}

// aborted reports whether ShrinkOptions.Abort stopped the shrink.
func (s *shrinkState) aborted() bool { return s.abort != nil && s.abort.Load() }

func (s *shrinkState) out() bool {
	if s.runs >= s.maxRuns || time.Now().After(s.deadline) || s.aborted() {
		s.timedOut = true
		return true
	}
	return false
}

// try runs sc and reports whether it still fails the same way.
func (s *shrinkState) try(sc *Scenario) (*Run, bool) {
	if s.out() {
		return nil, false
	}
	s.runs++
	r, err := runWith(sc, guarded(RunOptions{Seed: s.seed, Abort: s.abort}, s.guard, s.beat), s.prepare)
	if err != nil || r.OK || s.aborted() { // an abandoned trial proves nothing
		s.timedOut = s.timedOut || s.aborted()
		return nil, false
	}
	got := Failure(r)
	for _, w := range s.want {
		if !containsStr(got, w) {
			return nil, false
		}
	}
	return r, true
}

func withFaults(sc *Scenario, fs []faults.Fault) *Scenario {
	c := *sc
	c.Faults = fs
	return &c
}

// dropFaults is ddmin over the fault list: remove chunks of decreasing size
// while the failure persists.
func (s *shrinkState) dropFaults(sc *Scenario, run *Run) (*Scenario, *Run) {
	fs := sc.Faults
	for n := 2; len(fs) > 0 && !s.timedOut; {
		chunk := (len(fs) + n - 1) / n
		removed := false
		for i := 0; i < len(fs) && !s.timedOut; i += chunk {
			end := min(i+chunk, len(fs))
			cand := append(append([]faults.Fault{}, fs[:i]...), fs[end:]...)
			c := withFaults(sc, cand)
			if r, ok := s.try(c); ok {
				fs, sc, run = cand, c, r
				n = max(n-1, 2)
				removed = true
				break
			}
		}
		if !removed {
			if chunk == 1 {
				break
			}
			n = min(n*2, len(fs))
		}
	}
	return sc, run
}

// shortenFaults halves each fault's duration while the failure persists.
func (s *shrinkState) shortenFaults(sc *Scenario, run *Run) (*Scenario, *Run) {
	return s.halve(sc, run, func(f faults.Fault) (faults.Fault, bool) {
		if f.For == nil || f.For.Max < 2*time.Millisecond {
			return f, false
		}
		d := (f.For.Max / 2).Round(time.Millisecond)
		f.For = &faults.DurRange{Min: d, Max: d}
		return f, true
	})
}

// moveFaultsEarlier halves each fault's start time while the failure persists.
func (s *shrinkState) moveFaultsEarlier(sc *Scenario, run *Run) (*Scenario, *Run) {
	return s.halve(sc, run, func(f faults.Fault) (faults.Fault, bool) {
		if f.After != nil || f.At.Max < 2*time.Millisecond {
			return f, false
		}
		at := (f.At.Max / 2).Round(time.Millisecond)
		f.At = faults.DurRange{Min: at, Max: at}
		return f, true
	})
}

// halve applies step to each fault repeatedly, keeping every step after
// which the run still fails the same way; step reports false when it cannot
// shrink the fault further.
func (s *shrinkState) halve(sc *Scenario, run *Run, step func(faults.Fault) (faults.Fault, bool)) (*Scenario, *Run) {
	for i := range sc.Faults {
		for !s.timedOut {
			nf, ok := step(sc.Faults[i])
			if !ok {
				break
			}
			cand := append([]faults.Fault{}, sc.Faults...)
			cand[i] = nf
			c := withFaults(sc, cand)
			r, ok := s.try(c)
			if !ok {
				break
			}
			sc, run = c, r
		}
	}
	return sc, run
}

// shortenRun shrinks the fault phase by bisection, never below the end of
// the last fault.
func (s *shrinkState) shortenRun(sc *Scenario, run *Run) (*Scenario, *Run) {
	lo := time.Millisecond
	for _, f := range sc.Faults {
		end := f.At.Max
		if f.For != nil {
			end += f.For.Max
		}
		lo = max(lo, end+time.Millisecond)
	}
	hi := sc.Duration
	for hi-lo > 100*time.Millisecond && !s.timedOut {
		mid := (lo + (hi-lo)/2).Round(time.Millisecond)
		c := *sc
		c.Duration = mid
		if r, ok := s.try(&c); ok {
			sc, run, hi = &c, r, mid
		} else {
			lo = mid
		}
	}
	return sc, run
}

// removeNodes drops the highest-numbered candidate while no fault, link or
// clock names it and the failure persists.
func (s *shrinkState) removeNodes(sc *Scenario, run *Run) (*Scenario, *Run) {
	for sc.Nodes > 1 && !s.timedOut {
		c, ok := dropLastNode(sc)
		if !ok {
			break
		}
		r, ok := s.try(c)
		if !ok {
			break
		}
		sc, run = c, r
	}
	return sc, run
}

// dropLastNode returns sc with one node fewer, renumbering the service
// nodes (which follow the candidates), or false if something names the node.
func dropLastNode(sc *Scenario) (*Scenario, bool) {
	last := sim.NodeID(sc.Nodes - 1)
	for _, v := range sc.Algorithm.values {
		if v.def.Kind == registry.Nodes || v.def.Kind == registry.Ints {
			return nil, false // per-node parameters: keep the cluster
		}
	}
	for _, c := range sc.Clocks {
		if c.Node == last {
			return nil, false
		}
	}
	for _, l := range sc.Network.Links {
		if l.From == last || l.To == last {
			return nil, false
		}
	}
	c := *sc
	c.Nodes--
	c.Faults = nil
	for _, f := range sc.Faults {
		nf, ok := renumber(f, last)
		if !ok {
			return nil, false
		}
		c.Faults = append(c.Faults, nf)
	}
	return &c, true
}

// renumber rewrites a fault's concrete node targets for a cluster without
// node gone: services (IDs above it) move down by one. It reports false if
// the fault names the node itself.
func renumber(f faults.Fault, gone sim.NodeID) (faults.Fault, bool) {
	ok := true
	nf := f.MapTargets(func(t faults.Target) faults.Target {
		if t.Kind != faults.TargetNode {
			return t
		}
		ids := make([]sim.NodeID, 0, len(t.Nodes))
		for _, id := range t.Nodes {
			switch {
			case id == gone:
				ok = false
			case id > gone:
				ids = append(ids, id-1)
			default:
				ids = append(ids, id)
			}
		}
		return faults.Target{Kind: t.Kind, Nodes: ids, Count: t.Count}
	})
	return nf, ok
}

// Materialize returns the explicit scenario of one run as a file: the same
// cluster, every random choice concrete, every injected fault explicit.
func (r *Run) Materialize(header string) []byte {
	sc := r.Explicit()
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.Write(sc.YAML())
	return []byte(b.String())
}
