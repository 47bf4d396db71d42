package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
)

// finite reports whether x is a number a plot can place (gonum refuses NaN
// and ±Inf, which would cost the whole report).
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// latencyAxis is the x axis the CDF and the box plot share.
type latencyAxis struct {
	min, max float64
	log      bool
	label    string
}

// logSpread is the ratio of the slowest to the fastest algorithm's median
// latency from which the latency axis is logarithmic: a lease waiting out a
// 10 s TTL next to a 200 ms Raft election would otherwise leave Raft a
// vertical line at the left edge.
const logSpread = 8

// newLatencyAxis chooses the axis for lat (sorted latencies per algorithm,
// at least one non-empty). Linear from 0 to just past the largest latency,
// unless
//   - the algorithms' medians differ by logSpread or more, or one's p99 is
//     logSpread times its median or more (a long tail: Raft with too narrow
//     an election timeout range): logarithmic, from just below the fastest
//     to just above the slowest failover;
//   - a few stragglers lie far (> 3×) beyond every algorithm's p99: linear
//     but cut at 1.5 × the largest p99, so one 30-second failover does not
//     squash the rest into the left edge. The label says how many are cut.
func newLatencyAxis(lat []latSample) latencyAxis {
	var lo, hi, p99, tail float64
	loMed, hiMed := math.Inf(1), 0.0
	lo = math.Inf(1)
	for _, s := range lat {
		l := s.vals
		if len(l) == 0 {
			continue
		}
		if i := sort.SearchFloat64s(l, math.SmallestNonzeroFloat64); i < len(l) {
			lo = min(lo, l[i])
		}
		hi = max(hi, l[len(l)-1])
		p99 = max(p99, s.dist.Percentile(99))
		med := s.dist.Percentile(50)
		loMed, hiMed = min(loMed, med), max(hiMed, med)
		if med > 0 {
			tail = max(tail, s.dist.Percentile(99)/med)
		}
	}
	if loMed > 0 && (hiMed/loMed >= logSpread || tail >= logSpread) && !math.IsInf(lo, 1) {
		return latencyAxis{min: lo / 1.15, max: hi * 1.1, log: true, label: "failover latency (ms, log scale)"}
	}
	if p99 <= 0 || hi <= 3*p99 {
		// 2% room so the slowest outlier's dot is not cut by the edge.
		return latencyAxis{max: hi * 1.02, label: "failover latency (ms)"}
	}
	cut := niceStep(p99*1.5/10) * 10
	beyond := 0
	for _, s := range lat {
		beyond += s.dist.CountAbove(cut)
	}
	return latencyAxis{max: cut, label: fmt.Sprintf("failover latency (ms) — axis cut at %s ms; %d slower failover(s) off the chart", fmtMs(cut), beyond)}
}

// apply sets p's x axis; call it after adding the data (Add widens the
// axis to the data).
func (a latencyAxis) apply(p *plot.Plot) {
	p.X.Min, p.X.Max = a.min, a.max
	if a.log {
		p.X.Scale = floorLogScale{}
		p.X.Tick.Marker = logTicks{}
	}
}

// pos is where x falls along the axis, from 0 at its start to 1 at its
// end (clamped: values below the start, such as a zero latency on a log
// axis, are at 0, and values past a cut end at 1).
func (a latencyAxis) pos(x float64) float64 {
	var f float64
	switch {
	case a.log:
		f = floorLogScale{}.Normalize(a.min, a.max, x)
	case a.max > a.min:
		f = (x - a.min) / (a.max - a.min)
	}
	return min(max(f, 0), 1)
}

// floorLogScale is a log scale that places values at or below the axis
// minimum (a zero latency) at the minimum instead of panicking as
// plot.LogScale does.
type floorLogScale struct{}

// Normalize implements plot.Normalizer.
func (floorLogScale) Normalize(lo, hi, x float64) float64 {
	x = max(x, lo)
	return (math.Log(x) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
}

// logTicks labels a log axis at 1, 2 and 5 × 10^k, with unlabelled minor
// ticks at the other integers × 10^k.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ts []plot.Tick
	for p := math.Pow10(int(math.Floor(math.Log10(lo)))); p <= hi; p *= 10 {
		for m := 1; m < 10; m++ {
			v := float64(m) * p
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
