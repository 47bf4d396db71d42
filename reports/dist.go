package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"sort"
)

// DistExactMax is how many values a Dist keeps exactly: up to it every
// statistic is exact (nearest-rank percentiles of the values themselves);
// beyond it the values go into a log-linear histogram (docs/output.md,
// "Distributions").
const DistExactMax = 1000

// distSubBuckets is the number of equal-width buckets each power of two is
// cut into once a Dist is bucketed.
const distSubBuckets = 128

// DistRelErr bounds the relative error of a bucketed Dist's percentiles:
// a bucket spans at most 1/128 of its lower bound and is represented by
// its midpoint, so the reported value is within 1/256 (0.39%) of the exact
// nearest-rank percentile. Count, min, max and mean stay exact.
const DistRelErr = 1.0 / (2 * distSubBuckets)

// distTiny is the smallest value a bucketed Dist tells from zero; values
// below it (a millisecond figure below a nanosecond) share the zero bucket.
const distTiny = 1.0 / (1 << 20)

// distSumScale is the fixed-point scale of a Dist's sum: values are summed
// as integers of 1e-6 (a nanosecond, for milliseconds), so the mean does not
// depend on the order values were added, i.e. on how a sweep was sharded or
// which worker finished first.
const distSumScale = 1e6

// distMaxBuckets bounds a bucketed Dist's bucket range (every double from
// 2^-20 to 2^1024 spans fewer), which also bounds what a summary read from
// a file may ask for.
const distMaxBuckets = 1100 * distSubBuckets

// Dist is a mergeable summary of a sample of non-negative values (failover
// latencies, leaderless times): exact up to DistExactMax values, then a
// log-linear histogram (each power of two cut into 128 equal buckets, as in
// HdrHistogram) with percentiles within DistRelErr. Adding the same values
// in any order, or merging the Dists of any partition of them, gives the
// same Dist. Non-finite values are ignored and negative ones count as 0.
// The zero Dist is empty and ready to use.
type Dist struct {
	n        int64
	min, max float64
	sumHi    uint64 // the sum, in units of 1/distSumScale, as a 128-bit integer
	sumLo    uint64
	exact    []float64
	bucketed bool
	zeros    int64   // bucketed: values below distTiny
	offset   int     // bucketed: the bucket index of counts[0]
	counts   []int64 // bucketed: values per bucket
}

// Count is the number of values added.
func (d *Dist) Count() int { return int(d.n) }

// Exact reports whether d still holds every value (its percentiles are
// exact).
func (d *Dist) Exact() bool { return !d.bucketed }

// Add adds x.
func (d *Dist) Add(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	x = max(x, 0)
	if d.n == 0 || x < d.min {
		d.min = x
	}
	if d.n == 0 || x > d.max {
		d.max = x
	}
	d.n++
	d.addSum(fixed(x))
	if !d.bucketed {
		d.exact = slices.Insert(d.exact, sort.SearchFloat64s(d.exact, x), x)
		if len(d.exact) <= DistExactMax {
			return
		}
		d.toBuckets()
		return
	}
	d.addBucket(x, 1)
}

// fixed is x in units of 1/distSumScale, rounded.
func fixed(x float64) uint64 {
	return uint64(min(math.Round(x*distSumScale), 1<<63))
}

func (d *Dist) addSum(v uint64) {
	var c uint64
	d.sumLo, c = bits.Add64(d.sumLo, v, 0)
	d.sumHi += c
}

// bucketOf is x's bucket index (x ≥ distTiny): the exponent and the first
// bits of the mantissa, by exact floating-point operations only, so every
// machine buckets alike.
func bucketOf(x float64) int {
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	j := int((frac - 0.5) * 2 * distSubBuckets)
	return exp*distSubBuckets + min(j, distSubBuckets-1)
}

// bucketValue is the midpoint of bucket i.
func bucketValue(i int) float64 {
	exp := i / distSubBuckets
	j := i % distSubBuckets
	if j < 0 { // floor division for negative exponents
		exp--
		j += distSubBuckets
	}
	return math.Ldexp(0.5+(float64(j)+0.5)/(2*distSubBuckets), exp)
}

func (d *Dist) addBucket(x float64, n int64) {
	if x < distTiny {
		d.zeros += n
		return
	}
	d.addIndex(bucketOf(x), n)
}

func (d *Dist) addIndex(i int, n int64) {
	switch {
	case len(d.counts) == 0:
		d.offset = i
		d.counts = append(d.counts[:0], 0)
	case i < d.offset:
		grow := d.offset - i
		d.counts = append(make([]int64, grow, grow+len(d.counts)), d.counts...)
		d.offset = i
	case i >= d.offset+len(d.counts):
		d.counts = append(d.counts, make([]int64, i-d.offset-len(d.counts)+1)...)
	}
	d.counts[i-d.offset] += n
}

// toBuckets moves the exact values into the histogram.
func (d *Dist) toBuckets() {
	d.bucketed = true
	for _, x := range d.exact {
		d.addBucket(x, 1)
	}
	d.exact = nil
}

// Merge adds every value of o to d.
func (d *Dist) Merge(o *Dist) {
	if o.n == 0 {
		return
	}
	if d.n == 0 || o.min < d.min {
		d.min = o.min
	}
	if d.n == 0 || o.max > d.max {
		d.max = o.max
	}
	d.n += o.n
	var c uint64
	d.sumLo, c = bits.Add64(d.sumLo, o.sumLo, 0)
	d.sumHi += o.sumHi + c
	if !d.bucketed && !o.bucketed && len(d.exact)+len(o.exact) <= DistExactMax {
		d.exact = append(d.exact, o.exact...)
		sort.Float64s(d.exact)
		return
	}
	if !d.bucketed {
		d.toBuckets()
	}
	if !o.bucketed {
		for _, x := range o.exact {
			d.addBucket(x, 1)
		}
		return
	}
	d.zeros += o.zeros
	for k, n := range o.counts {
		if n > 0 {
			d.addIndex(o.offset+k, n)
		}
	}
}

// Mean is the exact mean (of the values rounded to 1e-6), 0 when empty.
func (d *Dist) Mean() float64 {
	if d.n == 0 {
		return 0
	}
	sum := float64(d.sumHi)*0x1p64 + float64(d.sumLo)
	return sum / distSumScale / float64(d.n)
}

// Percentile is the nearest-rank p-th percentile: exact while d is exact,
// else within DistRelErr of it. The 0th and 100th are the exact min and max.
func (d *Dist) Percentile(p float64) float64 {
	if d.n == 0 {
		return 0
	}
	k := int64(math.Ceil(p / 100 * float64(d.n)))
	return d.atRank(min(max(k, 1), d.n))
}

// atRank is the k-th smallest value (1-based), or its bucket's midpoint
// clamped to [min, max].
func (d *Dist) atRank(k int64) float64 {
	if !d.bucketed {
		return d.exact[k-1]
	}
	if k == 1 {
		return d.min
	}
	if k == d.n {
		return d.max
	}
	if k <= d.zeros {
		return d.min
	}
	seen := d.zeros
	for i, n := range d.counts {
		seen += n
		if seen >= k {
			return min(max(bucketValue(d.offset+i), d.min), d.max)
		}
	}
	return d.max
}

// Stats summarises d.
func (d *Dist) Stats() Stats {
	if d.n == 0 {
		return Stats{}
	}
	return Stats{Count: int(d.n), Min: d.min, Mean: round3(d.Mean()),
		P50: d.Percentile(50), P90: d.Percentile(90), P99: d.Percentile(99), Max: d.max}
}

// Sample is what a plot draws for d: every value, sorted, while d is exact;
// else n values at evenly spaced ranks from the first to the last (the
// quantile function sampled, whose histogram has d's shape).
func (d *Dist) Sample(n int) []float64 {
	if d.n == 0 {
		return nil
	}
	if !d.bucketed {
		return slices.Clone(d.exact)
	}
	n = max(n, 2)
	out := make([]float64, n)
	for i := range out {
		out[i] = d.atRank(1 + int64(i)*(d.n-1)/int64(n-1))
	}
	return out
}

// Steps is d's distribution function as steps, for a CDF plot: xs
// ascending and atOrBelow[i] the number of values at or below xs[i] (the
// last is Count). While d is exact the steps are its distinct values. Once
// it is bucketed they are its non-empty buckets at their midpoints clamped
// to [min, max], the last at max: each step is within DistRelErr of the
// values it counts, and, unlike a quantile Sample, a line drawn through
// them has a flat stretch only where the values have a gap.
func (d *Dist) Steps() (xs []float64, atOrBelow []int64) {
	if d.n == 0 {
		return nil, nil
	}
	step := func(x float64, cum int64) {
		if k := len(xs); k > 0 && xs[k-1] >= x {
			atOrBelow[k-1] = cum // the same x again (a clamped midpoint)
			return
		}
		xs, atOrBelow = append(xs, x), append(atOrBelow, cum)
	}
	if !d.bucketed {
		for i, x := range d.exact {
			step(x, int64(i+1))
		}
		return xs, atOrBelow
	}
	cum := d.zeros
	if cum > 0 {
		step(d.min, cum)
	}
	for k, n := range d.counts {
		if n > 0 {
			cum += n
			step(min(max(bucketValue(d.offset+k), d.min), d.max), cum)
		}
	}
	xs[len(xs)-1] = d.max
	return xs, atOrBelow
}

// distJSON is a Dist on the wire: either Exact (every value, sorted) or
// Zeros and Buckets ([index, count] pairs, ascending; bucket i spans
// [2^e·(0.5+j/256), 2^e·(0.5+(j+1)/256)) for i = 128e+j). SumE6 is the
// sum in units of 1e-6, in decimal.
type distJSON struct {
	Count   int64      `json:"count"`
	Min     float64    `json:"min"`
	Max     float64    `json:"max"`
	SumE6   string     `json:"sum_e6"`
	Exact   []float64  `json:"exact,omitempty"`
	Zeros   int64      `json:"zeros,omitempty"`
	Buckets [][2]int64 `json:"buckets,omitempty"`
}

// MarshalJSON writes d in its wire form.
func (d Dist) MarshalJSON() ([]byte, error) {
	w := distJSON{Count: d.n, Min: d.min, Max: d.max, SumE6: d.sumString()}
	if d.bucketed {
		w.Zeros = d.zeros
		w.Buckets = [][2]int64{}
		for k, n := range d.counts {
			if n > 0 {
				w.Buckets = append(w.Buckets, [2]int64{int64(d.offset + k), n})
			}
		}
	} else {
		w.Exact = d.exact
	}
	return json.Marshal(w)
}

func (d *Dist) sumString() string {
	s := new(big.Int).SetUint64(d.sumHi)
	s.Lsh(s, 64)
	return s.Add(s, new(big.Int).SetUint64(d.sumLo)).String()
}

// UnmarshalJSON reads d's wire form, refusing any that is inconsistent
// (counts that do not add up, buckets out of order or out of range).
func (d *Dist) UnmarshalJSON(b []byte) error {
	var w distJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Dist{}
	if w.Count < 0 || math.IsNaN(w.Min) || math.IsNaN(w.Max) || w.Min < 0 || w.Max < w.Min {
		return errors.New("distribution: bad count, min or max")
	}
	sum, ok := new(big.Int).SetString(w.SumE6, 10)
	if w.SumE6 == "" {
		sum, ok = new(big.Int), true
	}
	if !ok || sum.Sign() < 0 || sum.BitLen() > 128 {
		return fmt.Errorf("distribution: bad sum_e6 %q", w.SumE6)
	}
	lo := new(big.Int).And(sum, new(big.Int).SetUint64(math.MaxUint64))
	d.sumLo, d.sumHi = lo.Uint64(), new(big.Int).Rsh(sum, 64).Uint64()
	// The mean must lie within [min, max]: each value was added to the
	// sum rounded by fixed, which keeps their order.
	if n := big.NewInt(w.Count); w.Count > 0 && (sum.Cmp(new(big.Int).Mul(n, new(big.Int).SetUint64(fixed(w.Min)))) < 0 ||
		sum.Cmp(new(big.Int).Mul(n, new(big.Int).SetUint64(fixed(w.Max)))) > 0) {
		return fmt.Errorf("distribution: sum_e6 %s puts the mean outside [min, max] for a count of %d", w.SumE6, w.Count)
	}
	d.n, d.min, d.max = w.Count, w.Min, w.Max
	if w.Buckets == nil {
		if int64(len(w.Exact)) != w.Count || len(w.Exact) > DistExactMax {
			return fmt.Errorf("distribution: %d exact values for a count of %d (at most %d)", len(w.Exact), w.Count, DistExactMax)
		}
		for _, x := range w.Exact {
			if math.IsNaN(x) || x < w.Min || x > w.Max {
				return fmt.Errorf("distribution: value %v outside [min, max]", x)
			}
		}
		d.exact = w.Exact
		sort.Float64s(d.exact)
		return nil
	}
	d.bucketed = true
	if w.Zeros < 0 {
		return errors.New("distribution: negative zeros")
	}
	d.zeros = w.Zeros
	total := w.Zeros
	for k, b := range w.Buckets {
		if b[1] <= 0 || (k > 0 && b[0] <= w.Buckets[k-1][0]) || b[0] < -40*distSubBuckets || b[0] > 1100*distSubBuckets ||
			b[0]-w.Buckets[0][0] >= distMaxBuckets {
			return fmt.Errorf("distribution: bucket %d ([%d, %d]) out of order or range", k, b[0], b[1])
		}
		if total > math.MaxInt64-b[1] {
			return fmt.Errorf("distribution: bucket %d's count %d overflows the total", k, b[1])
		}
		d.addIndex(int(b[0]), b[1])
		total += b[1]
	}
	if total != w.Count {
		return fmt.Errorf("distribution: buckets hold %d values for a count of %d", total, w.Count)
	}
	return nil
}

// CountAbove is how many values exceed x: exact while d is exact, else
// counting whole buckets by their midpoints.
func (d *Dist) CountAbove(x float64) int {
	if d == nil || d.n == 0 || x >= d.max {
		return 0
	}
	if !d.bucketed {
		return len(d.exact) - sort.Search(len(d.exact), func(i int) bool { return d.exact[i] > x })
	}
	var n int64
	for k, c := range d.counts {
		if bucketValue(d.offset+k) > x {
			n += c
		}
	}
	return int(n)
}
