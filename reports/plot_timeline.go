package reports

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Timeline geometry, in points (1/72 in).
const (
	tlRowPt  = 32.0 // one node's row
	tlLanePt = 24.0 // the lane above the rows where fault labels go
)

// A row, in rows from its centre: the tenure bar sits a little high and the
// writes run under it, so write marks never hide the bar's epoch label.
const (
	tlBarLo    = -0.06
	tlBarHi    = 0.34
	tlWriteY   = -0.26
	tlBandHalf = 0.47 // half a node fault's shaded band
)

var (
	tenureFill     = color.RGBA{0x4e, 0x79, 0xa7, 0xff}
	tenureEdge     = color.RGBA{0x2c, 0x4a, 0x6e, 0xff}
	faultFill      = color.RGBA{0xf0, 0xb4, 0xb4, 0xff}
	faultInk       = color.RGBA{0x9a, 0x2a, 0x2a, 0xff}
	writeOKColor   = color.RGBA{0x2e, 0x8b, 0x3e, 0xff}
	writeBadColor  = color.RGBA{0xd6, 0x1f, 0x1f, 0xff}
	writeTwice     = color.RGBA{0xe0, 0x7b, 0x00, 0xff}
	settleFill     = color.RGBA{0xee, 0xee, 0xf2, 0xff}
	overlapFill    = color.NRGBA{0xff, 0xc1, 0x07, 0x90}
	overlapEdge    = color.RGBA{0xb8, 0x86, 0x00, 0xff}
	faultKindOrder = []string{"pause", "down", "partition", "clock", "link", "store", "disk", "resign"}
)

// faultKindFill is a fault kind's band colour, translucent (not
// premultiplied) so that two faults on one node both show.
func faultKindFill(kind string) color.NRGBA {
	switch kind {
	case "pause":
		return color.NRGBA{0xf2, 0x8e, 0x2b, 0x80}
	case "down", "resign":
		return color.NRGBA{0x79, 0x70, 0x6e, 0x80}
	case "partition":
		return color.NRGBA{0xe1, 0x57, 0x59, 0x70}
	case "clock":
		return color.NRGBA{0xb0, 0x7a, 0xa1, 0x80}
	case "link":
		return color.NRGBA{0xed, 0xc9, 0x48, 0x90}
	case "store":
		return color.NRGBA{0x76, 0xb7, 0xb2, 0x90}
	case "disk":
		return color.NRGBA{0x9c, 0x75, 0x5f, 0x80}
	}
	return color.NRGBA{faultFill.R, faultFill.G, faultFill.B, 0xa0}
}

// timelinePlot draws tl: one row per node (first on top) with its
// leadership tenures as bars labelled with their epoch, faults shaded (a
// node's row, or every row for cluster-wide faults) and labelled in a lane
// on top, cron writes at the resource marked on the writer's row (● accepted,
// ✕ rejected). Nodes that only the spans name get rows after tl.Nodes.
func timelinePlot(tl *Timeline) (*figure, error) {
	t := &timelinePlotter{tl: tl, row: map[string]int{}, scale: 1}
	addRow := func(n string) {
		if n == "" {
			return
		}
		if _, ok := t.row[n]; !ok {
			t.row[n] = len(t.names)
			t.names = append(t.names, n)
		}
	}
	for _, n := range tl.Nodes {
		addRow(n)
	}
	for _, sp := range tl.Tenures {
		addRow(sp.Node)
	}
	for _, sp := range tl.Faults {
		addRow(sp.Node)
	}
	for _, m := range tl.Writes {
		addRow(m.Node)
	}
	for _, sp := range tl.Execs {
		addRow(sp.Node)
	}
	if len(t.names) == 0 {
		return nil, nil
	}
	end := 0.0
	if finite(tl.EndMs) {
		end = tl.EndMs
	}
	for _, sp := range append(append([]Span(nil), tl.Tenures...), tl.Faults...) {
		if finite(sp.ToMs) {
			end = max(end, sp.ToMs)
		}
	}
	for _, m := range tl.Writes {
		if finite(m.AtMs) {
			end = max(end, m.AtMs)
		}
	}
	if end <= 0 {
		return nil, nil
	}
	t.endMs = end
	var xLabel string
	t.scale, xLabel = timeUnit(end)
	p := newPlot("", xLabel, "")
	addGrid(p, true, false)
	p.Add(t)
	// Rows are drawn at y = n-1 … 0, so the first node is on top; the lane
	// above them holds the fault labels.
	n := len(t.names)
	names := make([]string, n)
	for i, name := range t.names {
		names[n-1-i] = name
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = vg.Points(10.5)
	p.X.Min, p.X.Max = 0, end/t.scale
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5+tlLanePt/tlRowPt
	p.X.Padding, p.Y.Padding = 0, 0

	title := "Leadership timeline"
	if tl.Title != "" {
		title += " — " + tl.Title
	}
	const titlePt, legendPt = 24.0, 20.0
	faultItems := faultLegend(tl)
	if ex := execLegend(tl); len(ex) > 0 {
		if len(faultItems) > 0 {
			faultItems = append(faultItems, legendItem{"executions:", func(*draw.Canvas, vg.Point) {}})
		}
		faultItems = append(faultItems, ex...)
	}
	legends := 1.0
	if len(faultItems) > 0 {
		legends = 2
	}
	h := vg.Points(float64(n)*tlRowPt + tlLanePt + titlePt + legends*legendPt + 48)
	return &figure{title: title, width: plotWidth, height: h, draw: func(c draw.Canvas) {
		ts := textStyle(13)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, title)
		drawLegendRow(c, c.Max.Y-vg.Points(titlePt+legendPt/2), timelineLegend)
		if len(faultItems) > 0 {
			drawLegendRow(c, c.Max.Y-vg.Points(titlePt+legendPt*1.5), append([]legendItem{{"faults:", func(*draw.Canvas, vg.Point) {}}}, faultItems...))
		}
		p.Draw(draw.Crop(c, 6, -8, 0, -vg.Points(titlePt+legends*legendPt)))
	}}, nil
}

// timelinePlotter is the timeline's data layer.
type timelinePlotter struct {
	tl    *Timeline
	names []string
	row   map[string]int
	endMs float64
	scale float64 // ms per x unit
}

// DataRange implements plot.DataRanger.
func (t *timelinePlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, t.endMs / t.scale, -0.5, float64(len(t.names)) - 0.5
}

// y is the centre of node's row.
func (t *timelinePlotter) y(node string) float64 { return float64(len(t.names) - 1 - t.row[node]) }

// faultLabel is f's label for the lane above the rows, which is away from
// the node's row: it names the node unless the label already does.
func faultLabel(f Span) string {
	if f.Label == "" || f.Node == "" || strings.Contains(f.Label, f.Node) {
		return f.Label
	}
	return f.Node + ": " + f.Label
}

// opaque is c without its transparency.
func opaque(c color.NRGBA) color.NRGBA {
	c.A = 0xff
	return c
}

// drawDoubleMark draws an accepted write of a slot that ran twice: an
// orange diamond.
func drawDoubleMark(c *draw.Canvas, pt vg.Point) {
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: color.White, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}, pt)
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: writeTwice, Radius: vg.Points(4), Shape: draw.PyramidGlyph{}}, pt)
}

// drawWriteMark draws a cron write: a green dot if the resource accepted it,
// a red cross if it rejected it.
func drawWriteMark(c *draw.Canvas, pt vg.Point, accepted bool) {
	if accepted {
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: color.White, Radius: vg.Points(3.4), Shape: draw.CircleGlyph{}}, pt)
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: writeOKColor, Radius: vg.Points(2.6), Shape: draw.CircleGlyph{}}, pt)
		return
	}
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: color.White, Radius: vg.Points(4.2), Shape: draw.CircleGlyph{}}, pt)
	r := vg.Points(3)
	sty := draw.LineStyle{Color: writeBadColor, Width: vg.Points(1.6)}
	c.StrokeLine2(sty, pt.X-r, pt.Y-r, pt.X+r, pt.Y+r)
	c.StrokeLine2(sty, pt.X-r, pt.Y+r, pt.X+r, pt.Y-r)
}

// legendItem is one entry of a horizontal legend: a symbol and a label.
type legendItem struct {
	label  string
	symbol func(c *draw.Canvas, at vg.Point)
}

var timelineLegend = []legendItem{
	{"leader (label: epoch)", func(c *draw.Canvas, at vg.Point) {
		pts := boxAround(at, 9, 4)
		c.FillPolygon(tenureFill, pts)
	}},
	{"split-brain overlap", func(c *draw.Canvas, at vg.Point) {
		pts := boxAround(at, 9, 6)
		c.FillPolygon(overlapFill, pts)
		c.StrokeLines(draw.LineStyle{Color: overlapEdge, Width: vg.Points(1)}, append(pts, pts[0]))
	}},
	{"settle phase", func(c *draw.Canvas, at vg.Point) { c.FillPolygon(settleFill, boxAround(at, 9, 6)) }},
	{"cron write accepted", func(c *draw.Canvas, at vg.Point) { drawWriteMark(c, at, true) }},
	{"rejected (fenced)", func(c *draw.Canvas, at vg.Point) { drawWriteMark(c, at, false) }},
	{"slot run twice", func(c *draw.Canvas, at vg.Point) { drawDoubleMark(c, at) }},
}

// tlExecHalf is half the height of an execution's bar.
const tlExecHalf = 0.1

var (
	execColor      = color.RGBA{0x76, 0xb7, 0xb2, 0xff}
	execRedelColor = color.RGBA{0xe0, 0x7b, 0x00, 0xff}
)

// execFill is an execution bar's colour: teal, or orange for a run whose
// message the queue delivered again while it ran.
func execFill(kind string) color.RGBA {
	if kind == "redelivered" {
		return execRedelColor
	}
	return execColor
}

// execLegend is the legend entries of queue mode's executions, if the
// timeline shows any.
func execLegend(tl *Timeline) []legendItem {
	if len(tl.Execs) == 0 {
		return nil
	}
	items := []legendItem{{"execution (worker)", func(c *draw.Canvas, at vg.Point) { c.FillPolygon(execColor, boxAround(at, 9, 3)) }}}
	for _, sp := range tl.Execs {
		if sp.Kind == "redelivered" {
			return append(items, legendItem{"its message delivered again", func(c *draw.Canvas, at vg.Point) { c.FillPolygon(execRedelColor, boxAround(at, 9, 3)) }})
		}
	}
	return items
}

// faultLegend is a legend entry per fault kind the timeline shows.
func faultLegend(tl *Timeline) []legendItem {
	var items []legendItem
	for _, k := range faultKindOrder {
		for _, f := range tl.Faults {
			if f.Kind == k {
				fill := faultKindFill(k)
				items = append(items, legendItem{k, func(c *draw.Canvas, at vg.Point) { c.FillPolygon(fill, boxAround(at, 9, 6)) }})
				break
			}
		}
	}
	return items
}

// boxAround is a rectangle of half-width hw and half-height hh points
// centred on at, counter-clockwise from the bottom left.
func boxAround(at vg.Point, hw, hh float64) []vg.Point {
	w, h := vg.Points(hw), vg.Points(hh)
	return []vg.Point{{X: at.X - w, Y: at.Y - h}, {X: at.X + w, Y: at.Y - h}, {X: at.X + w, Y: at.Y + h}, {X: at.X - w, Y: at.Y + h}}
}

// drawLegendRow draws items side by side, centred horizontally on c, with
// their symbols' centres at height y.
func drawLegendRow(c draw.Canvas, y vg.Length, items []legendItem) {
	ts := textStyle(9.5)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	const symW, gap, between = 20.0, 5.0, 22.0
	total := vg.Length(0)
	for i, it := range items {
		total += vg.Points(symW+gap) + ts.Width(it.label)
		if i > 0 {
			total += vg.Points(between)
		}
	}
	x := (c.Min.X+c.Max.X)/2 - total/2
	for _, it := range items {
		it.symbol(&c, vg.Point{X: x + vg.Points(symW/2), Y: y})
		x += vg.Points(symW + gap)
		c.FillText(ts, vg.Point{X: x, Y: y}, it.label)
		x += ts.Width(it.label) + vg.Points(between)
	}
}

// timeUnit is the timeline's x unit for a run ending at endMs, in ms per
// unit, and the axis label: it grows with the run, so a day reads in hours
// and a month in days rather than in hundreds of thousands of seconds.
func timeUnit(endMs float64) (float64, string) {
	switch {
	case endMs >= 10*24*3600e3:
		return 24 * 3600e3, "time (days)"
	case endMs >= 10*3600e3:
		return 3600e3, "time (h)"
	case endMs >= 20*60e3:
		return 60e3, "time (min)"
	case endMs >= 10e3:
		return 1e3, "time (s)"
	}
	return 1, "time (ms)"
}
