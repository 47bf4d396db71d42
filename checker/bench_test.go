package checker

import (
	"github.com/electsim/electsim/cron"
	"testing"
	"time"

	"github.com/electsim/electsim/algorithms/raftelect"
	"github.com/electsim/electsim/sim"
)

// BenchmarkRunRaftTenMinutes checks a 10-minute trace of 5 Raft nodes under
// random partitions (about 127,000 records; about 4 ms on the reference machine).
func BenchmarkRunRaftTenMinutes(b *testing.B) {
	s, rec, ids := cluster(1, 5, func(peers []sim.NodeID) sim.Node { return raftelect.MustNew(raftelect.DefaultConfig(), peers) })
	randomPartitions(s, ids, sim.Time(9*time.Minute))
	s.RunUntil(sim.Time(10 * time.Minute))
	s.End()
	in := Input{Records: rec.Records, Names: NamesOf(s), Candidates: ids, SettleStart: sim.Time(9 * time.Minute), SettleBound: 5 * time.Second}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Run(in)
	}
	b.ReportMetric(float64(len(rec.Records)), "records")
}

// monthOfWrites is a resource log shaped like 30 days of long-day.yaml
// (two jobs, every 10 minutes and hourly, two steps per run, the token
// changing every few hours, now and then a deposed leader's stale write
// arriving while the new leader's write is in flight): 10,080 writes.
func monthOfWrites() ([]cron.LogEntry, []sim.Time) {
	var log []cron.LogEntry
	var sent []sim.Time
	const day = int64(24 * time.Hour)
	token := int64(1)
	for slot := int64(0); slot < 30*day; slot += int64(10 * time.Minute) {
		if slot%int64(3*time.Hour) == 0 {
			token++
		}
		jobs := []int{0}
		if slot%int64(time.Hour) == 0 {
			jobs = append(jobs, 1)
		}
		for _, job := range jobs {
			at := slot + int64(time.Duration(job)*time.Second)
			node := sim.NodeID(token % 5)
			for step := 0; step < 2; step++ {
				at += int64(20 * time.Millisecond)
				if step == 1 && slot%int64(7*time.Hour) == 0 {
					// A deposed leader's write, sent before the current one
					// and rejected as stale, overlapping it.
					log = append(log, cron.LogEntry{At: sim.Time(at - 1), Job: []string{"report", "rollup"}[job], JobIndex: job, Slot: slot, FireTime: slot,
						Step: step, Token: token - 1, Node: (node + 1) % 5, Run: slot + 1, Reason: cron.ReasonStale, Against: token})
					sent = append(sent, sim.Time(at-int64(8*time.Millisecond)))
				}
				log = append(log, cron.LogEntry{At: sim.Time(at), Job: []string{"report", "rollup"}[job], JobIndex: job, Slot: slot, FireTime: slot,
					Step: step, Token: token, Node: node, Run: slot, Accepted: true, Reason: cron.ReasonAccepted})
				sent = append(sent, sim.Time(at-int64(5*time.Millisecond)))
			}
		}
	}
	return log, sent
}

// BenchmarkResourceCheckMonth runs the fenced-store linearizability check
// (lean, as a sweep runs it) over a month of cron writes.
func BenchmarkResourceCheckMonth(b *testing.B) {
	log, sent := monthOfWrites()
	c := &checker{in: Input{Resource: log, Policy: cron.Policy{Fencing: true, Idempotency: true}}.withDefaults(), tl: &timeline{}, sentAt: sent}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ch, _ := c.checkLinearizability()
		if ch.Status != StatusOK {
			b.Fatalf("%v: %s", ch.Status, ch.Summary)
		}
	}
	b.ReportMetric(float64(len(log)), "writes")
}
