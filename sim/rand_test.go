package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/sim"
)

// within4Sigma checks that an observed count of a Binomial(n, p) is within
// four standard deviations of its mean (a false alarm about 6e-5 of the
// time, and the seeds are fixed, so the result never flips).
func within4Sigma(t *testing.T, what string, got, n uint64, p float64) {
	t.Helper()
	mean := float64(n) * p
	sd := math.Sqrt(float64(n) * p * (1 - p))
	require.InDelta(t, mean, float64(got), 4*sd, "%s: %d of %d, expected %.0f ± %.0f", what, got, n, mean, 4*sd)
}

// The link's drop and duplicate probabilities (network.go LinkConfig) hold
// over 200,000 messages: drops ~ Binomial(sent, 0.1), duplicates ~
// Binomial(sent-dropped, 0.05), and every copy is delivered.
func TestRandDropAndDuplicateRates(t *testing.T) {
	const n = 200_000
	s := sim.New(sim.Config{Seed: 42, Link: sim.LinkConfig{Latency: sim.Uniform(time.Millisecond, 5*time.Millisecond), Drop: 0.1, Duplicate: 0.05}})
	s.AddNode("a", burst(&probeLog{s: s}, 1, n, 1000))
	s.AddNode("b", idle{})
	require.Equal(t, sim.OutcomeQuiescent, s.Run())
	st := s.Stats()
	require.Equal(t, uint64(n), st.Sent[kindData])
	within4Sigma(t, "dropped", st.Dropped[kindData], n, 0.1)
	require.Equal(t, st.Dropped[kindData], st.DropReasons[sim.DropLoss])
	passed := n - st.Dropped[kindData]
	within4Sigma(t, "duplicated", st.Duplicated[kindData], passed, 0.05)
	require.Equal(t, passed+st.Duplicated[kindData], st.Delivered[kindData])
}

// Drop 0 never drops and drop 1 always does (ProbThreshold's end points).
func TestRandProbabilityEndPoints(t *testing.T) {
	for _, p := range []float64{0, 1} {
		s := sim.New(sim.Config{Link: sim.LinkConfig{Drop: p, Duplicate: 1 - p}})
		s.AddNode("a", burst(&probeLog{s: s}, 1, 1000, 100))
		s.AddNode("b", idle{})
		s.Run()
		st := s.Stats()
		require.Equal(t, uint64(1000*p), st.Dropped[kindData])
		require.Equal(t, uint64(1000*(1-p)), st.Duplicated[kindData])
	}
	require.Equal(t, uint64(0), sim.ProbThreshold(0))
	require.Equal(t, uint64(math.MaxUint64), sim.ProbThreshold(1))
	require.Equal(t, uint64(1)<<63, sim.ProbThreshold(0.5))
	require.Equal(t, uint64(0), sim.ProbThreshold(math.NaN()))
}

// sampleStats draws n samples and returns their mean (ns) and range.
func sampleStats(d sim.Dist, r *sim.Rand, n int) (mean float64, lo, hi time.Duration, atMin, atMax int) {
	lo, hi = time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	var sum float64
	for i := 0; i < n; i++ {
		v := d.Sample(r)
		sum += float64(v)
		lo, hi = min(lo, v), max(hi, v)
		if v == d.Min {
			atMin++
		}
		if v == d.Max {
			atMax++
		}
	}
	return sum / float64(n), lo, hi, atMin, atMax
}

// The latency distributions of dist.go have the expected means (within four
// standard errors over 200,000 samples) and never leave [Min, Max].
func TestRandLatencyDistributions(t *testing.T) {
	const n = 200_000
	ms := float64(time.Millisecond)
	// Exponential with min 1 ms, mean 5 ms, max 20 ms: excess X ~ Exp(θ=4 ms)
	// clipped at c=19 ms, so E = 1 + θ(1-e^{-c/θ}) ms; its sd is below θ.
	theta, c := 4.0, 19.0
	expMean := (1 + theta*(1-math.Exp(-c/theta))) * ms
	for _, tc := range []struct {
		d      sim.Dist
		mean   float64
		sd     float64 // an upper bound on the standard deviation
		pAtMin float64 // probability of exactly Min (clipping), -1 to skip
		pAtMax float64
	}{
		{sim.Constant(7 * time.Millisecond), 7 * ms, 0, 1, 1},
		// uniform over [1, 10] ms: sd = 9/sqrt(12) ms.
		{sim.Uniform(time.Millisecond, 10*time.Millisecond), 5.5 * ms, 9 / math.Sqrt(12) * ms, -1, -1},
		{sim.Exponential(time.Millisecond, 5*time.Millisecond, 20*time.Millisecond), expMean, theta * ms, 0, math.Exp(-c / theta)},
		// Normal(50, 10) clipped symmetrically to [30, 70]: mean stays 50,
		// and P(clipped at min) = P(Z <= -2) = 0.02275.
		{sim.Normal(50*time.Millisecond, 10*time.Millisecond, 30*time.Millisecond, 70*time.Millisecond), 50 * ms, 10 * ms, 0.02275, 0.02275},
	} {
		require.NoError(t, tc.d.Validate())
		mean, lo, hi, atMin, atMax := sampleStats(tc.d, sim.NewRand(7, "latency"), n)
		require.GreaterOrEqual(t, lo, tc.d.Min, tc.d.String())
		require.LessOrEqual(t, hi, tc.d.Max, tc.d.String())
		require.InDelta(t, tc.mean, mean, 4*tc.sd/math.Sqrt(n)+1, tc.d.String())
		if tc.pAtMin >= 0 {
			within4Sigma(t, tc.d.String()+" at min", uint64(atMin), n, tc.pAtMin)
			within4Sigma(t, tc.d.String()+" at max", uint64(atMax), n, tc.pAtMax)
		}
	}
}

// Latencies drawn by the network stay within the link's distribution: every
// delivery's At-SentAt lies in [Min, Max] and the mean is as configured.
func TestRandNetworkLatencyWithinBounds(t *testing.T) {
	const n = 20_000
	d := sim.Normal(20*time.Millisecond, 15*time.Millisecond, 5*time.Millisecond, 40*time.Millisecond)
	s := sim.New(sim.Config{Seed: 11, Link: sim.LinkConfig{Latency: d}})
	rec := &sim.Recorder{}
	s.AddSink(rec)
	s.AddNode("a", burst(&probeLog{s: s}, 1, n, 100))
	s.AddNode("b", idle{})
	s.Run()
	deliveries := records(rec, sim.RecDeliver, 1)
	require.Len(t, deliveries, n)
	var sum float64
	for _, r := range deliveries {
		lat := r.At.Sub(r.SentAt)
		require.GreaterOrEqual(t, lat, d.Min)
		require.LessOrEqual(t, lat, d.Max)
		sum += float64(lat)
	}
	// N(20, 15) clipped to [5, 40]: the clipped mean is 20.72 ms (computed
	// from the normal pdf/cdf); sd below 15 ms.
	a, b := -1.0, 4.0/3
	phi := func(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
	cdf := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	clippedMean := 20 + 15*(phi(a)-phi(b)) + 5*cdf(a) + 40*(1-cdf(b)) - 20*(cdf(a)+1-cdf(b))
	require.InDelta(t, clippedMean*float64(time.Millisecond), sum/n, 4*15*float64(time.Millisecond)/math.Sqrt(n))
}

// Uint64n (rand.go, Lemire's method with rejection) is unbiased: small ranges
// give equal counts, and for n = 3·2^62, where plain x%n would put half of
// the mass on the first third, the first third gets a third.
func TestRandUint64nUnbiased(t *testing.T) {
	r := sim.NewRand(1, "uint64n")
	const draws = 300_000
	for _, n := range []uint64{3, 7, 10} {
		counts := make([]uint64, n)
		for i := 0; i < draws; i++ {
			v := r.Uint64n(n)
			if v >= n {
				t.Fatalf("Uint64n(%d) = %d", n, v)
			}
			counts[v]++
		}
		for _, c := range counts {
			within4Sigma(t, "Uint64n value", c, draws, 1/float64(n))
		}
	}
	const big = 3 << 62
	var low uint64
	for i := 0; i < draws; i++ {
		v := r.Uint64n(big)
		if v >= big {
			t.Fatalf("Uint64n(3<<62) = %d", v)
		}
		if v < big/3 {
			low++
		}
	}
	within4Sigma(t, "Uint64n(3<<62) in first third", low, draws, 1.0/3)
	// Powers of two use the mask path.
	for i := 0; i < 1000; i++ {
		require.Less(t, r.Uint64n(8), uint64(8))
	}
	require.Equal(t, uint64(0), r.Uint64n(1))
}

// DurationRange and Int63Range are inclusive of both ends.
func TestRandRangesInclusive(t *testing.T) {
	r := sim.NewRand(2, "range")
	seen := map[time.Duration]bool{}
	for i := 0; i < 1000; i++ {
		v := r.DurationRange(3, 5)
		require.True(t, v >= 3 && v <= 5)
		seen[v] = true
	}
	require.Len(t, seen, 3)
	require.Equal(t, int64(9), r.Int63Range(9, 9))
	require.Equal(t, int64(9), r.Int63Range(9, 1))
}

// Streams are a function of (seed, label) only: the same pair repeats, and a
// different label or seed gives a different sequence.
func TestRandStreamsIndependent(t *testing.T) {
	draw := func(seed uint64, label string) [4]uint64 {
		r := sim.NewRand(seed, label)
		return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
	}
	require.Equal(t, draw(1, "network"), draw(1, "network"))
	require.NotEqual(t, draw(1, "network"), draw(1, "node/n1"))
	require.NotEqual(t, draw(1, "network"), draw(2, "network"))
	s := sim.New(sim.Config{Seed: 1})
	a, b := s.Stream("faults"), sim.NewRand(1, "faults")
	require.Equal(t, a.Uint64(), b.Uint64())
	// Float64 is in [0, 1).
	for i := 0; i < 10000; i++ {
		f := a.Float64()
		require.True(t, f >= 0 && f < 1)
	}
}

// ln (rand.go) agrees with math.Log to 1e-14 relative over inputs spanning
// subnormals to the largest float, values near 1, and uniform draws — it
// replaces math.Log only to be bit-identical across architectures.
func TestRandLnMatchesMathLog(t *testing.T) {
	worst, worstX := 0.0, 0.0
	check := func(x float64) {
		got, want := sim.Ln(x), math.Log(x)
		if x < 0x1p-1022 {
			// math.Log's amd64 assembly is wrong for subnormals (it gives
			// -709.09 for 2.4e-317); reference them through Frexp instead.
			m, e := math.Frexp(x)
			want = math.Log(m) + float64(e)*math.Ln2
		}
		rel := math.Abs(got - want)
		if want != 0 {
			rel /= math.Abs(want)
		}
		if !(rel <= worst) { // also catches NaN
			worst, worstX = rel, x
		}
	}
	r := sim.NewRand(3, "ln")
	for i := 0; i < 200_000; i++ {
		check(float64(r.Uint64()>>11+1) * (1.0 / (1 << 53))) // (0, 1], as expFloat64 draws
		check(math.Ldexp(1+r.Float64(), r.Intn(2098)-1074))  // every binade
	}
	for k := 1; k <= 1000; k++ {
		check(1 + float64(k)*0x1p-52)
		check(1 - float64(k)*0x1p-53)
		check(math.Sqrt2/2 + float64(k-500)*0x1p-53) // the m < Sqrt2/2 switch
	}
	for _, x := range []float64{1, 2, 0.5, math.E, 10, math.SmallestNonzeroFloat64, math.MaxFloat64, 0x1p-1022} {
		check(x)
	}
	require.LessOrEqual(t, worst, 1e-14, "worst at ln(%v) = %v, math.Log = %v", worstX, sim.Ln(worstX), math.Log(worstX))
	t.Logf("worst relative error %.3g at x=%v", worst, worstX)
	require.True(t, math.IsInf(sim.Ln(0), -1))
	require.True(t, math.IsInf(sim.Ln(-1), -1))
}
