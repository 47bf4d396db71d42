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
// cheaper ones would collapse into a sliver. Each panel has its own x
// range, fitted to its bars, and its title carries the numbers that
// compare. Groups with no failover that needed an election are named
// under the title.
func messagesPerElection(s *Summary, algos []string) (*figure, error) {
	panels, missing := histPanels(s, algos)
	if len(panels) == 0 {
		return nil, nil
	}
	// A big grid would draw a panel per group, a figure (and an image in
	// memory) as tall as the grid is large: 870 MB for 16 × 16. Past
	// MaxHistPanels, panels at evenly spaced ranks are drawn and the note
	// says how many groups were left out (summary.json has them all).
	shown := len(panels)
	if len(panels) > MaxHistPanels {
		kept := make([]histPanel, MaxHistPanels)
		for i := range kept {
			kept[i] = panels[i*(len(panels)-1)/(MaxHistPanels-1)]
		}
		panels = kept
	}
	if len(missing) > maxMissingNames {
		missing = append(missing[:maxMissingNames:maxMissingNames], fmt.Sprintf("and %d more", len(missing)-maxMissingNames))
	}
	cols := 1
	if len(panels) > 2 {
		cols = 2
	}
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if k := r*cols + c; k < len(panels) {
				grid[r][c] = panels[k].plot
			}
		}
	}
	for _, p := range panels {
		p.plot.Title.Text = fitTitle(&p.plot.Title.TextStyle, plotWidth/vg.Length(cols)-vg.Points(16), p.name, p.numbers)
	}
	// The note names the groups left out, on as many lines as the
	// figure's width needs: a grid's names run past any single line.
	ns := textStyle(10)
	ns.XAlign, ns.YAlign = draw.XCenter, draw.YTop
	var note []string
	if shown > len(panels) {
		note = append(note, fmt.Sprintf("%d of %d groups drawn, at evenly spaced ranks (summary.json has every group)", len(panels), shown))
	}
	if len(missing) > 0 {
		note = append(note, wrapList(ns, plotWidth-vg.Points(24), "no failover with an election: ", missing)...)
	}
	lineH := ns.Rectangle("Ag").Size().Y + vg.Points(2)
	titleH := vg.Points(26) + vg.Length(len(note))*lineH
	if len(note) > 0 {
		titleH += vg.Points(4)
	}
	hgt := vg.Length(rows)*2.3*vg.Inch + titleH
	title := "Messages per election (each failover: messages ÷ elections)"
	return &figure{title: title, width: plotWidth, height: hgt, draw: func(c draw.Canvas) {
		ts := textStyle(13)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, title)
		for i, l := range note {
			c.FillText(ns, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(24) - vg.Length(i)*lineH}, l)
		}
		body := draw.Crop(c, 0, 0, 0, -titleH)
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

// MaxHistPanels is the most groups the messages-per-election figure draws
// a panel for (12 rows of 2).
const MaxHistPanels = 24

// maxMissingNames is the most groups without an election the figure's
// note names; the rest are counted.
const maxMissingNames = 40

// histPanel is one group's panel of messagesPerElection: its plot (axes
// set), the histogram in it, and the title's two parts.
type histPanel struct {
	plot          *plot.Plot
	hist          *plotter.Histogram
	name, numbers string
}

// histPanels builds a panel per group (in algos' order) with a failover
// that needed an election, and names the groups without one.
func histPanels(s *Summary, algos []string) (panels []histPanel, missing []string) {
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
	for i, a := range algos {
		v := vals[i]
		if len(v) == 0 {
			missing = append(missing, a)
			continue
		}
		st := dists[i].Stats()
		p := newPlot("", "messages per election", "failovers")
		p.Title.TextStyle.Font.Size = vg.Points(11)
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
			p.X.Tick.Marker = niceTicks{Target: 8, MinStep: 1}
		}
		p.X.Min, p.X.Max = histRange(h.Bins)
		p.Y.Min = 0
		p.Y.Tick.Marker = niceTicks{Target: 4, MinStep: 1}
		panels = append(panels, histPanel{plot: p, hist: h, name: a,
			numbers: fmt.Sprintf("mean %.1f · p50 %.1f · p90 %.1f  (n=%d)", st.Mean, st.P50, st.P90, st.Count)})
	}
	return panels, missing
}

// histRange is a panel's x range: its bars and 3% of their span either
// side, and at least 6 wide (centred) so one constant value is not a
// wall-to-wall bar.
func histRange(bins []plotter.HistogramBin) (lo, hi float64) {
	lo, hi = bins[0].Min, bins[len(bins)-1].Max
	pad := (hi - lo) * 0.03
	lo, hi = lo-pad, hi+pad
	if w := hi - lo; w < 6 {
		lo, hi = lo-(6-w)/2, hi+(6-w)/2
	}
	return lo, hi
}

// wrapList is prefix and items joined by ", " on lines no wider than
// width in st (an item wider than a line gets a line of its own).
func wrapList(st draw.TextStyle, width vg.Length, prefix string, items []string) []string {
	var lines []string
	line := prefix
	for i, it := range items {
		sep := ""
		if i < len(items)-1 {
			sep = ","
		}
		next := line + it + sep
		if line != prefix && line != "" && st.Width(next) > width {
			lines = append(lines, strings.TrimRight(line, " "))
			next = it + sep
		}
		line = next + " "
	}
	return append(lines, strings.TrimRight(line, " "))
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
