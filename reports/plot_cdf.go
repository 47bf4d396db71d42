package reports

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cdfMaxPoints bounds the points per CDF line: beyond a few hundred the line
// looks the same and only costs rendering time (a 1,000-seed sweep has
// thousands of failovers per algorithm).
const cdfMaxPoints = 300

// latSample is what the latency plots draw of one group: its completed
// failovers' latency distribution, a sorted sample of it (every value while
// the distribution is exact, else its quantile function at sampleSize
// ranks), and the number of failovers in all (never-completed included).
type latSample struct {
	vals  []float64
	dist  *Dist
	total int
}

// sampleSize is how many quantiles stand for a bucketed distribution in
// a plot: more than a box plot or a 300-point CDF line can show.
const sampleSize = 1001

// n is the number of completed failovers.
func (l latSample) n() int {
	if l.dist == nil {
		return 0
	}
	return l.dist.Count()
}

// failoverLatencies returns, per group in algos' order, the completed
// failovers' latencies and the number of failovers in all.
func failoverLatencies(s *Summary, algos []string) []latSample {
	out := make([]latSample, len(algos))
	for i, a := range algos {
		for k := range s.Algorithms {
			g := &s.Algorithms[k]
			if g.Key() == a {
				out[i] = latSample{vals: g.FailoverDist.Sample(sampleSize), dist: &g.FailoverDist, total: g.Failovers}
				break
			}
		}
	}
	return out
}

// failoverCDF is the empirical CDF of failover latency, one line per
// algorithm. The y axis is the fraction of all failovers recovered within x,
// so a line that stops short of 100% shows failovers that never completed.
//
// More than cdfPanelLines lines overlaid are a tangle whose colours repeat
// (a -vary grid), so they become small multiples sharing one x axis
// (cdfPanels, failoverCDFPanels), unless that would take more than
// cdfMaxPanels panels.
func failoverCDF(s *Summary, algos []string) (*figure, error) {
	lat := failoverLatencies(s, algos)
	have := false
	for _, l := range lat {
		have = have || len(l.vals) > 0
	}
	if !have {
		return nil, nil
	}
	ax := newLatencyAxis(lat)
	if panels := cdfPanels(s, algos, lat); len(panels) > 1 && len(panels) <= cdfMaxPanels {
		return failoverCDFPanels(panels, lat, ax)
	}
	p := newPlot("Failover latency (fault → new leader acting)", ax.label, "failovers recovered")
	addGrid(p, true, true)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = percentTicks{}
	// The legend goes in a column right of the plot: inside, any corner can
	// hide a curve (the slowest algorithm's sits bottom right). A grid's
	// many groups get one-line entries, and past cdfMaxLegend none (their
	// numbers are in the report's tables).
	leg := plot.NewLegend()
	leg.TextStyle = textStyle(9.5)
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(18)
	leg.Padding = vg.Points(8)
	lines := 0
	for i := range algos {
		if len(lat[i].vals) > 0 {
			lines++
		}
	}
	short := lines > cdfFullLegend
	if short {
		leg.Padding = vg.Points(3)
	}
	var legendW, entryH vg.Length
	entries := 0
	same := sameCurves(algos, lat)
	for i, a := range algos {
		if len(lat[i].vals) == 0 {
			continue
		}
		xs, atOrBelow := lat[i].dist.Steps()
		line, err := plotter.NewLine(cdfPoints(xs, atOrBelow, lat[i].total, ax))
		if err != nil {
			return nil, err
		}
		line.StepStyle = plotter.PostStep
		line.Color = algoColor(i)
		line.Dashes = algoDashes(i)
		line.Width = vg.Points(1.6)
		p.Add(line)
		if lines > cdfMaxLegend {
			continue
		}
		label := fmt.Sprintf("%s\np50 %s · p99 %s ms\n%d failovers", a, fmtMs(lat[i].dist.Percentile(50)), fmtMs(lat[i].dist.Percentile(99)), lat[i].total)
		if inc := lat[i].total - lat[i].n(); inc > 0 {
			label += fmt.Sprintf(", %d never\nrecovered", inc)
		}
		if short {
			label = fmt.Sprintf("%s · p50 %s · p99 %s ms", a, fmtMs(lat[i].dist.Percentile(50)), fmtMs(lat[i].dist.Percentile(99)))
		}
		if j, ok := same[i]; ok {
			// Drawn over the earlier group's identical line, it hides it:
			// say so, and draw it thinner on top so both dashes show.
			label += "\n= " + algos[j] + "'s curve (identical)"
			line.Width = vg.Points(1)
		}
		leg.Add(label, line)
		entries++
		legendW = max(legendW, leg.ThumbnailWidth+leg.TextStyle.Width(" "+label))
		entryH = max(entryH, leg.TextStyle.Rectangle(label).Size().Y)
	}
	ax.apply(p)
	if lines > cdfMaxLegend {
		p.Title.Text += fmt.Sprintf(" — %d groups, each one's figures in the tables", lines)
	}
	p.Title.Text += noFailoverNote(noFailover(algos, lat))
	legendW += vg.Points(16)
	top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + vg.Points(6)
	// Tall enough for every legend entry (gonum's legend gives each entry
	// the tallest one's height).
	height := max(4.6*vg.Inch, top+vg.Length(entries)*(entryH+leg.Padding)+vg.Points(12))
	return &figure{title: p.Title.Text, width: plotWidth, height: height, draw: func(c draw.Canvas) {
		p.Draw(draw.Crop(c, 0, -legendW, 0, 0))
		// Top-aligned with the data area, below the title.
		leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-legendW+vg.Points(12), 0, 0, -top))
	}}, nil
}

// cdfFullLegend is the most CDF lines whose legend entries give their
// p50, p99 and failover count on three lines; more get one line each, and
// past cdfMaxLegend lines (a big -vary grid) the legend is left out.
const (
	cdfFullLegend = 10
	cdfMaxLegend  = 40
)

// cdfPoints draws the steps of a distribution (xs ascending, atOrBelow[i]
// values at or below xs[i]; Dist.Steps) over total failovers on axis ax,
// as at most 2×cdfMaxPoints+2 points. Consecutive steps that together span
// less than 1/cdfMaxPoints of the axis's width and of its height are drawn
// as one, at the group's last x and height; steps past the axis's end are
// all one. Thinning by position rather than by rank keeps the line honest
// in a sparse tail: joining a fixed number of steps there would draw a long
// flat stretch across values that exist.
func cdfPoints(xs []float64, atOrBelow []int64, total int, ax latencyAxis) plotter.XYs {
	const width = 1.0 / cdfMaxPoints
	rise := float64(total) * width // the most failovers one point may add
	pts := plotter.XYs{{X: xs[0], Y: 0}}
	first, base := ax.pos(xs[0]), int64(0) // where the current group starts, and the height before it
	for i := range xs {
		if i+1 < len(xs) && ax.pos(xs[i+1])-first < width && float64(atOrBelow[i+1]-base) < rise {
			continue // the next step joins this group
		}
		pts = append(pts, plotter.XY{X: xs[i], Y: float64(atOrBelow[i]) / float64(total)})
		if i+1 < len(xs) {
			first, base = ax.pos(xs[i+1]), atOrBelow[i]
		}
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
