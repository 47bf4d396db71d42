package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/faults"
	"github.com/electsim/electsim/sim"
)

// cutSet lists the directed links that are down, as "a>b".
func cutSet(s *sim.Sim) []string {
	var out []string
	for a := 0; a < s.NumNodes(); a++ {
		for b := 0; b < s.NumNodes(); b++ {
			if !s.Reachable(sim.NodeID(a), sim.NodeID(b)) {
				out = append(out, s.NodeName(sim.NodeID(a))+">"+s.NodeName(sim.NodeID(b)))
			}
		}
	}
	return out
}

// Overlapping partitions: A isolates n0 from 1s to 5s, B splits {n0,n1} |
// {n2,n3} from 2s to 12s. When A ends, only the links A alone held come back
// (n0<->n1, n0<->store); n0<->n2/n3 stay cut because B still holds them.
// Issue 5: "reverting one fault doesn't heal another's cut".
func TestPartitionRevertsOnlyOwnCuts(t *testing.T) {
	h := newHarness(t, opts{seed: 1, store: true}, nil, nil, nil, nil)
	h.inject([]faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(4 * time.Second),
			Partition: &faults.Partition{Shape: faults.ShapeIsolate, Target: tgt(faults.Nodes(0))}},
		{At: faults.Dur(sec(2)), For: durp(10 * time.Second),
			Partition: &faults.Partition{Shape: faults.ShapeGroups, Groups: [][]faults.Target{{faults.Nodes(0, 1)}, {faults.Nodes(2), faults.Nodes(3)}}}},
	})
	h.s.RunUntil(at(3))
	assert.Equal(t, []string{"n0>n1", "n0>n2", "n0>n3", "n0>store", "n1>n0", "n1>n2", "n1>n3",
		"n2>n0", "n2>n1", "n3>n0", "n3>n1", "store>n0"}, cutSet(h.s))
	h.s.RunUntil(at(6))
	assert.Equal(t, []string{"n0>n2", "n0>n3", "n1>n2", "n1>n3", "n2>n0", "n2>n1", "n3>n0", "n3>n1"}, cutSet(h.s))
	h.s.RunUntil(at(13))
	assert.Empty(t, cutSet(h.s))
	assert.Equal(t, []string{
		"1.000s fault.partition faults[0]: partition isolate n0 for 4.000s",
		"2.000s fault.partition faults[1]: partition {n0,n1} | {n2,n3} for 10.000s",
		"5.000s fault.revert faults[0]: heal partition: 4 of 8 links restored",
		"12.000s fault.revert faults[1]: heal partition: 8 of 8 links restored",
	}, h.notes("fault."))
	// The engine's own records: one per shape, one per revert.
	var net []string
	for _, r := range h.records(sim.RecFault, sim.None) {
		if r.Name[:4] == "net." {
			net = append(net, r.At.String()+" "+r.Name+" "+r.Detail)
		}
	}
	assert.Equal(t, []string{
		"1.000s net.isolate n0",
		"2.000s net.partition {n0,n1} | {n2,n3}",
		"5.000s net.connect n0 -> n1, n1 -> n0, n0 -> store, store -> n0",
		"12.000s net.connect n0 -> n2, n0 -> n3, n1 -> n2, n1 -> n3, n2 -> n0, n2 -> n1, n3 -> n0, n3 -> n1",
	}, net)
}

// A link cut by something other than a fault is not the fault's to restore.
func TestPartitionLeavesForeignCuts(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil, nil)
	h.inject([]faults.Fault{{At: faults.Dur(sec(1)), For: durp(time.Second),
		Partition: &faults.Partition{Shape: faults.ShapeIsolate, Target: tgt(faults.Nodes(0))}}})
	h.s.At(0, func() { h.s.Cut(0, 2) })
	h.s.RunUntil(at(3))
	assert.Equal(t, []string{"n0>n2"}, cutSet(h.s))
}

// majority_minority puts the target in the minority (filled at random) and
// the services where asked; bridge splits the others in ID order around the
// bridge; one_way cuts only one direction.
func TestPartitionShapes(t *testing.T) {
	h := newHarness(t, opts{seed: 5, store: true}, nil, nil, []act{lead(sec(1), 1)}, nil, nil)
	in := h.inject([]faults.Fault{
		{At: faults.Dur(sec(2)), For: durp(time.Second), Partition: &faults.Partition{Shape: faults.ShapeMajorityMinority,
			Target: tgt(faults.Leader()), Services: faults.ServicesMajority}},
		{At: faults.Dur(sec(4)), For: durp(time.Second), Partition: &faults.Partition{Shape: faults.ShapeBridge, Target: tgt(faults.Leader())}},
		{At: faults.Dur(sec(6)), For: durp(time.Second), Partition: &faults.Partition{Shape: faults.ShapeOneWay,
			Target: tgt(faults.Leader()), To: tgt(faults.Nodes(0, 1))}},
		{At: faults.Dur(sec(8)), For: durp(time.Second), Partition: &faults.Partition{Shape: faults.ShapeMajorityMinority}},
	})
	h.s.RunUntil(at(2.5))
	assert.Equal(t, []string{"n0>n1", "n0>n3", "n0>n4", "n0>store", "n1>n0", "n1>n2", "n2>n1", "n2>n3", "n2>n4", "n2>store",
		"n3>n0", "n3>n2", "n4>n0", "n4>n2", "store>n0", "store>n2"}, cutSet(h.s))
	h.s.RunUntil(at(4.5))
	assert.Equal(t, []string{"n0>n3", "n0>n4", "n1>n3", "n1>n4", "n3>n0", "n3>n1", "n4>n0", "n4>n1"}, cutSet(h.s))
	h.s.RunUntil(at(6.5))
	assert.Equal(t, []string{"n2>n0", "n2>n1"}, cutSet(h.s))
	h.s.RunUntil(at(10))
	assert.Empty(t, cutSet(h.s))
	assert.Equal(t, []string{
		"2.000s fault.partition faults[0]: partition majority_minority {n0,n2} | {n1,n3,n4,store} (minority holds n2: leader, epoch 1) for 1.000s",
		"4.000s fault.partition faults[1]: partition bridge {n0,n1} | {n3,n4} via n2 (leader, epoch 1) for 1.000s",
		"6.000s fault.partition faults[2]: partition one_way n2 (leader, epoch 1) -/-> {n0,n1} for 1.000s",
		"8.000s fault.partition faults[3]: partition majority_minority {n0,n3} | {n1,n2,n4} for 1.000s",
	}, h.notes("fault.partition"))
	// Explicitly, a majority/minority split is its two groups.
	ex := in.Applied()[0].Explicit()
	require.NotNil(t, ex.Partition)
	assert.Equal(t, faults.ShapeGroups, ex.Partition.Shape)
	assert.Equal(t, [][]faults.Target{{faults.Nodes(0, 2)}, {faults.Nodes(1, 3, 4, 5)}}, ex.Partition.Groups)
	assert.Equal(t, faults.Dur(time.Second), *ex.For)
	assert.Equal(t, faults.Dur(sec(2)), ex.At)
}

// A heal fault ends every active partition (they count as reverted by the
// heal) and restores every link, foreign cuts included.
func TestHealEndsPartitions(t *testing.T) {
	h := newHarness(t, opts{seed: 1}, nil, nil, nil)
	in := h.inject([]faults.Fault{
		{At: faults.Dur(sec(1)), For: durp(10 * time.Second), Partition: &faults.Partition{Shape: faults.ShapeIsolate, Target: tgt(faults.Nodes(1))}},
		{At: faults.Dur(sec(2)), Heal: &faults.Heal{}},
	})
	h.s.At(0, func() { h.s.Cut(0, 2) })
	h.s.RunUntil(at(12))
	assert.Empty(t, cutSet(h.s))
	app := in.Applied()
	require.Len(t, app, 2)
	assert.Equal(t, "heal", app[0].RevertedBy)
	assert.Equal(t, at(2), app[0].RevertedAt)
	assert.False(t, app[1].Reverted)
	assert.Equal(t, []string{
		"1.000s fault.partition faults[0]: partition isolate n1 for 10.000s",
		"2.000s fault.revert faults[0]: heal partition: links already restored by a heal",
		"2.000s fault.heal faults[1]: heal all links",
	}, h.notes("fault."))
	assert.Nil(t, app[0].Explicit().For, "ended by a heal: the explicit heal fault ends it")
}
