package reality

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestStratifiedDrawsOnePerSlice: n trials' fault times fall one in each
// of n equal slices of the range, whatever the seed.
func TestStratifiedDrawsOnePerSlice(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		n := rapid.IntRange(2, 20).Draw(rt, "n")
		lo, hi := 6*time.Second, 7*time.Second
		width := (hi - lo) / time.Duration(n)
		for i := range n {
			at := stratified(rand.New(rand.NewPCG(seed, uint64(i))), lo, hi, i, n)
			slice := lo + time.Duration(i)*width
			if at < slice || at > slice+width {
				rt.Fatalf("trial %d of %d: %v outside [%v, %v]", i, n, at, slice, slice+width)
			}
		}
	})
}

// TestPlainDrawsBunch is the must-refute twin: the plain draws the harness
// made before (seed 1, etcd-cut-off's 6–7 s, ten trials) leave slices
// empty and put several trials in one, so the assertion above fails on
// them.
func TestPlainDrawsBunch(t *testing.T) {
	lo, hi, n := 6*time.Second, 7*time.Second, 10
	width := (hi - lo) / time.Duration(n)
	per := map[time.Duration]int{}
	for i := range n {
		at := draw(rand.New(rand.NewPCG(1, uint64(i))), lo, hi)
		per[(at-lo)/width]++
	}
	require.Less(t, len(per), n, "some slice is empty")
	require.Equal(t, 1, stratifiedSlices(1, lo, hi, n), "stratified: one per slice")
}

// stratifiedSlices is the most trials any slice gets from stratified.
func stratifiedSlices(seed uint64, lo, hi time.Duration, n int) int {
	width := (hi - lo) / time.Duration(n)
	per := map[time.Duration]int{}
	most := 0
	for i := range n {
		at := stratified(rand.New(rand.NewPCG(seed, uint64(i))), lo, hi, i, n)
		k := min((at-lo)/width, time.Duration(n-1))
		per[k]++
		most = max(most, per[k])
	}
	return most
}
