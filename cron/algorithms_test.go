package cron_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/algorithms/lease"
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/algorithms/ring"
	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// algo builds one election node; store is the lease store's ID.
type algo struct {
	name string
	new  func(peers []sim.NodeID, store sim.NodeID) sim.Node
}

func leaseAlgo(flavor string) algo {
	return algo{"lease/" + flavor, func(peers []sim.NodeID, store sim.NodeID) sim.Node {
		c := lease.DefaultConfig()
		// The application adds a fencing token (no lease library hands
		// one; algorithms/lease Config.Token): these tests fence by it.
		c.Flavor, c.Token = flavor, lease.TokenFence
		return lease.MustNew(c, peers, store)
	}}
}

var algos = []algo{
	{"raft", func(p []sim.NodeID, _ sim.NodeID) sim.Node { return raftelect.MustNew(raftelect.DefaultConfig(), p) }},
	{"etcdraft", func(p []sim.NodeID, _ sim.NodeID) sim.Node { return etcdraft.MustNew(etcdraft.DefaultConfig(), p) }},
	{"bully", func(p []sim.NodeID, _ sim.NodeID) sim.Node { return bully.MustNew(bully.DefaultConfig(), p) }},
	{"ring", func(p []sim.NodeID, _ sim.NodeID) sim.Node { return ring.MustNew(ring.DefaultConfig(), p) }},
	leaseAlgo(lease.FlavorK8s),
	leaseAlgo(lease.FlavorTTL),
	leaseAlgo(lease.FlavorWallTime),
}

// algoWorld is n candidates running a with the cron layer, a lease store
// (IDs n) and the resource (n+1).
func algoWorld(t *testing.T, seed uint64, a algo, n int, cfg cron.Config) *world {
	t.Helper()
	s := sim.New(sim.Config{Seed: seed, WallStart: start, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
	w := &world{s: s, rec: &sim.Recorder{}}
	s.AddSink(w.rec)
	peers := make([]sim.NodeID, n)
	for i := range peers {
		peers[i] = sim.NodeID(i)
	}
	store := sim.NodeID(n)
	cfg.Resource = sim.NodeID(n + 1)
	cfg.NotBefore = start
	require.NoError(t, cfg.Validate())
	w.cfg = &cfg
	for i := range peers {
		w.nodes = append(w.nodes, s.AddNode(nodeName(i), cron.Wrap(a.new(peers, store), w.cfg)))
	}
	require.Equal(t, store, s.AddNode("store", lease.NewStore(lease.StoreConfig{}), sim.Service()))
	w.resID, w.res = cron.AddResource(s, "resource", cfg.Jobs, cfg.Policy)
	return w
}

// leadingAt replays the trace's observations up to (and including) record i
// and reports whether node acted as leader then.
func leadingAt(recs []sim.Record, i int, node sim.NodeID) bool {
	leading := false
	for _, r := range recs[:i+1] {
		if r.Node != node {
			continue
		}
		switch r.Type {
		case sim.RecLead:
			leading = true
		case sim.RecStepDown, sim.RecCrash:
			leading = false
		}
	}
	return leading
}

// Under every election algorithm: only a node that believes it leads starts a
// run; a leader crash hands the schedule to the next leader, which recovers
// the slots missed during failover; with fencing and idempotency no slot is
// applied twice (docs/cron.md, "Leader-driven mode").
func TestCronOnEveryAlgorithm(t *testing.T) {
	jobs := cron.Table{{Name: "tick", Schedule: "@every 5s", RunMin: 500 * time.Millisecond, RunMax: time.Second}}
	for _, a := range algos {
		t.Run(a.name, func(t *testing.T) {
			w := algoWorld(t, 11, a, 5, cron.Config{Jobs: jobs, Policy: cron.Policy{Fencing: true, Idempotency: true}})
			var crashed sim.NodeID = sim.None
			w.s.At(at(40*time.Second), func() {
				leaders := w.s.Leaders()
				require.NotEmpty(t, leaders, "a leader by 40s")
				crashed = leaders[0]
				w.s.Crash(crashed)
			})
			w.s.At(at(70*time.Second), func() { w.s.Restart(crashed, true) })
			w.s.RunUntil(at(150 * time.Second))

			runs := 0
			for i, r := range w.rec.Records {
				if r.Type == sim.RecEffect && r.Name == "cron.run_started" {
					runs++
					assert.True(t, leadingAt(w.rec.Records, i, r.Node), "%s started %s at %v without believing it leads", w.s.NodeName(r.Node), r.Detail, r.At)
				}
			}
			res := cron.Compute(jobs, w.res.Log(), start, start.Add(140*time.Second))
			assert.Equal(t, 28, res.Due)
			assert.Zero(t, res.MoreThanOnce, "fencing+idempotency: no slot applied twice")
			assert.Zero(t, res.Missed, "missed: %v", res.MissedSlots)
			assert.GreaterOrEqual(t, runs, 28)
			fo := cron.FailoverToFencedRun(w.rec.Records, w.res.Log())
			require.NotEmpty(t, fo, "a failover happened")
			assert.NotZero(t, fo[0].FirstAt, "the new leader ran a fenced job")
			t.Logf("%s: %d runs for %d due slots, failover to first fenced write %v, rejected %v", a.name, runs, res.Due, fo[0].Latency, res.Rejected)
		})
	}
}

// Kleppmann's GC-pause story on the ttl flavour: the leader starts the 02:00
// run, pauses longer than the TTL, a new leader runs the same slot, the old
// one resumes and writes. Without protection the resource applies both
// (double execution); fencing rejects the stale token; idempotency rejects
// the second write of the slot.
func TestGCPauseStory(t *testing.T) {
	jobs := cron.Table{{Name: "daily-report", Schedule: "0 2 * * *", RunMin: 2 * time.Second, RunMax: 2 * time.Second}}
	run := func(policy cron.Policy) (*world, cron.Results) {
		w := algoWorld(t, 21, leaseAlgo(lease.FlavorTTL), 3, cron.Config{Jobs: jobs, Policy: policy})
		var paused sim.NodeID = sim.None
		w.s.AddSink(sinkFunc(func(r *sim.Record) {
			if paused == sim.None && r.Type == sim.RecEffect && r.Name == "cron.run_started" {
				paused = r.Node
				w.s.After(500*time.Millisecond, func() { w.s.Pause(paused) })
				w.s.After(16500*time.Millisecond, func() { w.s.Resume(paused) })
			}
		}))
		w.s.RunUntil(at(2 * time.Minute))
		return w, cron.Compute(jobs, w.res.Log(), start, start.Add(time.Minute))
	}
	describe := func(w *world) string {
		out := ""
		for _, e := range w.res.Log() {
			out += fmt.Sprintf("t=%v %s token %d from %s: %s\n", e.At, cron.SlotName(e.Job, e.Slot), e.Token, w.s.NodeName(e.Node), e.Reason)
		}
		return out
	}

	w, res := run(cron.Policy{})
	require.Equal(t, 1, res.MoreThanOnce, describe(w))
	runs := res.Multi[0].Runs
	require.Len(t, runs, 2)
	assert.Greater(t, runs[0].Token, runs[1].Token, "the new leader's write (higher token) lands first; the paused leader's stale write after it")
	t.Logf("policy none:\n%s", describe(w))

	w, res = run(cron.Policy{Fencing: true})
	assert.Equal(t, 1, res.Once, describe(w))
	assert.Equal(t, 1, res.Rejected[cron.ReasonStale], describe(w))

	w, res = run(cron.Policy{Idempotency: true})
	assert.Equal(t, 1, res.Once, describe(w))
	assert.Equal(t, 1, res.Rejected[cron.ReasonDuplicate], describe(w))
}

type sinkFunc func(*sim.Record)

func (f sinkFunc) Record(r *sim.Record) { f(r) }
