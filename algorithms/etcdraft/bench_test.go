package etcdraft_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/electsim/electsim/algorithms/etcdraft"
	"github.com/electsim/electsim/sim"
)

// BenchmarkSimMinute measures one simulated minute of a steady five-member
// group with the defaults (10 ms ticks, heartbeat every tick), no trace sink.
func BenchmarkSimMinute(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ids := []sim.NodeID{0, 1, 2, 3, 4}
		s := sim.New(sim.Config{Seed: uint64(i), Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 10*time.Millisecond)}})
		for j := range ids {
			s.AddNode(fmt.Sprintf("n%d", j+1), etcdraft.MustNew(etcdraft.DefaultConfig(), ids))
		}
		s.RunFor(time.Minute)
		if i == 0 {
			b.ReportMetric(float64(s.Stats().Events), "events/op")
		}
	}
}
