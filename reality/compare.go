package reality

import (
	"fmt"
	"io"
	"time"
)

// The verdicts of a row.
const (
	VerdictPessimistic = "simulation at least as pessimistic as reality"
	VerdictRosier      = "simulation rosier"
)

// Row is one finding or distribution, real against simulated.
type Row struct {
	// Name says what is compared ("split brain", "overlap", "failover").
	Name string
	// Rate rows: RealK of RealN trials and SimK of SimN runs showed it,
	// with Wilson intervals.
	Rate           bool
	RealK, RealN   int
	SimK, SimN     int
	RealLo, RealHi float64
	SimLo, SimHi   float64
	Real, Sim      Dist
	Verdict        string
	Rosier         bool
}

// Compare builds the table's rows from the real trials' and the
// simulated runs' measures. Every compared quantity is worse when larger
// (a finding's rate, an overlap, a failover time), so the simulation is
// rosier exactly where its interval lies wholly below reality's: the
// rate's Wilson interval, or the mean's interval for a distribution (a
// distribution reality shows and the simulation never does is rosier too).
func Compare(real, simulated []Measure) []Row {
	rate := func(name string, f func(Measure) bool) Row {
		r := Row{Name: name, Rate: true, RealN: len(real), SimN: len(simulated)}
		for _, m := range real {
			if f(m) {
				r.RealK++
			}
		}
		for _, m := range simulated {
			if f(m) {
				r.SimK++
			}
		}
		r.RealLo, r.RealHi = Wilson(r.RealK, r.RealN)
		r.SimLo, r.SimHi = Wilson(r.SimK, r.SimN)
		r.Rosier = r.SimHi < r.RealLo
		return r
	}
	dist := func(name string, f func(Measure) (time.Duration, bool)) Row {
		var rs, ss []time.Duration
		for _, m := range real {
			if d, ok := f(m); ok {
				rs = append(rs, d)
			}
		}
		for _, m := range simulated {
			if d, ok := f(m); ok {
				ss = append(ss, d)
			}
		}
		r := Row{Name: name, Real: Summarise(rs), Sim: Summarise(ss)}
		switch {
		case r.Real.N == 0:
		case r.Sim.N == 0:
			r.Rosier = true
		default:
			r.Rosier = r.Sim.MeanHi < r.Real.MeanLo
		}
		return r
	}
	rows := []Row{
		rate("split brain", func(m Measure) bool { return m.SplitBrain }),
		dist("overlap", func(m Measure) (time.Duration, bool) { return m.Overlap, true }),
		dist("failover", func(m Measure) (time.Duration, bool) { return m.Failover, m.HasFailover }),
	}
	for i := range rows {
		rows[i].Verdict = VerdictPessimistic
		if rows[i].Rosier {
			rows[i].Verdict = VerdictRosier
		}
	}
	return rows
}

// AnyRosier reports whether some row says the simulation is rosier.
func AnyRosier(rows []Row) bool {
	for _, r := range rows {
		if r.Rosier {
			return true
		}
	}
	return false
}

// PrintTable writes the rows as a Markdown table (docs/reality.md shows
// it as printed).
func PrintTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| finding | real | simulated | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		if r.Rate {
			fmt.Fprintf(w, "| %s | %d/%d (%s) | %d/%d (%s) | %s |\n", r.Name, r.RealK, r.RealN, pct(r.RealLo, r.RealHi),
				r.SimK, r.SimN, pct(r.SimLo, r.SimHi), r.Verdict)
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Name, r.Real, r.Sim, r.Verdict)
	}
}

func pct(lo, hi float64) string { return fmt.Sprintf("95%% CI %.0f–%.0f %%", 100*lo, 100*hi) }

// String is the distribution as one table cell: mean with its interval,
// median and maximum, in seconds.
func (d Dist) String() string {
	if d.N == 0 {
		return "none"
	}
	sec := func(x time.Duration) string { return fmt.Sprintf("%.2f", x.Seconds()) }
	return fmt.Sprintf("n=%d mean %ss (95%% CI %s–%s) p50 %ss max %ss", d.N, sec(d.Mean), sec(d.MeanLo), sec(d.MeanHi), sec(d.P50), sec(d.Max))
}
