package reports

import (
	"math"
)

// Wilson95 is the Wilson score interval for k successes in n trials at
// 95% confidence (z = 1.959964): unlike the normal approximation it stays
// within [0, 1] and is not empty at k = 0 or k = n (Wilson, "Probable
// inference, the law of succession, and statistical inference", JASA
// 1927). n = 0 gives [0, 1].
func Wilson95(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

// HeatCell is one cell of a two-dimensional grid for one algorithm: the
// rate Grid.Heat names over its runs, with its Wilson interval, or the
// failover p99.
type HeatCell struct {
	Algorithm string
	Row, Col  int // indices into Grid.Dims[0].Values and Dims[1].Values
	Runs      int
	Count     int     // runs counted by the rate
	Value     float64 // the rate, or the p99 in ms
	Lo, Hi    float64 // the rate's Wilson 95% interval
	Rate      bool    // Value is a rate (else failover_p99 in ms)
	Has       bool    // false: failover_p99 with no completed failover
}

// HeatCells are the cells of s's two-dimensional grid, by algorithm, row,
// column (nil unless s has one).
func (s *Summary) HeatCells() []HeatCell {
	g := s.Grid
	if g == nil || len(g.Dims) != 2 {
		return nil
	}
	var out []HeatCell
	for _, a := range s.Algorithms {
		if len(a.Vary) != 2 {
			continue
		}
		c := HeatCell{Algorithm: a.Algorithm, Row: indexOf(g.Dims[0].Values, a.Vary[0]), Col: indexOf(g.Dims[1].Values, a.Vary[1]), Runs: a.Runs, Rate: true, Has: true}
		switch g.Heat {
		case "failed", "auto", "":
			c.Count = a.Runs - a.OK
		case "failover_p99":
			c.Rate, c.Has, c.Value = false, a.FailoverMs.Count > 0, a.FailoverMs.P99
		default: // a check: runs with a finding of it, harmful or harmless
			c.Count = a.Violations[g.Heat] + a.Harmless[g.Heat]
		}
		if c.Rate && c.Runs > 0 {
			c.Value = float64(c.Count) / float64(c.Runs)
			c.Lo, c.Hi = Wilson95(c.Count, c.Runs)
		}
		out = append(out, c)
	}
	return out
}

// AutoHeat is the heat metric -heat auto resolves to once a sweep's
// groups are known: failed when a run failed its expectations; else the
// check the most runs found (harmful findings first, then harmless ones:
// an expected lost_slot in every run), so the heatmap shows what failed;
// failed again when no run found anything.
func AutoHeat(groups []AlgoSummary) string {
	failed := 0
	harmful, harmless := map[string]int{}, map[string]int{}
	for _, a := range groups {
		failed += a.Runs - a.OK
		for k, n := range a.Violations {
			harmful[k] += n
		}
		for k, n := range a.Harmless {
			harmless[k] += n
		}
	}
	if failed > 0 {
		return "failed"
	}
	for _, m := range []map[string]int{harmful, harmless} {
		best, most := "", 0
		for k, n := range m {
			if n > most || n == most && n > 0 && k < best {
				best, most = k, n
			}
		}
		if most > 0 {
			return best
		}
	}
	return "failed"
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// CDFLines are the labels of the failover CDF's lines, in order: one per
// group with a completed failover.
func CDFLines(s *Summary) []string {
	groups := algoOrder(s)
	lat := failoverLatencies(s, groups)
	var out []string
	for i, g := range groups {
		if len(lat[i].vals) > 0 {
			out = append(out, g)
		}
	}
	return out
}
