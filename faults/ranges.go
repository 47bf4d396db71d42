package faults

import (
	"fmt"
	"time"

	"github.com/electsim/electsim/sim"
)

// DurRange is a duration drawn uniformly from [Min, Max] (inclusive) when it
// is used. Min == Max is a constant, and drawing a constant consumes no
// randomness, so turning one parameter into a range never shifts the draws of
// parameters that stay constant.
type DurRange struct {
	Min time.Duration
	Max time.Duration
}

// Dur returns the constant range d..d.
func Dur(d time.Duration) DurRange { return DurRange{Min: d, Max: d} }

// Between returns the range lo..hi.
func Between(lo, hi time.Duration) DurRange { return DurRange{Min: lo, Max: hi} }

// Draw returns a value in [Min, Max] from r (no draw for a constant).
func (d DurRange) Draw(r *sim.Rand) time.Duration {
	if d.Min >= d.Max {
		return d.Min
	}
	return r.DurationRange(d.Min, d.Max)
}

// IsConst reports whether the range is a single value.
func (d DurRange) IsConst() bool { return d.Min == d.Max }

// Validate reports a range whose Min exceeds its Max.
func (d DurRange) Validate() error {
	if d.Min > d.Max {
		return fmt.Errorf("min %v > max %v", d.Min, d.Max)
	}
	return nil
}

// validateNonNeg is Validate plus Min >= 0, prefixed with the field name.
func (d DurRange) validateNonNeg(field string) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	if d.Min < 0 {
		return fmt.Errorf("%s: negative duration %v", field, d.Min)
	}
	return nil
}

// String formats the range as "5s" or "5s..8s".
func (d DurRange) String() string {
	if d.IsConst() {
		return d.Min.String()
	}
	return d.Min.String() + ".." + d.Max.String()
}

// FloatRange is a number drawn uniformly from [Min, Max] (inclusive) when it
// is used; Min == Max is a constant and consumes no randomness.
type FloatRange struct {
	Min float64
	Max float64
}

// Float returns the constant range v..v.
func Float(v float64) FloatRange { return FloatRange{Min: v, Max: v} }

// Draw returns a value in [Min, Max] from r (no draw for a constant). The
// arithmetic is explicitly rounded so no platform fuses it (same bits
// everywhere).
func (f FloatRange) Draw(r *sim.Rand) float64 {
	if f.Min >= f.Max {
		return f.Min
	}
	u := float64(r.Uint64()>>11) / float64(1<<53-1) // [0, 1]
	return float64(f.Min + float64((f.Max-f.Min)*u))
}

// IsConst reports whether the range is a single value.
func (f FloatRange) IsConst() bool { return f.Min == f.Max }

// Validate reports a range whose Min exceeds its Max (or is NaN).
func (f FloatRange) Validate() error {
	if !(f.Min <= f.Max) {
		return fmt.Errorf("min %g > max %g", f.Min, f.Max)
	}
	return nil
}

// validateIn is Validate plus lo <= Min and Max <= hi.
func (f FloatRange) validateIn(field string, lo, hi float64, loOpen bool) error {
	if err := f.Validate(); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	if f.Min < lo || (loOpen && f.Min == lo) || f.Max > hi {
		open := "["
		if loOpen {
			open = "("
		}
		return fmt.Errorf("%s: %s out of range %s%g, %g]", field, f, open, lo, hi)
	}
	return nil
}

// String formats the range as "1.3" or "0.5..2".
func (f FloatRange) String() string {
	if f.IsConst() {
		return fmt.Sprintf("%g", f.Min)
	}
	return fmt.Sprintf("%g..%g", f.Min, f.Max)
}

// IntRange is an integer drawn uniformly from [Min, Max] (inclusive) when it
// is used; Min == Max is a constant and consumes no randomness.
type IntRange struct {
	Min int
	Max int
}

// Int returns the constant range v..v.
func Int(v int) IntRange { return IntRange{Min: v, Max: v} }

// Draw returns a value in [Min, Max] from r (no draw for a constant).
func (n IntRange) Draw(r *sim.Rand) int {
	if n.Min >= n.Max {
		return n.Min
	}
	return int(r.Int63Range(int64(n.Min), int64(n.Max)))
}

// Validate reports a range whose Min exceeds its Max.
func (n IntRange) Validate() error {
	if n.Min > n.Max {
		return fmt.Errorf("min %d > max %d", n.Min, n.Max)
	}
	return nil
}

// String formats the range as "2" or "1..3".
func (n IntRange) String() string {
	if n.Min == n.Max {
		return fmt.Sprint(n.Min)
	}
	return fmt.Sprintf("%d..%d", n.Min, n.Max)
}
