package simrun

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// MaxMarginSeeds is the most seeds a margin study runs per rate: it keeps
// every run's longest overlap.
const MaxMarginSeeds = 100_000

// marginAs is runMargin for the program named prog.
func marginAs(prog string, args []string, stdout, stderr io.Writer) int {
	cmd := prog + " margin"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	o := &options{workers: runtime.NumCPU(), heat: "failed", prog: prog}
	fs.StringVar(&o.scenario, "scenario", "", "scenario `FILE` (its algorithm must have a drift margin: lease, flavour k8s)")
	ratePath := fs.String("rate", "", "the scenario `PATH` of the followers' clock rate, e.g. faults[0].clock.rate")
	rates := fs.String("rates", "1.0,1.1,1.2,1.3,1.4,1.5,1.6,1.8,2.0", "follower clock rates to run, `LIST`")
	fs.IntVar(&o.seeds, "seeds", 100, "seeds per rate, `K`")
	seed := fs.Uint64("seed", 0, "first seed `N` (default: the scenario's)")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "run `W` seeds in parallel")
	fs.Var((*listFlag)(&o.sets), "set", "override a scenario value, `path=value` (repeatable)")
	fs.StringVar(&o.out, "out", "", "output `DIR` for margin.md, margin.png/svg (default a new out/<scenario name>-margin/NNN)")
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing but errors")
	fs.DurationVar(&o.handlerMax, "handler-timeout", 10*time.Second, "for an algorithm not built into electsim, abort its drift margin (computed in a worker process) after `D` of wall time")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s margin -scenario FILE -rate PATH [-rates LIST] [-seeds K] [-out DIR]\n\n", prog)
		fmt.Fprintln(w, "A clock-drift margin study (docs/studies.md): runs the scenario with its\nfollowers' clock rate at each of -rates and sets every run's longest\nsplit-brain overlap beside the algorithm's analytic worst case.\n\nflags:")
	}
	if code, done := parseFlags(fs, args, cmd, usage, stdout, stderr); done {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, cmd+": "+format+"\n", a...)
		return exitUsage
	}
	switch {
	case o.scenario == "":
		return fail("-scenario FILE is required")
	case *ratePath == "":
		return fail("-rate PATH is required: the scenario path of the followers' clock rate, e.g. faults[0].clock.rate")
	case o.seeds < 1 || o.seeds > MaxMarginSeeds:
		return fail("-seeds must be within [1, %d]", MaxMarginSeeds)
	case o.workers < 1:
		return fail("-workers must be at least 1")
	}
	vals, rs, err := parseRates(*rates)
	if err != nil {
		return fail("%v", err)
	}
	o.dims = []varyDim{{spec: *ratePath + "=" + *rates, path: *ratePath, values: vals}}
	o.cells = gridOf(o.dims)
	scs, code, err := loadMarginCells(o, *seed)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return code
	}
	algo := scs[0].AlgorithmName("")
	bounds, ok, code, err := marginBounds(o, scs, rs, *seed)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return code
	}
	if !ok {
		return fail("%s runs %s, which has no analytic drift margin (registry.Algorithm.DriftMargin; the lease algorithm's k8s flavour has one)", o.scenario, algo)
	}
	dest := outdir.DestFor(o.out, filepath.Join("out", scs[0].Name+"-margin"))
	if err := dest.Check(); err != nil {
		return fail("%v", err)
	}
	first, from := scs[0].Seed, o.scenario+": seed"
	if *seed != 0 {
		first, from = *seed, "-seed"
	}
	if err := checkSeedRange(first, o.seeds, from); err != nil {
		return fail("%v", err)
	}
	jobs := sweepJobs([]string{algo}, first, o.seeds, 0, 1).inCells(len(o.cells))
	boundMs := make([]float64, len(scs)) // each rate's analytic worst case, ms
	for i, m := range bounds.cells {
		boundMs[i] = ms(m.Overlap)
	}
	var res sweepResult
	var longest []float64
	var ran []bool
	if fileIsolated(o, scs[0], jobs.len(), worker.IsWorker()) { // the user's code: in worker processes (margin_procs.go)
		if res, longest, ran, err = sweepMarginsIsolated(o, scs, jobs, first, stderr); err != nil {
			return fail("%v", err)
		}
	} else {
		res, longest, ran = sweepMargins(o, scs, jobs, boundMs, stderr)
	}
	if len(res.errs) > 0 {
		return fail("%v", res.errs[0])
	}
	study, margins, exceeded := marginStudy(scs[0].Name, rs, bounds, jobs, longest, ran)
	if err := writeMarginStudy(dest, study, margins, o, stdout, stderr); err != nil {
		return fail("%v", err)
	}
	if f := res.col.Failed(); f > 0 && !o.quiet {
		fmt.Fprintf(stderr, "%s: %s of %d did not meet the scenario's own expectations; the study judges only overlaps against the bound\n", cmd,
			reports.Plural(f, "run", "runs"), res.done())
	}
	if exceeded > 0 {
		fmt.Fprintf(stderr, "%s: %s overlapped longer than the analytic bound\n", cmd, reports.Plural(exceeded, "run", "runs"))
		return exitViolation
	}
	return exitOK
}

// parseRates reads -rates: clock rates in (0, 100], increasing, at most
// MaxVaryValues; vals are their texts.
func parseRates(rates string) (vals []string, rs []float64, err error) {
	vals = splitTopLevel(rates)
	for _, v := range vals {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r <= 0 || r > 100 {
			return nil, nil, fmt.Errorf("-rates: %q is not a clock rate in (0, 100]", v)
		}
		rs = append(rs, r)
	}
	if !sort.Float64sAreSorted(rs) || len(rs) > MaxVaryValues {
		return nil, nil, fmt.Errorf("-rates: give up to %d rates in increasing order", MaxVaryValues)
	}
	return vals, rs, nil
}

// sweepMargins runs the study's jobs and returns each run's longest
// overlap (longest) and whether it ran, by job index: the study needs
// every run's, which the sweep's aggregates do not keep. bounds are each
// rate's analytic worst case, in ms.
func sweepMargins(o *options, scs []*scenario.Scenario, jobs jobList, bounds []float64, stderr io.Writer) (res sweepResult, longest []float64, ran []bool) {
	// The progress counts the study's verdict, runs past the bound, not
	// the runs that fail the scenario's own expectations (at a fast clock
	// rate most do, and the study expects that).
	pg := newProgress(stderr, jobs.len(), o.quiet)
	pg.name = progName(o)
	pg.bad = func(r *reports.RunSummary) bool { return longestOverlap(r) > bounds[cellOfVary(o, r.Vary)] }
	pg.badName, pg.none = [2]string{"run past the bound", "runs past the bound"}, "no run past the bound"
	// Each run's longest overlap, noted as it finishes.
	longest = make([]float64, jobs.len())
	ran = make([]bool, jobs.len())
	note := func(i int, j job, r *reports.RunSummary) {
		labelRun(o, jobs, j, r) // its rate, for the progress's verdict
		longest[i] = longestOverlap(r)
		ran[i] = true
	}
	res = runSweep(scs, jobs, o.workers, false, o.porcupine, pg, note, nil)
	pg.finish()
	return res, longest, ran
}

// marginStudy sets each rate's runs' longest overlaps beside its analytic
// bound (bounds: each rate's margin, computed by a worker for a user's
// algorithm); exceeded counts the runs past it.
func marginStudy(name string, rs []float64, bounds *driftBounds, jobs jobList, longest []float64, ran []bool) (study *reports.MarginStudy, margins []registry.Margin, exceeded int) {
	m0 := bounds.cells[0]
	study = &reports.MarginStudy{Scenario: name, Rates: rs, SafeRate: m0.SafeRate, Formula: m0.Formula, Bound: bounds.bound}
	for i, m := range bounds.cells {
		margins = append(margins, m)
		study.BoundMs = append(study.BoundMs, ms(m.Overlap))
		var overlaps []float64
		for k := range longest {
			if j := jobs.at(k); j.cell != i || !ran[k] {
				continue
			}
			overlaps = append(overlaps, longest[k])
			if longest[k] > ms(m.Overlap) {
				exceeded++
			}
		}
		study.Overlaps = append(study.Overlaps, overlaps)
	}
	return study, margins, exceeded
}

// writeMarginStudy puts margin.md and the figure in the study's output
// folder (dest) and prints the table.
func writeMarginStudy(dest outdir.OutputDest, study *reports.MarginStudy, margins []registry.Margin, o *options, stdout, stderr io.Writer) error {
	md := marginMarkdown(study, margins, o)
	out, latestNote, err := writeFolder(dest, func(tmp string) error {
		if err := os.WriteFile(filepath.Join(tmp, "margin.md"), []byte(md), 0o644); err != nil {
			return err
		}
		return reports.WriteMarginPlot(tmp, study)
	})
	if err != nil {
		return err
	}
	if latestNote != "" && !o.quiet {
		fmt.Fprintln(stderr, "simrun margin:", latestNote)
	}
	if !o.quiet {
		fmt.Fprint(stdout, md)
		fmt.Fprintf(stdout, "\nfigure: %s\n", filepath.Join(out, "margin.png"))
	}
	return nil
}

// longestOverlap is a run's longest split-brain overlap in ms (0: none).
func longestOverlap(r *reports.RunSummary) float64 {
	longest := 0.0
	for _, v := range r.Violations {
		if v.Kind == "split_brain" {
			longest = max(longest, v.DurationMs)
		}
	}
	return longest
}

// marginMarkdown is the study as a table, with the formula and where its
// terms come from.
func marginMarkdown(m *reports.MarginStudy, margins []registry.Margin, o *options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Drift margin: %s\n\n", m.Scenario)
	fmt.Fprintf(&b, "Followers' clocks at rate r (%s), the leader's exact; %d seeds per rate.\n\n", o.dims[0].path, o.seeds)
	fmt.Fprintf(&b, "**Bound:** %s. Safe while r ≤ %.3f.\n\n", m.Formula, m.SafeRate)
	b.WriteString("| rate | analytic worst case | runs with an overlap | longest simulated | median of those |\n|---|---|---|---|---|\n")
	firstSim := 0.0
	for i, r := range m.Rates {
		var hit []float64
		for _, x := range m.Overlaps[i] {
			if x > 0 {
				hit = append(hit, x)
			}
		}
		sort.Float64s(hit)
		longest, med := "—", "—"
		if len(hit) > 0 {
			longest, med = num(hit[len(hit)-1])+" ms", num(reports.Percentile(hit, 50))+" ms"
			if firstSim == 0 {
				firstSim = r
			}
		}
		fmt.Fprintf(&b, "| %g | %s ms | %d of %d (%s) | %s | %s |\n", r, num(m.BoundMs[i]), len(hit), len(m.Overlaps[i]), pct(float64(len(hit))/float64(max(1, len(m.Overlaps[i])))), longest, med)
	}
	fmt.Fprintf(&b, "\nThe bound calls the configuration safe up to %.3f×", m.SafeRate)
	if firstSim > 0 {
		fmt.Fprintf(&b, "; the first simulated overlap came at %g×", firstSim)
	}
	b.WriteString(".\n\nWhere the terms come from:\n\n")
	if len(margins) > 0 {
		for _, t := range margins[0].Terms {
			fmt.Fprintf(&b, "- %s\n", t)
		}
	}
	return b.String()
}
