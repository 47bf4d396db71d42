package reports

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// messagesPerElection is a histogram per algorithm of each failover's
// messages ÷ elections (failovers without an election are left out), as
// small multiples: algorithms differ by an order of magnitude (bully's
// broadcasts against ring's single token), so overlaid or on one axis the
// cheaper ones would collapse into a sliver. The panels share one x range so
// their positions compare; each title carries the numbers. Groups with no
// failover that needed an election are named under the title.
func messagesPerElection(s *Summary, algos []string) (*figure, error) {
	idx := make(map[string]int, len(algos))
	for i, a := range algos {
		idx[a] = i
	}
	// Each group's values, or (bucketed) its quantile function sampled:
	// the histogram of evenly ranked quantiles has the distribution's
	// shape, and its bars are scaled to the number of failovers.
	vals := make([][]float64, len(algos))
	dists := make([]*Dist, len(algos))
	for k := range s.Algorithms {
		g := &s.Algorithms[k]
		if i, ok := idx[g.Key()]; ok {
			vals[i], dists[i] = g.MessagesPerElectionDist.Sample(sampleSize), &g.MessagesPerElectionDist
		}
	}
	// One x range for every panel, so panels compare at a glance; the
	// groups with no election to count are named under the title rather
	// than silently left out.
	lo, hi := math.Inf(1), math.Inf(-1)
	var missing []string
	for i, v := range vals {
		if len(v) == 0 {
			missing = append(missing, algos[i])
			continue
		}
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	cols := 1
	if len(algos)-len(missing) > 2 {
		cols = 2
	}
	var panels []*plot.Plot
	for i, a := range algos {
		v := vals[i]
		if len(v) == 0 {
			continue
		}
		st := dists[i].Stats()
		p := newPlot("", "messages per election", "failovers")
		p.Title.TextStyle.Font.Size = vg.Points(11)
		p.Title.Text = fitTitle(&p.Title.TextStyle, plotWidth/vg.Length(cols)-vg.Points(16), a,
			fmt.Sprintf("mean %.1f · p50 %.1f · p90 %.1f  (n=%d)", st.Mean, st.P50, st.P90, st.Count))
		addGrid(p, false, true)
		h := &plotter.Histogram{Bins: histBins(v), FillColor: alpha(algoColor(i), 0.75),
			LineStyle: draw.LineStyle{Color: algoColor(i), Width: vg.Points(0.6)}}
		h.Width = h.Bins[0].Max - h.Bins[0].Min
		if scale := float64(st.Count) / float64(len(v)); scale != 1 {
			for b := range h.Bins {
				h.Bins[b].Weight *= scale
			}
		}
		p.Add(h)
		if integral(v) {
			// Whole messages per election: whole ticks, and a narrow sample
			// (one constant value) gets some room either side.
			p.X.Tick.Marker = niceTicks{Target: 8, MinStep: 1}
			lo, hi := h.Bins[0].Min, h.Bins[len(h.Bins)-1].Max
			if pad := (6 - (hi - lo)) / 2; pad > 0 {
				p.X.Min, p.X.Max = lo-pad, hi+pad
			}
		}
		p.Y.Min = 0
		p.Y.Tick.Marker = niceTicks{Target: 4, MinStep: 1}
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	// Half a unit bin either side, and at least 6 wide so one constant
	// value is not a wall-to-wall bar.
	lo, hi = lo-0.5, hi+0.5
	if w := hi - lo; w < 6 {
		lo, hi = lo-(6-w)/2, hi+(6-w)/2
	}
	for _, p := range panels {
		p.X.Min, p.X.Max = lo, hi
	}
	note := ""
	if len(missing) > 0 {
		note = "no failover with an election: " + strings.Join(missing, ", ")
	}
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if k := r*cols + c; k < len(panels) {
				grid[r][c] = panels[k]
			}
		}
	}
	titlePt := 26.0
	if note != "" {
		titlePt += 16
	}
	hgt := vg.Length(rows)*2.3*vg.Inch + vg.Points(titlePt)
	title := "Messages per election (each failover: messages ÷ elections)"
	return &figure{title: title, width: plotWidth, height: hgt, draw: func(c draw.Canvas) {
		ts := textStyle(13)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, title)
		if note != "" {
			ns := textStyle(10)
			ns.XAlign, ns.YAlign = draw.XCenter, draw.YTop
			c.FillText(ns, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 22}, note)
		}
		body := draw.Crop(c, 0, 0, 0, -vg.Points(titlePt))
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(24), PadY: vg.Points(14),
			PadLeft: vg.Points(6), PadRight: vg.Points(10), PadBottom: vg.Points(4)}
		canv := plot.Align(grid, tiles, body)
		for r := range grid {
			for k, p := range grid[r] {
				if p != nil {
					p.Draw(canv[r][k])
				}
			}
		}
	}}, nil
}

// histBins bins sorted v into about √n bins (5…30) of a nice width. When
// every value is a whole number (one election: the ratio is a message count)
// the bins are whole too and centred on the integers, so none straddles two
// values and leaves a gap. A constant sample gets one unit-wide bin.
func histBins(v []float64) []plotter.HistogramBin {
	lo, hi := v[0], v[len(v)-1]
	if hi-lo < 1e-9 {
		return []plotter.HistogramBin{{Min: lo - 0.5, Max: lo + 0.5, Weight: float64(len(v))}}
	}
	n := min(max(int(math.Round(math.Sqrt(float64(len(v))))), 5), 30)
	width := niceStep((hi - lo) / float64(n))
	start := math.Floor(lo/width) * width
	if integral(v) {
		width = math.Ceil(width)
		start = math.Floor(lo/width)*width - 0.5
	}
	nb := int(math.Floor((hi-start)/width)) + 1
	bins := make([]plotter.HistogramBin, nb)
	for i := range bins {
		bins[i].Min = start + float64(i)*width
		bins[i].Max = start + float64(i+1)*width
	}
	for _, x := range v {
		i := min(int((x-start)/width), nb-1)
		bins[i].Weight++
	}
	return bins
}

// integral reports whether every value is a whole number.
func integral(v []float64) bool {
	for _, x := range v {
		if x != math.Trunc(x) {
			return false
		}
	}
	return true
}

// fitTitle is a panel's title, name and numbers, within width: on one line
// ("name — numbers") if it fits, else on two; and if a line is still too
// wide (a -vary grid's long group names) st's font shrinks, to 7 points at
// least, until it fits.
func fitTitle(st *draw.TextStyle, width vg.Length, name, numbers string) string {
	title := name + " — " + numbers
	if st.Width(title) <= width {
		return title
	}
	title = name + "\n" + numbers
	for st.Font.Size > vg.Points(7) && max(st.Width(name), st.Width(numbers)) > width {
		st.Font.Size -= vg.Points(0.5)
	}
	return title
}
