package checker

import (
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
