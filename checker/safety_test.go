package checker

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// Raft §5.2 Election Safety: "at most one leader can be elected in a given
// term" — whenever the tenures happen, overlapping or not.
func TestElectionSafetyTwoLeadersSameEpoch(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 3, 3).down(2000, 0, "higher term").
		lead(5000, 1, 3, 3).down(6000, 1, "higher term").end(7000)
	r := Run(input(b))
	c := mustCheck(r, CheckElectionSafety)
	require.Equal(t, StatusViolated, c.Status)
	require.Equal(t, 1, c.Count)
	v := c.Violations[0]
	assert.Equal(t, at(5000), v.At)
	assert.Equal(t, []string{"n1", "n2"}, v.Nodes)
	assert.Equal(t, "epoch 3 had 2 leaders: n1 from t=1.000s, n2 from t=5.000s", v.Details)
	assert.Contains(t, v.Explanation, "t=5.000s n2 acts as leader, epoch 3, token 3")
	assert.Contains(t, v.Explanation, "→ two leaders in epoch 3")
	// They never overlapped: no split-brain.
	assert.Equal(t, StatusOK, mustCheck(r, CheckSplitBrain).Status)
}

func TestElectionSafetyHolds(t *testing.T) {
	// The same node leading one epoch twice (re-announced) is one leader.
	b := (&trace{}).lead(1000, 0, 3, 3).down(2000, 0, "x").lead(2500, 0, 3, 3).
		down(4000, 0, "x").lead(5000, 1, 4, 4).end(7000)
	c := mustCheck(Run(input(b)), CheckElectionSafety)
	assert.Equal(t, StatusOK, c.Status)
	assert.Equal(t, "every epoch had at most one leader (3 tenures)", c.Summary)
}

func TestSplitBrainOverlap(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).lead(3000, 1, 2, 2).down(5000, 0, "saw term 2").end(8000)
	r := Run(input(b))
	c := mustCheck(r, CheckSplitBrain)
	require.Equal(t, StatusViolated, c.Status)
	require.Equal(t, 1, c.Count)
	v := c.Violations[0]
	assert.Equal(t, at(3000), v.At)
	assert.Equal(t, at(5000), v.End)
	assert.Equal(t, 2*time.Second, v.Duration)
	assert.Equal(t, []int64{1, 2}, v.Tokens)
	// Without a resource the checker cannot call it harmless.
	assert.False(t, v.Harmless)
	assert.Equal(t, "harm not assessed: no fenced resource in this run", v.Why)
	assert.Equal(t, "n1 (epoch 1, token 1) and n2 (epoch 2, token 2) both acted as leader from t=3.000s to t=5.000s (2s); harm not assessed: no fenced resource in this run", v.Details)
	assert.Equal(t, "t=1.000s n1 acts as leader, epoch 1, token 1 · t=3.000s n2 acts as leader, epoch 2, token 2 · t=5.000s n1 stopped leading: saw term 2 → split brain, harm not assessed: no fenced resource in this run", v.Explanation)
	assert.False(t, c.OnlyHarmless())
}

func TestSplitBrainUntilTheEnd(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).lead(3000, 2, 2, 2).end(8000)
	v := mustCheck(Run(input(b)), CheckSplitBrain).Violations[0]
	assert.Equal(t, at(8000), v.End)
	assert.Contains(t, v.Details, "(5s, still overlapping at the end)")
}

// Tenures that touch — one ends at the instant the other starts — do not
// overlap, whichever of the two records the trace holds first.
func TestTouchingTenuresAreNotSplitBrain(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *trace
	}{
		{"release first", (&trace{}).lead(1000, 0, 1, 1).down(3000, 0, "resign").lead(3000, 1, 2, 2).end(5000)},
		{"acquire first", (&trace{}).lead(1000, 0, 1, 1).lead(3000, 1, 2, 2).down(3000, 0, "resign").end(5000)},
	} {
		name, b := tc.name, tc.b
		r := Run(input(b))
		assert.Equal(t, StatusOK, mustCheck(r, CheckSplitBrain).Status, name)
		assert.Equal(t, StatusOK, mustCheck(r, CheckLeaderLinearizability).Status, name)
		assert.Equal(t, "Ok", r.Linearizability[0].Result, name)
	}
}

// A paused leader still believes it leads: its tenure goes on through the
// pause, so a new leader elected meanwhile overlaps it.
func TestPausedLeaderOverlaps(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).pause(2000, 0).lead(4000, 1, 2, 2).resume(6000, 0).down(6000, 0, "lease expired").end(8000)
	v := mustCheck(Run(input(b)), CheckSplitBrain).Violations[0]
	assert.Equal(t, at(4000), v.At)
	assert.Equal(t, at(6000), v.End)
	assert.Contains(t, v.Explanation, "t=2.000s n1 paused for 4s")
}

// The leadership history as a lock (docs/checkers.md, "leader_linearizability"): each tenure is two
// operations, an acquire at its start and a release at its end, and then
// overlapping tenures are not linearizable. As one operation per tenure
// spanning [start, end], porcupine may linearize each tenure at any instant
// inside it, so the same overlapping tenures pass — that encoding hides
// split-brain.
func TestLockModelNeedsTwoOperationsPerTenure(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).lead(3000, 1, 2, 2).down(5000, 0, "x").down(8000, 1, "x").end(9000)
	r := Run(input(b))
	require.Equal(t, "Illegal", r.Linearizability[0].Result)
	c := mustCheck(r, CheckLeaderLinearizability)
	require.Equal(t, StatusViolated, c.Status)
	assert.Equal(t, "porcupine linearized 1 of 4 operations; it cannot place n2's acquire (epoch 2, token 2) at t=3.000s while the lock is held by n1", c.Violations[0].Details)

	name := func(id sim.NodeID) string { return threeName[id] }
	tl := &timeline{}
	tl.grow(len(threeName))
	for i := range b.recs {
		tl.end = b.recs[i].At
		tl.add(int64(i), &b.recs[i])
	}
	tl.finish()
	var one []porcupine.Operation
	for _, tn := range tl.tenures {
		one = append(one, porcupine.Operation{ClientId: int(tn.node), Input: lockInput{op: lockHold, node: tn.node, name: name(tn.node)},
			Call: int64(tn.start), Return: int64(tn.end)})
	}
	assert.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(lockModel(name), one, time.Second),
		"one operation per tenure linearizes overlapping tenures")
	assert.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(lockModel(name), leadershipOps(tl, name), time.Second))
}

// A leader that is still leading at the end has no release: the history is
// fine as long as nobody else acquired meanwhile.
func TestLockModelOpenTenure(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).down(2000, 0, "x").lead(2500, 1, 2, 2).end(9000)
	r := Run(input(b))
	assert.Equal(t, StatusOK, mustCheck(r, CheckLeaderLinearizability).Status)
	assert.Equal(t, 3, r.Linearizability[0].Operations)
}

// A crash ends a tenure (the engine records the step-down with why "crash").
func TestCrashEndsTenure(t *testing.T) {
	b := (&trace{}).lead(1000, 0, 1, 1).crash(2000, 0, true).lead(2500, 1, 2, 2).restart(3000, 0).end(9000)
	assert.Equal(t, StatusOK, mustCheck(Run(input(b)), CheckSplitBrain).Status)
}
