package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

var (
	kindVote = sim.RegisterKind("checkertest.Vote")
	kindBeat = sim.RegisterKind("checkertest.Heartbeat")
)

// raftLike is a hand-built Raft-style failover: n1 leads term 1 and is
// followed by everyone; it crashes at 5s; n2 times out at 5.2s (believes no
// leader in term 2), wins at 5.3s, and n3 follows it at 5.31s.
func raftLike() *trace {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).believe(1020, 2, 0, 1)
	b.deliver(4000, 1, 0, kindBeat, 3995, 1) // before the fault: not counted
	b.crash(5000, 0, true)
	b.believe(5200, 1, sim.None, 2)
	b.deliver(5205, 2, 1, kindVote, 5200, 2).drop(5205, 0, 1, kindVote, 5200)
	b.lead(5300, 1, 2, 2).believe(5300, 1, 1, 2)
	b.deliver(5310, 2, 1, kindBeat, 5300, 2).believe(5310, 2, 1, 2)
	b.deliver(5400, 2, 1, kindBeat, 5350, 2) // sent after recognition: not counted
	return b.end(10000)
}

// Failover latency is measured from the fault to the moment a majority
// follows the new leader (docs/checkers.md, "How failover latency is
// measured").
func TestFailoverCrashMajority(t *testing.T) {
	r := Run(input(raftLike()))
	require.Len(t, r.Failovers, 1)
	f := r.Failovers[0]
	assert.Equal(t, "n1 crashed", f.Fault)
	assert.Equal(t, at(5000), f.FaultAt)
	assert.Equal(t, "n1", f.Leader)
	assert.Equal(t, int64(1), f.LeaderEpoch)
	assert.True(t, f.Detected)
	assert.Equal(t, "n2", f.DetectedBy)
	assert.Equal(t, 200*time.Millisecond, f.Detection)
	require.True(t, f.Completed)
	assert.Equal(t, "n2", f.NewLeader)
	assert.Equal(t, int64(2), f.NewEpoch)
	assert.Equal(t, at(5310), f.LeaderAt)
	assert.Equal(t, 310*time.Millisecond, f.Latency)
	assert.Equal(t, 300*time.Millisecond, f.Leaderless)
	assert.Equal(t, 1, f.ElectionsDuring)
	assert.Equal(t, 1, f.LeadsDuring)
	assert.Equal(t, 3, f.Messages)
	assert.Equal(t, []KindCount{{"checkertest.Heartbeat", 1}, {"checkertest.Vote", 2}}, f.MessagesByKind)
	assert.False(t, f.FencedRun)

	assert.True(t, r.HasLeader)
	assert.Equal(t, at(1010), r.FirstLeaderAt)
	// No recognised leader from 0 to 1.010s and from 5s to 5.310s.
	assert.Equal(t, 1010*time.Millisecond+310*time.Millisecond, r.Leaderless)
}

// A leader with only its own vote is acting, not recognised.
func TestRecognitionNeedsMajority(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1500, 1, 0, 1).end(3000)
	r := Run(input(b))
	assert.Equal(t, at(1500), r.FirstLeaderAt)
	// A belief in another epoch does not count.
	b = &trace{}
	b.lead(1000, 0, 2, 2).believe(1000, 0, 0, 2).believe(1500, 1, 0, 1).end(3000)
	assert.False(t, Run(input(b)).HasLeader)
}

// A pause removes the leader; if nobody takes over, the failover ends when
// the same leader resumes, still recognised.
func TestFailoverSameLeaderRecovers(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).believe(1020, 2, 0, 1)
	b.pause(5000, 0).resume(5500, 0).end(10000)
	r := Run(input(b))
	require.Len(t, r.Failovers, 1)
	f := r.Failovers[0]
	assert.Equal(t, "n1 paused", f.Fault)
	assert.True(t, f.Completed)
	assert.Equal(t, "n1", f.NewLeader)
	assert.Equal(t, 500*time.Millisecond, f.Latency)
	assert.Equal(t, 500*time.Millisecond, f.Leaderless)
	assert.False(t, f.Detected)
}

// Pausing a follower removes no leader.
func TestPausedFollowerIsNoFailover(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).pause(5000, 2).resume(9000, 2).end(10000)
	assert.Empty(t, Run(input(b)).Failovers)
}

// Cutting the leader off a majority removes it; the engine's partition
// record is read back into a reachability matrix.
func TestFailoverIsolation(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).believe(1020, 2, 0, 1)
	b.net(5000, true, sim.CrossLinks([][]sim.NodeID{{0}, {1, 2}})...)
	b.believe(5300, 2, sim.None, 2).lead(5400, 2, 2, 2).believe(5400, 2, 2, 2).believe(5410, 1, 2, 2)
	b.net(9000, false, sim.CrossLinks([][]sim.NodeID{{0}, {1, 2}})...).end(10000)
	r := Run(input(b))
	require.Len(t, r.Failovers, 1)
	f := r.Failovers[0]
	assert.Equal(t, "n1 cut off from a majority", f.Fault)
	assert.Equal(t, "n3", f.NewLeader)
	assert.Equal(t, 410*time.Millisecond, f.Latency)
	assert.Equal(t, "n3", f.DetectedBy)
	// The old leader keeps acting in its minority: belief-level split-brain.
	assert.Equal(t, StatusViolated, mustCheck(r, CheckSplitBrain).Status)
}

// Partitioning two followers away from each other does not cut the leader
// off a majority.
func TestPartitionNotRemovingLeader(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).believe(1020, 2, 0, 1)
	b.net(5000, true, sim.Link{From: 1, To: 2}).net(5000, true, sim.Link{From: 2, To: 1}).end(10000)
	assert.Empty(t, Run(input(b)).Failovers)
}

// Lease algorithms: the holder is recognised from its RecLead; cutting it
// off the store removes it; the store's expiry is the detection; the first
// fenced run is the new token's first applied write.
func TestFailoverLeaseStore(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 6, 6)
	b.net(5000, true, sim.Link{From: 0, To: 3})
	b.effect(11000, 3, sim.FactLeaseExpired, 0, 6, 0)
	b.effect(12000, 3, sim.FactLeaseAcquired, 2, 7, 0).lead(12005, 2, 7, 7)
	b.end(30000)
	in := input(b)
	in.LeaseStore = []sim.NodeID{3}
	in.Resource = []cron.LogEntry{write(3000, 0, 1, slot0, 0, 6, true, ""), write(14000, 2, 2, slot0+int64(time.Hour), 0, 7, true, "")}
	r := Run(in)
	require.Len(t, r.Failovers, 1)
	f := r.Failovers[0]
	assert.Equal(t, "n1 cut off from the lease store", f.Fault)
	assert.Equal(t, "store", f.DetectedBy)
	assert.Equal(t, 6*time.Second, f.Detection)
	assert.Equal(t, at(12005), f.LeaderAt)
	assert.Equal(t, 7005*time.Millisecond, f.Latency)
	assert.Equal(t, 1, f.ElectionsDuring)
	require.True(t, f.FencedRun)
	assert.Equal(t, at(14000), f.FirstFencedRunAt)
	assert.Equal(t, 9*time.Second, f.ToFencedRun)
	assert.Equal(t, at(1000), r.FirstLeaderAt)
}

// A failover that never completes is reported as such.
func TestFailoverIncomplete(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).believe(1000, 0, 0, 1).believe(1010, 1, 0, 1).crash(5000, 0, true).end(10000)
	r := Run(input(b))
	require.Len(t, r.Failovers, 1)
	assert.False(t, r.Failovers[0].Completed)
	assert.Equal(t, 5*time.Second, r.Failovers[0].Leaderless)
	ok, problems := r.Judge(Expect{FailoverUnder: 2 * time.Second})
	assert.False(t, ok)
	assert.Contains(t, problems, "failover after t=5.000s (n1 crashed) never completed (bound 2s)")
}

// Flapping: tenures started at 1s, 10s, 20s and 70s of a 120s run are three
// changes, 1.5 per minute, at most two in any minute.
func TestFlapping(t *testing.T) {
	b := &trace{}
	b.lead(1000, 0, 1, 1).lead(10000, 1, 2, 2).down(10000, 0, "x").lead(20000, 2, 3, 3).down(20000, 1, "x")
	b.lead(70000, 0, 4, 4).down(70000, 2, "x").end(120000)
	r := Run(input(b))
	assert.Equal(t, 3, r.LeaderChanges)
	assert.InDelta(t, 1.5, r.FlapsPerMinute, 1e-9)
	assert.Equal(t, 2, r.MaxChangesPerMinute)
	ok, problems := r.Judge(Expect{MaxFlapsPerMinute: 1})
	assert.False(t, ok)
	assert.Equal(t, []string{"1.50 leader changes per minute, more than 1.00"}, problems)
}
