package reports

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot implements plot.Plotter: it paints the timeline's layers from the
// back to the front, each later one over the earlier ones.
func (t *timelinePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	d := &tlDrawing{t: t, c: &c, trX: trX, trY: trY, top: float64(len(t.names)) - 0.5}
	d.settle()
	d.faults()
	d.overlaps()
	d.tenures()
	d.execs()
	d.writes()
	d.faultLabels()
}

// tlDrawing is one painting of a timeline: the canvas and the transforms
// from data (x in t.scale units, y in rows) to it.
type tlDrawing struct {
	t        *timelinePlotter
	c        *draw.Canvas
	trX, trY func(float64) vg.Length
	top      float64 // the top edge of the top row
}

// rect is the box from x0 to x1 ms and rows y0 to y1 on the canvas. A
// span still open when the run ended reaches the end, and an instant is
// drawn a point wide so it stays visible.
func (d *tlDrawing) rect(x0, x1, y0, y1 float64) []vg.Point {
	t := d.t
	if !finite(x1) || x1 < x0 { // still open when the run ended
		x1 = t.endMs
	}
	X0, X1 := d.trX(x0/t.scale), d.trX(x1/t.scale)
	if X1-X0 < 1 { // keep instants visible
		X1 = X0 + 1
	}
	Y0, Y1 := d.trY(y0), d.trY(y1)
	return []vg.Point{{X: X0, Y: Y0}, {X: X1, Y: Y0}, {X: X1, Y: Y1}, {X: X0, Y: Y1}}
}

// settle paints the settle phase as the backdrop.
func (d *tlDrawing) settle() {
	t, c := d.t, d.c
	if t.tl.SettleMs > 0 && t.tl.SettleMs < t.endMs {
		c.FillPolygon(settleFill, c.ClipPolygonXY(d.rect(t.tl.SettleMs, t.endMs, -0.5, d.top)))
	}
}

// faults paints each fault on its own node's row (cluster-wide ones on
// every row), in its kind's colour, with an edge where it starts.
func (d *tlDrawing) faults() {
	c := d.c
	for _, f := range d.t.tl.Faults {
		y0, y1 := -0.5, d.top
		if f.Node != "" {
			y := d.t.y(f.Node)
			y0, y1 = y-tlBandHalf, y+tlBandHalf
		}
		pts := d.rect(f.FromMs, f.ToMs, y0, y1)
		c.FillPolygon(faultKindFill(f.Kind), c.ClipPolygonXY(pts))
		c.StrokeLines(draw.LineStyle{Color: opaque(faultKindFill(f.Kind)), Width: vg.Points(0.8)}, c.ClipLinesXY([]vg.Point{pts[0], pts[3]})...)
	}
}

// overlaps paints split-brain overlaps: an amber band around the tenure
// bars involved.
func (d *tlDrawing) overlaps() {
	c := d.c
	for _, o := range d.t.tl.Overlaps {
		y := d.t.y(o.Node)
		pts := d.rect(o.FromMs, o.ToMs, y+tlBarLo-0.1, y+tlBarHi+0.1)
		c.FillPolygon(overlapFill, c.ClipPolygonXY(pts))
		c.StrokeLines(draw.LineStyle{Color: overlapEdge, Width: vg.Points(1)}, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// tenures paints the leaders' tenures, labelled with their epoch where
// the bar is wide enough.
func (d *tlDrawing) tenures() {
	c := d.c
	label := textStyle(8)
	label.Color = color.White
	label.XAlign, label.YAlign = draw.XCenter, draw.YCenter
	barEdge := draw.LineStyle{Color: tenureEdge, Width: vg.Points(0.5)}
	for _, sp := range d.t.tl.Tenures {
		y := d.t.y(sp.Node)
		pts := d.rect(sp.FromMs, sp.ToMs, y+tlBarLo, y+tlBarHi)
		c.FillPolygon(tenureFill, c.ClipPolygonXY(pts))
		c.StrokeLines(barEdge, c.ClipLinesXY(append(pts, pts[0]))...)
		if sp.Label != "" && pts[1].X-pts[0].X > label.Width(sp.Label)+4 {
			mid := vg.Point{X: (pts[0].X + pts[1].X) / 2, Y: d.trY(y + (tlBarLo+tlBarHi)/2)}
			if c.Contains(mid) {
				c.FillText(label, mid, sp.Label)
			}
		}
	}
}

// execs paints queue mode's executions, under the writes they made.
func (d *tlDrawing) execs() {
	c := d.c
	for _, sp := range d.t.tl.Execs {
		y := d.t.y(sp.Node)
		pts := d.rect(sp.FromMs, sp.ToMs, y+tlWriteY-tlExecHalf, y+tlWriteY+tlExecHalf)
		c.FillPolygon(execFill(sp.Kind), c.ClipPolygonXY(pts))
	}
}

// writes marks the cron writes on top of everything on the rows.
func (d *tlDrawing) writes() {
	t := d.t
	for _, m := range t.tl.Writes {
		pt := vg.Point{X: d.trX(m.AtMs / t.scale), Y: d.trY(t.y(m.Node) + tlWriteY)}
		if !d.c.Contains(pt) {
			continue
		}
		if m.Double {
			drawDoubleMark(d.c, pt)
			continue
		}
		drawWriteMark(d.c, pt, m.Accepted)
	}
}

// faultLabels writes the faults' labels (and the settle phase's) in the
// lane above the rows, in two levels, skipping any that would overlap
// the previous label of their level.
func (d *tlDrawing) faultLabels() {
	t, c := d.t, d.c
	fl := textStyle(8)
	fl.Color = faultInk
	fl.XAlign, fl.YAlign = draw.XLeft, draw.YBottom
	laneY := d.trY(d.top) + 3
	var levelEnd [2]vg.Length
	for i := range levelEnd {
		levelEnd[i] = c.Min.X - 1
	}
	labels := append([]Span(nil), t.tl.Faults...)
	if t.tl.SettleMs > 0 && t.tl.SettleMs < t.endMs {
		labels = append(labels, Span{FromMs: t.tl.SettleMs, Label: "settle"})
	}
	for _, f := range labels {
		label := faultLabel(f)
		if label == "" {
			continue
		}
		x := d.trX(f.FromMs / t.scale)
		w := fl.Width(label)
		if x+w > c.Max.X {
			x = c.Max.X - w
		}
		for lv := range levelEnd {
			if x > levelEnd[lv]+3 {
				c.FillText(fl, vg.Point{X: x, Y: laneY + vg.Length(lv)*vg.Points(10)}, label)
				levelEnd[lv] = x + w
				break
			}
		}
	}
}
