package checker

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// The excuse rule (docs/checkers.md, "Excuses"): a fault excuses a finding
// only if it acted on a node the finding involves (or a service it depends
// on, or a link such a node used) while the finding lasted or at most the
// guarantee's Aftermath before it began. Each case below is one way an
// unrelated fault bought a clean verdict before the rule named its cause.

var pauseOnly = contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Pause}, Aftermath: 300 * time.Millisecond}}}

func verdictOf(t *testing.T, recs []sim.Record, c contract.Contract, store ...sim.NodeID) Violation {
	t.Helper()
	rep := Run(Input{Records: recs, Candidates: []sim.NodeID{0, 1, 2}, Contract: c, LeaseStore: store})
	return splitBrainOf(t, rep).Violations[0]
}

// Must refute: a pause of an involved node that healed long before the
// overlap began (past the Aftermath) excuses nothing; one that ended within
// it does, and the excuse names it.
func TestExcuseHealedLongAgoIsNoExcuse(t *testing.T) {
	old := overlapTrace(300, func(b *trace) { b.pause(10, 0).resume(15, 0) }) // ended 985 ms before the overlap
	v := verdictOf(t, old, pauseOnly)
	assert.Equal(t, contract.Breach, v.Contract, "a 5 ms pause healed 985 ms earlier cannot explain the overlap")
	assert.Nil(t, v.Excuse)

	recent := overlapTrace(300, func(b *trace) { b.pause(600, 0).resume(800, 0) }) // ended 200 ms before
	v = verdictOf(t, recent, pauseOnly)
	require.Equal(t, contract.Excused, v.Contract)
	require.NotNil(t, v.Excuse)
	assert.Equal(t, contract.Pause, v.Excuse.Class)
	assert.Equal(t, "node0", v.Excuse.NodeName)
	assert.Equal(t, at(600), v.Excuse.Start)
	assert.Equal(t, at(800), v.Excuse.End)
	assert.Equal(t, 200*time.Millisecond, v.Excuse.Before)
	assert.Equal(t, 1, v.Excuse.Ordinal)

	during := overlapTrace(300, func(b *trace) { b.pause(10, 0) }) // still paused: never resumed
	v = verdictOf(t, during, pauseOnly)
	require.Equal(t, contract.Excused, v.Contract)
	assert.Equal(t, sim.Never, v.Excuse.End)
	assert.Zero(t, v.Excuse.Before, "a fault acting during the finding ended no time before it")
}

// Must refute: a pause of a service the election does not depend on (the
// fenced resource, node 3) excuses no split brain; the same pause of the
// candidates' lease store does.
func TestExcuseAResourcePauseExcusesNoElectionFinding(t *testing.T) {
	recs := overlapTrace(300, func(b *trace) { b.pause(900, 3).resume(905, 3) })
	assert.Equal(t, contract.Breach, verdictOf(t, recs, pauseOnly).Contract)
	v := verdictOf(t, recs, pauseOnly, 3)
	assert.Equal(t, contract.Excused, v.Contract, "the lease store is a service the candidates depend on")
	assert.Equal(t, "node3", v.Excuse.NodeName)
}

// Must refute: a latency change on a link no involved node ever used
// excuses nothing; on a link one of them used, it does.
func TestExcuseAnUnusedLinkIsNoExcuse(t *testing.T) {
	linkOnly := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Link}, Aftermath: time.Second}}}
	slow := func(used bool) []sim.Record {
		return overlapTrace(300, func(b *trace) {
			if used {
				b.deliver(100, 1, 0, 1, 99, 1)
			}
			b.add(sim.Record{At: at(500), Type: sim.RecFault, Node: sim.None, Fact: sim.FactLinkChanged, Links: []sim.Link{{From: 0, To: 1}}})
		})
	}
	assert.Equal(t, contract.Breach, verdictOf(t, slow(false), linkOnly).Contract, "n0 and n1 never exchanged a message")
	assert.Equal(t, contract.Excused, verdictOf(t, slow(true), linkOnly).Contract)

	// Links between nodes the finding does not involve excuse nothing,
	// however busy.
	other := overlapTrace(300, func(b *trace) {
		b.deliver(100, 2, 3, 1, 99, 1)
		b.add(sim.Record{At: at(500), Type: sim.RecFault, Node: sim.None, Fact: sim.FactLinkChanged, Links: []sim.Link{{From: 3, To: 2}}})
	})
	assert.Equal(t, contract.Breach, verdictOf(t, other, linkOnly).Contract)

	// A link fault that was reset before the Aftermath excuses nothing.
	short := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Link}, Aftermath: 100 * time.Millisecond}}}
	healed := overlapTrace(300, func(b *trace) {
		b.deliver(100, 1, 0, 1, 99, 1)
		b.add(sim.Record{At: at(200), Type: sim.RecFault, Node: sim.None, Fact: sim.FactLinkChanged, Links: []sim.Link{{From: 0, To: 1}}})
		b.add(sim.Record{At: at(300), Type: sim.RecFault, Node: sim.None, Fact: sim.FactLinksReset, Links: []sim.Link{{From: 0, To: 1}}})
	})
	assert.Equal(t, contract.Breach, verdictOf(t, healed, short).Contract, "reset 700 ms before the overlap, Aftermath 100 ms")
}

// A pause stretches a bounded split_brain guarantee by what it lasted
// rather than voiding it: an overlap within bound + pause is within bound,
// one past it a breach that still names the pause.
func TestExcusePauseStretchesTheBound(t *testing.T) {
	bounded := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Pause},
		MaxOverlap: 100 * time.Millisecond, Aftermath: time.Second}}}
	paused := func(overlapMs int64) []sim.Record {
		return overlapTrace(overlapMs, func(b *trace) { b.pause(700, 0).resume(900, 0) }) // 200 ms
	}
	v := verdictOf(t, paused(300), bounded)
	assert.Equal(t, contract.WithinBound, v.Contract, "100 ms bound + 200 ms of pause")
	require.NotNil(t, v.Excuse)
	assert.Equal(t, 200*time.Millisecond, v.Excuse.Stretch)
	v = verdictOf(t, paused(301), bounded)
	assert.Equal(t, contract.Breach, v.Contract, "1 ms past the stretched bound")
	require.NotNil(t, v.Excuse, "the breach keeps the pauses that did not explain it")

	// A class that voids the guarantee still voids it.
	both := bounded
	both.Guarantees = []contract.Guarantee{bounded.Guarantees[0]}
	both.Guarantees[0].Unless = []contract.FaultClass{contract.Pause, contract.Crash}
	crashed := overlapTrace(5000, func(b *trace) { b.pause(700, 0).resume(900, 0).crash(950, 1, false).restart(960, 1) })
	assert.Equal(t, contract.Excused, verdictOf(t, crashed, both).Contract)
}

// A clock-rate fault stretches a bounded split_brain guarantee by what
// its drift can explain, D·|rate − 1| over the D of real time it acted,
// rather than voiding it: the holder's clock ran at half speed for 400 ms
// (200 ms of drift), so an overlap within bound + 200 ms is within bound,
// one past it a breach that still names the fault; a stopped clock (rate
// 0) explains as much as a pause of the same length.
func TestExcuseClockRateStretchesTheBound(t *testing.T) {
	bounded := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.ClockRate},
		MaxOverlap: 100 * time.Millisecond, Aftermath: time.Second}}}
	slow := func(overlapMs, ratePPB int64) []sim.Record {
		return overlapTrace(overlapMs, func(b *trace) {
			b.add(sim.Record{At: at(500), Type: sim.RecFault, Node: 0, Fact: sim.FactClockRate, RatePPB: ratePPB})
			b.add(sim.Record{At: at(900), Type: sim.RecFault, Node: 0, Fact: sim.FactClockExact, RatePPB: sim.RateOne})
		})
	}
	v := verdictOf(t, slow(300, sim.RateOne/2), bounded)
	assert.Equal(t, contract.WithinBound, v.Contract, "100 ms bound + 400 ms at half speed")
	require.NotNil(t, v.Excuse)
	assert.Equal(t, contract.ClockRate, v.Excuse.Class)
	assert.Equal(t, 200*time.Millisecond, v.Excuse.Stretch)
	v = verdictOf(t, slow(301, sim.RateOne/2), bounded)
	assert.Equal(t, contract.Breach, v.Contract, "1 ms past the stretched bound")
	require.NotNil(t, v.Excuse, "the breach keeps the fault that did not explain it")
	v = verdictOf(t, slow(500, 2*sim.RateOne), bounded)
	assert.Equal(t, contract.WithinBound, v.Contract, "double speed for 400 ms: 400 ms of drift")
	v = verdictOf(t, slow(501, 2*sim.RateOne), bounded)
	assert.Equal(t, contract.Breach, v.Contract, "double speed for 400 ms explains 400 ms, not 401")
	v = verdictOf(t, slow(500, 3*sim.RateOne/2), bounded)
	assert.Equal(t, contract.Breach, v.Contract, "1.5× for 400 ms explains 200 ms, not 400")
	v = verdictOf(t, slow(500, 0), bounded)
	assert.Equal(t, contract.WithinBound, v.Contract, "a stopped clock explains its whole 400 ms")
}

// A fault of a known bug's class (contract.Guarantee.Known: a bug of the
// configured library release) does not excuse a finding it reaches: the
// finding is a breach labelled with the bug and naming the fault; without
// the known bug, the same class in Unless excuses it (the twin), and a
// known-bug class that reaches nothing leaves an unlabelled breach.
func TestKnownBugIsALabelledBreach(t *testing.T) {
	known := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Aftermath: time.Second,
		Known: []contract.KnownBug{{Label: "LIB-1 (lib 1.0)", Classes: []contract.FaultClass{contract.Pause}}}}}}
	paused := overlapTrace(5000, func(b *trace) { b.pause(700, 0).resume(900, 0) })
	v := verdictOf(t, paused, known)
	assert.Equal(t, contract.Breach, v.Contract)
	assert.Equal(t, "LIB-1 (lib 1.0)", v.KnownBug)
	require.NotNil(t, v.Excuse)
	assert.Equal(t, contract.Pause, v.Excuse.Class)
	rep, _, problems := judgeContract(t, paused, known, Expect{})
	c, _ := rep.Check(CheckSplitBrain)
	assert.Equal(t, 1, c.KnownBugs)
	assert.Contains(t, strings.Join(problems, "\n"), "known bug LIB-1 (lib 1.0), triggered by pause on node0")

	excused := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Aftermath: time.Second, Unless: []contract.FaultClass{contract.Pause}}}}
	assert.Equal(t, contract.Excused, verdictOf(t, paused, excused).Contract)

	v = verdictOf(t, overlapTrace(5000, nil), known)
	assert.Equal(t, contract.Breach, v.Contract)
	assert.Empty(t, v.KnownBug, "no fault of the bug's class reached it")
}

// A holder's stale lease write (sim.FactLeaseWriteLag: client-go wrote
// the renewTime of its attempt's start, 500 ms before the write landed)
// stretches a bound that declares WriteLag by that lag: an overlap within
// bound + 500 ms is within bound, one past it a breach; without WriteLag,
// or with the stale write another node's, the same overlap is a breach
// (the twins).
func TestWriteLagStretchesTheBound(t *testing.T) {
	lagging := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, WriteLag: true,
		MaxOverlap: 10 * time.Millisecond, Aftermath: time.Second}}}
	stale := func(overlapMs, landedMs int64) []sim.Record {
		return overlapTrace(overlapMs, func(b *trace) {
			b.add(sim.Record{At: at(landedMs), Type: sim.RecEffect, Node: 0, Fact: sim.FactLeaseWriteLag, B: int64(500 * time.Millisecond)})
		})
	}
	v := verdictOf(t, stale(510, 600), lagging)
	assert.Equal(t, contract.WithinBound, v.Contract, "10 ms bound + 500 ms of write lag")
	assert.Equal(t, 500*time.Millisecond, v.WriteLag)
	assert.Equal(t, contract.Breach, verdictOf(t, stale(511, 600), lagging).Contract, "1 ms past the stretched bound")
	plain := lagging
	plain.Guarantees = []contract.Guarantee{lagging.Guarantees[0]}
	plain.Guarantees[0].WriteLag = false
	assert.Equal(t, contract.Breach, verdictOf(t, stale(510, 600), plain).Contract, "no WriteLag, no stretch")
	other := overlapTrace(510, func(b *trace) {
		b.add(sim.Record{At: at(600), Type: sim.RecEffect, Node: 2, Fact: sim.FactLeaseWriteLag, B: int64(500 * time.Millisecond)})
	})
	assert.Equal(t, contract.Breach, verdictOf(t, other, lagging).Contract, "a node outside the overlap")
}

// The user's expectation is the user's: a finding the contract excuses
// fails a scenario that neither requires nor allows it, saying the
// contract excused it; `breaches: []` (ContractOnly) judges by the
// contract alone; a breach fails both.
func TestExpectFailsOnExcusedFindingsUnlessContractOnly(t *testing.T) {
	recent := overlapTrace(300, func(b *trace) { b.pause(600, 0).resume(800, 0) })
	rep := Run(Input{Records: recent, Candidates: []sim.NodeID{0, 1, 2}, Contract: pauseOnly})
	require.Equal(t, contract.Excused, splitBrainOf(t, rep).Violations[0].Contract)
	ok, problems := rep.Judge(Expect{})
	assert.False(t, ok, "violations: [] means no split brain, excused or not")
	require.NotEmpty(t, problems)
	assert.Contains(t, problems[0], "excused by the algorithm's contract: pause on node0")
	ok, _ = rep.Judge(Expect{Allow: []string{CheckSplitBrain, CheckLeaderLinearizability}})
	assert.True(t, ok)
	ok, problems = rep.Judge(Expect{ContractOnly: true})
	assert.True(t, ok, "%v", problems)

	breach := overlapTrace(300, nil)
	rep = Run(Input{Records: breach, Candidates: []sim.NodeID{0, 1, 2}, Contract: pauseOnly})
	ok, _ = rep.Judge(Expect{ContractOnly: true})
	assert.False(t, ok)
}

// The spans follow the ends of every fault kind from their typed facts.
func TestFaultSpansEndWithTheirFacts(t *testing.T) {
	b := &trace{}
	b.pause(10, 0).resume(20, 0)
	b.crash(30, 1, false).restart(45, 1)
	b.add(sim.Record{At: at(50), Type: sim.RecFault, Node: 2, Fact: sim.FactClockRate})
	b.add(sim.Record{At: at(60), Type: sim.RecFault, Node: 2, Fact: sim.FactClockExact})
	b.add(sim.Record{At: at(70), Type: sim.RecFault, Node: 2, Fact: sim.FactDiskLatency})
	b.add(sim.Record{At: at(75), Type: sim.RecPersist, Node: 2, A: 8, B: int64(at(85))}) // durable after the fault's end
	b.add(sim.Record{At: at(80), Type: sim.RecFault, Node: 2, Fact: sim.FactDiskRestored})
	b.net(90, true, sim.Link{From: 0, To: 1}, sim.Link{From: 1, To: 0})
	b.net(95, false, sim.Link{From: 0, To: 1})
	b.net(99, false, sim.Link{From: 1, To: 0})
	b.add(sim.Record{At: at(100), Type: sim.RecFault, Node: sim.None, Fact: sim.FactLinkLossy})
	b.add(sim.Record{At: at(110), Type: sim.RecFault, Node: sim.None, Fact: sim.FactLinksReset})
	b.add(sim.Record{At: at(120), Type: sim.RecFault, Node: 0, Fact: sim.FactClockStep})
	b.add(sim.Record{At: at(130), Type: sim.RecFault, Node: 0, Fact: sim.FactClockUnstepped})
	b.add(sim.Record{At: at(140), Type: sim.RecFault, Node: 1, Fact: sim.FactClockStep})
	f := newFaultSpans(nil)
	for i := range b.recs {
		if b.recs[i].Type == sim.RecPersist {
			f.persisted(&b.recs[i])
			continue
		}
		f.observe(&b.recs[i])
	}
	type span struct {
		cls        contract.FaultClass
		start, end sim.Time
	}
	var got []span
	for _, s := range f.spans {
		got = append(got, span{s.class, s.start, s.end})
	}
	assert.Equal(t, []span{
		{contract.Pause, at(10), at(20)},
		{contract.Crash, at(30), at(45)},
		{contract.Restart, at(45), at(45)},
		{contract.ClockRate, at(50), at(60)},
		{contract.Disk, at(70), at(85)}, // until the write issued under it is durable
		{contract.Partition, at(90), at(99)},
		{contract.Loss, at(100), at(110)},
		{contract.ClockStep, at(120), at(130)},
		{contract.ClockStep, at(140), sim.Never},
	}, got)
}
