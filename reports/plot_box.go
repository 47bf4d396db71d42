package reports

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// failoverBox is a horizontal box plot of completed failover latencies per
// algorithm (Tukey: box = quartiles, whiskers = 1.5 IQR, dots = outliers),
// latency on x like the CDF so the two read together. The first algorithm is
// on top.
func failoverBox(s *Summary, algos []string) (*figure, error) {
	lat, _ := failoverLatencies(s, algos)
	var shown []int
	for i := range algos {
		if len(lat[i]) > 0 {
			shown = append(shown, i)
		}
	}
	if len(shown) == 0 {
		return nil, nil
	}
	ax := newLatencyAxis(lat)
	p := newPlot("Failover latency per algorithm", ax.label, "")
	addGrid(p, true, false)
	names := make([]string, len(shown))
	for k, i := range shown {
		loc := float64(len(shown) - 1 - k)
		box, err := plotter.NewBoxPlot(vg.Points(22), loc, plotter.Values(lat[i]))
		if err != nil {
			return nil, err
		}
		box.Horizontal = true
		c := algoColor(i)
		box.FillColor = alpha(c, 0.35)
		box.BoxStyle = draw.LineStyle{Color: c, Width: vg.Points(1.2)}
		box.MedianStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(2)}
		box.WhiskerStyle = draw.LineStyle{Color: c, Width: vg.Points(1)}
		box.GlyphStyle = draw.GlyphStyle{Color: alpha(c, 0.6), Radius: vg.Points(1.8), Shape: draw.RingGlyph{}}
		p.Add(box)
		names[len(shown)-1-k] = fmt.Sprintf("%s\nn=%d", algos[i], len(lat[i]))
	}
	ax.apply(p)
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(10)
	h := vg.Length(len(shown))*0.55*vg.Inch + 1.1*vg.Inch
	return single(p.Title.Text, p, plotWidth, h), nil
}
