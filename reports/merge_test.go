package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shard splits all (every run, not aggregated) the way simrun -shard i/n
// does (seeds whose offset from First is ≡ i mod n), with timing as a
// sharded run would have.
func shard(full *Summary, i, n int) *Summary {
	s := &Summary{Schema: full.Schema, Scenario: full.Scenario, GoVersion: full.GoVersion, Seeds: full.Seeds,
		Shard: &Shard{Index: i, Count: n}, Timing: &Timing{WallSeconds: 1, Workers: 2}}
	for _, r := range full.Runs {
		if int(r.Seed-full.Seeds.First)%n == i {
			s.Runs = append(s.Runs, r)
		}
	}
	s.Aggregate()
	return s
}

// Merging the shards of a sweep, in any order, gives the unsharded summary.
func TestMergeShardsEqualsUnsharded(t *testing.T) {
	all := synthAll(5, 700, "raft", "bully", "ring")
	s0, s1, s2 := shard(all, 0, 3), shard(all, 1, 3), shard(all, 2, 3)
	full := synthSummary(5, 700, "raft", "bully", "ring")
	require.NotEqual(t, full.Algorithms, s0.Algorithms)
	require.False(t, full.Algorithms[0].FailoverDist.Exact(), "enough failovers to bucket")
	require.True(t, s0.Algorithms[0].FailoverDist.Exact(), "a shard's alone are few enough to keep")
	require.Equal(t, KeptNotable, full.RunsKept)
	require.NotEmpty(t, full.Runs)
	require.LessOrEqual(t, len(full.Runs), MaxKeptRuns)

	// Small shards keep every run; merged, the notable ones.
	small := synthAll(5, 150, "raft")
	got, err := Merge([]*Summary{shard(small, 0, 2), shard(small, 1, 2)})
	require.NoError(t, err)
	assert.Equal(t, synthSummary(5, 150, "raft"), got)
	assert.Equal(t, KeptAll, got.RunsKept)

	got, err = Merge([]*Summary{s0, s1, s2})
	require.NoError(t, err)
	assert.Equal(t, full, got)

	got, err = Merge([]*Summary{s2, s0, s1})
	require.NoError(t, err)
	assert.Equal(t, full, got)

	got, err = Merge([]*Summary{full})
	require.NoError(t, err)
	assert.Equal(t, full, got)
}

func TestMergeRejects(t *testing.T) {
	full := synthAll(1, 20, "raft", "bully")
	s0, s1 := shard(full, 0, 2), shard(full, 1, 2)

	_, err := Merge(nil)
	assert.ErrorContains(t, err, "no summaries")

	_, err = Merge([]*Summary{s0, s0})
	assert.ErrorContains(t, err, "both shard 0 of 2")

	overlap := shard(full, 0, 2)
	overlap.Shard = &Shard{Index: 1, Count: 2}
	_, err = Merge([]*Summary{s0, overlap})
	assert.ErrorContains(t, err, "seed 1 under raft is in summaries 0 and 1")

	_, err = Merge([]*Summary{s0})
	assert.ErrorContains(t, err, "shard 1 of 2 is missing (seeds 2, 4, … are not covered)")

	other := shard(full, 1, 2)
	other.Scenario.Name = "partition"
	_, err = Merge([]*Summary{s0, other})
	assert.ErrorContains(t, err, `summary 1 is of scenario "partition"`)

	old := shard(full, 1, 2)
	old.Schema = "electsim.summary/v0"
	_, err = Merge([]*Summary{s0, old})
	assert.ErrorContains(t, err, `schema "electsim.summary/v0"`)

	split := shard(full, 1, 3)
	_, err = Merge([]*Summary{s0, split})
	assert.ErrorContains(t, err, "shard 1 of 3, another of 2")

	// One algorithm short of a seed: its aggregate, or the runs it keeps,
	// disagree with the shard's range.
	short := shard(full, 1, 2)
	short.Runs = short.Runs[:len(short.Runs)-1]
	_, err = Merge([]*Summary{s0, short})
	assert.ErrorContains(t, err, "summary 1 keeps 9 runs of bully, which ran 10")
	short.Aggregate()
	_, err = Merge([]*Summary{s0, short})
	assert.ErrorContains(t, err, "summary 1: bully ran 9 seeds, its seed range holds 10")

	// Unsharded summaries of contiguous ranges merge; a gap or an overlap
	// is refused.
	lo, hi := synthSummary(1, 10, "raft"), synthSummary(11, 5, "raft")
	m, err := Merge([]*Summary{hi, lo})
	require.NoError(t, err)
	assert.Equal(t, SeedRange{First: 1, Count: 15}, m.Seeds)
	assert.Equal(t, synthSummary(1, 15, "raft").Algorithms, m.Algorithms)
	_, err = Merge([]*Summary{lo, synthSummary(12, 5, "raft")})
	assert.ErrorContains(t, err, "seeds 11 to 11 are missing")
	_, err = Merge([]*Summary{lo, synthSummary(10, 5, "raft")})
	assert.ErrorContains(t, err, "seed 10 is in two summaries")

	_, err = Merge([]*Summary{s0, s1})
	assert.NoError(t, err)
}

// TestMergePartial: a shard cut short by a signal merges into a summary
// marked partial (its gap is reported, not refused), counting the runs
// done and planned over every part.
func TestMergePartial(t *testing.T) {
	cfg := &Config{ScenarioSHA256: "x", Algorithms: []string{"raft"}}
	run := func(seed uint64) RunSummary { return RunSummary{Algorithm: "raft", Seed: seed, OK: true} }
	a := &Summary{Schema: Schema, Config: cfg, Seeds: SeedRange{First: 1, Count: 4}, Shard: &Shard{Index: 0, Count: 2},
		Runs: []RunSummary{run(1), run(3)}}
	b := &Summary{Schema: Schema, Config: cfg, Seeds: SeedRange{First: 1, Count: 4}, Shard: &Shard{Index: 1, Count: 2},
		Runs: []RunSummary{run(4)}, Partial: &Partial{Reason: "interrupt", RunsDone: 1, RunsPlanned: 2}}
	a.Aggregate()
	b.Aggregate()
	m, err := Merge([]*Summary{a, b})
	require.NoError(t, err)
	require.NotNil(t, m.Partial)
	assert.Equal(t, Partial{Reason: "interrupt", RunsDone: 3, RunsPlanned: 4}, *m.Partial)
	assert.Len(t, m.Runs, 3)
	assert.Equal(t, SeedRange{First: 1, Count: 4}, m.Seeds)

	b.Partial = nil
	_, err = Merge([]*Summary{a, b})
	assert.ErrorContains(t, err, "raft ran 1 seeds, its seed range holds 2", "without Partial a gap is still refused")
}
