package scenario

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// doubleExecution is a lease scenario built to produce many double
// executions: two unfenced jobs every second and random pauses of the
// holder longer than its TTL.
func doubleExecution(tb testing.TB, d time.Duration) *Scenario {
	src := fmt.Sprintf(`name: dx
duration: %s
start: 2026-11-21T00:00:00Z
cluster: {nodes: 3}
algorithm: {name: lease, flavor: ttl, ttl: 5s}
cron:
  jobs: [{name: a, schedule: "@every 1s", duration: 200ms..800ms}, {name: b, schedule: "@every 1s", duration: 200ms..800ms}]
  policy: [none]
faults:
  - random: {kinds: [pause], every: 10s..30s, for: 6s..12s, targets: [leader]}
settle: {for: 30s, leader_within: 15s}
expect:
  violations: [double_execution]
  allow: [split_brain, stale_write, linearizability, leader_linearizability, missed_slots]
`, d)
	sc, err := Parse("dx.yaml", []byte(src))
	require.NoError(tb, err)
	return sc
}

// BenchmarkDoubleExecutionChecking runs and checks the double-execution
// scenario at 10, 20 and 40 simulated minutes, with the story kept (so every
// listed violation is explained, as for simrun's featured run). Checking is
// linear in the records: ns/op doubles with the length, and the checker's
// share (check-ms) stays a small fraction of the run. Before, explaining
// each double execution rescanned the trace from its start (40 minutes took
// 75 s per run).
func BenchmarkDoubleExecutionChecking(b *testing.B) {
	for _, m := range []int{10, 20, 40} {
		b.Run(fmt.Sprintf("minutes=%d", m), func(b *testing.B) {
			sc := doubleExecution(b, time.Duration(m)*time.Minute)
			var checkDur time.Duration
			var found int
			for i := 0; i < b.N; i++ {
				r, err := sc.Build(RunOptions{Seed: uint64(i + 1), Story: true})
				require.NoError(b, err)
				r.Outcome = r.Sim.RunUntil(sim.Time(sc.Duration))
				r.SettleStart = r.Sim.Now()
				r.Injector.Settle(r.Sim.Now())
				r.Outcome = r.Sim.RunFor(sc.Settle.For)
				r.Sim.End()
				start := time.Now()
				r.check()
				checkDur += time.Since(start)
				c, _ := r.Report.Check("double_execution")
				found += c.Count
			}
			b.ReportMetric(float64(checkDur.Milliseconds())/float64(b.N), "check-ms/op")
			b.ReportMetric(float64(found)/float64(b.N), "double-executions/op")
		})
	}
}
