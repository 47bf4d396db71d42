package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxBoxes is the most groups the failover box plot draws.
const MaxBoxes = 40

// failoverBox is a horizontal box plot of completed failover latencies per
// algorithm (Tukey: box = quartiles, whiskers = 1.5 IQR, dots = outliers),
// latency on x like the CDF so the two read together. The first algorithm is
// on top.
func failoverBox(s *Summary, algos []string) (*figure, error) {
	lat := failoverLatencies(s, algos)
	var shown []int
	for i := range algos {
		if len(lat[i].vals) > 0 {
			shown = append(shown, i)
		}
	}
	if len(shown) == 0 {
		return nil, nil
	}
	title := "Failover latency per algorithm"
	if s.Grid != nil {
		title = "Failover latency per group" // a -vary sweep's groups are its cells
	}
	// A box per group of a big grid made a figure (and an image in
	// memory) as tall as the grid: past MaxBoxes, boxes at evenly spaced
	// ranks, and the title says so.
	if all := len(shown); all > MaxBoxes {
		kept := make([]int, MaxBoxes)
		for k := range kept {
			kept[k] = shown[k*(all-1)/(MaxBoxes-1)]
		}
		shown = kept
		title = fmt.Sprintf("Failover latency per group (%d of %d, evenly spaced)", MaxBoxes, all)
	}
	title += noFailoverNote(noFailover(algos, lat))
	ax := newLatencyAxis(lat)
	p := newPlot(title, ax.label, "")
	addGrid(p, true, false)
	names := make([]string, len(shown))
	for k, i := range shown {
		loc := float64(len(shown) - 1 - k)
		box, err := plotter.NewBoxPlot(vg.Points(22), loc, plotter.Values(lat[i].vals))
		if err != nil {
			return nil, err
		}
		box.Horizontal = true
		if ax.log {
			logFences(box)
		}
		c := algoColor(i)
		box.FillColor = alpha(c, 0.35)
		box.BoxStyle = draw.LineStyle{Color: c, Width: vg.Points(1.2)}
		box.MedianStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(2)}
		box.WhiskerStyle = draw.LineStyle{Color: c, Width: vg.Points(1)}
		box.GlyphStyle = draw.GlyphStyle{Color: alpha(c, 0.6), Radius: vg.Points(1.8), Shape: draw.RingGlyph{}}
		p.Add(box)
		names[len(shown)-1-k] = fmt.Sprintf("%s\nn=%d", algos[i], lat[i].n())
	}
	ax.apply(p)
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	h := vg.Length(len(shown))*0.55*vg.Inch + 1.1*vg.Inch
	return single(p.Title.Text, p, plotWidth, h), nil
}

// logFences redraws b's whiskers for a logarithmic axis: Tukey's fences
// (1.5 IQR beyond the quartiles) taken on log latency, so the whiskers are
// as long as the box they stand beside looks, and the outliers are the
// points far from it on the scale the reader sees. gonum's fences are
// linear: on a log axis they leave the low whisker stubby and call the
// upper tail of a long-tailed sample normal.
func logFences(b *plotter.BoxPlot) {
	if b.Quartile1 <= 0 || b.Quartile3 <= 0 {
		return // a zero latency: no log fences
	}
	l1, l3 := math.Log10(b.Quartile1), math.Log10(b.Quartile3)
	lowF, highF := math.Pow(10, l1-1.5*(l3-l1)), math.Pow(10, l3+1.5*(l3-l1))
	b.AdjLow, b.AdjHigh = b.Quartile1, b.Quartile3
	b.Outside = b.Outside[:0]
	for i, v := range b.Values {
		switch {
		case v < lowF || v > highF:
			b.Outside = append(b.Outside, i)
		case v < b.AdjLow:
			b.AdjLow = v
		case v > b.AdjHigh:
			b.AdjHigh = v
		}
	}
}
