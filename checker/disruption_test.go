package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

var noDisruption = contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckDisruption,
	Unless: []contract.FaultClass{contract.Pause}, Window: 500 * time.Millisecond, Aftermath: 300 * time.Millisecond}}}

// disruptionRun: five candidates start at 0, n0 leads from 100 ms; before
// runs, then n0 steps down at t=down ms.
func disruptionRun(t *testing.T, down int64, before func(b *trace)) Check {
	t.Helper()
	b := &trace{}
	for i := sim.NodeID(0); i < 5; i++ {
		b.add(sim.Record{At: 0, Type: sim.RecStart, Node: i, Peer: sim.None})
	}
	b.lead(100, 0, 1, 1)
	if before != nil {
		before(b)
	}
	b.down(down, 0, "higher term")
	b.lead(down+5, 4, 2, 2)
	rep := Run(Input{Records: b.recs, Candidates: []sim.NodeID{0, 1, 2, 3, 4}, Contract: noDisruption})
	ch, ok := rep.Check(CheckDisruption)
	require.True(t, ok, "the contract promises it, so the report has it")
	return ch
}

// Must refute: a leader deposed while it and a majority had been up and
// connected to it for the window is a disruption, a breach; the follower
// that was cut off and rejoined (n4) excuses nothing, for a partition is
// no exception of the promise.
func TestDisruptionOfAHealthyQuorumIsABreach(t *testing.T) {
	ch := disruptionRun(t, 2000, func(b *trace) {
		b.net(200, true, sim.IsolateLinks(4, 5)...)
		b.net(1500, false, sim.IsolateLinks(4, 5)...)
	})
	require.Equal(t, StatusViolated, ch.Status)
	require.Len(t, ch.Violations, 1)
	assert.Equal(t, contract.Breach, ch.Violations[0].Contract)
	assert.Equal(t, []sim.NodeID{0}, ch.Violations[0].NodeIDs)
}

// Not a disruption: a leader that lost its majority (three of five cut
// off within the window), a step-down within the window of the start, or
// a crash. A pause of a candidate within the aftermath excuses one.
func TestDisruptionNeedsAQuorumUndisturbedForTheWindow(t *testing.T) {
	ch := disruptionRun(t, 2000, func(b *trace) {
		for _, id := range []sim.NodeID{2, 3, 4} {
			b.net(1800, true, sim.IsolateLinks(id, 5)...)
		}
	})
	assert.Equal(t, StatusOK, ch.Status, "the leader had no majority")
	ch = disruptionRun(t, 300, nil)
	assert.Equal(t, StatusOK, ch.Status, "within the window of the start")
	ch = disruptionRun(t, 2000, func(b *trace) { b.net(1700, true, sim.Link{From: 0, To: 1}).net(1750, false, sim.Link{From: 0, To: 1}) })
	require.Equal(t, StatusViolated, ch.Status, "one follower's link changed: still a majority of four")
	ch = disruptionRun(t, 2000, func(b *trace) {
		for _, id := range []sim.NodeID{1, 2, 3} {
			b.net(1700, true, sim.Link{From: 0, To: id}).net(1750, false, sim.Link{From: 0, To: id})
		}
	})
	assert.Equal(t, StatusOK, ch.Status, "three of four followers' links changed within the window")
	ch = disruptionRun(t, 2000, func(b *trace) { b.pause(1800, 2).resume(1850, 2) })
	require.Equal(t, StatusViolated, ch.Status)
	assert.Equal(t, contract.Excused, ch.Violations[0].Contract, "a paused follower: the quorum check may miss it")
}

// Without the promise the report has no disruption check.
func TestDisruptionOnlyWhenPromised(t *testing.T) {
	b := &trace{}
	b.lead(100, 0, 1, 1).down(2000, 0, "x")
	_, ok := Run(Input{Records: b.recs, Candidates: []sim.NodeID{0, 1, 2}}).Check(CheckDisruption)
	assert.False(t, ok)
}
