package consulelect_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/electsim/electsim/algorithms/consulelect"
	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/proptest"
	"github.com/electsim/electsim/sim"
)

// Property suites (pgregory.net/rapid; docs/testing.md): each case draws a
// seed, a number of candidates, a session TTL, a lock-delay, a check
// binding and a fault schedule over the candidates and the cluster; rapid
// shrinks a failing case. Sizes: the defaults below, or -rapid.checks /
// RAPID_CHECKS.

// propFaultsFor is how long faults are injected; the settle phase starts then.
const propFaultsFor = 60 * time.Second

type consulCase struct {
	seed  uint64
	k     int
	cfg   consulelect.Config
	sched proptest.Schedule
}

func drawConsulCase(t *rapid.T, lockDelay *time.Duration, kinds []proptest.Kind) consulCase {
	c := consulCase{seed: rapid.Uint64().Draw(t, "seed"), k: rapid.IntRange(2, 5).Draw(t, "candidates")}
	c.cfg = consulelect.DefaultConfig()
	c.cfg.SessionTTL = time.Duration(rapid.IntRange(10, 20).Draw(t, "session_ttl_s")) * time.Second
	if lockDelay != nil {
		c.cfg.LockDelay = *lockDelay
	} else {
		c.cfg.LockDelay = time.Duration(rapid.IntRange(0, 15).Draw(t, "lock_delay_s")) * time.Second
	}
	c.cfg.Checks = rapid.SampledFrom([]string{consulelect.ChecksSerf, consulelect.ChecksNone}).Draw(t, "checks")
	c.cfg.QueryWait = 20 * time.Second
	c.sched = proptest.Gen{Kinds: kinds, Candidates: c.k, Nodes: c.k + 1, Names: proptest.Names(c.k, "consul"),
		Horizon: propFaultsFor, MaxFor: 2 * c.cfg.SessionTTL, MaxOps: 10, LeaderTargets: true, AllTargets: true}.Schedule().Draw(t, "faults")
	return c
}

// settleBound: once the faults stop, a holder that still holds the key but
// stopped renewing (RenewPeriodic gave up) loses its session 2·TTL later
// (a restarted or recovered cluster gives every session a fresh 2·TTL); a
// candidate whose connection died notices within a keep-alive interval
// and timeout, and one whose blocking query's answer was lost within the
// query's wait; the next holder waits out the lock-delay and a retry, and
// every step takes a request timeout at worst.
func (c consulCase) settleBound() time.Duration {
	cfg := c.cfg
	return 2*cfg.SessionTTL + cfg.LockDelay + cfg.LockRetryTime + cfg.KeepAliveInterval + cfg.KeepAliveTimeout +
		cfg.QueryWait + cfg.QueryWait/16 + 4*cfg.RequestTimeout + 5*time.Second
}

func (c consulCase) run(watch bool) (*sim.Sim, *consulelect.Server, *proptest.Watch) {
	s := sim.New(sim.Config{Seed: c.seed, MaxTime: 24 * time.Hour, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond/2, 10*time.Millisecond)}})
	ids := proptest.IDs(c.k + 1)
	cands, server := ids[:c.k], ids[c.k]
	for i := range cands {
		s.AddFreshNode(proptest.Names(c.k)[i], func() sim.Node { return consulelect.MustNew(c.cfg, server) })
	}
	srv := consulelect.NewServer(consulelect.ServerConfig{})
	s.AddNode("consul", srv, sim.Service())
	var w *proptest.Watch
	if watch {
		w = proptest.NewWatch(s, cands, consulelect.EffectLeader, consulelect.EffectExpired)
	}
	c.sched.Inject(s, faults.Environment{Candidates: cands, Store: server, StoreNode: srv, Resource: sim.None}, ids, sim.Time(propFaultsFor))
	s.RunUntil(sim.Time(propFaultsFor + c.settleBound()))
	s.End()
	if watch {
		w.Finish()
	}
	return s, srv, w
}

// Tokens are the key's ModifyIndex at acquisition: no two candidates ever
// lead with the same one, under any schedule of pauses, crashes,
// restarts, partitions (the cluster included), clock faults and loss; and
// once the faults stop, within the settle bound exactly one candidate
// leads, and it holds the lock at the server.
func TestPropertyUniqueTokensAndLiveness(t *testing.T) {
	proptest.Check(t, 100, func(t *rapid.T) {
		c := drawConsulCase(t, nil, proptest.AllKinds)
		s, srv, w := c.run(true)
		if len(w.Conflicts) > 0 {
			proptest.Fail(t, "token: %s\n%s", w.Conflicts[0].String(s), w.Window(0, w.Conflicts[0].At, 60))
		}
		ls := s.Leaders()
		clk := s.Clock(sim.NodeID(c.k))
		h, _, ok := srv.LeaseHolder(c.cfg.Key, int64(clk.Mono), clk.Wall.UnixNano())
		if len(ls) != 1 || !ok || h != ls[0] {
			proptest.Fail(t, "liveness: leaders %v, server's holder %v (%v), %v after the faults stopped\n%s", ls, h, ok, c.settleBound(), w.Timeline(100))
		}
	})
}

// The suite has teeth: without a lock-delay, a holder cut off by a
// partition keeps leading until its connection's keep-alive fails, while
// serf or the TTL has already handed the lock to another; rapid must find
// such a schedule.
func TestPropertyRefutedNoLockDelayUnderPartitions(t *testing.T) {
	proptest.Refute(t, 100, func(t *rapid.T) {
		zero := time.Duration(0)
		c := drawConsulCase(t, &zero, []proptest.Kind{proptest.Isolate, proptest.Split})
		s, _, w := c.run(true)
		if len(w.Overlaps) > 0 {
			proptest.Fail(t, "split-brain: %s\n%s", w.Overlaps[0].String(s), w.Window(0, w.Overlaps[0].End, 60))
		}
	})
}

// One seed and schedule reproduce the run, with a trace sink attached or not.
func TestPropertyDeterministicTrace(t *testing.T) {
	proptest.Check(t, 30, func(t *rapid.T) {
		c := drawConsulCase(t, nil, proptest.AllKinds)
		a, _, _ := c.run(false)
		b, _, _ := c.run(true)
		if a.TraceHash() != b.TraceHash() || *a.Stats() != *b.Stats() {
			proptest.Fail(t, "same seed and schedule, different runs: hash %s vs %s", a.TraceHashHex(), b.TraceHashHex())
		}
	})
}
