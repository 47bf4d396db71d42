package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// Targets resolve when the fault fires, from the observations (docs/faults.md,
// "Targets": targets are protocol state, resolved when the fault fires). Leadership moves n1 (epoch 1, 1s–4.5s) → n2 (epoch 2, from 5s); a
// pause of "leader" at 3s must hit n1 and one at 6s must hit n2.
func TestPauseHitsLeaderAtThatInstant(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, []act{lead(sec(1), 1), stop(sec(4.5))}, []act{lead(sec(5), 2)})
	in := h.inject([]faults.Fault{
		{At: faults.Dur(sec(3)), For: durp(time.Second), Pause: &faults.Pause{Target: faults.Leader()}},
		{At: faults.Dur(sec(6)), For: durp(2 * time.Second), Pause: &faults.Pause{Target: faults.Leader()}},
	})
	h.s.RunUntil(at(10))

	pauses := h.records(sim.RecPause, sim.None)
	require.Len(t, pauses, 2)
	for _, p := range pauses {
		assert.Equal(t, h.leaderAt(p.At), p.Node, "paused node is the trace's leader at %v", p.At)
	}
	assert.Equal(t, sim.NodeID(1), pauses[0].Node)
	assert.Equal(t, at(3), pauses[0].At)
	assert.Equal(t, sim.NodeID(2), pauses[1].Node)
	assert.Equal(t, at(6), pauses[1].At)
	resumes := h.records(sim.RecResume, sim.None)
	require.Len(t, resumes, 2)
	assert.Equal(t, at(4), resumes[0].At)
	assert.Equal(t, at(8), resumes[1].At)
	assert.Equal(t, []string{
		"3.000s fault.pause faults[0]: pause n1 (leader, epoch 1) for 1.000s",
		"4.000s fault.revert faults[0]: resume n1",
		"6.000s fault.pause faults[1]: pause n2 (leader, epoch 2) for 2.000s",
		"8.000s fault.revert faults[1]: resume n2",
	}, h.notes("fault."))
	app := in.Applied()
	require.Len(t, app, 2)
	assert.Equal(t, faults.Applied{Seq: 0, Source: "faults[0]", Kind: "pause", At: at(3), Nodes: []sim.NodeID{1},
		Detail: "faults[0]: pause n1 (leader, epoch 1) for 1.000s", Reverted: true, RevertedAt: at(4), RevertedBy: "for"},
		stripConcrete(app[0]))
	assert.Equal(t, 0, in.Active())
}

// stripConcrete compares Applied without its unexported concrete fault.
func stripConcrete(a faults.Applied) faults.Applied {
	return faults.Applied{Seq: a.Seq, Source: a.Source, Kind: a.Kind, At: a.At, Nodes: a.Nodes, Detail: a.Detail,
		Reverted: a.Reverted, RevertedAt: a.RevertedAt, RevertedBy: a.RevertedBy}
}

// Two nodes acting as leader at once (a stale leader): "leader" is the one
// with the highest epoch.
func TestLeaderIsHighestEpoch(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, []act{lead(sec(1), 3)}, []act{lead(sec(1), 7)}, []act{lead(sec(2), 5)})
	h.inject([]faults.Fault{{At: faults.Dur(sec(3)), Crash: &faults.Crash{Target: faults.Leader()}}})
	h.s.RunUntil(at(4))
	assert.Equal(t, []string{"3.000s fault.crash faults[0]: crash n1 (leader, epoch 7) until settle"}, h.notes("fault."))
	assert.False(t, h.s.IsUp(1))
}

// A target that resolves to nothing skips the fault with a note; nothing is
// applied.
func TestSkipWhenNoLeader(t *testing.T) {
	h := newHarness(t, opts{seed: 1, store: true}, nil, []act{lead(sec(2), 1)})
	in := h.inject([]faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(time.Second), Pause: &faults.Pause{Target: faults.Leader()}},
		{At: faults.Dur(sec(1)), Partition: &faults.Partition{Shape: faults.ShapeIsolate, Target: tgt(faults.Of(faults.TargetFollowers))}},
		{At: faults.Dur(sec(1)), Pause: &faults.Pause{Target: faults.LeaseHolder()}},
	})
	h.s.RunUntil(at(3))
	assert.Equal(t, []string{
		"1.000s fault.skip faults[0]: pause skipped: no leader",
		"1.000s fault.skip faults[1]: partition skipped: no leader",
		"1.000s fault.skip faults[2]: pause skipped: no lease holder",
	}, h.notes("fault."))
	assert.Empty(t, in.Applied())
	assert.Empty(t, h.records(sim.RecPause, sim.None))
}

// followers, candidate, all, random(2), random_minority, store and resource
// resolve from the current state; random ones draw from the fault stream.
func TestRoleTargets(t *testing.T) {
	h := newHarness(t, opts{seed: 3, store: true, resource: true},
		nil, []act{lead(sec(1), 1)}, nil, nil, nil)
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(2)), Pause: &faults.Pause{Target: faults.Of(faults.TargetFollowers)}},
		{At: faults.Dur(sec(3)), Crash: &faults.Crash{Target: faults.Of(faults.TargetCandidate)}},
		{At: faults.Dur(sec(4)), Disk: &faults.Disk{Target: faults.Of(faults.TargetAll), Fsync: sim.Constant(time.Second)}},
		{At: faults.Dur(sec(5)), Disk: &faults.Disk{Target: faults.Target{Kind: faults.TargetRandom, Count: 2}, Fsync: sim.Constant(2 * time.Second)}},
		{At: faults.Dur(sec(6)), Disk: &faults.Disk{Target: faults.Of(faults.TargetRandomMinority), Fsync: sim.Constant(3 * time.Second)}},
		{At: faults.Dur(sec(7)), Pause: &faults.Pause{Target: faults.Of(faults.TargetStore)}},
		{At: faults.Dur(sec(7)), Pause: &faults.Pause{Target: faults.Of(faults.TargetResource)}},
	})
	h.s.RunUntil(at(8))
	assert.Equal(t, []string{
		"2.000s fault.pause faults[0]: pause {n0,n2,n3,n4} (followers of n1) until settle",
		"3.000s fault.crash faults[1]: crash n3 (candidate) until settle",
		"4.000s fault.disk faults[2]: disk {n0,n1,n2,n3,n4} (all): fsync constant(1s) until settle",
		"5.000s fault.disk faults[3]: disk {n0,n2} (random): fsync constant(2s) until settle",
		"6.000s fault.disk faults[4]: disk {n1,n2} (random_minority): fsync constant(3s) until settle",
		"7.000s fault.pause faults[5]: pause store (store) until settle",
		"7.000s fault.pause faults[6]: pause res (resource) until settle",
	}, h.notes("fault."))
	// random and random_minority draw only among up candidates: n3 is down,
	// so only "all" reached its disk; overlapping disk faults layer (n2: 3s).
	assert.Equal(t, sim.Constant(time.Second), h.s.FsyncLatency(3))
	assert.Equal(t, sim.Constant(3*time.Second), h.s.FsyncLatency(2))
	assert.Equal(t, sim.Constant(2*time.Second), h.s.FsyncLatency(0))
}

// service resolves to one service node at random (the store or the
// resource here), drawing from the fault's per-firing stream, and to
// nothing in a run without one; it cannot name whose event counts.
func TestServiceTarget(t *testing.T) {
	h := newHarness(t, opts{seed: 3, store: true, resource: true}, nil, nil, nil, nil, nil)
	var fs []faults.Fault
	for i := 1; i <= 12; i++ {
		fs = append(fs, faults.Fault{At: faults.Dur(sec(float64(i))), For: durp(500 * time.Millisecond), Pause: &faults.Pause{Target: faults.Of(faults.TargetService)}})
	}
	in := h.inject(fs)
	h.s.RunUntil(at(13))
	hit := map[string]int{}
	for _, a := range in.Applied() {
		require.Len(t, a.Nodes, 1, a.Detail)
		require.True(t, h.s.IsService(a.Nodes[0]), a.Detail)
		hit[h.s.NodeName(a.Nodes[0])]++
	}
	assert.Positive(t, hit["store"], "%v", hit)
	assert.Positive(t, hit["res"], "%v", hit)

	bare := newHarness(t, opts{seed: 3}, nil, nil, nil)
	bare.inject([]faults.Fault{{At: faults.Dur(sec(1)), Pause: &faults.Pause{Target: faults.Of(faults.TargetService)}}})
	bare.s.RunUntil(at(2))
	assert.Equal(t, []string{"1.000s fault.skip faults[0]: pause skipped: no service node"}, bare.notes("fault."))

	tr := faults.Trigger{Event: faults.EventElected, Node: faults.Of(faults.TargetService)}
	require.ErrorContains(t, tr.Validate(), `kind "service" cannot name whose event counts`)
}
