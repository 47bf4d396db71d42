package reports

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// distOf adds xs to a new Dist.
func distOf(xs []float64) *Dist {
	d := &Dist{}
	for _, x := range xs {
		d.Add(x)
	}
	return d
}

// latencies draws a sample like failover latencies: microsecond values
// from 0 to about a minute, some repeated.
func latencies(t *rapid.T, minN, maxN int) []float64 {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) float64 {
		return float64(rapid.Int64Range(0, 60_000_000).Draw(t, "us")) / 1000
	}), minN, maxN).Draw(t, "xs")
}

// Up to DistExactMax values every statistic is exactly NewStats' (the
// nearest-rank percentiles of the values themselves).
func TestDistExactMatchesNewStats(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := latencies(t, 0, DistExactMax)
		d := distOf(xs)
		require.True(t, d.Exact())
		want := NewStats(slices.Clone(xs))
		got := d.Stats()
		require.Equal(t, want.Count, got.Count)
		require.Equal(t, want.Min, got.Min)
		require.Equal(t, want.Max, got.Max)
		require.Equal(t, want.P50, got.P50)
		require.Equal(t, want.P90, got.P90)
		require.Equal(t, want.P99, got.P99)
		require.InDelta(t, want.Mean, got.Mean, 0.0011, "mean of values rounded to 1e-6, then to 3 decimals")
	})
}

// Beyond it, every percentile is within DistRelErr of the exact
// nearest-rank percentile, and count, min and max stay exact.
func TestDistBucketedWithinRelErr(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := latencies(t, DistExactMax+1, 5000)
		d := distOf(xs)
		require.False(t, d.Exact())
		sorted := slices.Clone(xs)
		sort.Float64s(sorted)
		for _, p := range []float64{0, 1, 10, 25, 50, 75, 90, 99, 99.9, 100} {
			want := Percentile(sorted, p)
			got := d.Percentile(p)
			if want < distTiny {
				require.Equal(t, sorted[0], got, "p%v in the zero bucket is the minimum", p)
				continue
			}
			require.LessOrEqual(t, math.Abs(got-want), DistRelErr*want, "p%v: %v against %v", p, got, want)
		}
		require.Equal(t, len(xs), d.Count())
		require.Equal(t, sorted[0], d.Stats().Min)
		require.Equal(t, sorted[len(sorted)-1], d.Stats().Max)
		var sum float64
		for _, x := range xs {
			sum += math.Round(x * 1e6)
		}
		require.InDelta(t, sum/1e6/float64(len(xs)), d.Mean(), 1e-9*math.Max(1, d.Mean()))
	})
}

// Merging the Dists of any partition of a sample, in any order, gives the
// Dist of the whole sample (the property sharded sweeps rely on), and its
// JSON form reads back equal.
func TestDistMergeIsOrderFree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := latencies(t, 0, 3000)
		whole := distOf(xs)
		parts := rapid.IntRange(1, 8).Draw(t, "parts")
		ds := make([]*Dist, parts)
		for i := range ds {
			ds[i] = &Dist{}
		}
		for _, x := range xs {
			ds[rapid.IntRange(0, parts-1).Draw(t, "part")].Add(x)
		}
		order := rapid.Permutation(ds).Draw(t, "order")
		m := &Dist{}
		for _, d := range order {
			m.Merge(d)
		}
		require.Equal(t, whole, m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		var back Dist
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, m.Stats(), back.Stats())
		b2, err := json.Marshal(&back)
		require.NoError(t, err)
		require.Equal(t, string(b), string(b2))
	})
}

// Must refute: a Dist that kept only the first DistExactMax values (a cap
// instead of a histogram) gets the tail wrong, and this test's bound says
// so — the accuracy check has teeth.
func TestDistAccuracyCheckHasTeeth(t *testing.T) {
	xs := make([]float64, 3000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	capped := distOf(xs[:DistExactMax])
	want := Percentile(xs, 99)
	assert.Greater(t, math.Abs(capped.Percentile(99)-want), DistRelErr*want)
	full := distOf(xs)
	assert.LessOrEqual(t, math.Abs(full.Percentile(99)-want), DistRelErr*want)
}

// Bucket boundaries come from exact floating-point operations: the bucket
// of a power of two and of its neighbours, and a midpoint's own bucket.
func TestDistBuckets(t *testing.T) {
	assert.Equal(t, bucketOf(1), bucketOf(1+1.0/128-1e-12))
	assert.NotEqual(t, bucketOf(1), bucketOf(1+1.0/128+1e-12))
	assert.Equal(t, bucketOf(1)-1, bucketOf(math.Nextafter(1, 0)))
	for _, x := range []float64{distTiny, 0.001, 0.5, 1, 3, 1000, 86400e3 * 30} {
		i := bucketOf(x)
		assert.Equal(t, i, bucketOf(bucketValue(i)), "%v", x)
		assert.LessOrEqual(t, math.Abs(bucketValue(i)-x), DistRelErr*x, "%v", x)
	}
	d := distOf([]float64{math.NaN(), math.Inf(1), -3})
	assert.Equal(t, 1, d.Count(), "non-finite values are ignored, negative ones count as 0")
	assert.Equal(t, 0.0, d.Stats().Max)
}

// A Dist read from a file that does not add up is refused.
func TestDistRejectsBadJSON(t *testing.T) {
	for _, bad := range []string{
		`{"count": 2, "min": 1, "max": 2, "sum_e6": "3000000", "exact": [1]}`,
		`{"count": 1, "min": 1, "max": 2, "sum_e6": "x", "exact": [1]}`,
		`{"count": 1, "min": 1, "max": 2, "sum_e6": "1", "exact": [5]}`,
		`{"count": 3, "min": 1, "max": 2, "sum_e6": "1", "buckets": [[10, 1], [5, 2]]}`,
		`{"count": 3, "min": 1, "max": 2, "sum_e6": "1", "buckets": [[10, 1], [11, 1]]}`,
		`{"count": 1, "min": 1, "max": 2, "sum_e6": "1", "buckets": [[99999999, 1]]}`,
		`{"count": 2, "min": 1, "max": 2, "sum_e6": "1", "buckets": [[0, 1], [200000, 1]]}`,
		`{"count": 1, "min": 2, "max": 1, "sum_e6": "1", "exact": [1]}`,
	} {
		var d Dist
		assert.Error(t, json.Unmarshal([]byte(bad), &d), bad)
	}
}

// BenchmarkDistAdd measures adding a value to a bucketed Dist (once per
// failover of a sweep).
func BenchmarkDistAdd(b *testing.B) {
	d := &Dist{}
	for i := range 2000 {
		d.Add(float64(100 + i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Add(float64(100 + i%5000))
	}
}
