package sim

import (
	"fmt"
	"time"
)

// DistKind names a latency distribution.
type DistKind uint8

// The latency distributions the network and disks understand.
const (
	// DistConstant always yields Min.
	DistConstant DistKind = iota
	// DistUniform yields a uniform value in [Min, Max].
	DistUniform
	// DistExponential yields Min + Exp(mean = Mean-Min), clipped to Max if Max > 0.
	DistExponential
	// DistNormal yields N(Mean, StdDev) clipped to [Min, Max] (Max 0 = unbounded).
	DistNormal
)

var distNames = [...]string{"constant", "uniform", "exponential", "normal"}

// String returns the distribution's name as used in scenario files.
func (k DistKind) String() string {
	if int(k) < len(distNames) {
		return distNames[k]
	}
	return fmt.Sprintf("dist(%d)", uint8(k))
}

// Dist is a latency distribution, a plain value (no allocation to sample).
type Dist struct {
	Kind   DistKind
	Min    time.Duration
	Max    time.Duration
	Mean   time.Duration
	StdDev time.Duration
}

// Constant returns a distribution that always yields d.
func Constant(d time.Duration) Dist { return Dist{Kind: DistConstant, Min: d, Max: d} }

// Uniform returns a uniform distribution over [lo, hi].
func Uniform(lo, hi time.Duration) Dist { return Dist{Kind: DistUniform, Min: lo, Max: hi} }

// Exponential returns min + an exponential with the given mean excess over min.
// The total mean is mean; max > 0 clips the tail.
func Exponential(min, mean, max time.Duration) Dist {
	return Dist{Kind: DistExponential, Min: min, Mean: mean, Max: max}
}

// Normal returns N(mean, stddev) clipped to [min, max] (max 0 = no upper clip).
func Normal(mean, stddev, min, max time.Duration) Dist {
	return Dist{Kind: DistNormal, Mean: mean, StdDev: stddev, Min: min, Max: max}
}

// Validate reports a malformed distribution.
func (d Dist) Validate() error {
	switch d.Kind {
	case DistConstant:
		if d.Min < 0 {
			return fmt.Errorf("constant latency %v is negative", d.Min)
		}
	case DistUniform:
		if d.Min < 0 || d.Max < d.Min {
			return fmt.Errorf("uniform latency needs 0 <= min <= max, got %v..%v", d.Min, d.Max)
		}
	case DistExponential:
		if d.Min < 0 || d.Mean < d.Min || (d.Max > 0 && d.Max < d.Min) {
			return fmt.Errorf("exponential latency needs 0 <= min <= mean (and min <= max), got min %v mean %v max %v", d.Min, d.Mean, d.Max)
		}
	case DistNormal:
		if d.Min < 0 || d.StdDev < 0 || (d.Max > 0 && d.Max < d.Min) {
			return fmt.Errorf("normal latency needs min >= 0, stddev >= 0, min <= max, got mean %v stddev %v min %v max %v", d.Mean, d.StdDev, d.Min, d.Max)
		}
	default:
		return fmt.Errorf("unknown distribution kind %d", d.Kind)
	}
	return nil
}

// Sample draws one value from d using r.
func (d Dist) Sample(r *Rand) time.Duration {
	switch d.Kind {
	case DistConstant:
		return d.Min
	case DistUniform:
		return r.DurationRange(d.Min, d.Max)
	case DistExponential:
		v := d.Min + time.Duration(float64(r.expFloat64()*float64(d.Mean-d.Min)))
		if d.Max > 0 && v > d.Max {
			v = d.Max
		}
		return v
	case DistNormal:
		v := d.Mean + time.Duration(float64(r.normFloat64()*float64(d.StdDev)))
		if v < d.Min {
			v = d.Min
		}
		if d.Max > 0 && v > d.Max {
			v = d.Max
		}
		return v
	}
	return 0
}

// String describes d, e.g. "uniform(1ms..10ms)".
func (d Dist) String() string {
	switch d.Kind {
	case DistConstant:
		return fmt.Sprintf("constant(%v)", d.Min)
	case DistUniform:
		return fmt.Sprintf("uniform(%v..%v)", d.Min, d.Max)
	case DistExponential:
		return fmt.Sprintf("exponential(min %v, mean %v, max %v)", d.Min, d.Mean, d.Max)
	case DistNormal:
		return fmt.Sprintf("normal(mean %v, stddev %v, %v..%v)", d.Mean, d.StdDev, d.Min, d.Max)
	}
	return d.Kind.String()
}
