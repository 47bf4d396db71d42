package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/cron"
	"github.com/electsim/electsim/sim"
)

// writesInput is a trace with two tenures (n1 token 6, then n2 token 7,
// overlapping while n1 is paused) and the given resource log.
func writesInput(policy cron.Policy, log ...cron.LogEntry) Input {
	b := (&trace{}).lead(1000, 0, 6, 6).pause(2000, 0).lead(4000, 1, 7, 7).resume(8000, 0).down(8000, 0, "lease expired").end(20000)
	in := input(b)
	in.Resource = log
	if in.Resource == nil {
		in.Resource = []cron.LogEntry{}
	}
	in.Policy = policy
	in.LeaseStore = []sim.NodeID{3}
	return in
}

// docs/checkers.md, "double_execution": the resource's log is the ground
// truth for what executed — a slot applied from two runs is a double execution.
func TestDoubleExecution(t *testing.T) {
	in := writesInput(cron.Policy{},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, slot0, 0, 6, true, ""))
	r := Run(in)
	c := mustCheck(r, CheckDoubleExecution)
	require.Equal(t, StatusViolated, c.Status)
	require.Equal(t, 1, c.Count)
	v := c.Violations[0]
	assert.Equal(t, at(8010), v.At)
	assert.Equal(t, []string{"n2", "n1"}, v.Nodes)
	assert.Equal(t, "report@2026-01-01T02:00:00Z was applied from 2 runs: n2 run@50ns token 7, n1 run@10ns token 6 (policy none)", v.Details)
	assert.Equal(t, "t=1.000s n1 acts as leader, epoch 6, token 6 · t=2.000s n1 paused for 6s · t=4.000s n2 acts as leader, epoch 7, token 7 · "+
		"t=5.000s n2 wrote report@2026-01-01T02:00:00Z step 0 with token 7; resource accepted it at t=5.000s (policy: none) · "+
		"t=8.000s n1 resumed · t=8.000s n1 stopped leading: lease expired · t=8.010s n1 wrote report@2026-01-01T02:00:00Z step 0 with token 6; resource accepted it at t=8.010s (policy: none) → double execution",
		v.Explanation)
	// The overlap did the damage.
	sb := mustCheck(r, CheckSplitBrain)
	require.Equal(t, 1, sb.Count)
	assert.False(t, sb.Violations[0].Harmless)
	assert.Equal(t, "the resource applied report@2026-01-01T02:00:00Z from both leaders (n1 token 6 and n2 token 7)", sb.Violations[0].Why)
}

func TestNoDoubleExecution(t *testing.T) {
	in := writesInput(cron.Policy{Fencing: true},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(5500, 1, 50, slot0, 1, 7, true, ""),                  // a second step of the same run
		write(6000, 1, 51, slot0+int64(time.Hour), 0, 7, true, ""), // another slot
		write(8010, 0, 10, slot0, 0, 6, false, cron.ReasonStale))
	r := Run(in)
	assert.Equal(t, StatusOK, mustCheck(r, CheckDoubleExecution).Status)
	assert.Equal(t, "no slot applied from two runs (3 writes applied)", mustCheck(r, CheckDoubleExecution).Summary)
	assert.Equal(t, StatusOK, mustCheck(r, CheckStaleWrite).Status)
	// The overlap is reported, and harmless: fencing rejected the stale write.
	sb := mustCheck(r, CheckSplitBrain)
	require.Equal(t, StatusViolated, sb.Status)
	require.True(t, sb.OnlyHarmless())
	assert.Equal(t, "harmless: the resource rejected 1 write(s) (n1 token 6: stale_token; policy: fencing) and applied no slot from both leaders and no stale token", sb.Violations[0].Why)
	assert.Contains(t, sb.Violations[0].Explanation, "n1 wrote report@2026-01-01T02:00:00Z step 0 with token 6; resource rejected it: stale_token at t=8.010s (policy: fencing)")
}

// docs/cron.md, "The fenced resource and its policies": fencing rejects
// tokens lower than the highest seen; a stale write is one the resource
// applied anyway.
func TestStaleWrite(t *testing.T) {
	other := slot0 + int64(time.Hour)
	in := writesInput(cron.Policy{},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, other, 0, 6, true, ""))
	r := Run(in)
	c := mustCheck(r, CheckStaleWrite)
	require.Equal(t, StatusViolated, c.Status)
	assert.Equal(t, "the resource applied n1's write of report@2026-01-01T03:00:00Z with token 6 at t=8.010s after applying token 7 from n2 at t=5.000s (fencing scope job, policy none)", c.Violations[0].Details)
	assert.Equal(t, StatusOK, mustCheck(r, CheckDoubleExecution).Status)
	assert.Contains(t, mustCheck(r, CheckSplitBrain).Violations[0].Why, "the resource applied n1's token 6 after n2's token 7")
}

// Tokens are compared within the fencing scope: per job by default, across
// jobs when the scope is global.
func TestStaleWriteScope(t *testing.T) {
	a := write(5000, 1, 50, slot0, 0, 7, true, "")
	b := write(8010, 0, 10, slot0, 0, 6, true, "")
	b.Job, b.JobIndex = "other", 1
	r := Run(writesInput(cron.Policy{}, a, b))
	assert.Equal(t, StatusOK, mustCheck(r, CheckStaleWrite).Status)
	r = Run(writesInput(cron.Policy{FencingScope: "global"}, a, b))
	assert.Equal(t, StatusViolated, mustCheck(r, CheckStaleWrite).Status)
	assert.Contains(t, mustCheck(r, CheckStaleWrite).Summary, "1 write(s)")
}

func TestWriteChecksSkippedWithoutResource(t *testing.T) {
	in := writesInput(cron.Policy{})
	in.Resource = nil
	r := Run(in)
	for _, name := range []string{CheckDoubleExecution, CheckStaleWrite, CheckLinearizability, CheckMissedSlots} {
		c := mustCheck(r, name)
		assert.Equal(t, StatusSkipped, c.Status, name)
	}
	assert.Equal(t, "no fenced resource in this run", mustCheck(r, CheckDoubleExecution).Summary)
}

// A resource that received no write has a nil log; the job table says the
// run had one, so the checks run (and pass) instead of being skipped.
func TestResourceWithoutWrites(t *testing.T) {
	in := writesInput(cron.Policy{})
	in.Resource, in.Jobs = nil, job("0 2 * * *")
	r := Run(in)
	assert.Equal(t, StatusOK, mustCheck(r, CheckDoubleExecution).Status)
	assert.Equal(t, StatusOK, mustCheck(r, CheckLinearizability).Status)
	assert.True(t, mustCheck(r, CheckSplitBrain).OnlyHarmless())
}

// docs/checkers.md, "split_brain": an overlap is harmful when the resource
// applied one tenure's token after the other's higher token. A third
// leader's even higher token, applied first, does not hide that damage: the
// stale write's prior (the highest token) is n3's, yet n1's token 6 still
// landed after n2's token 7. Found by TestCheckerAgreesWithOracle.
func TestSplitBrainHarmBehindAHigherToken(t *testing.T) {
	other := slot0 + int64(time.Hour)
	in := writesInput(cron.Policy{},
		write(3000, 2, 90, other, 0, 9, true, ""),
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, slot0+2*int64(time.Hour), 0, 6, true, ""))
	r := Run(in)
	assert.Equal(t, 2, mustCheck(r, CheckStaleWrite).Count)
	sb := mustCheck(r, CheckSplitBrain)
	require.Equal(t, 1, sb.Count)
	assert.False(t, sb.Violations[0].Harmless)
	assert.Equal(t, "the resource applied n1's token 6 after n2's token 7", sb.Violations[0].Why)
}
