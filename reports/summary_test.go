package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Nearest-rank percentiles (summary.go, Stats): the k-th smallest with
// k = ⌈p/100 · n⌉.
func TestNewStatsNearestRank(t *testing.T) {
	xs := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	st := NewStats(xs)
	assert.Equal(t, Stats{Count: 10, Min: 1, Mean: 5.5, P50: 5, P90: 9, P99: 10, Max: 10}, st)
	assert.Equal(t, Stats{Count: 3, Min: 0, Mean: 0.333, P50: 0, P90: 1, P99: 1, Max: 1}, NewStats([]float64{1, 0, 0}))
	assert.Equal(t, Stats{}, NewStats(nil))
	assert.Equal(t, 0.0, Percentile(nil, 50))
}

// handSummary is a small sweep whose aggregate is worked out by hand in
// TestAggregateExact.
func handSummary() *Summary {
	return &Summary{Schema: Schema, Scenario: ScenarioInfo{Name: "hand"}, Seeds: SeedRange{First: 1, Count: 2},
		Runs: []RunSummary{
			{Seed: 1, Algorithm: "raft", OK: true, Events: 100, LeaderlessMs: 100,
				Failovers: []FailoverSummary{
					{Completed: true, LatencyMs: Ms(200), Elections: 1, Messages: 10},
					{Completed: true, LatencyMs: Ms(400), Elections: 2, Messages: 30},
				},
				Violations: []ViolationSummary{{Kind: "split_brain", Harmless: true}}},
			{Seed: 2, Algorithm: "raft", OK: false, Events: 50, LeaderlessMs: 300,
				Failovers: []FailoverSummary{{Completed: false, Elections: 3, Messages: 50}},
				Violations: []ViolationSummary{{Kind: "double_execution"}, {Kind: "double_execution"},
					{Kind: "split_brain"}, {Kind: "split_brain", Harmless: true}}},
			{Seed: 1, Algorithm: "bully", OK: true, Events: 7, LeaderlessMs: 50,
				Failovers: []FailoverSummary{{Completed: true, LatencyMs: Ms(100), Elections: 1, Messages: 5}}},
		}}
}

// Aggregate (summary.go): violations count runs, not findings; harmless
// counts runs with only harmless findings of a check; per-failover ratios
// include failovers that never completed; latency stats only completed ones.
func TestAggregateExact(t *testing.T) {
	s := handSummary()
	s.Aggregate()
	require.Len(t, s.Algorithms, 2)
	raft, bully := s.Algorithms[0], s.Algorithms[1]
	// The distributions, checked apart: their percentiles by hand.
	assert.Equal(t, []float64{200, 400}, raft.FailoverDist.Sample(10))
	assert.Equal(t, []float64{100, 300}, raft.LeaderlessDist.Sample(10))
	assert.Equal(t, []float64{10, 15, 50.0 / 3}, raft.MessagesPerElectionDist.Sample(10))
	assert.Equal(t, []float64{100}, bully.FailoverDist.Sample(10))
	raft.FailoverDist, raft.LeaderlessDist, raft.MessagesPerElectionDist = Dist{}, Dist{}, Dist{}
	bully.FailoverDist, bully.LeaderlessDist, bully.MessagesPerElectionDist = Dist{}, Dist{}, Dist{}
	two := uint64(2)
	assert.Equal(t, AlgoSummary{Algorithm: "raft", Runs: 2, OK: 1, FirstSeed: 1, FirstFailingSeed: &two,
		Violations: map[string]int{"double_execution": 1, "split_brain": 1}, Harmless: map[string]int{"split_brain": 1},
		ViolationsByVerdict: map[string]VerdictCounts{"double_execution": {NoContract: 1}, "split_brain": {NoContract: 1}},
		Findings: []FindingTally{
			{Kind: "double_execution", Findings: 2, Runs: 1, InFailing: 2},
			{Kind: "split_brain", Findings: 1, Runs: 1, InFailing: 1},
			{Kind: "split_brain", Harmless: true, Findings: 2, Runs: 2, InFailing: 1},
		},
		FailoverMs: Stats{Count: 2, Min: 200, Mean: 300, P50: 200, P90: 400, P99: 400, Max: 400}, FailoversNever: 1, Failovers: 3,
		LeaderlessMs:         Stats{Count: 2, Min: 100, Mean: 200, P50: 100, P90: 300, P99: 300, Max: 300},
		ElectionsPerFailover: 2, MessagesPerFailover: 30, FailoverElections: 6, FailoverMessages: 90, Events: 150,
		SplitBrainRate: 1, DoubleExecutionRate: 0.5, SplitBrainRuns: 2, DoubleExecutionRuns: 1}, raft)
	assert.Equal(t, AlgoSummary{Algorithm: "bully", Runs: 1, OK: 1, FirstSeed: 1,
		Violations: map[string]int{}, Harmless: map[string]int{},
		FailoverMs:           Stats{Count: 1, Min: 100, Mean: 100, P50: 100, P90: 100, P99: 100, Max: 100},
		LeaderlessMs:         Stats{Count: 1, Min: 50, Mean: 50, P50: 50, P90: 50, P99: 50, Max: 50},
		ElectionsPerFailover: 1, MessagesPerFailover: 5, Failovers: 1, FailoverElections: 1, FailoverMessages: 5, Events: 7}, bully)

	// Aggregating again gives the same result (it resets Algorithms).
	before := s.Algorithms[0]
	s.Aggregate()
	assert.Equal(t, before, s.Algorithms[0])
	assert.Len(t, s.Algorithms, 2)
}
