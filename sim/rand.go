package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"time"
)

// Rand is a deterministic random stream (PCG-DXSM). Every concern of a run
// (the network, each node, the fault generator) owns its own stream derived
// from the run's seed and a label, so drawing from one never shifts another.
// The zero value is not usable; obtain streams from Sim.Stream or Env.Rand.
type Rand struct {
	pcg rand.PCG
}

// NewRand returns the stream for (seed, label). The same pair always yields the
// same sequence; different labels yield independent sequences.
func NewRand(seed uint64, label string) *Rand {
	r := &Rand{}
	r.Reset(seed, label)
	return r
}

// Reset re-seeds r as NewRand(seed, label) would, without allocating.
func (r *Rand) Reset(seed uint64, label string) {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(label); i++ {
		h ^= uint64(label[i])
		h *= 0x100000001b3
	}
	s1 := splitmix64(seed ^ h)
	s2 := splitmix64(s1 ^ 0x9e3779b97f4a7c15)
	r.pcg.Seed(s1, s2)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Uint64 returns a uniformly distributed 64-bit value.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// Uint64n returns a uniform value in [0, n). n must be > 0.
// Lemire's multiply-shift method with rejection, integer-only.
func (r *Rand) Uint64n(n uint64) uint64 {
	if n&(n-1) == 0 {
		return r.pcg.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.pcg.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.pcg.Uint64(), n)
		}
	}
	return hi
}

// Intn returns a uniform int in [0, n). n must be > 0.
func (r *Rand) Intn(n int) int { return int(r.Uint64n(uint64(n))) }

// Int63Range returns a uniform value in [lo, hi] (inclusive). If hi <= lo it
// returns lo.
func (r *Rand) Int63Range(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + int64(r.Uint64n(uint64(hi-lo)+1))
}

// DurationRange returns a uniform duration in [lo, hi] (inclusive).
func (r *Rand) DurationRange(lo, hi time.Duration) time.Duration {
	return time.Duration(r.Int63Range(int64(lo), int64(hi)))
}

// Float64 returns a uniform value in [0, 1) with 53 bits of precision.
func (r *Rand) Float64() float64 {
	return float64(r.pcg.Uint64()>>11) * (1.0 / (1 << 53))
}

// Chance reports true with probability p, where p has been converted with
// ProbThreshold. Integer-only, so identical on every architecture.
func (r *Rand) Chance(threshold uint64) bool {
	if threshold == 0 {
		return false
	}
	if threshold == math.MaxUint64 {
		return true
	}
	return r.pcg.Uint64() < threshold
}

// ProbThreshold converts a probability in [0, 1] to the integer threshold used
// by Chance: p == 1 always succeeds, p == 0 never does.
func ProbThreshold(p float64) uint64 {
	switch {
	case p <= 0 || p != p:
		return 0
	case p >= 1:
		return math.MaxUint64
	}
	// p * 2^64 is an exact scaling by a power of two.
	return uint64(p * (1 << 64))
}

// Perm returns a deterministic permutation of [0, n).
func (r *Rand) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// ln is a natural logarithm that uses only IEEE-exact operations (+, -, *, /,
// Frexp) with explicit rounding, so it gives the same bits on every
// architecture; math.Log may be implemented in assembly or fused differently.
// Accurate to about 1e-15 relative.
func ln(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	m, e := math.Frexp(x) // x = m * 2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	// ln(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716.
	s := float64((m - 1) / (m + 1))
	s2 := float64(s * s)
	term := s
	sum := s
	for k := 3; k <= 41; k += 2 {
		term = float64(term * s2)
		sum = float64(sum + float64(term/float64(k)))
	}
	return float64(float64(2*sum) + float64(float64(e)*math.Ln2))
}

// expFloat64 draws from Exp(1) by inversion.
func (r *Rand) expFloat64() float64 {
	u := float64(r.pcg.Uint64()>>11+1) * (1.0 / (1 << 53)) // (0, 1]
	return -ln(u)
}

// normFloat64 draws from N(0, 1) with Marsaglia's polar method, which needs
// only ln and sqrt (correctly rounded on every architecture).
func (r *Rand) normFloat64() float64 {
	for {
		u := float64(2*r.Float64()) - 1
		v := float64(2*r.Float64()) - 1
		s := float64(float64(u*u) + float64(v*v))
		if s >= 1 || s == 0 {
			continue
		}
		return float64(u * math.Sqrt(float64(-2*ln(s))/s))
	}
}
