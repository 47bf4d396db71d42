package reports

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot is one plot WritePlots wrote: a PNG and an SVG rendering of it.
type Plot struct {
	// Name is the plot's base name, e.g. "failover_cdf".
	Name string
	// Title says what the plot shows, for headings and alt text.
	Title string
	// PNG and SVG are the file names, relative to the directory written.
	PNG string
	SVG string
}

// The plots' base names.
const (
	PlotFailoverCDF         = "failover_cdf"
	PlotFailoverBox         = "failover_box"
	PlotTimeline            = "timeline"
	PlotMessagesPerElection = "messages_per_election"
)

// WritePlots renders the sweep's plots into dir as PNG and SVG: the
// failover-latency CDF and box plots per algorithm, the leadership timeline
// of each of tls (nil ones skipped; a comparison passes one per
// algorithm), the messages-per-election histograms and, for a
// two-dimensional sweep, the heatmap.
// Plots without data (a sweep with no failovers) are skipped, not an error.
// All files are written under temporary names and renamed only once every
// plot rendered, so an error leaves no partial files behind.
func WritePlots(dir string, s *Summary, tls ...*Timeline) ([]Plot, error) {
	if s == nil {
		return nil, fmt.Errorf("reports: WritePlots: nil summary")
	}
	type spec struct {
		name, title string
		fig         *figure
	}
	var specs []spec
	add := func(name string, fig *figure, err error) error {
		if err != nil {
			return fmt.Errorf("reports: plot %s: %w", name, err)
		}
		if fig != nil {
			specs = append(specs, spec{name, fig.title, fig})
		}
		return nil
	}
	s = withAggregates(s)
	algos := algoOrder(s)
	fig, err := failoverCDF(s, algos)
	if err := add(PlotFailoverCDF, fig, err); err != nil {
		return nil, err
	}
	fig, err = failoverBox(s, algos)
	if err := add(PlotFailoverBox, fig, err); err != nil {
		return nil, err
	}
	first := true
	for _, tl := range tls {
		if tl == nil {
			continue
		}
		name := PlotTimeline
		if !first {
			name += "-" + fileSafe(tl.Algorithm)
		}
		first = false
		fig, err = timelinePlot(tl)
		if err := add(name, fig, err); err != nil {
			return nil, err
		}
	}
	fig, err = messagesPerElection(s, algos)
	if err := add(PlotMessagesPerElection, fig, err); err != nil {
		return nil, err
	}
	fig, err = heatmap(s)
	if err := add(PlotHeatmap, fig, err); err != nil {
		return nil, err
	}

	b := newBatch(dir)
	defer b.abort()
	var out []Plot
	for _, sp := range specs {
		png, svg, err := sp.fig.render()
		if err != nil {
			return nil, fmt.Errorf("reports: plot %s: %w", sp.name, err)
		}
		p := Plot{Name: sp.name, Title: sp.title, PNG: sp.name + ".png", SVG: sp.name + ".svg"}
		if err := b.add(p.PNG, png); err != nil {
			return nil, err
		}
		if err := b.add(p.SVG, svg); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := b.commit(); err != nil {
		return nil, err
	}
	return out, nil
}

// withAggregates is s, aggregated from its runs if it has runs but no
// aggregates (a summary built by hand).
func withAggregates(s *Summary) *Summary {
	if len(s.Algorithms) > 0 || len(s.Runs) == 0 {
		return s
	}
	c := *s
	c.Aggregate()
	return &c
}

// algoOrder is the sweep's groups (algorithms, or algorithms in grid
// cells) in summary order (Algorithms, then any group only the runs name).
func algoOrder(s *Summary) []string {
	var order []string
	seen := map[string]bool{}
	for _, a := range s.Algorithms {
		if !seen[a.Key()] {
			seen[a.Key()] = true
			order = append(order, a.Key())
		}
	}
	for _, r := range s.Runs {
		if !seen[r.Key()] {
			seen[r.Key()] = true
			order = append(order, r.Key())
		}
	}
	return order
}

// palette is a qualitative palette (Tableau 10) that stays distinguishable
// for the usual handful of algorithms; the HTML report uses the same colours.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0x59, 0xa1, 0x4f, 0xff},
	{0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff}, {0xb0, 0x7a, 0xa1, 0xff},
	{0xed, 0xc9, 0x48, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff},
	{0xba, 0xb0, 0xac, 0xff},
}

// algoColor is the colour of the i-th algorithm.
func algoColor(i int) color.RGBA { return palette[i%len(palette)] }

// algoDashes is the dash pattern of the i-th algorithm's line: solid for
// the first len(palette), whose colours are distinct, then dashed, dotted
// and dash-dotted as the colours repeat (a -vary grid's groups).
func algoDashes(i int) []vg.Length {
	switch i / len(palette) % 4 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	case 3:
		return []vg.Length{vg.Points(6), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)}
	}
	return nil
}

// alpha returns c with opacity a (0..1), premultiplied as color.RGBA wants.
func alpha(c color.RGBA, a float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R) * a), uint8(float64(c.G) * a), uint8(float64(c.B) * a), uint8(255 * a)}
}

// sansFont is the plots' typeface (gonum's default is a serif).
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

var (
	inkColor  = color.RGBA{0x33, 0x33, 0x33, 0xff}
	gridColor = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
)

// textStyle is a sans text style of size pt.
func textStyle(pt float64) text.Style {
	return text.Style{Color: inkColor, Font: font.From(sansFont, vg.Points(pt)), Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot with the report's fonts and light axes.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	// The canvas is white already (render); filling it again per plot is a
	// full-image rasterisation for nothing.
	p.BackgroundColor = nil
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sansFont, 13)
	p.Title.TextStyle.Color = inkColor
	p.Title.Padding = vg.Points(8)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sansFont, 11)
		ax.Label.TextStyle.Color = inkColor
		ax.Tick.Label.Font = font.From(sansFont, 9.5)
		ax.Tick.Label.Color = inkColor
		ax.Color = inkColor
		ax.Tick.Color = inkColor
		ax.Tick.Length = vg.Points(4)
		ax.Tick.Marker = niceTicks{Target: 8}
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.TextStyle.Font = font.From(sansFont, 10)
	p.Legend.TextStyle.Color = inkColor
	p.Legend.ThumbnailWidth = vg.Points(18)
	return p
}

// addGrid adds light grid lines at the major ticks of the chosen axes; add
// it before the data so the data is drawn over it.
func addGrid(p *plot.Plot, vertical, horizontal bool) {
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = nil, nil
	if vertical {
		g.Vertical.Color = gridColor
	}
	if horizontal {
		g.Horizontal.Color = gridColor
	}
	p.Add(g)
}

// plotWidth is every plot's width: the HTML report shows them at 96 dpi,
// 1152 CSS pixels, the width of its main column.
const plotWidth = 12 * vg.Inch

// figure is a plot ready to render: a title (for the report), a size and a
// function drawing it onto a canvas of that size.
type figure struct {
	title         string
	width, height vg.Length
	draw          func(c draw.Canvas)
}

// single is a figure of one plot.
func single(title string, p *plot.Plot, w, h vg.Length) *figure {
	return &figure{title: title, width: w, height: h, draw: p.Draw}
}

// fileSafe keeps letters, digits, '-' and '_' of s (for plot file names).
func fileSafe(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "x"
	}
	return string(b)
}
