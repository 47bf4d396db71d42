package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// Settle reverts every active fault (newest first), restores every default,
// and nothing fires afterwards: the settle phase in which the checkers judge
// liveness (docs/faults.md, "Settle").
func TestSettleRevertsEverything(t *testing.T) {
	h := newHarness(t, opts{seed: 1, store: true}, nil, []act{lead(sec(1), 1)}, nil, nil)
	lat := sim.Constant(300 * time.Millisecond)
	in := h.inject([]faults.Fault{
		{At: faults.Dur(sec(2)), Pause: &faults.Pause{Target: faults.Leader()}},
		{At: faults.Dur(sec(2)), Crash: &faults.Crash{Target: faults.Nodes(2)}},
		{At: faults.Dur(sec(3)), Clock: &faults.Clock{Target: faults.Nodes(0), Offset: durp(-time.Second), Rate: frp(2)}},
		{At: faults.Dur(sec(3)), Link: &faults.Link{Latency: &lat, Drop: frp(0.1)}},
		{At: faults.Dur(sec(4)), Disk: &faults.Disk{Target: faults.Nodes(3), Fsync: sim.Constant(time.Second)}},
		{At: faults.Dur(sec(4)), Store: &faults.Store{Unavailable: true}},
		{At: faults.Dur(sec(5)), Partition: &faults.Partition{Shape: faults.ShapeMajorityMinority}},
		{At: faults.Dur(sec(6)), For: durp(time.Hour), Pause: &faults.Pause{Target: faults.Nodes(3)}},
		{At: faults.Dur(sec(12)), Pause: &faults.Pause{Target: faults.Nodes(0)}},
		{After: &faults.Trigger{Event: faults.EventElected}, At: faults.Dur(sec(11)), Pause: &faults.Pause{Target: faults.Nodes(0)}},
	}, faults.Nemesis{Kinds: []string{faults.KindDisk}, Targets: []faults.Target{faults.Nodes(3)}, Every: faults.Dur(sec(7)), For: faults.Dur(time.Hour)})
	h.s.At(0, func() { h.s.Cut(1, 0) }) // a foreign cut: settle heals everything
	in.Settle(at(10))
	h.s.RunUntil(at(9))
	assert.Equal(t, 9, in.Active())
	h.s.RunUntil(at(20))
	assert.Equal(t, 0, in.Active())
	settledAt, ok := in.Settled()
	assert.True(t, ok)
	assert.Equal(t, at(10), settledAt)
	assert.Empty(t, cutSet(h.s))
	for i := 0; i < h.s.NumNodes(); i++ {
		id := sim.NodeID(i)
		assert.True(t, h.s.IsUp(id), "node %d up", i)
		assert.False(t, h.s.IsPaused(id), "node %d resumed", i)
		c := h.s.Clock(id)
		assert.Equal(t, sim.RateOne, c.MonoRatePPB)
		assert.Equal(t, sim.RateOne, c.WallRatePPB)
		assert.Equal(t, sim.Constant(0), h.s.FsyncLatency(id))
		for j := 0; j < h.s.NumNodes(); j++ {
			assert.Equal(t, sim.LinkConfig{Latency: sim.Constant(time.Millisecond)}, h.s.Link(id, sim.NodeID(j)))
		}
	}
	assert.False(t, h.st.Unavailable())
	// The offset is stepped back; the 7s gained at rate 2 (3s..10s) stay.
	assert.Equal(t, 7*time.Second, wallSkew(h.s, 0))
	for _, a := range in.Applied() {
		assert.Equal(t, "settle", a.RevertedBy, a.Detail)
		assert.Equal(t, at(10), a.RevertedAt)
	}
	assert.Equal(t, []string{
		"2.000s fault.pause faults[0]: pause n1 (leader, epoch 1) until settle",
		"2.000s fault.crash faults[1]: crash n2 until settle",
		"3.000s fault.clock faults[2]: clock n0: offset -1.000s, rate 2 until settle",
		"3.000s fault.link faults[3]: link all -> all: latency constant(300ms), drop 0.1 until settle",
		"4.000s fault.disk faults[4]: disk n3: fsync constant(1s) until settle",
		"4.000s fault.store faults[5]: store unavailable until settle",
		"5.000s fault.partition faults[6]: partition majority_minority {n1} | {n0,n2,n3} until settle",
		"6.000s fault.pause faults[7]: pause n3 for 3600.000s",
		"7.000s fault.disk nemesis[0]: disk n3: fsync constant(280.697516ms) for 3600.000s",
		"10.000s fault.settle settle: reverting 9 active faults",
		"10.000s fault.revert nemesis[0]: disk n3: fsync restored",
		"10.000s fault.revert faults[7]: resume n3",
		// n1>n0 was cut by someone else: not this fault's; the settle heals it.
		"10.000s fault.revert faults[6]: heal partition: 5 of 5 links restored",
		"10.000s fault.revert faults[5]: store available",
		"10.000s fault.revert faults[4]: disk n3: fsync restored",
		"10.000s fault.revert faults[3]: link all -> all restored (25 links)",
		"10.000s fault.revert faults[2]: clock n0: offset +1.000s back, rates restored",
		"10.000s fault.revert faults[1]: restart n2, disk kept",
		"10.000s fault.revert faults[0]: resume n1",
		"12.000s fault.skip faults[8]: pause skipped: after settle",
	}, h.notes("fault."))
	require.Panics(t, func() { in.Settle(at(30)) })
}
