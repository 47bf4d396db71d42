package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/electsim/electsim/cron"
)

// The expectations: a must_occur list makes a run a demonstration;
// by default every safety property must hold; harmless belief-level
// findings are reported without failing unless asked.
func TestJudge(t *testing.T) {
	harmful := Run(writesInput(cron.Policy{},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, slot0, 0, 6, true, "")))
	harmless := Run(writesInput(cron.Policy{Fencing: true},
		write(5000, 1, 50, slot0, 0, 7, true, ""),
		write(8010, 0, 10, slot0, 0, 6, false, cron.ReasonStale)))

	ok, problems := harmful.Judge(Expect{})
	assert.False(t, ok)
	assert.Equal(t, []string{
		"split_brain violated: 1 overlap(s) of two acting leaders, 1 harmful; first: n1 (epoch 6, token 6) and n2 (epoch 7, token 7) both acted as leader from t=4.000s to t=8.000s (4s); the resource applied report@2026-01-01T02:00:00Z from both leaders (n1 token 6 and n2 token 7)",
		"double_execution violated: 1 slot(s) applied from more than one run; first: report@2026-01-01T02:00:00Z was applied from 2 runs: n2 run@50ns token 7, n1 run@10ns token 6 (policy none)",
		"stale_write violated: 1 write(s) applied with a stale token; first: the resource applied n1's write of report@2026-01-01T02:00:00Z with token 6 at t=8.010s after applying token 7 from n2 at t=5.000s (fencing scope job, policy none)",
		"linearizability violated: porcupine: the resource history (2 writes, 1 partitions by slot) is not linearizable as a fenced store; first: partition report@2026-01-01T02:00:00Z: porcupine linearized 1 of 2 writes; it cannot place n1 run@10ns report@2026-01-01T02:00:00Z step 0 token 6 → applied, because a higher token (7) was already applied — the same slot double_execution reports: writes of two runs of it were applied, and the fenced-store model admits one run's writes per slot",
		"leader_linearizability violated: porcupine: the leadership history (3 operations) is not linearizable as a lock; first: porcupine linearized 1 of 3 operations; it cannot place n2's acquire (epoch 7, token 7) at t=4.000s while the lock is held by n1",
	}, problems)

	demo := Expect{MustOccur: []string{CheckDoubleExecution, CheckStaleWrite, CheckLinearizability, CheckSplitBrain, CheckLeaderLinearizability}}
	ok, problems = harmful.Judge(demo)
	assert.True(t, ok, problems)

	// The same demonstration against the fenced run fails: nothing happened.
	ok, problems = harmless.Judge(demo)
	assert.False(t, ok)
	assert.Equal(t, []string{
		"double_execution was expected to occur but did not (ok: no slot applied from two runs (1 writes applied))",
		"stale_write was expected to occur but did not (ok: no applied token was lower than one applied before (fencing scope job))",
		"linearizability was expected to occur but did not (ok: porcupine: the resource history (2 writes, 1 partitions by fencing scope) is linearizable as a fenced store)",
	}, problems)

	ok, problems = harmless.Judge(Expect{})
	assert.True(t, ok, problems)
	ok, problems = harmless.Judge(Expect{FailOnHarmless: true})
	assert.False(t, ok)
	assert.Len(t, problems, 2) // split_brain and leader_linearizability
	ok, _ = harmless.Judge(Expect{FailOnHarmless: true, Allow: []string{CheckSplitBrain, CheckLeaderLinearizability}})
	assert.True(t, ok)

	ok, problems = harmless.Judge(Expect{MustOccur: []string{"split-brain"}})
	assert.False(t, ok)
	assert.Contains(t, problems[0], `expect names unknown check "split-brain"`)
}

func TestJudgeFailoverBounds(t *testing.T) {
	r := Run(input(raftLike())) // one failover: detection 200ms, latency 310ms
	ok, problems := r.Judge(Expect{FailoverUnder: 2 * time.Second, DetectUnder: time.Second})
	assert.True(t, ok, problems)
	ok, problems = r.Judge(Expect{FailoverUnder: 300 * time.Millisecond, DetectUnder: 200 * time.Millisecond})
	assert.False(t, ok)
	assert.Equal(t, []string{
		"failover after t=5.000s (n1 crashed) took 310ms, not under 300ms",
		"failover after t=5.000s (n1 crashed): detection 200ms, not under 200ms",
	}, problems)
	ok, problems = r.Judge(Expect{FencedRunUnder: time.Second})
	assert.False(t, ok)
	assert.Equal(t, []string{"failover after t=5.000s (n1 crashed): no fenced run followed (want one under 1s)"}, problems)
}
