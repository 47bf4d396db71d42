package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotHeatmap is the base name of a two-dimensional sweep's heatmap.
const PlotHeatmap = "heatmap"

// heatmap draws a two-dimensional grid's heat metric (Grid.Heat), one
// panel per algorithm: rows are the first dimension's values, columns the
// second's; each cell is shaded by its value and says it, with the
// Wilson 95% interval for rates (HeatCells). The panels sit side by side
// as far as the canvas allows and their cells widen to fill it; a colour
// bar on the right reads the shades. Nil unless s has a 2-D grid.
func heatmap(s *Summary) (*figure, error) {
	cells := s.HeatCells()
	if len(cells) == 0 {
		return nil, nil
	}
	d := s.Grid.Dims
	var algos []string
	maxVal := 0.0
	for _, c := range cells {
		if !slices.Contains(algos, c.Algorithm) {
			algos = append(algos, c.Algorithm)
		}
		if c.Has {
			maxVal = math.Max(maxVal, c.Value)
		}
	}
	rate := cells[0].Rate
	if rate {
		maxVal = 1
	}
	maxVal = math.Max(maxVal, 1e-12)
	l := newHeatLayout(len(algos), d[0].Values, len(d[1].Values))
	title := "Heatmap: " + heatTitle(s.Grid.Heat)
	sub := fmt.Sprintf("rows: %s · columns: %s", d[0].Path, d[1].Path)
	small := textStyle(9)
	return &figure{title: title, width: l.width, height: l.height, draw: func(c draw.Canvas) {
		ts := textStyle(12)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, title)
		ss := textStyle(10)
		ss.XAlign, ss.YAlign = draw.XCenter, draw.YTop
		c.FillText(ss, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(22)}, sub)
		for k, algo := range algos {
			g := l.panels[k]
			hs := textStyle(10)
			hs.XAlign, hs.YAlign = draw.XLeft, draw.YBottom
			c.FillText(hs, vg.Point{X: g.Min.X - l.labelW, Y: g.Max.Y + vg.Points(18)}, algo)
			for j, v := range d[1].Values {
				cs := small
				cs.XAlign, cs.YAlign = draw.XCenter, draw.YBottom
				c.FillText(cs, vg.Point{X: g.Min.X + (vg.Length(j)+0.5)*l.cellW, Y: g.Max.Y + vg.Points(4)}, v)
			}
			for i, rv := range d[0].Values {
				rs := small
				rs.XAlign, rs.YAlign = draw.XRight, draw.YCenter
				yTop := g.Max.Y - vg.Length(i)*l.cellH
				c.FillText(rs, vg.Point{X: g.Min.X - vg.Points(6), Y: yTop - l.cellH/2}, rv)
				for j := range d[1].Values {
					x0 := g.Min.X + vg.Length(j)*l.cellW
					cell, ok := findHeat(cells, algo, i, j)
					fill := color.RGBA{0xee, 0xee, 0xee, 0xff}
					txt := "n/a"
					if ok && cell.Has {
						fill = heatColor(cell.Value / maxVal)
						txt = heatLabel(cell)
					} else if ok {
						txt = "—"
					}
					rect := []vg.Point{{X: x0, Y: yTop}, {X: x0 + l.cellW, Y: yTop}, {X: x0 + l.cellW, Y: yTop - l.cellH}, {X: x0, Y: yTop - l.cellH}}
					c.FillPolygon(fill, rect)
					c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1.5)}, append(rect, rect[0]))
					ls := small
					ls.XAlign, ls.YAlign = draw.XCenter, draw.YCenter
					if ok && cell.Has && cell.Value/maxVal > 0.55 {
						ls.Color = color.White
					}
					if ls.Width(txt) > l.cellW-vg.Points(8) {
						txt = strings.Replace(txt, " [", "\n[", 1)
					}
					c.FillText(ls, vg.Point{X: x0 + l.cellW/2, Y: yTop - l.cellH/2}, txt)
				}
			}
		}
		drawColourBar(c, l.bar, rate, maxVal)
	}}, nil
}

// heatLayout places a heatmap: the canvas size, each algorithm's grid of
// cells, the cells' size, the room for row labels left of a grid, and the
// colour bar.
type heatLayout struct {
	width, height vg.Length
	panels        []vg.Rectangle
	cellW, cellH  vg.Length
	labelW        vg.Length
	bar           vg.Rectangle
}

// Heatmap proportions: a cell's least width and its height range, the
// gap between panels, the colour bar's column and the space above the
// panels (title and subtitle) and above each grid (its algorithm and the
// column values).
const (
	heatCellMinW  = 1.25 * vg.Inch
	heatCellMinH  = 0.55 * vg.Inch
	heatCellMaxH  = 0.8 * vg.Inch
	heatGap       = 0.35 * vg.Inch
	heatBarArea   = 1.1 * vg.Inch
	heatTop       = 40
	heatPanelHead = 36
)

// newHeatLayout lays out n panels of len(rows) × cols cells on a canvas
// plotWidth wide (wider only when one panel's cells cannot fit): as many
// panels side by side as fit at the least cell width, then the cells
// widened until the panels fill the width left of the colour bar.
func newHeatLayout(n int, rows []string, cols int) heatLayout {
	var l heatLayout
	st := textStyle(9)
	for _, r := range rows {
		l.labelW = max(l.labelW, st.Width(r))
	}
	l.labelW = max(l.labelW+vg.Points(12), 0.4*vg.Inch)
	const margin = 12
	natural := l.labelW + vg.Length(cols)*heatCellMinW
	l.width = max(plotWidth, natural+heatBarArea+2*vg.Points(margin))
	content := l.width - heatBarArea - 2*vg.Points(margin)
	perRow := min(max(int((content+heatGap)/(natural+heatGap)), 1), n)
	panelW := (content - vg.Length(perRow-1)*heatGap) / vg.Length(perRow)
	l.cellW = (panelW - l.labelW) / vg.Length(cols)
	l.cellH = min(max(l.cellW*0.4, heatCellMinH), heatCellMaxH)
	panelH := vg.Points(heatPanelHead) + vg.Length(len(rows))*l.cellH + vg.Points(14)
	rowsOfPanels := (n + perRow - 1) / perRow
	l.height = vg.Points(heatTop) + vg.Length(rowsOfPanels)*panelH
	for k := range n {
		r, c := k/perRow, k%perRow
		x0 := vg.Points(margin) + vg.Length(c)*(panelW+heatGap) + l.labelW
		yTop := l.height - vg.Points(heatTop) - vg.Length(r)*panelH - vg.Points(heatPanelHead)
		l.panels = append(l.panels, vg.Rectangle{
			Min: vg.Point{X: x0, Y: yTop - vg.Length(len(rows))*l.cellH},
			Max: vg.Point{X: x0 + vg.Length(cols)*l.cellW, Y: yTop}})
	}
	// The bar spans the first row of panels' grids, at least 1.5 inches.
	top := l.panels[0].Max.Y
	bottom := min(l.panels[0].Min.Y, top-1.5*vg.Inch)
	x := l.width - heatBarArea + 0.3*vg.Inch
	l.bar = vg.Rectangle{Min: vg.Point{X: x, Y: max(bottom, vg.Points(8))}, Max: vg.Point{X: x + 0.22*vg.Inch, Y: top}}
	return l
}

// drawColourBar draws the heat scale in r, 0 at the bottom to maxVal at
// the top, with ticks labelled in percent for a rate, else in ms.
func drawColourBar(c draw.Canvas, r vg.Rectangle, rate bool, maxVal float64) {
	const steps = 64
	h := r.Max.Y - r.Min.Y
	for i := range steps {
		y0 := r.Min.Y + h*vg.Length(i)/steps
		y1 := r.Min.Y + h*vg.Length(i+1)/steps
		if i < steps-1 {
			y1 += vg.Points(0.5) // overlap the next step: no seam of background between them
		}
		c.FillPolygon(heatColor((float64(i)+0.5)/steps), []vg.Point{{X: r.Min.X, Y: y0}, {X: r.Max.X, Y: y0}, {X: r.Max.X, Y: y1}, {X: r.Min.X, Y: y1}})
	}
	c.StrokeLines(draw.LineStyle{Color: inkColor, Width: vg.Points(0.5)},
		[]vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
	ts := textStyle(8.5)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	for _, t := range colourBarTicks(rate, maxVal) {
		y := r.Min.Y + h*vg.Length(t.Value/maxVal)
		c.StrokeLine2(draw.LineStyle{Color: inkColor, Width: vg.Points(0.5)}, r.Max.X, y, r.Max.X+vg.Points(3), y)
		c.FillText(ts, vg.Point{X: r.Max.X + vg.Points(5), Y: y}, t.Label)
	}
}

// colourBarTicks are the colour bar's labelled values: quarters in
// percent for a rate, else nice steps of milliseconds up to maxVal.
func colourBarTicks(rate bool, maxVal float64) []plot.Tick {
	if rate {
		return []plot.Tick{{Value: 0, Label: "0%"}, {Value: 0.25, Label: "25%"}, {Value: 0.5, Label: "50%"}, {Value: 0.75, Label: "75%"}, {Value: 1, Label: "100%"}}
	}
	var out []plot.Tick
	for _, t := range (niceTicks{Target: 5}).Ticks(0, maxVal) {
		if t.Label != "" && t.Value <= maxVal {
			out = append(out, plot.Tick{Value: t.Value, Label: t.Label + " ms"})
		}
	}
	return out
}

func findHeat(cells []HeatCell, algo string, r, c int) (HeatCell, bool) {
	for _, x := range cells {
		if x.Algorithm == algo && x.Row == r && x.Col == c {
			return x, true
		}
	}
	return HeatCell{}, false
}

// heatLabel is a cell's text: the rate and its interval in percent to
// one decimal, "1.5% [0.5–4.3]" (whole percents said 3 of 200 runs were
// "2% [1–4%]"), or the p99, "412 ms".
func heatLabel(c HeatCell) string {
	if !c.Rate {
		return fmtMs(c.Value) + " ms"
	}
	return fmt.Sprintf("%.1f%% [%.1f–%.1f]", 100*c.Value, 100*c.Lo, 100*c.Hi)
}

// heatTitle names a heat metric for a title.
func heatTitle(metric string) string {
	switch metric {
	case "failover_p99":
		return "failover latency p99 (ms)"
	case "failed", "auto", "":
		return "runs failing the scenario's expectations, Wilson 95% intervals"
	}
	return "runs with a " + metric + " finding (harmful or harmless), Wilson 95% intervals"
}

// heatColor maps 0..1 to a sequential white → orange → dark red scale.
func heatColor(x float64) color.RGBA {
	x = math.Max(0, math.Min(1, x))
	stops := []color.RGBA{{0xff, 0xf7, 0xec, 0xff}, {0xfc, 0x8d, 0x59, 0xff}, {0xb3, 0x00, 0x00, 0xff}}
	seg := x * float64(len(stops)-1)
	i := int(math.Min(seg, float64(len(stops)-2)))
	f := seg - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(float64(p) + f*(float64(q)-float64(p)) + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}
