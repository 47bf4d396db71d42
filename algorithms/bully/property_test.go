package bully_test

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// Property suites (pgregory.net/rapid; docs/testing.md): each case draws a
// seed, a cluster size, bully's parameters (timeouts, ElectOnStart,
// PersistEpoch, priorities) and a fault schedule; rapid shrinks a failing
// case to a minimal schedule. Sizes: the defaults below, or -rapid.checks /
// RAPID_CHECKS.

const (
	// propFaultsFor is how long faults are injected; the settle phase starts then.
	propFaultsFor = 10 * time.Second
	// propSettleBound is how long after the settle phase the highest node
	// must lead alone with every node following it: detection
	// (HeartbeatTimeout <= 300ms) plus an election (T + T' <= 600ms), a few
	// times over for cascades after the heal.
	propSettleBound = 4 * time.Second
)

type bullyCase struct {
	seed  uint64
	n     int
	cfgs  []bully.Config
	lat   time.Duration
	sched proptest.Schedule
}

// drawBullyCase draws a case whose faults are of the given kinds.
func drawBullyCase(t *rapid.T, kinds []proptest.Kind) bullyCase {
	c := bullyCase{seed: rapid.Uint64().Draw(t, "seed"), n: rapid.IntRange(3, 7).Draw(t, "nodes")}
	c.lat = time.Duration(rapid.IntRange(1, 10).Draw(t, "latency_max_ms")) * time.Millisecond
	cfg := bully.DefaultConfig()
	cfg.AnswerTimeout = time.Duration(rapid.IntRange(50, 200).Draw(t, "answer_timeout_ms")) * time.Millisecond
	cfg.CoordinatorTimeout = time.Duration(rapid.IntRange(100, 400).Draw(t, "coordinator_timeout_ms")) * time.Millisecond
	cfg.HeartbeatInterval = time.Duration(rapid.IntRange(20, 100).Draw(t, "heartbeat_ms")) * time.Millisecond
	cfg.HeartbeatTimeout = cfg.HeartbeatInterval * time.Duration(rapid.IntRange(2, 4).Draw(t, "heartbeat_timeout_beats"))
	cfg.ElectOnStart = rapid.Bool().Draw(t, "elect_on_start")
	cfg.PersistEpoch = rapid.Bool().Draw(t, "persist_epoch")
	if rapid.Bool().Draw(t, "priorities") {
		prio := make([]int, c.n)
		for i := range prio {
			prio[i] = i
		}
		cfg.Priorities = rapid.Permutation(prio).Draw(t, "priority")
	}
	for i := 0; i < c.n; i++ {
		c.cfgs = append(c.cfgs, cfg)
	}
	c.sched = proptest.Gen{Kinds: kinds, Candidates: c.n, Horizon: propFaultsFor, MaxFor: 4 * time.Second,
		MaxOps: 10, LeaderTargets: true, AllTargets: true}.Schedule().Draw(t, "faults")
	return c
}

// highest returns the node with the highest priority.
func (c bullyCase) highest() sim.NodeID {
	if p := c.cfgs[0].Priorities; p != nil {
		return sim.NodeID(slices.Index(p, slices.Max(p)))
	}
	return sim.NodeID(c.n - 1)
}

type bullyRun struct {
	s     *sim.Sim
	nodes []*bully.Node
	w     *proptest.Watch
}

// run builds the cluster, injects the schedule, settles at propFaultsFor and
// runs until the settle bound; watch adds a proptest.Watch (a trace sink).
func (c bullyCase) run(watch bool) *bullyRun {
	r := &bullyRun{}
	r.s, r.w = proptest.Cluster{Seed: c.seed, N: c.n, LatencyMax: c.lat, Fsync: 0,
		New: func(i int, ids []sim.NodeID) sim.Node {
			return bully.MustNew(c.cfgs[i], ids)
		},
		Sched: c.sched, FaultsFor: propFaultsFor, Settle: propSettleBound,
	}.Run(watch)
	for _, id := range proptest.IDs(c.n) {
		r.nodes = append(r.nodes, r.s.Node(id).(*bully.Node)) // the current incarnation
	}
	return r
}

// Garcia-Molina 1982 under crash failures and bounded latency: once the
// faults of any schedule (pauses, crashes with or without the disk,
// partitions, clock faults, loss) stop, the highest-priority node leads alone
// within propSettleBound and every node follows it in the same epoch
// (docs/algorithms/bully.md, "What it guarantees").
func TestPropertySettlesOnHighest(t *testing.T) {
	proptest.Check(t, 200, func(t *rapid.T) {
		c := drawBullyCase(t, proptest.AllKinds)
		r := c.run(true)
		want := c.highest()
		if ls := r.s.Leaders(); len(ls) != 1 || ls[0] != want {
			proptest.Fail(t, "leaders %v, want [%d], %v after the faults stopped\n%s", ls, want, propSettleBound, r.w.Timeline(100))
		}
		_, epoch, _ := r.s.Leading(want)
		for i, nd := range r.nodes {
			if l, e := nd.Leader(); l != want || e != epoch {
				proptest.Fail(t, "n%d follows n%d in epoch %d, want n%d in epoch %d\n%s", i, l, e, want, epoch, r.w.Timeline(100))
			}
		}
	})
}

// One seed and schedule reproduce the run, with a trace sink attached or not.
func TestPropertyDeterministicTrace(t *testing.T) {
	proptest.Check(t, 50, func(t *rapid.T) {
		c := drawBullyCase(t, proptest.AllKinds)
		a, b := c.run(false), c.run(true)
		if a.s.TraceHash() != b.s.TraceHash() || *a.s.Stats() != *b.s.Stats() {
			proptest.Fail(t, "same seed and schedule, different runs: hash %s vs %s", a.s.TraceHashHex(), b.s.TraceHashHex())
		}
	})
}

// The suite has teeth: bully is not partition tolerant (each side elects
// its own coordinator), and rapid finds a partition schedule with two nodes
// acting as leader at once within the default size, and prints it shrunk.
func TestPropertyRefutedNoSplitBrainUnderPartitions(t *testing.T) {
	proptest.Refute(t, 100, func(t *rapid.T) {
		c := drawBullyCase(t, []proptest.Kind{proptest.Isolate, proptest.Split})
		r := c.run(true)
		if len(r.w.Overlaps) > 0 {
			proptest.Fail(t, "split-brain: %s\n%s", r.w.Overlaps[0].String(r.s), r.w.Window(0, r.w.Overlaps[0].End, 60))
		}
	})
}
