package reports

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"pgregory.net/rapid"
)

// failoverShaped draws a sample shaped like a sweep's failover latencies:
// a bulk of elections at 120–300 ms, a sparse tail to a few seconds and a
// sparser one to a minute, and a few zeros; up to 4,000 values, so the Dist
// is exact or bucketed.
func failoverShaped(t *rapid.T) []float64 {
	n := rapid.IntRange(1, 4000).Draw(t, "n")
	tail := rapid.Float64Range(0, 0.3).Draw(t, "tail")
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
	xs := make([]float64, n)
	for i := range xs {
		switch u := r.Float64(); {
		case u < 0.002:
			xs[i] = 0
		case u < tail/10:
			xs[i] = 3000 + 57000*r.Float64()
		case u < tail:
			xs[i] = 300 + 2700*r.Float64()
		default:
			xs[i] = 120 + 180*r.Float64()
		}
	}
	return xs
}

// cdfProblem says how the CDF line pts, drawn on ax over total failovers,
// misrepresents the completed failovers' latencies xs (sorted), or "":
//   - each point's height must be the share of failovers at or below its x
//     (within a bucket's error once the Dist is bucketed, slack);
//   - a flat stretch from one point to the next may cross no value, except
//     within one thinning width of its end (where its group's steps are).
func cdfProblem(xs []float64, slack float64, total int, ax latencyAxis, pts plotter.XYs) string {
	atOrBelow := func(x float64) int { return sort.Search(len(xs), func(i int) bool { return xs[i] > x }) }
	if len(pts) > 2*cdfMaxPoints+2 {
		return fmt.Sprintf("%d points", len(pts))
	}
	for _, p := range pts[1:] {
		got := int(math.Round(p.Y * float64(total)))
		if lo, hi := atOrBelow(p.X*(1-slack)), atOrBelow(p.X*(1+slack)); got < lo || got > hi {
			return fmt.Sprintf("at %g ms the line is at %d failovers, the values have %d..%d", p.X, got, lo, hi)
		}
	}
	for k := 1; k+1 < len(pts); k++ {
		a, b := pts[k], pts[k+1]
		// The first value clearly right of a: if it is clearly left of b's
		// group, the flat stretch a..b hides it.
		i := sort.Search(len(xs), func(i int) bool { return ax.pos(xs[i]*(1-slack)) > ax.pos(a.X) })
		if i < len(xs) && ax.pos(xs[i]*(1+slack)) < ax.pos(b.X)-1.0/cdfMaxPoints {
			return fmt.Sprintf("flat from %g to %g ms across a failover at %g ms", a.X, b.X, xs[i])
		}
	}
	return ""
}

// cdfCase builds a CDF line the way failoverCDF does.
func cdfCase(xs []float64, never int) (*Dist, latencyAxis, int, float64) {
	d := distOf(xs)
	total := len(xs) + never
	ax := newLatencyAxis([]latSample{{vals: d.Sample(sampleSize), dist: d, total: total}})
	slack := 0.0
	if !d.Exact() {
		slack = 2 * DistRelErr
	}
	return d, ax, total, slack
}

// The failover CDF follows the values at any sweep size: heights are the
// share of failovers recovered, and the line is flat only across gaps in
// the latencies. Linear, cut and logarithmic axes all occur (the tail
// weight decides).
func TestCDFPointsFollowTheValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := failoverShaped(t)
		d, ax, total, slack := cdfCase(xs, rapid.IntRange(0, 50).Draw(t, "never"))
		steps, atOrBelow := d.Steps()
		pts := cdfPoints(steps, atOrBelow, total, ax)
		sort.Float64s(xs)
		require.Empty(t, cdfProblem(xs, slack, total, ax, pts), "axis %+v", ax)
		require.Equal(t, float64(len(xs))/float64(total), pts[len(pts)-1].Y, "the line ends at the completed share")
	})
}

// The check has teeth: the plot used to thin a bucketed Dist's quantile
// sample (1,001 ranks) to 300 points by rank, which across a sparse tail
// draws a flat stretch over hundreds of failovers.
func TestCDFProblemFindsRankThinning(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 5000)
	for i := range xs {
		xs[i] = 120 + 180*r.Float64()
		if i%20 == 0 {
			xs[i] = 300 + 2700*r.Float64() // a 5% tail to 3 s
		}
	}
	d, ax, total, slack := cdfCase(xs, 0)
	require.False(t, d.Exact())
	sample := d.Sample(sampleSize)
	ranked := plotter.XYs{{X: sample[0]}}
	for i := 3; i < len(sample); i += 4 {
		ranked = append(ranked, plotter.XY{X: sample[i], Y: float64(i+1) / float64(len(sample))})
	}
	sort.Float64s(xs)
	require.Contains(t, cdfProblem(xs, slack, total, ax, ranked), "flat from")
	steps, atOrBelow := d.Steps()
	require.Empty(t, cdfProblem(xs, slack, total, ax, cdfPoints(steps, atOrBelow, total, ax)))
}

// Steps are the distinct values with their cumulative counts while a Dist
// is exact, and end at the exact max with every value once it is bucketed.
func TestDistSteps(t *testing.T) {
	xs, n := distOf([]float64{3, 1, 3, 0, 2}).Steps()
	require.Equal(t, []float64{0, 1, 2, 3}, xs)
	require.Equal(t, []int64{1, 2, 3, 5}, n)
	xs, n = (&Dist{}).Steps()
	require.Empty(t, xs)
	require.Empty(t, n)

	vals := make([]float64, 3000)
	for i := range vals {
		vals[i] = float64(i%1500) / 7
	}
	d := distOf(vals)
	require.False(t, d.Exact())
	xs, n = d.Steps()
	require.True(t, sort.Float64sAreSorted(xs))
	for i := 1; i < len(xs); i++ {
		require.Less(t, xs[i-1], xs[i])
		require.Less(t, n[i-1], n[i])
	}
	require.Equal(t, 0.0, xs[0])
	require.Equal(t, 1499.0/7, xs[len(xs)-1])
	require.Equal(t, int64(3000), n[len(n)-1])
}

// A failover CDF of many groups is small multiples: a 3×6 -vary grid drew
// 18 overlapping lines whose colours repeated. Now each value of the first
// dimension is a panel of at most cdfPanelLines lines, one per value of
// the second, coloured alike in every panel; a grid with several
// algorithms gets a panel per algorithm and value; a long plain list is cut
// evenly; and every panel is drawn, with its legend.
func TestCDFPanelsOfAGrid(t *testing.T) {
	et := GridDim{Path: "algorithm.election_timeout", Values: []string{"150ms..151ms", "150ms..200ms", "150ms..300ms"}}
	lat := GridDim{Path: "network.latency", Values: values("1ms..", 6)}
	for _, c := range []struct {
		name   string
		s      *Summary
		titles []string
	}{
		{"3×6 grid", synthGrid(5, []string{"raft"}, et, lat),
			[]string{"election_timeout=150ms..151ms", "election_timeout=150ms..200ms", "election_timeout=150ms..300ms"}},
		{"two algorithms, 1×6", synthGrid(5, []string{"raft", "bully"}, GridDim{Path: "network.latency", Values: values("1ms..", 6)}),
			[]string{"raft", "bully"}},
		{"14 values", synthGrid(5, []string{"raft"}, GridDim{Path: "network.latency", Values: values("1ms..", 14)}),
			[]string{"lines 1–4 of 14", "lines 5–9 of 14", "lines 10–14 of 14"}},
	} {
		algos := algoOrder(c.s)
		lat := failoverLatencies(c.s, algos)
		panels := cdfPanels(c.s, algos, lat)
		var titles []string
		seen := map[int]bool{}
		for _, p := range panels {
			titles = append(titles, p.title)
			assert.LessOrEqual(t, len(p.lines), cdfPanelLines, "%s: %s", c.name, p.title)
			looks := map[string]bool{}
			for j, i := range p.lines {
				assert.False(t, seen[i], "%s: group %d in two panels", c.name, i)
				seen[i] = true
				look := fmt.Sprint(algoColor(p.colour[j]), algoDashes(p.colour[j]))
				assert.False(t, looks[look], "%s: %s: two lines look alike", c.name, p.title)
				looks[look] = true
				assert.Contains(t, algos[i], p.names[j], c.name)
			}
		}
		assert.Len(t, seen, len(algos), "%s: every group has a line", c.name)
		assert.Equal(t, c.titles, titles, c.name)

		f, err := failoverCDF(c.s, algos)
		require.NoError(t, err)
		texts := drawnTexts(t, f)
		assert.Equal(t, len(panels), countText(texts, "failovers recovered"), "%s: one y axis per panel", c.name)
		for _, p := range panels {
			assert.Equal(t, 1, countText(texts, p.title), "%s: panel %q drawn", c.name, p.title)
		}
		requireTextInside(t, f, texts)
	}
	// The grid's second dimension keeps its colour across panels.
	s := synthGrid(5, []string{"raft"}, et, lat)
	panels := cdfPanels(s, algoOrder(s), failoverLatencies(s, algoOrder(s)))
	for _, p := range panels {
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, p.colour)
		assert.Equal(t, "latency=1ms..1", p.names[0])
	}
}
