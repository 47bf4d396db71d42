package reports

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// partialPair is two shards of a 4-seed sweep, the second cut short.
func partialPair() (a, b *Summary) {
	cfg := &Config{ScenarioSHA256: "x", Algorithms: []string{"raft"}}
	run := func(seed uint64) RunSummary { return RunSummary{Algorithm: "raft", Seed: seed, OK: true} }
	a = &Summary{Schema: Schema, Config: cfg, Seeds: SeedRange{First: 1, Count: 4}, Shard: &Shard{Index: 0, Count: 2},
		Runs: []RunSummary{run(1), run(3)}}
	b = &Summary{Schema: Schema, Config: cfg, Seeds: SeedRange{First: 1, Count: 4}, Shard: &Shard{Index: 1, Count: 2},
		Runs: []RunSummary{run(4)}, Partial: &Partial{Reason: "interrupt", RunsDone: 1, RunsPlanned: 2}}
	a.Aggregate()
	b.Aggregate()
	return a, b
}

// Bucket counts that wrap int64 back to the count are refused (they read
// as a distribution whose mean lies below its minimum).
func TestDistRefusesWrappingBuckets(t *testing.T) {
	bad := `{"count": 2, "min": 1, "max": 2, "sum_e6": "3000000", "buckets": [[0, 4611686018427387904], [1, 4611686018427387904], [2, 4611686018427387904], [3, 4611686018427387906]]}`
	var d Dist
	assert.ErrorContains(t, json.Unmarshal([]byte(bad), &d), "overflows")
	// A sum that puts the mean outside [min, max] is refused too.
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"count": 2, "min": 1, "max": 2, "sum_e6": "1000", "exact": [1, 2]}`), &d), "mean outside")
	require.NoError(t, json.Unmarshal([]byte(`{"count": 2, "min": 1, "max": 2, "sum_e6": "3000000", "exact": [1, 2]}`), &d))
}

// Counts whose sum over the parts passes int64 are refused, not wrapped.
func TestMergeRefusesOverflowingCounts(t *testing.T) {
	a, b := partialPair()
	a.Algorithms[0].FailoverMessages, b.Algorithms[0].FailoverMessages = math.MaxInt, 1
	_, err := Merge([]*Summary{a, b})
	assert.ErrorContains(t, err, "overflows")

	a, b = partialPair()
	a.Algorithms[0].FailoverDist.n, b.Algorithms[0].FailoverDist.n = math.MaxInt64, 1
	_, err = Merge([]*Summary{a, b})
	assert.ErrorContains(t, err, "overflows")

	a, b = partialPair()
	a.Algorithms[0].Events, b.Algorithms[0].Events = math.MaxUint64, 1
	_, err = Merge([]*Summary{a, b})
	assert.ErrorContains(t, err, "overflow")
}

// A partial record its own counts deny (runs_done beyond runs_planned, or
// other than the runs the part aggregates) is refused.
func TestMergeRefusesForgedPartial(t *testing.T) {
	for _, p := range []Partial{{RunsDone: 5, RunsPlanned: 2}, {RunsDone: 1, RunsPlanned: 0}, {RunsDone: 2, RunsPlanned: 9}, {RunsDone: 1, RunsPlanned: math.MaxInt}} {
		a, b := partialPair()
		a.Partial = &Partial{Reason: "interrupt", RunsDone: 2, RunsPlanned: math.MaxInt}
		p.Reason = "interrupt"
		b.Partial = &p
		_, err := Merge([]*Summary{a, b})
		assert.Error(t, err, "%+v", p)
	}
	a, b := partialPair()
	m, err := Merge([]*Summary{a, b})
	require.NoError(t, err)
	assert.Equal(t, Partial{Reason: "interrupt", RunsDone: 3, RunsPlanned: 4}, *m.Partial)
}
