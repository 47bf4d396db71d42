package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shard splits full the way simrun -shard i/n does (seeds whose offset from
// First is ≡ i mod n), with timing as a sharded run would have.
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
	full := synthSummary(5, 200, "raft", "bully", "ring")
	s0, s1, s2 := shard(full, 0, 3), shard(full, 1, 3), shard(full, 2, 3)
	require.NotEqual(t, full.Algorithms, s0.Algorithms)

	got, err := Merge([]*Summary{s0, s1, s2})
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
	full := synthSummary(1, 20, "raft", "bully")
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
	assert.ErrorContains(t, err, "seeds 2 to 2 are missing under raft")

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

	// One algorithm short of a seed.
	short := shard(full, 1, 2)
	short.Runs = short.Runs[:len(short.Runs)-1]
	_, err = Merge([]*Summary{s0, short})
	assert.ErrorContains(t, err, "raft ran 20 seeds from 1, bully 19 seeds from 1")

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
	m, err := Merge([]*Summary{a, b})
	require.NoError(t, err)
	require.NotNil(t, m.Partial)
	assert.Equal(t, Partial{Reason: "interrupt", RunsDone: 3, RunsPlanned: 4}, *m.Partial)
	assert.Len(t, m.Runs, 3)
	assert.Equal(t, SeedRange{First: 1, Count: 4}, m.Seeds)

	b.Partial = nil
	_, err = Merge([]*Summary{a, b})
	assert.ErrorContains(t, err, "missing", "without Partial a gap is still refused")
}
