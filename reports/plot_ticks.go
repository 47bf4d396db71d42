package reports

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks places about Target major ticks at multiples of 1, 2, 2.5 or 5
// × 10^k (gonum's default gives only three or four on a wide axis), at least
// MinStep apart (1 for counts).
type niceTicks struct {
	Target  int
	MinStep float64
}

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	step := max(closestNiceStep(hi-lo, max(t.Target, 2)), t.MinStep)
	exp := int(math.Floor(math.Log10(step) + 1e-9))
	prec := -exp
	if m := step / math.Pow10(exp); math.Abs(m-2.5) < 1e-9 {
		prec++ // 2.5, 0.25 need one digit more than their power of ten
	}
	prec = max(prec, 0)
	var ts []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ts
}

// niceStep rounds x up to the nearest 1, 2, 2.5 or 5 × 10^k.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// closestNiceStep is the 1, 2, 2.5 or 5 × 10^k step that cuts span into the
// number of intervals closest to target.
func closestNiceStep(span float64, target int) float64 {
	raw := span / float64(target)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	best, bestErr := p, math.Inf(1)
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		err := math.Abs(span/(m*p) - float64(target))
		if err < bestErr {
			best, bestErr = m*p, err
		}
	}
	return best
}
