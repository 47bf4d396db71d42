package sim

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// RateOne is a clock rate of exactly 1 (one local second per true second), in
// parts per billion. Rates are integers so clock arithmetic is exact and the
// same on every architecture.
const RateOne int64 = 1_000_000_000

// Rate converts a rate factor (1.5 = 50% fast, 0.9 = 10% slow) to parts per
// billion. It panics on a non-positive rate: a clock cannot stop or run back.
func Rate(factor float64) int64 {
	if !(factor > 0) || factor > 1000 {
		panic(fmt.Sprintf("sim: clock rate %v out of range (0, 1000]", factor))
	}
	return int64(math.Round(factor * float64(RateOne)))
}

// DriftPPM converts a drift in parts per million (+50 = 50 µs fast per second)
// to a rate in parts per billion.
func DriftPPM(ppm float64) int64 { return Rate(1 + ppm/1e6) }

// segment is one linear piece of a clock: local = base + (t - since) * rate.
type segment struct {
	since   Time
	base    int64 // local reading at since, in ns
	ratePPB int64
}

func (s *segment) at(t Time) int64 {
	dt := uint64(t - s.since)
	if s.ratePPB == RateOne {
		return s.base + int64(dt)
	}
	hi, lo := bits.Mul64(dt, uint64(s.ratePPB))
	q, _ := bits.Div64(hi, lo, uint64(RateOne))
	return s.base + int64(q)
}

// trueAt returns the earliest true time t >= s.since at which the segment
// reads at least local. local must be >= s.base.
func (s *segment) trueAt(local int64) Time {
	dl := uint64(local - s.base)
	if s.ratePPB == RateOne {
		if dl > uint64(Never-s.since) {
			return Never
		}
		return s.since + Time(dl)
	}
	// smallest dt with floor(dt*rate/1e9) >= dl  <=>  dt >= ceil(dl*1e9/rate)
	hi, lo := bits.Mul64(dl, uint64(RateOne))
	if hi >= uint64(s.ratePPB) {
		return Never
	}
	q, r := bits.Div64(hi, lo, uint64(s.ratePPB))
	if r != 0 {
		q++
	}
	if q > uint64(Never-s.since) {
		return Never
	}
	return s.since + Time(q)
}

// rebase starts a new segment at t with the given rate, continuous with the old.
func (s *segment) rebase(t Time, ratePPB int64) {
	s.base = s.at(t)
	s.since = t
	s.ratePPB = ratePPB
}

// clocks are one node's two clocks. The monotonic clock drives timers and
// never jumps; the wall clock is what a node writes into records and can be
// offset and stepped (NTP). Both keep running while the node is paused or down:
// they belong to the machine, not the process.
type clocks struct {
	mono segment // nanoseconds since the run started, by this node's oscillator
	wall segment // Unix nanoseconds
}

// ClockState is a snapshot of a node's clocks, for tests and reports.
type ClockState struct {
	Mono        time.Duration // monotonic reading
	Wall        time.Time     // wall reading
	MonoRatePPB int64         // monotonic rate, parts per billion
	WallRatePPB int64         // wall rate, parts per billion
}
