package reports

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// requireValidPlotFiles checks that every plot's PNG decodes and its SVG is
// an SVG document.
func requireValidPlotFiles(t *testing.T, dir string, plots []Plot) {
	t.Helper()
	for _, p := range plots {
		data, err := os.ReadFile(filepath.Join(dir, p.PNG))
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(data))
		require.NoError(t, err, p.PNG)
		assert.Greater(t, img.Bounds().Dx(), 1000, p.PNG)
		assert.Greater(t, img.Bounds().Dy(), 200, p.PNG)

		svg, err := os.ReadFile(filepath.Join(dir, p.SVG))
		require.NoError(t, err)
		s := string(svg)
		assert.True(t, strings.HasPrefix(s, "<?xml") || strings.HasPrefix(s, "<svg"), p.SVG)
		assert.Contains(t, s, "<svg")
		assert.True(t, strings.HasSuffix(strings.TrimSpace(s), "</svg>"), p.SVG)
	}
}

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWritePlots(t *testing.T) {
	dir := t.TempDir()
	s := synthSummary(1, 50, "raft", "bully", "ring")
	plots, err := WritePlots(dir, s, synthTimeline())
	require.NoError(t, err)
	var names []string
	for _, p := range plots {
		names = append(names, p.Name)
		assert.Equal(t, p.Name+".png", p.PNG)
		assert.Equal(t, p.Name+".svg", p.SVG)
		assert.NotEmpty(t, p.Title)
	}
	assert.Equal(t, []string{"failover_cdf", "failover_box", "timeline", "messages_per_election"}, names)
	requireValidPlotFiles(t, dir, plots)
	assert.ElementsMatch(t, []string{"failover_cdf.png", "failover_cdf.svg", "failover_box.png", "failover_box.svg",
		"timeline.png", "timeline.svg", "messages_per_election.png", "messages_per_election.svg"}, dirNames(t, dir),
		"no temporary files remain")

	svg, err := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "partition {n0,n1} | {n2,n3,n4}", "fault labels are drawn")
	assert.Contains(t, string(svg), "e=3", "tenures carry their epoch")
}

// Plots without data are skipped, not an error: no failovers means no CDF,
// box or histogram; no timeline means no timeline.
func TestWritePlotsSkipsEmpty(t *testing.T) {
	dir := t.TempDir()
	s := synthSummary(1, 5, "raft")
	for i := range s.Runs {
		s.Runs[i].Failovers = nil
	}
	s.Aggregate()
	plots, err := WritePlots(dir, s, nil)
	require.NoError(t, err)
	assert.Empty(t, plots)
	assert.Empty(t, dirNames(t, dir))

	// Failovers that never completed and had no election: the CDF and box
	// have nothing to draw, nor has the histogram.
	s.Runs[0].Failovers = []FailoverSummary{{Fault: "n1 crashed"}}
	s.Aggregate()
	plots, err = WritePlots(dir, s, &Timeline{Nodes: []string{"n0"}, EndMs: 1000})
	require.NoError(t, err)
	require.Len(t, plots, 1)
	assert.Equal(t, "timeline", plots[0].Name)
	requireValidPlotFiles(t, dir, plots)

	// Only instants (one failover, one sample): still valid images.
	s.Runs[0].Failovers = []FailoverSummary{{Completed: true, LatencyMs: Ms(250), Elections: 1, Messages: 8}}
	s.Aggregate()
	plots, err = WritePlots(dir, s, nil)
	require.NoError(t, err)
	assert.Len(t, plots, 3)
	requireValidPlotFiles(t, dir, plots)
}

// A failure while committing leaves no temporary files behind.
func TestWritePlotsCleansUpOnError(t *testing.T) {
	dir := t.TempDir()
	// A directory where a plot file should go makes its rename fail.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "failover_box.svg"), 0o755))
	_, err := WritePlots(dir, synthSummary(1, 10, "raft"), nil)
	require.Error(t, err)
	for _, n := range dirNames(t, dir) {
		assert.NotContains(t, n, ".tmp-", "temporary file left behind")
	}

	_, err = WritePlots(filepath.Join(dir, "missing"), synthSummary(1, 10, "raft"), nil)
	assert.Error(t, err)
	_, err = WritePlots(dir, nil, nil)
	assert.Error(t, err)
}

// samples are latSamples of the given latencies (every failover completed).
func samples(lats ...[]float64) []latSample {
	out := make([]latSample, len(lats))
	for i, l := range lats {
		d := &Dist{}
		for _, x := range l {
			d.Add(x)
		}
		out[i] = latSample{vals: d.Sample(sampleSize), dist: d, total: len(l)}
	}
	return out
}

// The latency axis: linear from 0; cut at 1.5 × the largest p99 when far
// stragglers would squash the rest, with the label saying how many are cut;
// logarithmic when the algorithms' medians differ by logSpread or more.
func TestLatencyAxis(t *testing.T) {
	lat := make([]float64, 200)
	for i := range lat {
		lat[i] = float64(100 + i)
	}
	ax := newLatencyAxis(samples(lat))
	assert.Equal(t, latencyAxis{min: 0, max: 299 * 1.02, label: "failover latency (ms)"}, ax)

	lat[199] = 30000 // p99 (rank 198) is 297
	ax = newLatencyAxis(samples(lat, []float64{150}))
	assert.Equal(t, latencyAxis{min: 0, max: 500, // 1.5 × 297 = 445.5, rounded up to a nice 500
		label: "failover latency (ms) — axis cut at 500 ms; 1 slower failover(s) off the chart"}, ax)

	ax = newLatencyAxis(samples([]float64{0, 180, 190, 200}, nil, []float64{9500, 10190, 12316}))
	assert.True(t, ax.log)
	assert.InDelta(t, 180/1.15, ax.min, 1e-9, "the smallest positive latency sets the minimum")
	assert.InDelta(t, 12316*1.1, ax.max, 1e-9)
	assert.Equal(t, "failover latency (ms, log scale)", ax.label)
	var labels []string
	for _, tk := range (logTicks{}).Ticks(ax.min, ax.max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"200", "500", "1000", "2000", "5000", "10000"}, labels)
	// One long tail (p99 ≥ 8 × p50) is logarithmic too: Figure 16's
	// narrowest timeout range beside the wide ones.
	tailed := make([]float64, 100)
	for i := range tailed {
		tailed[i] = 100
		if i >= 95 {
			tailed[i] = float64(1000 * (i - 94)) // p99 (rank 99) is 4000
		}
	}
	assert.True(t, newLatencyAxis(samples(tailed, []float64{100, 110, 120})).log, "medians alike, one long tail")
	assert.False(t, newLatencyAxis(samples(tailed[:95], []float64{100, 110, 120})).log)
	assert.Equal(t, 0.0, floorLogScale{}.Normalize(100, 1000, 0), "zero sits at the minimum")
	assert.InDelta(t, 0.5, floorLogScale{}.Normalize(100, 10000, 1000), 1e-12)
}

func TestHistBins(t *testing.T) {
	// Whole numbers: unit bins centred on the integers.
	b := histBins([]float64{8, 8, 9, 11, 13})
	require.Len(t, b, 6)
	assert.Equal(t, 7.5, b[0].Min)
	assert.Equal(t, 13.5, b[5].Max)
	var w []float64
	for _, x := range b {
		w = append(w, x.Weight)
	}
	assert.Equal(t, []float64{2, 1, 0, 1, 0, 1}, w)

	// A constant sample: one bin.
	b = histBins([]float64{4.5, 4.5})
	require.Len(t, b, 1)
	assert.Equal(t, 2.0, b[0].Weight)

	// Fractions: nice widths covering the range, every sample counted.
	v := []float64{1.25, 1.5, 2.75, 3.1, 3.3, 4.9}
	b = histBins(v)
	total := 0.0
	for _, x := range b {
		total += x.Weight
	}
	assert.Equal(t, float64(len(v)), total)
	assert.LessOrEqual(t, b[0].Min, 1.25)
	assert.Greater(t, b[len(b)-1].Max, 4.9)
}

func TestNiceTicks(t *testing.T) {
	var labels []string
	for _, tk := range (niceTicks{Target: 8}).Ticks(0, 848) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0", "100", "200", "300", "400", "500", "600", "700", "800"}, labels)
	labels = nil
	for _, tk := range (niceTicks{Target: 4}).Ticks(0, 1) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0.00", "0.25", "0.50", "0.75", "1.00"}, labels)
	labels = nil
	for _, tk := range (niceTicks{Target: 4, MinStep: 1}).Ticks(0, 2) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0", "1", "2"}, labels)
	labels = nil
	for _, tk := range (niceTicks{Target: 8}).Ticks(0, 2000) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0", "250", "500", "750", "1000", "1250", "1500", "1750", "2000"}, labels)
	labels = nil
	for _, tk := range (niceTicks{Target: 4}).Ticks(0, 10) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"0.0", "2.5", "5.0", "7.5", "10.0"}, labels)
}

// Bad numbers cost a sample, not the report: a NaN latency is left out, a
// tenure still open at the end (ToMs 0) runs to the end of the timeline.
func TestWritePlotsTolerates(t *testing.T) {
	dir := t.TempDir()
	s := synthSummary(1, 5, "raft")
	s.Runs[0].Failovers[0].LatencyMs = Ms(math.NaN())
	tl := &Timeline{Nodes: []string{"n0", "n1"}, EndMs: math.Inf(1),
		Tenures: []Span{{Node: "n0", FromMs: 100, ToMs: 900, Label: "e=1"}, {Node: "n1", FromMs: 1000, Label: "e=2"}},
		Writes:  []Mark{{Node: "n9", AtMs: 1500}}}
	plots, err := WritePlots(dir, s, tl)
	require.NoError(t, err)
	assert.Len(t, plots, 4)
	requireValidPlotFiles(t, dir, plots)
	svg, err := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), ">n9<", "a writer outside Nodes gets a row")
}

// The timeline's unit grows with the run: milliseconds for a few seconds,
// seconds for minutes, minutes for an hour, hours for a day, days for a
// month.
func TestTimelineUnit(t *testing.T) {
	for _, c := range []struct {
		endMs float64
		scale float64
		label string
	}{
		{5000, 1, "time (ms)"}, {80e3, 1e3, "time (s)"}, {3600e3, 60e3, "time (min)"},
		{24 * 3600e3, 3600e3, "time (h)"}, {30 * 24 * 3600e3, 24 * 3600e3, "time (days)"},
	} {
		scale, label := timeUnit(c.endMs)
		assert.Equal(t, c.scale, scale, "%v ms", c.endMs)
		assert.Equal(t, c.label, label, "%v ms", c.endMs)
	}
}

// The failover CDF's legend fits however many groups a sweep has: the
// figure grows to hold every entry (nine three-line entries were cut off
// at eight); more than cdfPanelLines groups are small multiples
// (TestCDFPanelsOfAGrid), unless that takes more than cdfMaxPanels panels:
// then a grid's many groups get one-line entries and, once colours repeat,
// distinct dash patterns, and past cdfMaxLegend lines the legend gives way
// to a note in the title.
func TestCDFLegendFitsEveryGroup(t *testing.T) {
	plain := func(groups int) *Summary {
		var algos []string
		for i := range groups {
			algos = append(algos, fmt.Sprintf("group-%02d-with-a-long-name", i))
		}
		return synthSummary(1, 5, algos...)
	}
	entryH := textStyle(9.5).Rectangle("a\nb\nc").Size().Y + vg.Points(8)
	for _, groups := range []int{1, cdfPanelLines} {
		s := plain(groups)
		f, err := failoverCDF(s, algoOrder(s))
		require.NoError(t, err)
		assert.Greater(t, float64(f.height), float64(vg.Length(groups)*entryH), "%d three-line entries", groups)
		requireTextInside(t, f, drawnTexts(t, f))
	}
	// 13 panels of two: one figure, one-line entries.
	s := synthGrid(2, []string{"raft"}, GridDim{Path: "a", Values: values("x", cdfMaxPanels+1)}, GridDim{Path: "b", Values: values("y", 2)})
	f, err := failoverCDF(s, algoOrder(s))
	require.NoError(t, err)
	assert.Equal(t, 1, countText(drawnTexts(t, f), "failovers recovered"))
	groups := 2 * (cdfMaxPanels + 1)
	assert.Greater(t, float64(f.height), float64(vg.Length(groups)*(textStyle(9.5).Rectangle("a").Size().Y+vg.Points(3))), "%d one-line entries", groups)
	requireTextInside(t, f, drawnTexts(t, f))
	// More panels than cdfMaxPanels, more lines than cdfMaxLegend.
	groups = cdfPanelLines*cdfMaxPanels + 1
	s = plain(groups)
	f, err = failoverCDF(s, algoOrder(s))
	require.NoError(t, err)
	assert.Contains(t, f.title, fmt.Sprintf("%d groups", groups))
	assert.Equal(t, 4.6*vg.Inch, f.height)

	seen := map[string]bool{}
	for i := range 4 * len(palette) {
		key := fmt.Sprint(algoColor(i), algoDashes(i))
		assert.False(t, seen[key], "line %d looks like an earlier one", i)
		seen[key] = true
	}
}

// A histogram panel's title fits its panel: on one line when it can, else
// name and numbers on two, with the font shrunk (not below 7 points) until
// each line fits; a -vary grid's long group names were cut off at the
// figure's edge.
func TestFitTitle(t *testing.T) {
	numbers := "mean 27.5 · p50 25.0 · p90 32.0  (n=30)"
	for _, c := range []struct {
		name  string
		width vg.Length
		lines int
	}{
		{"raft", 400, 1},
		{"election_timeout=150ms..200ms, drop=0.05", 400, 2},
		{strings.Repeat("very-long-group-name-", 6), 400, 2},
	} {
		st := textStyle(11)
		got := fitTitle(&st, c.width, c.name, numbers)
		lines := strings.Split(got, "\n")
		assert.Len(t, lines, c.lines, c.name)
		for _, l := range lines {
			if st.Font.Size > vg.Points(7) {
				assert.LessOrEqual(t, float64(st.Width(l)), float64(c.width), "%q at %v", l, st.Font.Size)
			}
		}
		assert.GreaterOrEqual(t, float64(st.Font.Size), float64(vg.Points(7)))
	}
}

// Every messages-per-election panel shows all of its bars: the panels
// shared an x range computed from the values, not the bins, so a bin
// reaching past the largest value (and past every other panel's) was cut
// at the axis. And the note naming the groups without an election stays
// on the figure, however many and long their names (a grid's ran off
// both sides on one line).
func TestMessagesPerElectionPanelsHoldTheirBars(t *testing.T) {
	s := synthGrid(30, []string{"raft"}, GridDim{Path: "algorithm.election_timeout", Values: []string{"150ms..151ms", "150ms..200ms", "150ms..300ms"}},
		GridDim{Path: "network.latency", Values: values("1ms..", 6)})
	// Half the groups' failovers need no election; the last group's
	// values reach furthest, the largest at the start of a wide bin
	// (225.5 and 500.1: bins 50 wide, the last 500–550).
	top := true
	for i := range s.Runs {
		r := &s.Runs[i]
		for k := range r.Failovers {
			switch {
			case r.Vary[1] <= "1ms..3":
				r.Failovers[k].Elections = 0
			case r.Vary[0] == "150ms..300ms" && r.Vary[1] == "1ms..6" && top:
				r.Failovers[k].Elections, r.Failovers[k].Messages, top = 10, 5001, false
			case r.Vary[0] == "150ms..300ms" && r.Vary[1] == "1ms..6":
				r.Failovers[k].Elections, r.Failovers[k].Messages = 2, 451
			}
		}
	}
	s.Algorithms = nil
	// Aggregate needs every run: synthGrid kept them all (few enough).
	s.Aggregate()
	algos := algoOrder(s)
	panels, missing := histPanels(s, algos)
	require.Len(t, panels, 9)
	require.Len(t, missing, 9)
	for _, p := range panels {
		bins := p.hist.Bins
		top := 0.0
		for _, b := range bins {
			top = math.Max(top, b.Weight)
		}
		assert.LessOrEqual(t, p.plot.X.Min, bins[0].Min, p.name)
		assert.GreaterOrEqual(t, p.plot.X.Max, bins[len(bins)-1].Max, p.name)
		assert.GreaterOrEqual(t, p.plot.Y.Max, top, p.name)
		assert.Equal(t, 0.0, p.plot.Y.Min, p.name)
	}
	f, err := messagesPerElection(s, algos)
	require.NoError(t, err)
	texts := drawnTexts(t, f)
	requireTextInside(t, f, texts)
	note := ""
	for _, d := range texts {
		note += d.text + " "
	}
	for _, m := range missing {
		assert.Contains(t, note, m, "every group without an election is named")
	}
}

// The heatmap fills its canvas, reads its shades off a colour bar, and
// says rates to one decimal: a 3×2 grid of one algorithm sat in the left
// half of the figure with no scale, and 3 of 200 runs read "2% [1–4%]".
func TestHeatmapFillsItsCanvasWithAColourBar(t *testing.T) {
	lo, hi := Wilson95(3, 200)
	assert.Equal(t, "1.5% [0.5–4.3]", heatLabel(HeatCell{Rate: true, Value: 3.0 / 200, Lo: lo, Hi: hi}))
	assert.Equal(t, "412 ms", heatLabel(HeatCell{Value: 412, Has: true}))

	rows := GridDim{Path: "faults[0].for", Values: []string{"2s", "10s", "60s"}}
	for _, c := range []struct {
		algos []string
		cols  GridDim
	}{
		{[]string{"raft"}, GridDim{Path: "network.latency", Values: []string{"1ms..2ms", "1ms..50ms"}}},
		{[]string{"bully", "raft", "etcd"}, GridDim{Path: "network.latency", Values: []string{"1ms..2ms", "1ms..50ms"}}},
		{[]string{"raft"}, GridDim{Path: "network.latency", Values: values("1ms..", 6)}},
		{[]string{"raft", "bully"}, GridDim{Path: "network.latency", Values: values("1ms..", 12)}},
	} {
		name := fmt.Sprintf("%d×%d, %d algorithms", len(rows.Values), len(c.cols.Values), len(c.algos))
		s := synthGrid(3, c.algos, rows, c.cols)
		f, err := heatmap(s)
		require.NoError(t, err)
		texts := drawnTexts(t, f)
		requireTextInside(t, f, texts)
		right := vg.Length(0)
		for _, d := range texts {
			if d.text == c.cols.Values[len(c.cols.Values)-1] {
				right = max(right, (d.box.Min.X+d.box.Max.X)/2)
			}
		}
		assert.Greater(t, float64(right), 0.5*float64(f.width), "%s: the last column's middle is in the canvas's right half", name)
		for _, tick := range []string{"0%", "25%", "50%", "75%", "100%"} {
			assert.Equal(t, 1, countText(texts, tick), "%s: colour bar tick %s", name, tick)
		}
		l := newHeatLayout(len(c.algos), rows.Values, len(c.cols.Values))
		assert.GreaterOrEqual(t, l.cellW, heatCellMinW, name)
		assert.Equal(t, f.width, l.width, name)
		right = 0
		for _, p := range l.panels {
			assert.Less(t, float64(p.Max.X), float64(l.bar.Min.X), "%s: the colour bar is clear of the cells", name)
			assert.GreaterOrEqual(t, float64(p.Min.X-l.labelW), 0.0, name)
			assert.GreaterOrEqual(t, float64(p.Min.Y), 0.0, name)
			right = max(right, p.Max.X)
		}
		assert.InDelta(t, float64(l.width-heatBarArea-vg.Points(12)), float64(right), 0.01, "%s: the cells reach the colour bar's column", name)
	}
	// Failover p99: the bar is in milliseconds.
	ticks := colourBarTicks(false, 830)
	require.NotEmpty(t, ticks)
	assert.Equal(t, "0 ms", ticks[0].Label)
	assert.LessOrEqual(t, ticks[len(ticks)-1].Value, 830.0)
}

// The margin plot's bound is zero up to the safe rate and rises only past
// it: joined at the studied rates alone, the line rose from the last safe
// rate (1.2×) through the "safe up to 1.249×" marker to the first unsafe
// one (1.3×). With the bound as a function the curve is drawn, not chords
// under it.
func TestMarginBoundRisesOnlyPastTheSafeRate(t *testing.T) {
	const ld, hold = 15000.0, 12007.0 // client-go's defaults, ms: the bound is max(0, hold − ld/r)
	bound := func(r float64) float64 { return math.Max(0, hold-ld/r) }
	rates := []float64{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2}
	m := &MarginStudy{Scenario: "fast-clock-follower", Rates: rates, SafeRate: ld / hold, Formula: "overlap ≤ …"}
	for _, r := range rates {
		m.BoundMs = append(m.BoundMs, bound(r))
		m.Overlaps = append(m.Overlaps, []float64{0, bound(r) / 2})
	}
	// at is the drawn line's height at x (it joins its points).
	at := func(pts plotter.XYs, x float64) float64 {
		for i := 1; i < len(pts); i++ {
			if a, b := pts[i-1], pts[i]; a.X <= x && x <= b.X {
				return a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X)
			}
		}
		t.Fatalf("%v is off the line", x)
		return 0
	}
	for _, withCurve := range []bool{false, true} {
		m.Bound = nil
		if withCurve {
			m.Bound = bound
		}
		pts := marginBoundLine(m)
		for i := 1; i < len(pts); i++ {
			require.Less(t, pts[i-1].X, pts[i].X, "the line runs left to right")
			require.GreaterOrEqual(t, pts[i].Y, pts[i-1].Y, "the bound never falls")
		}
		for x := rates[0]; x <= m.SafeRate; x += 0.001 {
			require.InDelta(t, 0, at(pts, x), 1e-6, "%.3f× is safe: the line is flat there (curve %v)", x, withCurve)
		}
		for _, r := range rates {
			assert.InDelta(t, bound(r), at(pts, r), 1e-6, "the bound at %v×", r)
		}
		if withCurve {
			for x := m.SafeRate; x <= 2; x += 0.01 {
				require.InDelta(t, bound(x), at(pts, x), 2, "the curve at %.2f×, not a chord under it", x)
			}
		}
	}
	require.NoError(t, WriteMarginPlot(t.TempDir(), m))
}

// The failover plots hide no result (issue 38 point 9): a group whose CDF
// is the same curve as an earlier one's says so in the legend (drawn over
// it, it hid it), a group with no completed failover is named in the
// titles instead of vanishing, and a -vary sweep's box plot is per group.
func TestFailoverPlotsHideNoGroup(t *testing.T) {
	s := synthAll(1, 5, "raft")
	for _, r := range synthAll(1, 5, "raft").Runs {
		r.Algorithm = "twin" // the same failovers as raft's
		s.Runs = append(s.Runs, r)
	}
	for _, r := range synthAll(1, 5, "quiet").Runs {
		r.Failovers = nil
		s.Runs = append(s.Runs, r)
	}
	s.Aggregate()
	f, err := failoverCDF(s, algoOrder(s))
	require.NoError(t, err)
	texts := drawnTexts(t, f)
	assert.Equal(t, 1, countText(texts, "= raft's curve (identical)"), "%q", texts)
	assert.Contains(t, f.title, "quiet: no completed failover, not drawn")
	requireTextInside(t, f, texts)
	b, err := failoverBox(s, algoOrder(s))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(b.title, "Failover latency per algorithm\nquiet: no completed failover"), b.title)

	g := synthGrid(2, []string{"raft"}, GridDim{Path: "a", Values: values("x", 2)}, GridDim{Path: "b", Values: values("y", 1)})
	b, err = failoverBox(g, algoOrder(g))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(b.title, "Failover latency per group"), b.title)
}
