package checker

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/algorithms/bully"
	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// cluster builds k candidates n1..nk with mk and records the trace.
func cluster(seed uint64, k int, mk func(peers []sim.NodeID) sim.Node) (*sim.Sim, *sim.Recorder, []sim.NodeID) {
	s := sim.New(sim.Config{Seed: seed, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	ids := make([]sim.NodeID, k)
	for i := range ids {
		ids[i] = sim.NodeID(i)
	}
	for i := 0; i < k; i++ {
		s.AddNode(fmt.Sprintf("n%d", i+1), mk(ids))
	}
	return s, rec, ids
}

// randomPartitions drives a nemesis from the run's "nemesis" stream: every
// 0.5–2 s it splits off a random minority, cuts a random node off, or heals,
// until faultEnd, when it heals for good.
func randomPartitions(s *sim.Sim, ids []sim.NodeID, faultEnd sim.Time) {
	r := s.Stream("nemesis")
	var step func()
	step = func() {
		if s.Now() >= faultEnd {
			s.Heal()
			return
		}
		s.Heal()
		switch r.Intn(3) {
		case 0:
			s.SplitMinority(ids, r)
		case 1:
			s.Isolate(ids[r.Intn(len(ids))])
		}
		s.After(r.DurationRange(500*time.Millisecond, 2*time.Second), step)
	}
	s.At(sim.Time(time.Second), step)
}

// partitionedRun runs 5 candidates under random partitions for 20 s, then
// heals and settles for 10 s, and checks the trace.
func partitionedRun(t *testing.T, seed uint64, mk func(peers []sim.NodeID) sim.Node) Report {
	t.Helper()
	s, rec, ids := cluster(seed, 5, mk)
	faultEnd := sim.Time(20 * time.Second)
	randomPartitions(s, ids, faultEnd)
	s.RunUntil(sim.Time(30 * time.Second))
	s.End()
	return Run(Input{Records: rec.Records, Names: NamesOf(s), Candidates: ids,
		FaultEnd: faultEnd, SettleStart: faultEnd, SettleBound: 5 * time.Second,
		Replay: fmt.Sprintf("go test ./checker -run TestRaftRandomPartitions (seed %d)", seed)})
}

// Raft §5.2 (Election Safety, Figure 3): at most one leader per term, under
// any partitions — checked over many seeds. Without CheckQuorum a leader cut
// off in a minority goes on believing it leads, so belief-level split-brain
// does occur, in different terms.
func TestRaftRandomPartitions(t *testing.T) {
	seeds, failovers, splits := 40, 0, 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r := partitionedRun(t, seed, func(peers []sim.NodeID) sim.Node { return raftelect.MustNew(raftelect.DefaultConfig(), peers) })
		require.Equal(t, StatusOK, mustCheck(r, CheckElectionSafety).Status, "seed %d\n%s", seed, r)
		require.Equal(t, StatusOK, mustCheck(r, CheckLiveness).Status, "seed %d\n%s", seed, r)
		for _, v := range mustCheck(r, CheckSplitBrain).Violations {
			require.NotEqual(t, v.Tokens[0], v.Tokens[1], "overlapping leaders of one term (seed %d)", seed)
		}
		failovers += len(r.Failovers)
		if mustCheck(r, CheckSplitBrain).Status == StatusViolated {
			splits++
		}
	}
	assert.Greater(t, failovers, seeds, "the nemesis removes leaders")
	assert.Greater(t, splits, 0, "a minority leader keeps believing it leads")
	t.Logf("%d seeds: %d failovers, %d runs with belief-level split-brain", seeds, failovers, splits)
}

// The same for the etcd raft library (PreVote and CheckQuorum on, as etcd
// runs it), over fewer seeds: it is slower to simulate.
func TestEtcdRaftRandomPartitions(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		r := partitionedRun(t, seed, func(peers []sim.NodeID) sim.Node { return etcdraft.MustNew(etcdraft.DefaultConfig(), peers) })
		require.Equal(t, StatusOK, mustCheck(r, CheckElectionSafety).Status, "seed %d\n%s", seed, r)
		require.Equal(t, StatusOK, mustCheck(r, CheckLiveness).Status, "seed %d\n%s", seed, r)
	}
}

// Garcia-Molina's bully algorithm assumes no partitions (1982, §3): split
// {n1,n2,n3} from {n4,n5} and the majority elects n3 while n5 goes on
// coordinating the minority — split-brain, and with no fenced resource the
// checker cannot call it harmless.
func TestBullyPartitionSplitBrain(t *testing.T) {
	s, rec, ids := cluster(1, 5, func(peers []sim.NodeID) sim.Node { return bully.MustNew(bully.DefaultConfig(), peers) })
	s.At(sim.Time(2*time.Second), func() { s.Partition(ids[:3], ids[3:]) })
	s.RunUntil(sim.Time(5 * time.Second))
	s.End()
	r := Run(Input{Records: rec.Records, Names: NamesOf(s), Candidates: ids, Replay: "go test ./checker -run TestBullyPartitionSplitBrain"})
	sb := mustCheck(r, CheckSplitBrain)
	require.Equal(t, StatusViolated, sb.Status, "%s", r)
	v := sb.Violations[0]
	assert.Equal(t, []string{"n5", "n3"}, v.Nodes)
	assert.Equal(t, sim.Time(5*time.Second), v.End, "still overlapping at the end")
	assert.False(t, v.Harmless)
	assert.Contains(t, v.Explanation, "t=2.000s partition {n1,n2,n3} | {n4,n5}")
	assert.Contains(t, v.Explanation, "n3 acts as leader")
	assert.Equal(t, "Illegal", r.Linearizability[0].Result)
	// n5 is still followed by n4 only: a minority, so the cut removed it.
	require.Len(t, r.Failovers, 1)
	assert.Equal(t, "n5 cut off from a majority", r.Failovers[0].Fault)
	assert.Equal(t, "n3", r.Failovers[0].NewLeader)
	t.Logf("%s", r)
}

// Raft Figure 2 ("Persistent state on all servers … updated on stable
// storage before responding to RPCs"): with persistence off, a node that
// crashes forgets its term and vote, and under a crash-restart nemesis two
// nodes lead the same term. The checker must catch it.
func TestRaftWithoutPersistenceViolatesElectionSafety(t *testing.T) {
	violated := 0
	for seed := uint64(1); seed <= 10; seed++ {
		cfg := raftelect.DefaultConfig()
		cfg.Persist = false
		s, rec, ids := cluster(seed, 3, func(peers []sim.NodeID) sim.Node { return raftelect.MustNew(cfg, peers) })
		r := s.Stream("crashes")
		var step func()
		step = func() {
			id := ids[r.Intn(len(ids))]
			s.Crash(id)
			s.After(r.DurationRange(time.Millisecond, 20*time.Millisecond), func() { s.Restart(id, true) })
			s.After(r.DurationRange(50*time.Millisecond, 300*time.Millisecond), step)
		}
		s.At(sim.Time(time.Second), step)
		s.RunUntil(sim.Time(10 * time.Second))
		s.End()
		rep := Run(Input{Records: rec.Records, Names: NamesOf(s), Candidates: ids})
		if c := mustCheck(rep, CheckElectionSafety); c.Status == StatusViolated {
			violated++
			assert.Contains(t, c.Violations[0].Explanation, "restarted")
		}
	}
	assert.GreaterOrEqual(t, violated, 3, "forgetting to persist must be a demonstrable bug")
	t.Logf("election safety violated in %d of 10 seeds", violated)
}
