package scenario

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setsAllocs is the allocations of one load of partition.yaml with n
// "faults[+]=…" overrides.
func setsAllocs(t *testing.T, src []byte, n int) float64 {
	sets := make([]string, n)
	for i := range sets {
		sets[i] = fmt.Sprintf("faults[+]={at: %ds, crash: n1, for: 1s}", 20+i)
	}
	return testing.AllocsPerRun(1, func() {
		_, _ = ParseWith("partition.yaml", src, sets)
	})
}

// Appending N faults with -set is linear: the work (allocations) for
// 4,000 overrides is about four times that for 1,000, not sixteen (each
// override used to copy the whole tree: 4,000 took 9.9 s, 20,000 over 30 s).
func TestSetsScaleLinearly(t *testing.T) {
	src, err := os.ReadFile("../scenarios/partition.yaml")
	require.NoError(t, err)
	small, large := setsAllocs(t, src, 1000), setsAllocs(t, src, 4000)
	t.Logf("allocations: 1,000 sets %.0f, 4,000 sets %.0f (ratio %.1f)", small, large, large/small)
	assert.Less(t, large/small, 6.0, "4x the overrides must cost about 4x the work")
}

// More than MaxSets overrides are refused before any is read.
func TestSetsLimit(t *testing.T) {
	src, err := os.ReadFile("../scenarios/partition.yaml")
	require.NoError(t, err)
	sets := make([]string, MaxSets+1)
	for i := range sets {
		sets[i] = "cluster.nodes=3"
	}
	_, err = ParseWith("partition.yaml", src, sets)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at most 10000 (MaxSets)")
}

// A failing override leaves the tree as it was, also when it fails after
// the part of its path that would create keys or entries.
func TestSetFailureLeavesTree(t *testing.T) {
	src := []byte("name: x\nfaults:\n  - {at: 1s, crash: n1, for: 1s}\n")
	root, perr := parseYAML("x.yaml", src, MaxFileBytes)
	require.Nil(t, perr)
	before := dumpTree(root)
	for _, arg := range []string{"cluster.extra.list[3]=1", "faults[+].x[0]=1", "name.sub=1", "faults[5]=", "newkey.a[+][2]=1"} {
		require.NotNil(t, applySet(&root, arg, 1), arg)
		require.Equal(t, before, dumpTree(root), arg)
	}
	require.Nil(t, applySet(&root, "faults[+]={at: 2s, crash: n2, for: 1s}", 2))
	require.Len(t, root.keys[1].val.items, 2)
}

func dumpTree(n *ynode) string {
	if n == nil {
		return "~"
	}
	s := fmt.Sprintf("(%v %q", n.kind, n.text)
	for _, k := range n.keys {
		s += " " + k.name + ":" + dumpTree(k.val)
	}
	for _, it := range n.items {
		s += " -" + dumpTree(it)
	}
	return s + ")"
}
