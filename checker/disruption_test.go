package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// termBumped is the protocol state index these traces report a term rise
// with (contract.Guarantee.TermState is one more).
const termBumped = 1

var noDisruption = contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckDisruption,
	Unless: []contract.FaultClass{contract.Pause}, Window: 500 * time.Millisecond, TermState: termBumped + 1, Aftermath: 300 * time.Millisecond}}}

// bump is node n's term rising to term at t ms.
func bump(b *trace, t int64, n sim.NodeID, term int64) *trace {
	return b.add(sim.Record{At: at(t), Type: sim.RecEffect, Node: n, Peer: sim.None, Fact: sim.FactProtocolState, A: termBumped, B: term})
}

// disruptionRun: five candidates start at 0, n0 leads epoch 1 from 100 ms;
// before runs, then n0 steps down at t=down ms and n4 leads epoch 2.
func disruptionRun(t *testing.T, down int64, before func(b *trace)) Check {
	t.Helper()
	b := &trace{}
	for i := sim.NodeID(0); i < 5; i++ {
		b.add(sim.Record{At: 0, Type: sim.RecStart, Node: i, Peer: sim.None})
	}
	bump(b, 90, 0, 1)
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

// Must refute: a leader deposed by a term a node raised while the leader
// and a majority had been up and connected to it for the window is a
// disruption, a breach; the follower that was cut off and raised it (n4)
// excuses nothing, for a partition is no exception of the promise.
func TestDisruptionOfAHealthyQuorumIsABreach(t *testing.T) {
	ch := disruptionRun(t, 2000, func(b *trace) {
		b.net(200, true, sim.IsolateLinks(4, 5)...)
		bump(b, 1000, 4, 2) // while cut off: what PreVote forbids
		b.net(1500, false, sim.IsolateLinks(4, 5)...)
	})
	require.Equal(t, StatusViolated, ch.Status)
	require.Len(t, ch.Violations, 1)
	assert.Equal(t, contract.Breach, ch.Violations[0].Contract)
	assert.Equal(t, []sim.NodeID{0}, ch.Violations[0].NodeIDs)
}

// Not a disruption: a term raised while the leader had no majority (three
// of five cut off, or the window not yet passed since the start), a
// step-down with no term raised against it, a crash. A pause of a
// candidate within the aftermath excuses one.
func TestDisruptionNeedsATermRaisedAgainstAHealthyQuorum(t *testing.T) {
	ch := disruptionRun(t, 2000, func(b *trace) {
		for _, id := range []sim.NodeID{2, 3, 4} {
			b.net(1500, true, sim.IsolateLinks(id, 5)...)
		}
		bump(b, 1600, 4, 2)
	})
	assert.Equal(t, StatusOK, ch.Status, "the leader had no majority when the term rose")
	ch = disruptionRun(t, 2000, nil)
	assert.Equal(t, StatusOK, ch.Status, "no term was raised against it")
	ch = disruptionRun(t, 400, func(b *trace) { bump(b, 300, 4, 2) })
	assert.Equal(t, StatusOK, ch.Status, "within the window of the start")
	ch = disruptionRun(t, 2000, func(b *trace) { bump(b, 1900, 4, 1) })
	assert.Equal(t, StatusOK, ch.Status, "a term no higher than one already reached is no campaign")
	ch = disruptionRun(t, 2000, func(b *trace) { bump(b, 1700, 4, 2).pause(1800, 2).resume(1850, 2) })
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
