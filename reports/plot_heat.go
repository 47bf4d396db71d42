package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotHeatmap is the base name of a two-dimensional sweep's heatmap.
const PlotHeatmap = "heatmap"

// heatmap draws a two-dimensional grid's heat metric (Grid.Heat), one
// panel per algorithm: rows are the first dimension's values, columns the
// second's; each cell is shaded by its value and says it, with the
// Wilson 95% interval for rates (HeatCells). Nil unless s has a 2-D grid.
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
	rows, cols := len(d[0].Values), len(d[1].Values)
	const cellW, cellH = 1.25 * vg.Inch, 0.55 * vg.Inch
	labelW := vg.Inch * 1.6
	panelH := vg.Length(rows)*cellH + vg.Points(46)
	width := max(labelW+vg.Length(cols)*cellW+vg.Points(24), 8*vg.Inch)
	height := vg.Points(30) + vg.Length(len(algos))*panelH
	title := "Heatmap: " + heatTitle(s.Grid.Heat)
	return &figure{title: title, width: width, height: height, draw: func(c draw.Canvas) {
		ts := textStyle(12)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, title)
		top := c.Max.Y - vg.Points(30)
		small := textStyle(9)
		for k, algo := range algos {
			y0 := top - vg.Length(k)*panelH
			hs := textStyle(10)
			hs.XAlign, hs.YAlign = draw.XLeft, draw.YTop
			head := fmt.Sprintf("%s — rows: %s, columns: %s", algo, d[0].Path, d[1].Path)
			c.FillText(hs, vg.Point{X: c.Min.X + vg.Points(6), Y: y0}, head)
			colY := y0 - vg.Points(16)
			for j, v := range d[1].Values {
				cs := small
				cs.XAlign, cs.YAlign = draw.XCenter, draw.YTop
				c.FillText(cs, vg.Point{X: c.Min.X + labelW + (vg.Length(j)+0.5)*cellW, Y: colY}, v)
			}
			gridTop := colY - vg.Points(14)
			for i, rv := range d[0].Values {
				rs := small
				rs.XAlign, rs.YAlign = draw.XRight, draw.YCenter
				cy := gridTop - (vg.Length(i)+0.5)*cellH
				c.FillText(rs, vg.Point{X: c.Min.X + labelW - vg.Points(6), Y: cy}, rv)
				for j := 0; j < cols; j++ {
					x0 := c.Min.X + labelW + vg.Length(j)*cellW
					yTop := gridTop - vg.Length(i)*cellH
					cell, ok := findHeat(cells, algo, i, j)
					fill := color.RGBA{0xee, 0xee, 0xee, 0xff}
					txt := "n/a"
					if ok && cell.Has {
						fill = heatColor(cell.Value / math.Max(maxVal, 1e-12))
						txt = heatLabel(cell)
					} else if ok {
						txt = "—"
					}
					rect := []vg.Point{{X: x0, Y: yTop}, {X: x0 + cellW, Y: yTop}, {X: x0 + cellW, Y: yTop - cellH}, {X: x0, Y: yTop - cellH}}
					c.FillPolygon(fill, rect)
					c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1.5)}, append(rect, rect[0]))
					ls := small
					ls.XAlign, ls.YAlign = draw.XCenter, draw.YCenter
					if ok && cell.Has && cell.Value/math.Max(maxVal, 1e-12) > 0.55 {
						ls.Color = color.White
					}
					c.FillText(ls, vg.Point{X: x0 + cellW/2, Y: yTop - cellH/2}, txt)
				}
			}
		}
	}}, nil
}

func findHeat(cells []HeatCell, algo string, r, c int) (HeatCell, bool) {
	for _, x := range cells {
		if x.Algorithm == algo && x.Row == r && x.Col == c {
			return x, true
		}
	}
	return HeatCell{}, false
}

// heatLabel is a cell's text: "12% [7–19%]" or "412 ms".
func heatLabel(c HeatCell) string {
	if !c.Rate {
		return fmtMs(c.Value) + " ms"
	}
	return fmt.Sprintf("%.0f%%\n[%.0f–%.0f%%]", 100*c.Value, 100*c.Lo, 100*c.Hi)
}

// heatTitle names a heat metric for a title.
func heatTitle(metric string) string {
	switch metric {
	case "split_brain":
		return "split-brain rate (runs with a split-brain), Wilson 95% intervals"
	case "double_execution":
		return "double-execution rate, Wilson 95% intervals"
	case "failover_p99":
		return "failover latency p99 (ms)"
	}
	return "runs failing the scenario's expectations, Wilson 95% intervals"
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
