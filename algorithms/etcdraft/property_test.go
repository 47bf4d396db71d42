package etcdraft_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// Property suites (pgregory.net/rapid; docs/testing.md): each case draws a
// seed, a cluster size, the library's parameters and a fault schedule, and
// rapid shrinks a failing case to a minimal schedule. Sizes: the defaults
// below, or -rapid.checks / RAPID_CHECKS.

const (
	// propFaultsFor is how long faults are injected; the settle phase starts then.
	propFaultsFor = 10 * time.Second
	// propSettleBound is how long after the settle phase a single leader
	// must lead and be known to every member: a few election timeouts of at
	// most 2·ElectionTick·TickInterval = 760ms.
	propSettleBound = 6 * time.Second
)

// etcdCase is one drawn test case.
type etcdCase struct {
	seed   uint64
	n      int
	cfg    etcdraft.Config
	latMax time.Duration
	fsync  time.Duration
	sched  proptest.Schedule
}

func drawEtcdCase(t *rapid.T) etcdCase {
	c := etcdCase{seed: rapid.Uint64().Draw(t, "seed"), n: rapid.IntRange(3, 7).Draw(t, "nodes")}
	c.cfg = etcdraft.DefaultConfig()
	c.cfg.PreVote = rapid.Bool().Draw(t, "prevote")
	c.cfg.CheckQuorum = rapid.Bool().Draw(t, "checkquorum")
	c.cfg.TickInterval = time.Duration(rapid.IntRange(5, 20).Draw(t, "tick_ms")) * time.Millisecond
	c.cfg.HeartbeatTick = rapid.IntRange(1, 3).Draw(t, "heartbeat_tick")
	c.cfg.ElectionTick = rapid.IntRange(c.cfg.HeartbeatTick+4, 19).Draw(t, "election_tick")
	c.latMax = time.Duration(rapid.IntRange(1, 15).Draw(t, "latency_max_ms")) * time.Millisecond
	c.fsync = time.Duration(rapid.IntRange(0, 5).Draw(t, "fsync_max_ms")) * time.Millisecond
	c.sched = proptest.Gen{Candidates: c.n, Horizon: propFaultsFor, MaxFor: 4 * time.Second,
		MaxOps: 10, LeaderTargets: true, AllTargets: true}.Schedule().Draw(t, "faults")
	return c
}

type etcdRun struct {
	s     *sim.Sim
	nodes []*etcdraft.Node
	w     *proptest.Watch
}

// run builds the group, injects the schedule, settles at propFaultsFor and
// runs until the settle bound; watch adds a proptest.Watch (a trace sink).
func (c etcdCase) run(watch bool) *etcdRun {
	r := &etcdRun{}
	r.s, r.w = proptest.Cluster{Seed: c.seed, N: c.n, LatencyMax: c.latMax, Fsync: c.fsync,
		New: func(i int, ids []sim.NodeID) sim.Node {
			return etcdraft.MustNew(c.cfg, ids)
		},
		Sched: c.sched, FaultsFor: propFaultsFor, Settle: propSettleBound,
		Effects: []string{etcdraft.EffectPanic},
	}.Run(watch)
	for _, id := range proptest.IDs(c.n) {
		r.nodes = append(r.nodes, r.s.Node(id).(*etcdraft.Node)) // the current incarnation
	}
	return r
}

// The production library keeps Election Safety (Raft §5.2, Figure 3) inside
// the simulator under any schedule of pauses, crashes and restarts (disk
// kept), isolations, partitions, clock faults and loss, with or without
// PreVote and CheckQuorum; no member hits a library invariant; and within
// propSettleBound of the faults stopping exactly one member leads and every
// member knows it.
func TestPropertyElectionSafetyAndLiveness(t *testing.T) {
	proptest.Check(t, 40, func(t *rapid.T) {
		c := drawEtcdCase(t)
		r := c.run(true)
		if len(r.w.Conflicts) > 0 {
			proptest.Fail(t, "election safety: %s\n%s", r.w.Conflicts[0].String(r.s), r.w.Window(0, r.w.Conflicts[0].At, 60))
		}
		for i, nd := range r.nodes {
			if h := nd.Halted(); h != "" {
				proptest.Fail(t, "n%d halted on a library invariant: %s\n%s", i, h, r.w.Timeline(80))
			}
		}
		leaders := r.s.Leaders()
		if len(leaders) != 1 {
			proptest.Fail(t, "liveness: %d leaders %v, %v after the faults stopped\n%s", len(leaders), leaders, propSettleBound, r.w.Timeline(80))
		}
		for i, nd := range r.nodes {
			if nd.Leader() != leaders[0] {
				proptest.Fail(t, "liveness: n%d follows %v, not the leader n%d, %v after the faults stopped\n%s", i, nd.Leader(), leaders[0], propSettleBound, r.w.Timeline(80))
			}
		}
	})
}

// One seed and schedule reproduce the run, with a trace sink attached or
// not, although the library draws its timeouts from a process-global source
// (rand.go routes it to the node's stream).
func TestPropertyDeterministicTrace(t *testing.T) {
	proptest.Check(t, 20, func(t *rapid.T) {
		c := drawEtcdCase(t)
		a, b := c.run(false), c.run(true)
		if a.s.TraceHash() != b.s.TraceHash() || *a.s.Stats() != *b.s.Stats() {
			proptest.Fail(t, "same seed and schedule, different runs: hash %s vs %s", a.s.TraceHashHex(), b.s.TraceHashHex())
		}
	})
}
