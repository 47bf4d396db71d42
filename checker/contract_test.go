package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/contract"
	"github.com/electsim/electsim/sim"
)

// overlapTrace: n0 leads epoch 1 from t=0; n1 leads epoch 2 from t=1000 while
// n0 still acts, until n0 steps down at t=1000+overlapMs. n2 is a third
// candidate that is never a leader.
func overlapTrace(overlapMs int64, before func(b *trace)) []sim.Record {
	b := &trace{}
	b.lead(0, 0, 1, 1)
	if before != nil {
		before(b)
	}
	b.lead(1000, 1, 2, 2)
	b.down(1000+overlapMs, 0, "lost lease")
	return b.recs
}

// judgeContract judges recs under c and e. A guarantee that states no
// Aftermath gets one second: these traces' faults end within a second of
// the findings they are meant to excuse.
func judgeContract(t *testing.T, recs []sim.Record, c contract.Contract, e Expect, standing ...StandingFault) (Report, bool, []string) {
	t.Helper()
	c = c.WithAftermath(time.Second)
	rep := Run(Input{Records: recs, Candidates: []sim.NodeID{0, 1, 2}, Contract: c, Standing: standing})
	ok, problems := rep.Judge(e)
	return rep, ok, problems
}

// judgeWithStore judges recs under c with node store as the candidates'
// lease store (Input.LeaseStore), a second of Aftermath as judgeContract.
func judgeWithStore(t *testing.T, recs []sim.Record, c contract.Contract, store sim.NodeID) Report {
	t.Helper()
	return Run(Input{Records: recs, Candidates: []sim.NodeID{0, 1, 2}, Contract: c.WithAftermath(time.Second), LeaseStore: []sim.NodeID{store}})
}

func splitBrainOf(t *testing.T, rep Report) Check {
	t.Helper()
	ch, found := rep.Check(CheckSplitBrain)
	require.True(t, found)
	require.Equal(t, StatusViolated, ch.Status)
	require.NotEmpty(t, ch.Violations)
	return ch
}

// Must refute: allow never hides a finding the contract covers and no
// exception excuses.
func TestContractBreachFailsWhateverExpectAllows(t *testing.T) {
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Pause}}}}
	rep, ok, problems := judgeContract(t, overlapTrace(300, nil), c, Expect{Allow: []string{CheckSplitBrain}})
	ch := splitBrainOf(t, rep)
	assert.Equal(t, contract.Breach, ch.Violations[0].Contract)
	assert.Equal(t, 1, ch.Breaches)
	assert.Equal(t, 2, rep.Breaches, "the overlap, and the lock operation it breaks (leader_linearizability shares its verdict)")
	assert.False(t, ok, "a breach must fail the run though split_brain is allowed")
	require.NotEmpty(t, problems)
	assert.Contains(t, problems[0], "break the algorithm's contract")

	// Without a contract the same run passes under allow: the old meaning.
	_, ok, _ = judgeContract(t, overlapTrace(300, nil), contract.Contract{}, Expect{Allow: []string{CheckSplitBrain, CheckLeaderLinearizability}})
	assert.True(t, ok)
}

func TestContractExcusesAFaultOnAnInvolvedNode(t *testing.T) {
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Pause}}}}
	rep, ok, problems := judgeContract(t, overlapTrace(300, func(b *trace) { b.pause(500, 0).resume(900, 0) }), c, Expect{ContractOnly: true})
	ch := splitBrainOf(t, rep)
	v := ch.Violations[0]
	assert.Equal(t, contract.Excused, v.Contract)
	assert.Equal(t, contract.Pause, v.ExcusedBy)
	assert.Equal(t, "node0", v.ExcusedNode)
	assert.Equal(t, at(500), v.ExcusedAt)
	assert.True(t, ok, "an excused finding is reported, not failed: %v", problems)
	assert.Equal(t, 0, rep.Breaches)
}

// Must refute: a per-node fault on a candidate the finding does not involve
// excuses nothing, and a fault that came after the finding ended excuses
// nothing.
func TestContractExceptionMustReachTheFinding(t *testing.T) {
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Pause, contract.ClockRate}}}}
	rep, ok, _ := judgeContract(t, overlapTrace(300, func(b *trace) { b.pause(500, 2).resume(900, 2) }), c, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "n2 is not in the overlap")
	assert.False(t, ok)

	late := overlapTrace(300, nil)
	late = append(late, sim.Record{At: at(2000), Type: sim.RecPause, Node: 0, Peer: sim.None})
	rep, ok, _ = judgeContract(t, late, c, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "a pause after the overlap ended excuses nothing")
	assert.False(t, ok)

	// A clock fault is read from its typed fact, never its text.
	named := overlapTrace(300, func(b *trace) { b.fault(500, "clock.rate", "node0 clock rate 1.5", 0) })
	rep, _, _ = judgeContract(t, named, c, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "a fault without its fact is no clock fault")
	typed := overlapTrace(300, func(b *trace) {
		b.add(sim.Record{At: at(500), Type: sim.RecFault, Node: 0, Fact: sim.FactClockRate})
	})
	rep, ok, _ = judgeContract(t, typed, c, Expect{ContractOnly: true})
	assert.Equal(t, contract.Excused, splitBrainOf(t, rep).Violations[0].Contract)
	assert.True(t, ok)
}

func TestContractNetworkAndServiceFaultsReachEveryFinding(t *testing.T) {
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Partition, contract.Crash}}}}
	cut := overlapTrace(300, func(b *trace) {
		b.add(sim.Record{At: at(400), Type: sim.RecDeliver, Node: 1, Peer: 2}) // n2 and n1 talk: the link is used
		b.net(500, true, sim.Link{From: 2, To: 1})
	})
	rep, ok, _ := judgeContract(t, cut, c, Expect{ContractOnly: true})
	assert.Equal(t, contract.Excused, splitBrainOf(t, rep).Violations[0].Contract)
	assert.True(t, ok)

	// A crash of the lease store the candidates depend on (node 3) reaches
	// their findings; a crash of another service (the fenced resource) or
	// of an uninvolved candidate does not.
	svc := overlapTrace(300, func(b *trace) { b.add(sim.Record{At: at(500), Type: sim.RecCrash, Node: 3}) })
	rep = judgeWithStore(t, svc, c, 3)
	assert.Equal(t, contract.Excused, splitBrainOf(t, rep).Violations[0].Contract)
	rep, _, _ = judgeContract(t, svc, c, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "node 3 is no service the election depends on")
	cand := overlapTrace(300, func(b *trace) { b.crash(500, 2, false) })
	rep, _, _ = judgeContract(t, cand, c, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract)

	// A standing fault (a lossy network from the start) reaches a finding
	// whose nodes it lost a message of in the window, and no other.
	lossy := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Loss}}}}
	lost := overlapTrace(300, func(b *trace) {
		b.add(sim.Record{At: at(1100), Type: sim.RecDrop, Reason: sim.DropLoss, Node: 1, Peer: 2})
	})
	rep, ok, _ = judgeContract(t, lost, lossy, Expect{ContractOnly: true}, StandingFault{Class: contract.Loss, Node: sim.None})
	assert.Equal(t, contract.Excused, splitBrainOf(t, rep).Violations[0].Contract)
	assert.True(t, ok)
	rep, _, _ = judgeContract(t, overlapTrace(300, nil), lossy, Expect{ContractOnly: true}, StandingFault{Class: contract.Loss, Node: sim.None})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "the lossy network lost nothing of n0's or n1's")
}

// A lease service's failover that lost acknowledged writes (FactLeaseReverted)
// is the service's data loss: it reaches every finding as disk_loss; a
// guarantee that does not name disk_loss still breaks.
func TestContractLossyFailoverIsDiskLoss(t *testing.T) {
	lossy := overlapTrace(300, func(b *trace) {
		b.add(sim.Record{At: at(500), Type: sim.RecEffect, Node: 3, Fact: sim.FactLeaseReverted})
	})
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.DiskLoss}}}}
	rep := judgeWithStore(t, lossy, c, 3)
	v := splitBrainOf(t, rep).Violations[0]
	assert.Equal(t, contract.Excused, v.Contract)
	assert.Equal(t, contract.DiskLoss, v.ExcusedBy)
	ok, _ := rep.Judge(Expect{ContractOnly: true})
	assert.True(t, ok)
	c.Guarantees[0].Unless = []contract.FaultClass{contract.Pause}
	rep = judgeWithStore(t, lossy, c, 3)
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract)
}

func TestContractOverlapBound(t *testing.T) {
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, MaxOverlap: 300 * time.Millisecond}}}
	rep, ok, _ := judgeContract(t, overlapTrace(300, nil), c, Expect{ContractOnly: true})
	assert.Equal(t, contract.WithinBound, splitBrainOf(t, rep).Violations[0].Contract)
	assert.True(t, ok)
	rep, ok, _ = judgeContract(t, overlapTrace(301, nil), c, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "1 ms past the bound breaks it")
	assert.False(t, ok)
}

// The contract judges only the checks it covers: election_safety's finding
// in a contract that covers split_brain alone stays with expect.
func TestContractLeavesUncoveredChecksToExpect(t *testing.T) {
	c := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, MaxOverlap: time.Second}}}
	b := &trace{}
	b.lead(0, 0, 1, 1).down(100, 0, "x").lead(200, 1, 1, 2)
	rep, ok, _ := judgeContract(t, b.recs, c, Expect{})
	es, _ := rep.Check(CheckElectionSafety)
	require.Equal(t, StatusViolated, es.Status)
	assert.Equal(t, contract.Uncovered, es.Violations[0].Contract)
	assert.Equal(t, 0, es.Breaches)
	assert.False(t, ok, "not allowed, so it fails as before")
	_, ok, _ = judgeContract(t, b.recs, c, Expect{Allow: []string{CheckElectionSafety}})
	assert.True(t, ok)
}

func TestContractMergeKeepsTheWeakerPromise(t *testing.T) {
	a := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Pause}, MaxOverlap: time.Second}}}
	b := contract.Contract{Guarantees: []contract.Guarantee{
		{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.ClockRate, contract.Pause}, MaxOverlap: 2 * time.Second},
		{Check: CheckStaleWrite},
	}}
	m := a.Merge(b)
	g, ok := m.For(CheckSplitBrain)
	require.True(t, ok)
	assert.Equal(t, []contract.FaultClass{contract.Pause, contract.ClockRate}, g.Unless)
	assert.Equal(t, 2*time.Second, g.MaxOverlap)
	_, ok = m.For(CheckStaleWrite)
	assert.True(t, ok)
	assert.Len(t, a.Guarantees[0].Unless, 1, "Merge must not change its receiver")
}

// A per-node class the guarantee lists in Anywhere reaches every finding (a
// voter that lost its disk breaks a promise about two other nodes); the same
// class without Anywhere reaches only the nodes involved.
func TestContractAnywhereReachesEveryFinding(t *testing.T) {
	wiped := overlapTrace(300, func(b *trace) {
		b.add(sim.Record{At: at(500), Type: sim.RecStart, Node: 2, Fact: sim.FactDiskLost})
	})
	local := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.DiskLoss}}}}
	rep, ok, _ := judgeContract(t, wiped, local, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract, "n2 is not in the overlap")
	assert.False(t, ok)

	anywhere := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain,
		Unless: []contract.FaultClass{contract.DiskLoss}, Anywhere: []contract.FaultClass{contract.DiskLoss}}}}
	rep, ok, _ = judgeContract(t, wiped, anywhere, Expect{ContractOnly: true})
	v := splitBrainOf(t, rep).Violations[0]
	assert.Equal(t, contract.Excused, v.Contract)
	assert.Equal(t, contract.DiskLoss, v.ExcusedBy)
	assert.Equal(t, "node2", v.ExcusedNode)
	assert.True(t, ok)

	// Anywhere without the class in Unless excuses nothing.
	stray := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Anywhere: []contract.FaultClass{contract.DiskLoss}}}}
	rep, _, _ = judgeContract(t, wiped, stray, Expect{})
	assert.Equal(t, contract.Breach, splitBrainOf(t, rep).Violations[0].Contract)
}

// A lossy network excuses only a contract that names loss; a latency
// change only one that names link; a change of both, either.
func TestContractLossAndLatencyAreApart(t *testing.T) {
	linkOnly := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Link}}}}
	lossOnly := contract.Contract{Guarantees: []contract.Guarantee{{Check: CheckSplitBrain, Unless: []contract.FaultClass{contract.Loss}}}}
	fault := func(f sim.Fact) []sim.Record {
		return overlapTrace(300, func(b *trace) {
			b.add(sim.Record{At: at(500), Type: sim.RecFault, Node: sim.None, Fact: f})
			b.add(sim.Record{At: at(1100), Type: sim.RecDrop, Reason: sim.DropLoss, Node: 0, Peer: 2}) // the lossy link lost one of n0's messages during the overlap
		})
	}
	for _, tc := range []struct {
		fact       sim.Fact
		link, loss contract.Verdict
	}{
		{sim.FactLinkChanged, contract.Excused, contract.Breach},
		{sim.FactLinkLossy, contract.Breach, contract.Excused},
		{sim.FactLinkLossyChanged, contract.Excused, contract.Excused},
	} {
		rep, _, _ := judgeContract(t, fault(tc.fact), linkOnly, Expect{})
		assert.Equal(t, tc.link, splitBrainOf(t, rep).Violations[0].Contract, "%v under Unless link", tc.fact)
		rep, _, _ = judgeContract(t, fault(tc.fact), lossOnly, Expect{})
		assert.Equal(t, tc.loss, splitBrainOf(t, rep).Violations[0].Contract, "%v under Unless loss", tc.fact)
	}
}
