package sim_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// chatter is an extra node for the determinism workload: every 100 ms it
// reports a belief, records an effect and sends Data to a random node, all
// drawn from its own stream, so every record type appears in the trace.
type chatter struct {
	env sim.Env
	n   int
}

func (c *chatter) Start(env sim.Env, _ []byte) {
	*c = chatter{env: env, n: c.n}
	env.SetTimer(100*time.Millisecond, 0)
}

func (c *chatter) OnMessage(sim.Message) {}

func (c *chatter) OnTimer(sim.TimerID, int) {
	r := c.env.Rand()
	c.env.BelieveLeader(sim.NodeID(r.Intn(c.n)), int64(r.Intn(10)))
	c.env.Effect(sim.Effect{Name: "chatter", Detail: "tick", A: int64(r.Uint64() >> 1), C: c.env.WallNanos()})
	c.env.Send(sim.Message{Kind: kindData, To: sim.NodeID(r.Intn(c.n)), Term: 1, A: int64(r.Intn(1000))})
	c.env.SetTimer(c.env.Rand().DurationRange(50*time.Millisecond, 150*time.Millisecond), 0)
}

// chaosRun runs a one-minute workload that touches every engine feature: the
// Raft-like vote cluster (votenode_test.go) with random crashes and restarts,
// slow disks, loss and duplication, partitions (symmetric, one-way, bridge,
// isolate), a pause, clock rate changes and a wall-clock step, plus a chatter
// node. It returns the trace hash after End.
func chaosRun(seed uint64, sinks ...sim.Sink) (uint64, *sim.Sim) {
	s, ids := newVoteCluster(seed, 5)
	s.AddNode("chatter", &chatter{n: 5})
	for _, k := range sinks {
		s.AddSink(k)
	}
	for _, id := range ids {
		s.SetFsync(id, sim.Uniform(500*time.Microsecond, 3*time.Millisecond))
	}
	s.SetAllLinks(sim.LinkConfig{Latency: sim.Exponential(time.Millisecond, 4*time.Millisecond, 30*time.Millisecond), Drop: 0.02, Duplicate: 0.02})
	s.SetLink(0, 1, sim.LinkConfig{Latency: sim.Normal(8*time.Millisecond, 3*time.Millisecond, time.Millisecond, 20*time.Millisecond), FIFO: true})
	newCrashDriver(s, ids, 2)
	sec := func(x float64) sim.Time { return sim.Time(x * float64(time.Second)) }
	s.At(sec(5), func() { s.SetRate(1, sim.Rate(1.3)) })
	s.At(sec(6), func() { s.SetMonoRate(3, sim.DriftPPM(-200)) })
	s.At(sec(7), func() { s.StepWall(2, -3*time.Second) })
	s.At(sec(10), func() { s.Partition(ids[:2], ids[2:]) })
	s.At(sec(15), func() { s.Heal() })
	s.At(sec(20), func() { s.Pause(2); s.Pause(5) })
	s.At(sec(23.5), func() { s.Resume(2); s.Resume(5) })
	s.At(sec(25), func() { s.OneWay(ids[:1], ids[1:]) })
	s.At(sec(30), func() { s.Heal(); s.Bridge(ids[:3], ids[2:], 2) })
	s.At(sec(35), func() { s.Heal(); s.Isolate(4) })
	s.At(sec(40), func() { s.SplitMinority(ids, s.Stream("split")) })
	s.At(sec(45), func() { s.Heal() })
	s.RunUntil(sec(60))
	s.End()
	return s.TraceHash(), s
}

// docs/engine.md, "Randomness": the same seed gives the same trace hash (and
// counters) run after run.
func TestDeterminismSameSeedSameHash(t *testing.T) {
	h1, s1 := chaosRun(7)
	h2, s2 := chaosRun(7)
	require.Equal(t, h1, h2)
	require.Equal(t, *s1.Stats(), *s2.Stats())
	// The workload really exercised the engine.
	st := s1.Stats()
	require.Greater(t, st.Events, uint64(4000))
	for _, r := range []sim.DropReason{sim.DropLoss, sim.DropPartitionAtSend, sim.DropDestDown} {
		require.NotZero(t, st.DropReasons[r], r.String())
	}
	require.NotZero(t, st.Duplicated[kindBeat]+st.Duplicated[kindVote]+st.Duplicated[kindVoteResp])
}

// The hash does not depend on GOMAXPROCS.
func TestDeterminismGOMAXPROCS(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	h1, _ := chaosRun(11)
	runtime.GOMAXPROCS(2)
	h2, _ := chaosRun(11)
	require.Equal(t, h1, h2)
}

// Eight sims running at once in goroutines (the test's, never the engine's)
// give exactly the hashes they give alone: a Sim shares no mutable state.
func TestDeterminismConcurrentSims(t *testing.T) {
	const n = 8
	var want [n]uint64
	for i := range want {
		want[i], _ = chaosRun(uint64(100 + i%4)) // pairs share a seed
	}
	var got [n]uint64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], _ = chaosRun(uint64(100 + i%4))
		}(i)
	}
	wg.Wait()
	require.Equal(t, want, got)
	require.Equal(t, got[0], got[4])
}

// Different seeds give different traces.
func TestDeterminismDifferentSeeds(t *testing.T) {
	seen := map[uint64]uint64{}
	for seed := uint64(1); seed <= 8; seed++ {
		h, _ := chaosRun(seed)
		prev, dup := seen[h]
		require.False(t, dup, "seeds %d and %d share hash %016x", prev, seed, h)
		seen[h] = seed
	}
}

// Attaching a sink changes nothing: the hash is the same with and without a
// Recorder (the engine hashes deliveries, drops and timers on a fast path
// when no sink listens; regression test for kind 0 hashing differently on
// the two paths), and two recorded runs give identical records.
func TestDeterminismSinkDoesNotChangeHash(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		bare, _ := chaosRun(seed)
		r1, r2 := &sim.Recorder{}, &sim.Recorder{}
		withSink, _ := chaosRun(seed, r1)
		withTwo, _ := chaosRun(seed, r2, &sim.Recorder{})
		require.Equal(t, bare, withSink, "seed %d", seed)
		require.Equal(t, bare, withTwo, "seed %d", seed)
		require.Equal(t, r1.Records, r2.Records)

		types := map[sim.RecordType]int{}
		for _, r := range r1.Records {
			types[r.Type]++
		}
		for typ := sim.RecStart; typ <= sim.RecEnd; typ++ {
			require.NotZero(t, types[typ], "record type %v missing from the workload", typ)
		}
	}
}

// The hash covers the whole trace: a run that differs only by one extra
// fault has a different hash, and the hash changes as records are added.
// Notes are annotations and leave it alone (a materialized scenario names
// its faults differently but must hash the same).
func TestDeterminismHashSensitive(t *testing.T) {
	s1 := sim.New(sim.Config{Seed: 1})
	s2 := sim.New(sim.Config{Seed: 1})
	for _, s := range []*sim.Sim{s1, s2} {
		s.AddNode("a", idle{})
		s.AddNode("b", idle{})
	}
	h0 := s1.TraceHash()
	require.Equal(t, h0, s2.TraceHash())
	s1.Note("x", "y", sim.None)
	require.Equal(t, h0, s1.TraceHash(), "notes are not hashed")
	s1.Isolate(0)
	require.NotEqual(t, h0, s1.TraceHash())
	s2.Isolate(1)
	require.NotEqual(t, s1.TraceHash(), s2.TraceHash())
	require.Len(t, s1.TraceHashHex(), 16)
}
