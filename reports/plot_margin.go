package reports

import (
	"fmt"
	"image/color"
	"math"

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
	bound := make(plotter.XYs, len(m.Rates))
	var dots plotter.XYs
	top := 1.0
	for i, r := range m.Rates {
		bound[i] = plotter.XY{X: r, Y: m.BoundMs[i]}
		top = math.Max(top, m.BoundMs[i])
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
