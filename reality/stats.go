package reality

import (
	"math"
	"sort"
	"time"
)

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Wilson is the Wilson score interval (95 %) of a rate of k in n: unlike
// k/n ± z·se it stays inside [0, 1] and is not empty at k = 0 or k = n
// (Wilson 1927; Brown, Cai & DasGupta 2001, "Interval Estimation for a
// Binomial Proportion", §4.1.1).
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p, nf := float64(k)/float64(n), float64(n)
	z2 := z95 * z95
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z95 / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(0, centre-half), min(1, centre+half)
}

// t975 are Student's t quantiles t(0.975, df) for df = 1..30 (any
// statistics table); past 30 degrees of freedom the normal quantile z95 is
// within 2 % of them.
var t975 = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tQuantile is the two-sided 95 % quantile for a mean of n values.
func tQuantile(n int) float64 {
	if df := n - 1; df >= 1 && df <= len(t975) {
		return t975[df-1]
	}
	return z95
}

// Dist summarises durations: count, mean with its 95 % interval (mean ±
// t·s/√n, Student's t with n−1 degrees of freedom: a handful of real
// trials would make the normal interval too narrow, and a verdict drawn
// from it too eager), median and maximum.
type Dist struct {
	N                    int
	Mean, MeanLo, MeanHi time.Duration
	P50, Max             time.Duration
}

// Summarise computes a Dist.
func Summarise(xs []time.Duration) Dist {
	d := Dist{N: len(xs)}
	if d.N == 0 {
		return d
	}
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	mean := sum / float64(d.N)
	var ss float64
	for _, x := range s {
		ss += (float64(x) - mean) * (float64(x) - mean)
	}
	half := 0.0
	if d.N > 1 {
		half = tQuantile(d.N) * math.Sqrt(ss/float64(d.N-1)) / math.Sqrt(float64(d.N))
	}
	d.Mean, d.MeanLo, d.MeanHi = time.Duration(mean), time.Duration(mean-half), time.Duration(mean+half)
	d.P50, d.Max = s[(d.N-1)/2], s[d.N-1]
	return d
}
