package reports

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCollectorKeepsFirstNotableWhateverTheOrder: once MaxKeptRuns notable
// runs are kept, a run that comes earlier in (rank, seed) order still
// replaces the last one kept, so the runs kept do not depend on the order
// they are added in (worker goroutines finish in any order; a merge adds
// shard after shard). The old Keep returned early with the condition
// inverted and kept the first MaxKeptRuns added instead.
func TestCollectorKeepsFirstNotableWhateverTheOrder(t *testing.T) {
	all := synthAll(1, 3000, "raft", "bully")
	var notable []RunSummary
	for _, r := range all.Runs {
		if Notable(&r) {
			notable = append(notable, r)
		}
	}
	require.Greater(t, len(notable), MaxKeptRuns+20)
	rank := func(r RunSummary) int {
		if r.Algorithm == "raft" {
			return 0
		}
		return 1
	}
	inOrder := NewCollector(false)
	for _, r := range all.Runs {
		inOrder.Add(rank(r), r)
	}
	want := inOrder.Kept()
	require.Equal(t, notable[:MaxKeptRuns], want)

	reversed := NewCollector(false)
	for _, r := range slices.Backward(all.Runs) {
		reversed.Add(rank(r), r)
	}
	assert.Equal(t, want, reversed.Kept(), "added last to first")

	interleaved := NewCollector(false) // odd seeds first, then even ones: two shards
	for _, odd := range []uint64{1, 0} {
		for _, r := range all.Runs {
			if r.Seed%2 == odd {
				interleaved.Keep(rank(r), r)
			}
		}
	}
	assert.Equal(t, want, interleaved.Kept(), "kept shard after shard")
}

// TestMergeKeepsFirstNotableAcrossShards: shards with more than
// MaxKeptRuns notable runs between them merge into the runs the unsharded
// summary keeps (the first MaxKeptRuns notable, in group then seed order),
// in whatever order the shards come.
func TestMergeKeepsFirstNotableAcrossShards(t *testing.T) {
	all := synthAll(1, 3000, "raft", "bully")
	full := synthSummary(1, 3000, "raft", "bully")
	require.Len(t, full.Runs, MaxKeptRuns)
	s0, s1 := shard(all, 0, 2), shard(all, 1, 2)
	require.Len(t, s0.Runs, MaxKeptRuns, "each shard keeps its own first notable runs")
	for _, parts := range [][]*Summary{{s0, s1}, {s1, s0}} {
		got, err := Merge(parts)
		require.NoError(t, err)
		assert.Equal(t, full.Runs, got.Runs)
		assert.Equal(t, full, got)
	}
}
