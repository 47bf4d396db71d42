package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Wilson95 against published values (Newcombe, "Two-sided confidence
// intervals for the single proportion", Stat. Med. 1998, Table I: 0/10
// gives 0–0.2775, 1/29 gives 0.0061–0.1718, 81/263 gives 0.2553–0.3662)
// and the edges.
func TestWilson95(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 10, 0, 0.2775}, {1, 29, 0.0061, 0.1718}, {81, 263, 0.2553, 0.3662}, {29, 29, 0.8830, 1}} {
		lo, hi := Wilson95(tc.k, tc.n)
		assert.InDelta(t, tc.lo, lo, 5e-5, "%d/%d", tc.k, tc.n)
		assert.InDelta(t, tc.hi, hi, 5e-5, "%d/%d", tc.k, tc.n)
	}
	lo, hi := Wilson95(0, 0)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}

// A two-dimensional grid under two algorithms: groups come cell by cell
// (raft, bully, raft, bully, …), yet each algorithm gets one heat table
// and one heatmap panel with all its cells.
func TestHeatPerAlgorithm(t *testing.T) {
	s := &Summary{Grid: &Grid{Dims: []GridDim{{Path: "a", Values: []string{"1", "2"}}, {Path: "b", Values: []string{"x", "y"}}}, Heat: "failed"},
		Config: &Config{Algorithms: []string{"raft", "bully"}}}
	for _, a := range []string{"1", "2"} {
		for _, b := range []string{"x", "y"} {
			for _, algo := range []string{"raft", "bully"} {
				ok := algo == "raft" || a == "1"
				s.Runs = append(s.Runs, RunSummary{Seed: 1, Algorithm: algo, Vary: []string{a, b}, Group: algo + " · a=" + a + ", b=" + b, OK: ok})
			}
		}
	}
	s.Aggregate()
	cells := s.HeatCells()
	assert.Len(t, cells, 8)
	_, tables := gridViews(s)
	assert.Len(t, tables, 2)
	assert.Equal(t, "100.0% [20.7–100.0%] of 1", tables[1].Rows[1].Cells[0], "bully fails at a=2")
	assert.Equal(t, "0.0% [0.0–79.3%] of 1", tables[0].Rows[1].Cells[0])
	fig, err := heatmap(s)
	assert.NoError(t, err)
	_, _, err = fig.render()
	assert.NoError(t, err)
}

// The space-time diagram's note says what the cap left out.
func TestSpaceTimeNoteNamesTheCap(t *testing.T) {
	s := synthSummary(1, 2, "raft")
	st := &SpaceTime{Nodes: []string{"n1", "n2"}, EndMs: 1000, Total: MaxSpaceTimeMessages + 5, Messages: make([]STMessage, MaxSpaceTimeMessages)}
	v, err := buildView("report.html", s, nil, t.TempDir(), HTMLExtras{SpaceTime: st})
	assert.NoError(t, err)
	assert.Contains(t, v.STNote, "sent 20005 messages; the diagram draws the first 20000")
	assert.NotEmpty(t, v.SpaceTimeJS)
	v, err = buildView("report.html", s, nil, t.TempDir(), HTMLExtras{})
	assert.NoError(t, err)
	assert.Empty(t, v.SpaceTime, "no diagram without data")
}

// On a log axis the box plot's whiskers reach Tukey's fences taken on log
// latency: a sample spread evenly in log space (100…10,000 ms) has no
// outliers, where linear fences would cut its upper tail.
func TestLogFences(t *testing.T) {
	var v []float64
	for i := 0; i <= 40; i++ {
		v = append(v, math.Pow(10, 2+float64(i)/20))
	}
	b, err := plotter.NewBoxPlot(vg.Points(20), 0, plotter.Values(v))
	assert.NoError(t, err)
	assert.NotEmpty(t, b.Outside, "linear fences call the log-spread tail outliers")
	logFences(b)
	assert.Empty(t, b.Outside)
	assert.Equal(t, 100.0, b.AdjLow)
	assert.InDelta(t, 10000.0, b.AdjHigh, 1e-6)
	b.Values = append(b.Values, 1e7) // three decades beyond: an outlier
	logFences(b)
	assert.Equal(t, []int{41}, b.Outside)
}

// Spans read as a scenario file writes them once they pass two minutes,
// and rates keep two digits below 10.
func TestFormatSpanAndRate(t *testing.T) {
	for ms, want := range map[float64]string{
		0: "0 s", 1500: "1.5 s", 60_000: "60 s", 119_999: "119.999 s", 120_000: "2m", 150_000: "2m30s",
		600_000: "10m", 5_400_000: "1h30m", 86_400_000: "24h", 259_200_000: "72h", 2_592_000_000: "720h", 3_600_500: "1h0m0.5s",
	} {
		assert.Equal(t, want, fmtSpan(ms), "%v ms", ms)
	}
	assert.Equal(t, "0.13", FormatRate(0.1283), "a single long run is not 0 runs/s")
	assert.Equal(t, "0", FormatRate(0))
	assert.Equal(t, "2.5", FormatRate(2.46))
	assert.Equal(t, "1352", FormatRate(1352.4))
}

// -heat auto shows what failed (issue 38 point 9): a sweep whose runs all
// met their expectations, each with the lost_slot it expects, maps
// lost_slot, not a pale 0 % of failed runs; a sweep with failed runs maps
// those; a check's heat counts its harmless findings too.
func TestAutoHeatShowsWhatFailed(t *testing.T) {
	expected := []AlgoSummary{{Algorithm: "raft", Runs: 30, OK: 30, Violations: map[string]int{"lost_slot": 30, "missed_slots": 2}}}
	assert.Equal(t, "lost_slot", AutoHeat(expected))
	assert.Equal(t, "failed", AutoHeat([]AlgoSummary{{Runs: 30, OK: 29, Violations: map[string]int{"lost_slot": 30}}}))
	assert.Equal(t, "split_brain", AutoHeat([]AlgoSummary{{Runs: 3, OK: 3, Harmless: map[string]int{"split_brain": 3}}}))
	assert.Equal(t, "failed", AutoHeat([]AlgoSummary{{Runs: 3, OK: 3}}))

	s := &Summary{Grid: &Grid{Dims: []GridDim{{Path: "a", Values: []string{"1"}}, {Path: "b", Values: []string{"x"}}}, Heat: "lost_slot"},
		Algorithms: []AlgoSummary{{Algorithm: "raft", Vary: []string{"1", "x"}, Runs: 30, OK: 30, Violations: map[string]int{"lost_slot": 28}, Harmless: map[string]int{"lost_slot": 2}}}}
	cells := s.HeatCells()
	require.Len(t, cells, 1)
	assert.Equal(t, 30, cells[0].Count)
	assert.InDelta(t, 1.0, cells[0].Value, 1e-9)
	assert.Equal(t, "runs with a lost_slot finding (harmful or harmless), Wilson 95% intervals", heatTitle("lost_slot"))
}
