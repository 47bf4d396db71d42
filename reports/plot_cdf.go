package reports

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cdfMaxPoints bounds the points per CDF line: beyond a few hundred the line
// looks the same and only costs rendering time (a 1,000-seed sweep has
// thousands of failovers per algorithm).
const cdfMaxPoints = 300

// failoverLatencies returns, per algorithm in algos' order, the sorted
// latencies of completed failovers and the number of failovers in all.
func failoverLatencies(s *Summary, algos []string) (lat [][]float64, total []int) {
	idx := make(map[string]int, len(algos))
	for i, a := range algos {
		idx[a] = i
	}
	lat = make([][]float64, len(algos))
	total = make([]int, len(algos))
	for _, r := range s.Runs {
		i := idx[r.Key()]
		for _, f := range r.Failovers {
			total[i]++
			if f.Completed && f.LatencyMs != nil && finite(*f.LatencyMs) {
				lat[i] = append(lat[i], *f.LatencyMs)
			}
		}
	}
	for _, l := range lat {
		sort.Float64s(l)
	}
	return lat, total
}

// failoverCDF is the empirical CDF of failover latency, one line per
// algorithm. The y axis is the fraction of all failovers recovered within x,
// so a line that stops short of 100% shows failovers that never completed.
func failoverCDF(s *Summary, algos []string) (*figure, error) {
	lat, total := failoverLatencies(s, algos)
	have := false
	for _, l := range lat {
		have = have || len(l) > 0
	}
	if !have {
		return nil, nil
	}
	ax := newLatencyAxis(lat)
	p := newPlot("Failover latency (fault → new leader acting)", ax.label, "failovers recovered")
	addGrid(p, true, true)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = percentTicks{}
	// The legend goes in a column right of the plot: inside, any corner can
	// hide a curve (the slowest algorithm's sits bottom right).
	leg := plot.NewLegend()
	leg.TextStyle = textStyle(9.5)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(8)
	var legendW vg.Length
	for i, a := range algos {
		if len(lat[i]) == 0 {
			continue
		}
		line, err := plotter.NewLine(cdfPoints(lat[i], total[i]))
		if err != nil {
			return nil, err
		}
		line.StepStyle = plotter.PostStep
		line.Color = algoColor(i)
		line.Width = vg.Points(1.6)
		p.Add(line)
		label := fmt.Sprintf("%s\np50 %s · p99 %s ms\n%d failovers", a, fmtMs(Percentile(lat[i], 50)), fmtMs(Percentile(lat[i], 99)), total[i])
		if inc := total[i] - len(lat[i]); inc > 0 {
			label += fmt.Sprintf(", %d never\nrecovered", inc)
		}
		leg.Add(label, line)
		legendW = max(legendW, leg.ThumbnailWidth+leg.TextStyle.Width(" "+label))
	}
	ax.apply(p)
	legendW += vg.Points(16)
	return &figure{title: p.Title.Text, width: plotWidth, height: 4.6 * vg.Inch, draw: func(c draw.Canvas) {
		p.Draw(draw.Crop(c, 0, -legendW, 0, 0))
		// Top-aligned with the data area, below the title.
		top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + vg.Points(6)
		leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-legendW+vg.Points(12), 0, 0, -top))
	}}, nil
}

// cdfPoints are the steps of sorted's empirical CDF over total samples,
// thinned to at most cdfMaxPoints while keeping the first and last step.
func cdfPoints(sorted []float64, total int) plotter.XYs {
	n := len(sorted)
	step := 1
	if n > cdfMaxPoints {
		step = int(math.Ceil(float64(n) / cdfMaxPoints))
	}
	pts := plotter.XYs{{X: sorted[0], Y: 0}}
	for i := 0; i < n; i += step {
		// The last sample of a thinned group carries the group's height.
		j := min(i+step, n) - 1
		pts = append(pts, plotter.XY{X: sorted[j], Y: float64(j+1) / float64(total)})
	}
	return pts
}

// percentTicks labels a 0..1 axis in percent, with 90% and 99% marked
// because those are the percentiles the report quotes.
type percentTicks struct{}

// Ticks implements plot.Ticker.
func (percentTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 0.9, 0.99, 1} {
		label := fmt.Sprintf("%g%%", v*100)
		if v == 0.99 {
			label = "" // a minor tick: too close to 100% for a label
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}

// fmtMs formats milliseconds compactly: "4.25", "12.3", "1234".
func fmtMs(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f", ms)
	default:
		return fmt.Sprintf("%.2f", ms)
	}
}
