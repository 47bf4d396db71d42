package cron_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// Property suites for the fenced cron layer (pgregory.net/rapid;
// docs/testing.md): each case draws a seed, the candidates, a lease flavour
// with proportioned timings, a job table, the resource's policy and a fault
// schedule over candidates, store and resource; rapid shrinks a failing case
// to a minimal schedule. Sizes: the defaults below, or -rapid.checks /
// RAPID_CHECKS.

const (
	// propFaultsFor is how long faults are injected; the settle phase starts then.
	propFaultsFor = 60 * time.Second
	// propSettleFor is how long the run continues after the settle phase.
	propSettleFor = 40 * time.Second
)

type cronCase struct {
	seed   uint64
	k      int
	raft   *raftelect.Config // elect with Raft instead of the lease (the store then idles)
	lease  lease.Config
	jobs   cron.Table
	policy cron.Policy
	skip   bool // misfire policy skip (else fire_now)
	// wrapEnv hides the engine's leadership hook from the cron layer, so
	// it watches the algorithm through its Env wrapper instead.
	wrapEnv bool
	lat     time.Duration
	sched   proptest.Schedule
}

// drawCronCase draws a case with a flavour from flavors, the given policy
// (nil: drawn among the fenced ones) and faults of kinds.
func drawCronCase(t *rapid.T, flavors []string, policy *cron.Policy, kinds []proptest.Kind) cronCase {
	c := cronCase{seed: rapid.Uint64().Draw(t, "seed"), k: rapid.IntRange(2, 4).Draw(t, "candidates")}
	c.lat = time.Duration(rapid.IntRange(1, 20).Draw(t, "latency_max_ms")) * time.Millisecond
	c.lease = lease.DefaultConfig()
	c.lease.Flavor = rapid.SampledFrom(flavors).Draw(t, "flavor")
	c.lease.Token = lease.TokenFence // the application's token: the properties fence by it
	// client-go's 15s/10s/2s scaled by a RetryPeriod of 1–2s (the k8s record
	// keeps whole seconds; see algorithms/lease/property_test.go).
	retry := time.Duration(rapid.IntRange(1000, 2000).Draw(t, "retry_period_ms")) * time.Millisecond
	unit := retry * 15 / 2
	c.lease.RetryPeriod, c.lease.LeaseDuration, c.lease.RenewDeadline = retry, unit, unit*2/3
	c.lease.TTL, c.lease.LockAtMostFor = unit, unit
	c.lease.RequestTimeout = time.Duration(rapid.IntRange(100, 1000).Draw(t, "request_timeout_ms")) * time.Millisecond
	every := rapid.IntRange(1, 10).Draw(t, "every_s")
	runMax := time.Duration(every) * time.Second * time.Duration(rapid.IntRange(1, 20).Draw(t, "run_max_twentieths")) / 20
	c.jobs = cron.Table{{Name: "job", Schedule: fmt.Sprintf("@every %ds", every), RunMin: runMax / 2, RunMax: runMax}}
	if policy != nil {
		c.policy = *policy
	} else {
		c.policy = cron.Policy{Fencing: true, Idempotency: true, Claim: rapid.Bool().Draw(t, "claim")}
		c.policy.FencingScope = rapid.SampledFrom([]string{"job", "global"}).Draw(t, "fencing_scope")
	}
	c.skip = rapid.Bool().Draw(t, "misfire_skip")
	c.sched = proptest.Gen{Kinds: kinds, Candidates: c.k, Nodes: c.k + 2, Names: proptest.Names(c.k, "store", "resource"),
		Horizon: propFaultsFor, MaxFor: 2 * unit, MaxOps: 10, LeaderTargets: true, AllTargets: true,
		MaxOffset: unit / 8}.Schedule().Draw(t, "faults")
	return c
}

// drawRaft draws a Raft elector for a case: the defaults with PreVote and
// CheckQuorum drawn.
func drawRaft(t *rapid.T) *raftelect.Config {
	rc := raftelect.DefaultConfig()
	rc.PreVote = rapid.Bool().Draw(t, "prevote")
	rc.CheckQuorum = rapid.Bool().Draw(t, "check_quorum")
	return &rc
}

type cronRun struct {
	s   *sim.Sim
	res *cron.Resource
	w   *proptest.Watch
}

// run builds k wrapped lease candidates (IDs 0..k-1), the store (k) and the
// resource (k+1), injects the schedule, settles at propFaultsFor and runs on
// for propSettleFor; watch adds a proptest.Watch (a trace sink).
func (c cronCase) run(watch bool) *cronRun {
	s := sim.New(sim.Config{Seed: c.seed, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, c.lat)}})
	ids := proptest.IDs(c.k + 2)
	cands, store := ids[:c.k], ids[c.k]
	cfg := cron.Config{Jobs: c.jobs, Resource: ids[c.k+1], Policy: c.policy, NotBefore: start}
	if c.skip {
		cfg.Misfire.Policy = cron.MisfireSkip
	}
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	for i := range cands {
		var n sim.Node
		if c.raft != nil {
			n = raftelect.MustNew(*c.raft, cands)
		} else {
			n = lease.MustNew(c.lease, cands, store)
		}
		var wrapped sim.Node = cron.Wrap(n, &cfg)
		if c.wrapEnv {
			wrapped = unhookable{wrapped}
		}
		s.AddNode(proptest.Names(c.k)[i], wrapped)
	}
	st := lease.NewStore(lease.StoreConfig{})
	s.AddNode("store", st, sim.Service())
	r := &cronRun{s: s}
	_, r.res = cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	if watch {
		r.w = proptest.NewWatch(s, cands, "cron.run_started", "resource.accept", "resource.reject")
	}
	c.sched.Inject(s, faults.Environment{Candidates: cands, Store: store, StoreNode: st, Resource: ids[c.k+1]}, ids, sim.Time(propFaultsFor))
	s.RunUntil(sim.Time(propFaultsFor + propSettleFor))
	s.End()
	if watch {
		// The checker judges the resource's log (the ground truth for
		// "executed"): double_execution and stale_write as checker/writes.go
		// defines them.
		r.w.FinishResource(r.res.Log(), c.policy)
	}
	return r
}

// explain renders a checker finding for a counterexample: what happened up
// to it, and the resource's log for its slot.
func explain(r *cronRun, v checker.Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\ntimeline:\n%sresource log of the slot:\n", v.Details, r.w.Window(0, v.At, 40))
	for _, e := range r.res.Log() {
		if cron.SlotName(e.Job, e.Slot) == v.Slot {
			fmt.Fprintf(&b, "%v token %d from %s run %d: %s %s\n", e.At, e.Token, r.s.NodeName(e.Node), e.Run, e.Reason, e.Detail())
		}
	}
	return b.String()
}

var allFlavors = []string{lease.FlavorK8s, lease.FlavorTTL, lease.FlavorWallTime}

// docs/cron.md, "The fenced resource and its policies": with fencing (and idempotency, with or without the
// atomic claim), the resource applies no write with a stale token and no
// slot from two runs, for every lease flavour, whatever the schedule of
// pauses, crashes, partitions (of candidates, store and resource), clock
// faults and loss — the stale leaders the schedule creates are harmless
// (Kleppmann, "How to do distributed locking", 2016). Idempotency is part
// of the promise: with fencing alone a stale leader's write can land before
// its successor's higher token, and the slot is applied by both (rapid finds
// that within a few cases). Jobs make one write: a job of several writes can
// be applied partly by two runs even with idempotency (a restarted leader
// re-runs the slot, its repeated steps rejected as duplicates, its later
// steps applied), which the double_execution definition (checker/writes.go:
// a slot applied from two runs) counts.
func TestPropertyFencedNoStaleWriteNoDoubleExecution(t *testing.T) {
	proptest.Check(t, 200, func(t *rapid.T) {
		requireFencedSafe(t, drawCronCase(t, allFlavors, nil, proptest.AllKinds), "")
	})
}

// requireFencedSafe runs c, fenced, and fails on a stale write or a double
// execution; elector names a non-lease elector in the message.
func requireFencedSafe(t *rapid.T, c cronCase, elector string) {
	r := c.run(true)
	if stale := r.w.StaleWrites; len(stale) > 0 {
		proptest.Fail(t, "stale write (%spolicy %v): %s", elector, c.policy, explain(r, stale[0]))
	}
	if double := r.w.DoubleExecutions; len(double) > 0 {
		proptest.Fail(t, "double execution (%spolicy %v): %s", elector, c.policy, explain(r, double[0]))
	}
}

// The same promise with Raft electing the leader: a term is a fencing
// token too (a new leader's term is higher than every earlier leader's),
// so with fencing and idempotency a deposed leader that still believes it
// leads — cut off, paused, its clock skewed — has its writes rejected or
// deduplicated, under every fault kind (PreVote and CheckQuorum drawn).
func TestPropertyFencedRaftNoStaleWriteNoDoubleExecution(t *testing.T) {
	proptest.Check(t, 100, func(t *rapid.T) {
		c := drawCronCase(t, allFlavors, nil, proptest.AllKinds)
		c.raft = drawRaft(t)
		requireFencedSafe(t, c, "raft, ")
	})
}

// Two independent judgements of the resource history agree on real runs
// (docs/checkers.md, "Safety checks"): porcupine's search against the
// fenced-store model (linearizability) fails exactly when the exact check
// finds a slot applied from two runs (double_execution,
// checker/writes.go). A double execution is illegal in every order; and
// without one, the resource's own decision order, which lies inside every
// write's call–return interval, is a linearization: with fencing it never
// applies a token below the scope's highest (so stale_write finds nothing
// either), and without fencing the model partitions by slot, where one
// run's writes carry one token. (stale_write with policy none compares
// tokens across a job's slots, which the per-slot model does not.) Every
// policy is drawn, none among them, and a lease flavour or Raft elects the
// leader, so both verdicts occur; the property counts them so it cannot
// pass by never seeing a violation.
func TestPropertyLinearizabilityAgreesWithExactChecks(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential; the plain run checks it (race_on_test.go)")
	}
	seen := map[checker.Status]int{}
	// A case takes about a millisecond, and about one in forty draws a
	// double execution: 1,000 cases see some 25.
	proptest.Check(t, 1000, func(t *rapid.T) {
		p := cron.Policy{Fencing: rapid.Bool().Draw(t, "fencing"), Idempotency: rapid.Bool().Draw(t, "idempotency"),
			Claim: rapid.Bool().Draw(t, "claim"), FencingScope: rapid.SampledFrom([]string{"job", "global"}).Draw(t, "fencing_scope")}
		c := drawCronCase(t, allFlavors, &p, proptest.AllKinds)
		if rapid.Bool().Draw(t, "raft") {
			c.raft = drawRaft(t)
		}
		r := c.run(true)
		lin := r.w.Linearizability
		switch {
		case lin.Status == checker.StatusUnknown:
			proptest.Fail(t, "porcupine undecided: %s", lin.Summary)
		case (lin.Status == checker.StatusViolated) != (len(r.w.DoubleExecutions) > 0):
			proptest.Fail(t, "policy %v: linearizability %s (%s) but %d double executions",
				p, lin.Status, lin.Summary, len(r.w.DoubleExecutions))
		case p.Fencing && len(r.w.StaleWrites) > 0:
			proptest.Fail(t, "policy %v: the resource applied a stale token: %s", p, explain(r, r.w.StaleWrites[0]))
		}
		seen[lin.Status]++
	})
	if !t.Failed() {
		require.Positive(t, seen[checker.StatusOK], "no linearizable history drawn")
		require.Positive(t, seen[checker.StatusViolated], "no violation drawn: the agreement was never tested where it matters")
	}
}

// unhookable passes its node an Env without the engine's leadership hook
// (sim.LeadershipHooker), like any layer that wraps the Env.
type unhookable struct{ sim.Node }

type plainEnv struct{ sim.Env }

func (u unhookable) Start(env sim.Env, restored []byte) { u.Node.Start(plainEnv{env}, restored) }

// Resign passes a graceful shutdown on, as cron.Node does.
func (u unhookable) Resign() { u.Node.(interface{ Resign() }).Resign() }

// The cron layer watches the algorithm's leadership through the engine's
// hook when it can (sim.LeadershipHook) and through an Env wrapper when it
// cannot; both see the same calls in the same order, so a run is the same
// trace either way, under every fault kind, lease flavour or Raft.
func TestPropertyHookedAndWrappedLeadershipSameTrace(t *testing.T) {
	proptest.Check(t, 50, func(t *rapid.T) {
		c := drawCronCase(t, allFlavors, nil, proptest.AllKinds)
		if rapid.Bool().Draw(t, "raft") {
			c.raft = drawRaft(t)
		}
		hooked := c.run(false)
		c.wrapEnv = true
		wrapped := c.run(false)
		if hooked.s.TraceHash() != wrapped.s.TraceHash() || *hooked.s.Stats() != *wrapped.s.Stats() {
			proptest.Fail(t, "hooked and wrapped leadership, different runs: hash %s vs %s", hooked.s.TraceHashHex(), wrapped.s.TraceHashHex())
		}
	})
}

// One seed and schedule reproduce the run, with a trace sink attached or not.
func TestPropertyDeterministicTrace(t *testing.T) {
	proptest.Check(t, 30, func(t *rapid.T) {
		c := drawCronCase(t, allFlavors, nil, proptest.AllKinds)
		a, b := c.run(false), c.run(true)
		if a.s.TraceHash() != b.s.TraceHash() || *a.s.Stats() != *b.s.Stats() {
			proptest.Fail(t, "same seed and schedule, different runs: hash %s vs %s", a.s.TraceHashHex(), b.s.TraceHashHex())
		}
	})
}

// The suite has teeth: without fencing (policy none), process pauses of a
// ttl lease holder make the resource apply a slot twice — the paused holder
// resumes believing it leads and writes while its successor ran the slot too
// (Kleppmann's GC pause) — and rapid finds such a pause schedule within the
// default size and prints it shrunk.
func TestPropertyRefutedUnfencedNoDoubleExecution(t *testing.T) {
	proptest.Refute(t, 60, func(t *rapid.T) {
		c := drawCronCase(t, []string{lease.FlavorTTL}, &cron.Policy{}, []proptest.Kind{proptest.Pause})
		r := c.run(true)
		if double := r.w.DoubleExecutions; len(double) > 0 {
			proptest.Fail(t, "double execution (policy %v): %s", c.policy, explain(r, double[0]))
		}
	})
}
