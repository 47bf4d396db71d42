package etcdelect_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/algorithms/etcdelect"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// Property suites (pgregory.net/rapid; docs/testing.md): each case draws a
// seed, a number of candidates, a session TTL and a fault schedule over the
// candidates and the etcd server; rapid shrinks a failing case. Sizes: the
// defaults below, or -rapid.checks / RAPID_CHECKS.

// propFaultsFor is how long faults are injected; the settle phase starts then.
const propFaultsFor = 60 * time.Second

type etcdCase struct {
	seed  uint64
	k     int
	cfg   etcdelect.Config
	sched proptest.Schedule
}

func drawEtcdCase(t *rapid.T, kinds []proptest.Kind) etcdCase {
	c := etcdCase{seed: rapid.Uint64().Draw(t, "seed"), k: rapid.IntRange(2, 5).Draw(t, "candidates")}
	c.cfg = etcdelect.DefaultConfig()
	c.cfg.TTL = time.Duration(rapid.IntRange(2, 10).Draw(t, "ttl_s")) * time.Second
	c.cfg.RequestTimeout = time.Second
	c.sched = proptest.Gen{Kinds: kinds, Candidates: c.k, Nodes: c.k + 1, Names: proptest.Names(c.k, "etcd"),
		Horizon: propFaultsFor, MaxFor: 2 * c.cfg.TTL, MaxOps: 10, LeaderTargets: true, AllTargets: true}.Schedule().Draw(t, "faults")
	return c
}

// settleBound: a dead or cut-off leader's lease runs out within a TTL (its
// last keep-alive was at most TTL/3 + 500 ms earlier; a server restart adds
// Promote's extend), then the next candidate's watch and range take a few
// request timeouts at worst.
func (c etcdCase) settleBound() time.Duration {
	return 3*c.cfg.TTL + 5*c.cfg.RequestTimeout + 2*time.Second
}

func (c etcdCase) run(watch bool) (*sim.Sim, *etcdelect.Server, *proptest.Watch) {
	s := sim.New(sim.Config{Seed: c.seed, MaxTime: 24 * time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, 10*time.Millisecond)}})
	ids := proptest.IDs(c.k + 1)
	cands, server := ids[:c.k], ids[c.k]
	for i := range cands {
		s.AddFreshNode(proptest.Names(c.k)[i], func() sim.Node { return etcdelect.MustNew(c.cfg, server) })
	}
	srv := etcdelect.NewServer(etcdelect.ServerConfig{})
	s.AddNode("etcd", srv, sim.Service())
	var w *proptest.Watch
	if watch {
		w = proptest.NewWatch(s, cands, etcdelect.EffectLeader, etcdelect.EffectExpired)
	}
	c.sched.Inject(s, faults.Environment{Candidates: cands, Store: server, StoreNode: srv, Resource: sim.None}, ids, sim.Time(propFaultsFor))
	s.RunUntil(sim.Time(propFaultsFor + c.settleBound()))
	s.End()
	if watch {
		w.Finish()
	}
	return s, srv, w
}

// Tokens are create revisions: no two candidates ever lead with the same
// one, under any schedule of pauses, crashes, restarts, partitions (the
// server included), clock faults and loss; and once the faults stop,
// within the settle bound exactly one candidate leads, and it holds the
// election's lowest live key at the server.
func TestPropertyUniqueTokensAndLiveness(t *testing.T) {
	proptest.Check(t, 100, func(t *rapid.T) {
		c := drawEtcdCase(t, proptest.AllKinds)
		s, srv, w := c.run(true)
		if len(w.Conflicts) > 0 {
			proptest.Fail(t, "token: %s\n%s", w.Conflicts[0].String(s), w.Window(0, w.Conflicts[0].At, 60))
		}
		ls := s.Leaders()
		clk := s.Clock(sim.NodeID(c.k))
		h, _, ok := srv.LeaseHolder(c.cfg.Name, int64(clk.Mono), clk.Wall.UnixNano())
		if len(ls) != 1 || !ok || h != ls[0] {
			proptest.Fail(t, "liveness: leaders %v, server's holder %v (%v), %v after the faults stopped\n%s", ls, h, ok, c.settleBound(), w.Timeline(100))
		}
	})
}

// The suite has teeth: the session ends by the client's clock, so a leader
// whose clock runs slow and that is cut off the server outlives its lease
// beside its successor; rapid must find such a schedule.
func TestPropertyRefutedNoSplitBrainUnderClockFaults(t *testing.T) {
	proptest.Refute(t, 100, func(t *rapid.T) {
		c := drawEtcdCase(t, []proptest.Kind{proptest.Clock, proptest.Isolate, proptest.Split})
		s, _, w := c.run(true)
		if len(w.Overlaps) > 0 {
			proptest.Fail(t, "split-brain: %s\n%s", w.Overlaps[0].String(s), w.Window(0, w.Overlaps[0].End, 60))
		}
	})
}

// One seed and schedule reproduce the run, with a trace sink attached or not.
func TestPropertyDeterministicTrace(t *testing.T) {
	proptest.Check(t, 30, func(t *rapid.T) {
		c := drawEtcdCase(t, proptest.AllKinds)
		a, _, _ := c.run(false)
		b, _, _ := c.run(true)
		if a.TraceHash() != b.TraceHash() || *a.Stats() != *b.Stats() {
			proptest.Fail(t, "same seed and schedule, different runs: hash %s vs %s", a.TraceHashHex(), b.TraceHashHex())
		}
	})
}
