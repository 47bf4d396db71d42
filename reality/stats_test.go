package reality

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Wilson's interval for 0/10 and 10/10 (Brown, Cai & DasGupta 2001, §4.1.1:
// the interval is not degenerate at the ends, as the Wald interval is).
func TestWilsonKnownValues(t *testing.T) {
	lo, hi := Wilson(0, 10)
	require.Equal(t, 0.0, lo)
	require.InDelta(t, 0.2775, hi, 1e-4)
	lo, hi = Wilson(10, 10)
	require.InDelta(t, 0.7225, lo, 1e-4)
	require.Equal(t, 1.0, hi)
	lo, hi = Wilson(5, 10)
	require.InDelta(t, 0.2366, lo, 1e-4)
	require.InDelta(t, 0.7634, hi, 1e-4)
	lo, hi = Wilson(0, 0)
	require.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi}, "no trials: nothing is known")
}

func TestWilsonContainsTheRate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 10000).Draw(t, "n")
		k := rapid.IntRange(0, n).Draw(t, "k")
		lo, hi := Wilson(k, n)
		p := float64(k) / float64(n)
		if !(0 <= lo && lo <= p+1e-12 && p-1e-12 <= hi && hi <= 1) {
			t.Fatalf("Wilson(%d,%d) = [%v,%v] misses %v", k, n, lo, hi, p)
		}
	})
}

func TestSummarise(t *testing.T) {
	d := Summarise([]time.Duration{3 * time.Second, time.Second, 2 * time.Second})
	require.Equal(t, 3, d.N)
	require.Equal(t, 2*time.Second, d.Mean)
	require.Equal(t, 2*time.Second, d.P50)
	require.Equal(t, 3*time.Second, d.Max)
	// s = 1 s and two degrees of freedom, so the half-width is t(0.975, 2)/√3 s.
	require.InDelta(t, float64(2*time.Second)-4.303/1.7320508*float64(time.Second), float64(d.MeanLo), 1e3)
	require.InDelta(t, z95, tQuantile(1000), 0, "many values: the normal quantile")
	require.Equal(t, Dist{}, Summarise(nil))
	one := Summarise([]time.Duration{time.Second})
	require.Equal(t, one.Mean, one.MeanLo, "one value: no spread to estimate")
}

func rates(k, n int, f func(i int) Measure) []Measure {
	out := make([]Measure, n)
	for i := range out {
		out[i] = f(i)
		out[i].SplitBrain = i < k
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	overlap := func(d time.Duration) func(int) Measure {
		return func(i int) Measure {
			return Measure{Overlap: d + time.Duration(i)*time.Millisecond, Failover: 3 * time.Second, HasFailover: true}
		}
	}
	// Reality: split brain in 10 of 10, overlaps about 4 s.
	real := rates(10, 10, overlap(4*time.Second))

	// A simulation as bad or worse is at least as pessimistic in every row.
	rows := Compare(real, rates(200, 200, overlap(5*time.Second)))
	require.False(t, AnyRosier(rows), "%+v", rows)
	require.Equal(t, VerdictPessimistic, rows[0].Verdict)

	// Must refute: a simulation that finds the split brain in 2 of 200
	// runs is rosier on that row.
	rows = Compare(real, rates(2, 200, overlap(5*time.Second)))
	require.True(t, rows[0].Rosier)
	require.Equal(t, VerdictRosier, rows[0].Verdict)
	require.False(t, rows[1].Rosier)

	// Must refute: overlaps of 1 s against reality's 4 s are rosier.
	rows = Compare(real, rates(200, 200, overlap(time.Second)))
	require.False(t, rows[0].Rosier)
	require.True(t, rows[1].Rosier, "%+v", rows[1])
	require.True(t, AnyRosier(rows))

	// A failover reality shows and the simulation never does is rosier.
	rows = Compare(real, rates(200, 200, func(int) Measure { return Measure{Overlap: 5 * time.Second} }))
	require.True(t, rows[2].Rosier)
}

// TestKnownRosierOnlyExcusesItsRow runs on a recorded difference of its
// own: only that story's row is excused.
func TestKnownRosierOnlyExcusesItsRow(t *testing.T) {
	saved := Known
	t.Cleanup(func() { Known = saved })
	Known = map[string]map[string]string{"story-a": {"failover": "measured longer"}}
	rosier := Row{Name: "failover", Rosier: true}
	require.NotEmpty(t, KnownRosier("story-a", rosier))
	require.Empty(t, KnownRosier("story-b", rosier), "only the story measured")
	require.Empty(t, KnownRosier("story-a", Row{Name: "overlap", Rosier: true}), "only the row measured")
	require.Empty(t, KnownRosier("story-a", Row{Name: "failover"}), "a row that is not rosier needs no excuse")
}

// TestEtcdFailoversNoLongerExcused: the model follows clientv3's
// send-loop lateness (docs/algorithms/etcd.md, "loop drift"), and the
// trials' fault times are stratified (docs/reality.md, "The fault
// times"), so a rosier etcd failover, after a crash or a cut, fails the
// integration suite again.
func TestEtcdFailoversNoLongerExcused(t *testing.T) {
	for _, story := range []string{"etcd-leader-crash", "etcd-gc-pause", "etcd-cut-off"} {
		require.Empty(t, KnownRosier(story, Row{Name: "failover", Rosier: true}), story)
	}
}

// A trial whose fault found no holder is left out of the comparison: it
// would count as a trial without split brain and make reality look kinder.
func TestSkippedTrialsAreNotCompared(t *testing.T) {
	hit := &TrialResult{Measure: Measure{SplitBrain: true, Overlap: 3 * time.Second}}
	missed := &TrialResult{Skipped: []string{"faults[0]: pause skipped: no holder"}}
	got := comparedMeasures([]*TrialResult{hit, missed, hit})
	require.Len(t, got, 2)
	for _, m := range got {
		require.True(t, m.SplitBrain)
	}
	// The twin: with every fault applied, every trial counts.
	require.Len(t, comparedMeasures([]*TrialResult{hit, {Measure: Measure{}}, hit}), 3)
}
