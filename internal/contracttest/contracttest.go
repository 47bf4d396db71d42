// Package contracttest helps an algorithm's tests hold its safety contract
// (registry.Algorithm.Contract) to the simulation: Sweep runs a scenario
// over many seeds and tallies how the checker judged every split-brain
// finding, and LateStop plants a bug — a leader that keeps acting for a
// while after its algorithm told it to stop — whose overlaps must come out
// as breaches. It names no algorithm: tests pass their own descriptor.
package contracttest

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// Tally is how a sweep's split-brain findings were judged.
type Tally struct {
	// Runs is how many seeds ran.
	Runs int
	// Verdicts counts findings by verdict.
	Verdicts map[contract.Verdict]int
	// Excused counts excused findings by the class that excused them.
	Excused map[contract.FaultClass]int
	// Longest is the longest overlap seen per verdict.
	Longest map[contract.Verdict]time.Duration
	// LongestUnstretched is the longest part of a within-bound overlap
	// that the pauses and clock rates stretching its bound do not explain
	// (Duration − Excuse.Stretch): never more than the bound itself.
	LongestUnstretched time.Duration
	// BreachSeeds are the seeds with a breach no known bug of the
	// configured release explains (at most 10).
	BreachSeeds []uint64
	// KnownBugs counts the breaches a known bug of the configured release
	// explains, by its label (checker.Violation.KnownBug).
	KnownBugs map[string]int
	// Contract is the first run's contract.
	Contract contract.Contract
}

// Sweep runs the scenario at path (with -set style overrides) for seeds
// consecutive seeds from the scenario's own and tallies the contract
// verdicts of its split-brain findings.
func Sweep(path string, sets []string, seeds int) (Tally, error) {
	sc, err := scenario.LoadWith(path, sets)
	if err != nil {
		return Tally{}, err
	}
	return SweepScenario(sc, seeds)
}

// SweepScenario is Sweep on a loaded scenario.
func SweepScenario(sc *scenario.Scenario, seeds int) (Tally, error) {
	t := Tally{Verdicts: map[contract.Verdict]int{}, Excused: map[contract.FaultClass]int{}, Longest: map[contract.Verdict]time.Duration{}, KnownBugs: map[string]int{}}
	for i := 0; i < seeds; i++ {
		seed := sc.Seed + uint64(i)
		r, err := sc.Run(scenario.RunOptions{Seed: seed})
		if err != nil {
			return t, fmt.Errorf("seed %d: %w", seed, err)
		}
		if i == 0 {
			t.Contract = r.Contract
		}
		t.Runs++
		c, _ := r.Report.Check(checker.CheckSplitBrain)
		breach := false
		for _, v := range c.Violations {
			t.Verdicts[v.Contract]++
			t.Longest[v.Contract] = max(t.Longest[v.Contract], v.Duration)
			if v.Contract == contract.WithinBound {
				d := v.Duration
				if v.Excuse != nil {
					d -= v.Excuse.Stretch
				}
				t.LongestUnstretched = max(t.LongestUnstretched, d)
			}
			switch v.Contract {
			case contract.Excused:
				t.Excused[v.ExcusedBy]++
			case contract.Breach:
				if v.KnownBug != "" {
					t.KnownBugs[v.KnownBug]++
					continue
				}
				breach = true
			}
		}
		if breach && len(t.BreachSeeds) < 10 {
			t.BreachSeeds = append(t.BreachSeeds, seed)
		}
	}
	return t, nil
}

// lateTag is the timer tag of a planted late stop: far above any tag the
// algorithms use.
const lateTag = 1 << 30

// LateStop returns a copy of a named name whose leaders keep acting for
// late after their algorithm stops them (a planted bug: the application
// ignores the loss of its lease for that long). Its contract is a's, so
// an overlap that the bug stretches past a's bound must be a breach.
func LateStop(a registry.Algorithm, name string, late time.Duration) registry.Algorithm {
	b := a
	b.Name = name
	b.Build = func(v registry.Values, n int, r *sim.Rand) (registry.Factory, error) {
		f, err := a.Build(v, n, r)
		if err != nil {
			return nil, err
		}
		return func(peers []sim.NodeID, svc registry.Services) sim.Node {
			return &lateNode{inner: f(peers, svc), late: late}
		}, nil
	}
	return b
}

// lateNode wraps a candidate and delays its StopLeading by late.
type lateNode struct {
	inner   sim.Node
	late    time.Duration
	env     sim.Env
	pending sim.TimerID // the delayed stop's timer, 0: none
	why     string
}

// Start implements sim.Node: the inner node sees lateEnv.
func (n *lateNode) Start(env sim.Env, restored []byte) {
	n.env, n.pending = env, 0
	n.inner.Start(&lateEnv{Env: env, n: n}, restored)
}

// Inner names the candidate, so the engine finds its host agent
// (sim.HostAgent).
func (n *lateNode) Inner() sim.Node { return n.inner }

// OnMessage implements sim.Node.
func (n *lateNode) OnMessage(m sim.Message) { n.inner.OnMessage(m) }

// OnTimer implements sim.Node: the delayed stop, or the inner node's.
func (n *lateNode) OnTimer(id sim.TimerID, tag int) {
	if tag == lateTag {
		if id == n.pending {
			n.pending = 0
			n.env.StopLeading(n.why)
		}
		return
	}
	n.inner.OnTimer(id, tag)
}

// lateEnv is the inner node's Env: StopLeading takes effect late later;
// a new tenure first ends the one still acting.
type lateEnv struct {
	sim.Env
	n *lateNode
}

// StopLeading delays the stop.
func (e *lateEnv) StopLeading(why string) {
	if e.n.pending != 0 {
		return
	}
	e.n.why = why
	e.n.pending = e.Env.SetTimer(e.n.late, lateTag)
}

// ActAsLeader ends a tenure still acting late before the new one starts.
func (e *lateEnv) ActAsLeader(epoch, token int64) {
	if e.n.pending != 0 {
		e.Env.CancelTimer(e.n.pending)
		e.n.pending = 0
		e.Env.StopLeading(e.n.why)
	}
	e.Env.ActAsLeader(epoch, token)
}
