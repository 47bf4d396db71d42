package reports

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cdfPanelLines is the most lines one CDF panel holds: past a handful,
// overlaid step lines cross so often that none can be followed, and past
// ten the colours repeat.
const cdfPanelLines = 6

// cdfMaxPanels is the most panels the CDF is split into; a bigger grid
// gets the overlaid figure with its groups' numbers in the report's tables.
const cdfMaxPanels = 12

// cdfPanel is one panel of the failover CDF's small multiples.
type cdfPanel struct {
	title  string   // what its lines share ("election_timeout=150ms..200ms")
	lines  []int    // indices into the groups
	names  []string // each line's name within the panel ("latency=1ms..5ms")
	colour []int    // each line's colour index (algoColor, algoDashes)
}

// cdfPanels splits the groups with a completed failover into panels of at
// most cdfPanelLines lines. A grid's groups go one panel per algorithm and
// value of every dimension but the last, each line being a value of the
// last (with the same colour in every panel, so a column of the grid is one
// colour throughout); other groups, or a panel still too full, are cut in
// order into as few panels as evenly filled as they need. Up to
// cdfPanelLines groups are one panel, each line named by its whole key.
func cdfPanels(s *Summary, algos []string, lat []latSample) []cdfPanel {
	var idx []int
	for i := range algos {
		if len(lat[i].vals) > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) <= cdfPanelLines {
		p := cdfPanel{lines: idx}
		for j, i := range idx {
			p.names = append(p.names, algos[i])
			p.colour = append(p.colour, j)
		}
		return []cdfPanel{p}
	}
	byKey := map[string]*AlgoSummary{}
	algorithms := map[string]bool{}
	for k := range s.Algorithms {
		g := &s.Algorithms[k]
		byKey[g.Key()] = g
		algorithms[g.Algorithm] = true
	}
	var heads []string
	byHead := map[string]*cdfPanel{}
	for _, i := range idx {
		head, name, colour := "", algos[i], -1
		if g := byKey[algos[i]]; g != nil && s.Grid != nil && len(s.Grid.Dims) > 0 && len(g.Vary) == len(s.Grid.Dims) {
			var parts []string
			if len(algorithms) > 1 {
				parts = append(parts, g.Algorithm)
			}
			last := len(g.Vary) - 1
			for d := range last {
				parts = append(parts, dimLabel(s.Grid.Dims[d].Path, g.Vary[d]))
			}
			head = strings.Join(parts, " · ")
			name = dimLabel(s.Grid.Dims[last].Path, g.Vary[last])
			colour = indexOf(s.Grid.Dims[last].Values, g.Vary[last])
		}
		p, ok := byHead[head]
		if !ok {
			p = &cdfPanel{title: head}
			byHead[head] = p
			heads = append(heads, head)
		}
		p.lines = append(p.lines, i)
		p.names = append(p.names, name)
		p.colour = append(p.colour, colour)
	}
	var out []cdfPanel
	for _, h := range heads {
		p := byHead[h]
		n := (len(p.lines) + cdfPanelLines - 1) / cdfPanelLines
		for c := range n {
			lo, hi := c*len(p.lines)/n, (c+1)*len(p.lines)/n
			q := cdfPanel{title: p.title, lines: p.lines[lo:hi], names: p.names[lo:hi], colour: p.colour[lo:hi]}
			if n > 1 || q.title == "" {
				what := fmt.Sprintf("lines %d–%d of %d", lo+1, hi, len(p.lines))
				if q.title == "" {
					q.title = what
				} else {
					q.title += " (" + what + ")"
				}
			}
			// A grid column's colour holds only while a panel has each
			// value once; a cut panel numbers its own lines.
			if n > 1 || q.colour[0] < 0 {
				q.colour = make([]int, len(q.lines))
				for j := range q.colour {
					q.colour[j] = j
				}
			}
			out = append(out, q)
		}
	}
	return out
}

// dimLabel names a grid value as the group labels do: the path's last
// element, "=" and the value ("latency=1ms..5ms").
func dimLabel(path, value string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	return path + "=" + value
}

// failoverCDFPanels draws the failover CDF as small multiples, one panel
// per cdfPanel stacked in one column with one shared x axis (ax) and one
// 0–100% y axis, each panel's legend on its right.
func failoverCDFPanels(panels []cdfPanel, lat []latSample, ax latencyAxis) (*figure, error) {
	title := "Failover latency (fault → new leader acting)"
	legTS := textStyle(9)
	var plots [][]*plot.Plot
	var legs []plot.Legend
	var legendW vg.Length
	most := 0
	for _, pn := range panels {
		p := newPlot(pn.title, "", "failovers recovered")
		p.Title.TextStyle.Font.Size = vg.Points(11)
		p.Title.Padding = vg.Points(4)
		p.Y.Label.TextStyle.Font.Size = vg.Points(9.5)
		addGrid(p, true, true)
		p.Y.Min, p.Y.Max = 0, 1
		p.Y.Tick.Marker = percentTicks{}
		leg := plot.NewLegend()
		leg.TextStyle = legTS
		leg.Top, leg.Left = true, true
		leg.ThumbnailWidth = vg.Points(18)
		leg.Padding = vg.Points(3)
		for j, i := range pn.lines {
			xs, atOrBelow := lat[i].dist.Steps()
			line, err := plotter.NewLine(cdfPoints(xs, atOrBelow, lat[i].total, ax))
			if err != nil {
				return nil, err
			}
			line.StepStyle = plotter.PostStep
			line.Color = algoColor(pn.colour[j])
			line.Dashes = algoDashes(pn.colour[j])
			line.Width = vg.Points(1.6)
			p.Add(line)
			label := fmt.Sprintf("%s · p50 %s · p99 %s ms", pn.names[j], fmtMs(lat[i].dist.Percentile(50)), fmtMs(lat[i].dist.Percentile(99)))
			if inc := lat[i].total - lat[i].n(); inc > 0 {
				label += fmt.Sprintf(" · %d never recovered", inc)
			}
			leg.Add(label, line)
			legendW = max(legendW, leg.ThumbnailWidth+legTS.Width(" "+label))
		}
		ax.apply(p)
		plots = append(plots, []*plot.Plot{p})
		legs = append(legs, leg)
		most = max(most, len(pn.lines))
	}
	legendW += vg.Points(16)
	const titleH, xLabelH = 28, 18
	entryH := legTS.Rectangle("Ag").Size().Y + vg.Points(3)
	panelH := max(2.1*vg.Inch, vg.Length(most)*entryH+vg.Points(48))
	height := vg.Points(titleH+xLabelH) + vg.Length(len(panels))*panelH
	return &figure{title: title, width: plotWidth, height: height, draw: func(c draw.Canvas) {
		ts := textStyle(13)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, title)
		body := draw.Crop(c, 0, -legendW, vg.Points(xLabelH), -vg.Points(titleH))
		tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(12), PadRight: vg.Points(6)}
		canv := plot.Align(plots, tiles, body)
		for r, row := range plots {
			p := row[0]
			p.Draw(canv[r][0])
			top := canv[r][0].Max.Y - p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y - p.Title.Padding
			legs[r].Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: c.Max.X - legendW + vg.Points(12), Y: canv[r][0].Min.Y},
				Max: vg.Point{X: c.Max.X, Y: top}}})
		}
		// One x label under the bottom panel: the axis is the same in all.
		last := plots[len(plots)-1][0].DataCanvas(canv[len(plots)-1][0])
		ls := textStyle(11)
		ls.XAlign, ls.YAlign = draw.XCenter, draw.YBottom
		c.FillText(ls, vg.Point{X: (last.Min.X + last.Max.X) / 2, Y: c.Min.Y + vg.Points(3)}, ax.label)
	}}, nil
}
