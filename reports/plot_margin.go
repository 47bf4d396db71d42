package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MarginStudy is a drift-margin study (simrun margin): per follower clock
// rate, the analytic worst-case overlap and the overlaps simulated.
type MarginStudy struct {
	Scenario string
	Rates    []float64
	BoundMs  []float64   // the analytic worst case per rate
	Overlaps [][]float64 // per rate, every run's longest split-brain overlap (ms; 0: none)
	SafeRate float64     // the largest rate the bound calls safe
	Formula  string
	// Bound, if set, is the analytic worst case (ms) at any rate: the plot
	// draws it as the curve it is between the rates studied. Without it,
	// the line joins BoundMs, bending at SafeRate.
	Bound func(rate float64) float64
}

// PlotMargin is the base name of the margin study's plot.
const PlotMargin = "margin"

// WriteMarginPlot renders m into dir as margin.png and margin.svg: the
// bound as a line over the rates, each run's overlap as a dot, the safe
// rate marked.
func WriteMarginPlot(dir string, m *MarginStudy) error {
	if m == nil || len(m.Rates) == 0 {
		return fmt.Errorf("reports: WriteMarginPlot: no rates")
	}
	p := newPlot(fmt.Sprintf("Drift margin — %s: worst-case overlap (line) and simulated overlaps (dots)", m.Scenario), "follower clock rate (× true time)", "overlap of two leaders (ms)")
	addGrid(p, true, true)
	bound := marginBoundLine(m)
	var dots plotter.XYs
	top := 1.0
	for _, b := range bound {
		top = math.Max(top, b.Y)
	}
	for i, r := range m.Rates {
		for _, o := range m.Overlaps[i] {
			dots = append(dots, plotter.XY{X: r, Y: o})
			top = math.Max(top, o)
		}
	}
	line, err := plotter.NewLine(bound)
	if err != nil {
		return err
	}
	line.Color, line.Width = algoColor(0), vg.Points(2)
	p.Add(line)
	p.Legend.Add("analytic bound: "+m.Formula, line)
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: alpha(algoColor(3), 0.55), Radius: vg.Points(2.4), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add("simulated: longest overlap of a run", sc)
	}
	if m.SafeRate > 0 && !math.IsInf(m.SafeRate, 0) {
		safe, err := plotter.NewLine(plotter.XYs{{X: m.SafeRate, Y: 0}, {X: m.SafeRate, Y: top * 1.05}})
		if err != nil {
			return err
		}
		safe.Color, safe.Dashes = color.RGBA{0x59, 0xa1, 0x4f, 0xff}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(safe)
		p.Legend.Add(fmt.Sprintf("safe up to %.3f× (bound)", m.SafeRate), safe)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle = textStyle(9)
	p.Y.Min, p.Y.Max = 0, top*1.1
	p.X.Min, p.X.Max = m.Rates[0]-0.05, m.Rates[len(m.Rates)-1]+0.05
	fig := single(p.Title.Text, p, plotWidth, 4.4*vg.Inch)
	png, svg, err := fig.render()
	if err != nil {
		return err
	}
	b := newBatch(dir)
	defer b.abort()
	if err := b.add(PlotMargin+".png", png); err != nil {
		return err
	}
	if err := b.add(PlotMargin+".svg", svg); err != nil {
		return err
	}
	return b.commit()
}

// marginCurvePoints is how many points draw the bound's curve between the
// first and the last rate when the study has it (MarginStudy.Bound).
const marginCurvePoints = 200

// MarginBoundRates are the rates, sorted, at which the plot draws the
// analytic bound of a study of rates with safe rate safe: the rates, the
// safe rate when it lies between them and, with curve (MarginStudy.Bound
// set), marginCurvePoints+1 more between the first rate and the last.
// MarginStudy.Bound is asked at exactly these (simrun computes a user
// algorithm's bound in a worker process, at these rates, beforehand).
func MarginBoundRates(rates []float64, safe float64, curve bool) []float64 {
	first, last := rates[0], rates[len(rates)-1]
	xs := append([]float64(nil), rates...)
	if curve {
		for i := range marginCurvePoints + 1 {
			xs = append(xs, first+(last-first)*float64(i)/marginCurvePoints)
		}
	}
	if safe > first && safe < last && !math.IsInf(safe, 0) {
		xs = append(xs, safe)
	}
	sort.Float64s(xs)
	return slices.Compact(xs)
}

// marginBoundLine is the analytic bound as drawn: zero up to the safe rate
// and rising only past it. Joining the bound at the rates studied alone
// drew a line rising from the last safe rate (1.2×, 0 ms) to the first
// unsafe one (1.3×, 468 ms), through the safe rate (1.249×) and above
// zero before it; the safe rate is a point of the line, and with
// MarginStudy.Bound the curve is drawn between the rates rather than
// chords under it.
func marginBoundLine(m *MarginStudy) plotter.XYs {
	first, last := m.Rates[0], m.Rates[len(m.Rates)-1]
	safe := m.SafeRate > first && m.SafeRate < last && !math.IsInf(m.SafeRate, 0)
	xs := MarginBoundRates(m.Rates, m.SafeRate, m.Bound != nil)
	var pts plotter.XYs
	for _, x := range xs {
		var y float64
		switch i := slices.Index(m.Rates, x); {
		case m.Bound != nil:
			y = m.Bound(x)
		case i >= 0:
			y = m.BoundMs[i]
		case safe && x == m.SafeRate:
			y = 0
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
	}
	return pts
}
