package sim_test

import (
	"testing"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/sim"
)

// BenchmarkSimHour runs one simulated hour per op of a 5-node Raft-like vote
// protocol (election timeout 150–300 ms, heartbeats every 50 ms, latency
// uniform 1–10 ms, 2% drop) with a random node crashed or restarted every
// 0.5–2 s, at most 2 down.
func BenchmarkSimHour(b *testing.B) { benchHour(b, false) }

// BenchmarkSimSteadyState measures allocations per event once a run is warm:
// allocs/op here is per simulated minute and must be zero.
func BenchmarkSimSteadyState(b *testing.B) {
	s, ids := newVoteCluster(1, 5)
	newCrashDriver(s, ids, 2)
	s.RunUntil(sim.Time(10 * time.Minute))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.RunFor(time.Minute)
	}
}

// BenchmarkSimHourChecked is BenchmarkSimHour with the streaming checker
// subscribed (a sim.LeanSink): the difference is what judging a run costs.
func BenchmarkSimHourChecked(b *testing.B) { benchHour(b, true) }

// benchHour runs one simulated hour per op of the vote cluster under the
// crash driver, with or without the streaming checker.
func benchHour(b *testing.B, checked bool) {
	b.ReportAllocs()
	var events uint64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		s, ids := newVoteCluster(uint64(i), 5)
		var k *checker.Checker
		if checked {
			k = checker.New(checker.Input{Names: checker.NamesOf(s), Candidates: ids})
			s.AddSink(k)
		}
		newCrashDriver(s, ids, 2)
		s.RunUntil(sim.Time(time.Hour))
		if checked {
			s.End()
			k.Finish(nil)
		}
		events += s.Stats().Events
	}
	wall := time.Since(start)
	b.ReportMetric(float64(b.N)*3600/wall.Seconds(), "simsec/wallsec")
	b.ReportMetric(float64(wall.Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
