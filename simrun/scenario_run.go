package simrun

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
)

// featuredGrace bounds, after a signal, the wall time the featured run is
// given again (it is one the sweep finished, so usually far less).
const featuredGrace = 5 * time.Second

// runScenario runs one scenario over the seeds and algorithms of o.
func runScenario(o *options, stdout, stderr io.Writer) (int, error) {
	// The file is read without its algorithm's own code (Build's checks
	// of its parameters) until the sweep knows whether it isolates that
	// algorithm: then a worker reads it in full first (checkLoads), or,
	// in this process, it is read again in full.
	scs, err := loadCellsAs(o, o.cells, "-vary", scenario.ParseOptions{DeferUserCode: true})
	if err != nil {
		return exitUsage, err
	}
	sc := scs[0]
	first, from := sc.Seed, sc.File+": seed"
	if o.seedSet {
		first, from = o.seed, "-seed"
	}
	if err := checkSeedRange(first, o.seeds, from); err != nil {
		return exitUsage, err
	}
	algos := o.algos
	if len(algos) == 0 {
		algos = []string{sc.AlgorithmName("")}
	}
	for _, a := range algos {
		if !validAlgo(a) {
			return exitUsage, usagef("-algo: unknown algorithm %q (one of %s)", a, strings.Join(scenario.Algorithms(), ", "))
		}
		if own := sc.AlgorithmName(""); a != own && (own == "shedlock" || own == "celery") {
			return exitUsage, usagef("-algo: %s is a %s-mode scenario (no election algorithm); it cannot run under %s", sc.Name, own, a)
		}
	}
	tellDropped(o, sc, algos, stderr)
	if o.materialize != "" {
		return materialize(o, sc, first, algos[0], stdout)
	}
	jobs := sweepJobs(algos, first, o.seeds, o.shardIndex, o.shardCount)
	if jobs.len() == 0 {
		return exitUsage, usagef("shard %d/%d of %d seeds is empty", o.shardIndex, o.shardCount, o.seeds)
	}
	// An algorithm that cannot build the scenario (a lease-store fault
	// under raft) is n/a, as in the matrix; the others run. None: exit 2.
	// A sweep in worker processes builds it in one (isolatedBuild): the
	// algorithm's factory is user code that may exit or block. A worker
	// process does not check again: its parent did.
	var na []reports.NotApplicable
	var can []string
	worker := isWorker() // a worker process: the parent explains, features and reports
	isolated, _ := isolation(o, algos, jobs.len(), worker, registry.Default.Lookup)
	if isolated {
		if code, err := checkLoads(o, first, sc.AlgorithmName("")); err != nil {
			return code, err
		}
	} else if userAlgorithm(sc) {
		if scs, err = loadCells(o, o.cells); err != nil {
			return exitUsage, err
		}
		sc = scs[0]
	}
	for _, a := range algos {
		if worker {
			can = append(can, a)
			continue
		}
		build := func() error {
			_, err := sc.Build(scenario.RunOptions{Seed: first, Algorithm: algoOverride(sc, a)})
			return err
		}
		if isolated {
			build = func() error { return isolatedBuild(o, sc, first, algoOverride(sc, a)) }
		}
		if err := build(); err != nil {
			var died *hunt.DiedError
			if errors.As(err, &died) {
				return exitViolation, fmt.Errorf("%s under %s: %v", o.scenario, a, err)
			}
			if len(algos) == 1 {
				return exitUsage, usagef("%s under %s: %v", o.scenario, a, err)
			}
			na = append(na, reports.NotApplicable{Algorithm: a, Reason: err.Error()})
			continue
		}
		can = append(can, a)
	}
	if len(can) == 0 {
		return exitUsage, usagef("%s: no algorithm of %s can run it (%s)", o.scenario, strings.Join(algos, ", "), na[0].Reason)
	}
	algos = can
	jobs = sweepJobs(algos, first, o.seeds, o.shardIndex, o.shardCount).inCells(len(o.cells))
	if g := jobs.cells * len(algos); g > MaxGroups {
		return exitUsage, usagef("%d grid cells × %d algorithms is %d groups, more than %d (MaxGroups): each keeps its own distributions in summary.json; vary fewer values or fewer algorithms at once", len(o.cells), len(algos), g, MaxGroups)
	}
	// Compare by division: the product can overflow int on 32-bit builds.
	if jobs.perAlgo > MaxRuns/(jobs.cells*len(algos)) {
		n := uint64(jobs.perAlgo) * uint64(jobs.cells) * uint64(len(algos))
		return exitUsage, usagef("%d grid cells × %d algorithms × %d seeds of the shard is %d runs, more than %d (MaxRuns): split the sweep with -shard", len(o.cells), len(algos), jobs.perAlgo, n, MaxRuns)
	}
	dest := destFor(o.out, filepath.Join("out", sc.Name))
	// Refuse an output path simrun may not replace before doing any work.
	if err := dest.check(); err != nil {
		return exitUsage, err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "%s: %s: %s, %s, %v · %s · %s\n", progName(o), sc.Name, reports.Plural(sc.Nodes, "node", "nodes"), strings.Join(algos, ", "),
			sc.Duration, reports.Plural(jobs.len(), "run", "runs"), reports.Plural(min(o.workers, jobs.len()), "worker", "workers"))
	}
	// Every run goes to the runs file as it finishes: into the output
	// folder, staged now (put in place with the rest, or removed), or to
	// -runs.
	var folder *stagedFolder
	if !worker {
		if folder, err = dest.stage(); err != nil {
			return exitUsage, err
		}
	}
	rf, err := openRunsFile(o, folder)
	if err != nil {
		if folder != nil {
			folder.abort()
		}
		return exitUsage, err
	}
	abort := func() {
		rf.abort()
		if folder != nil {
			folder.abort()
		}
	}
	label := func(_ int, j job, r *reports.RunSummary) { labelRun(o, jobs, j, r) }
	var res sweepResult
	var fr *scenario.Run // the featured run, with its story
	var ex *exports      // its trace exports, staged
	isolate, autoIsolated := isolation(o, algos, jobs.len(), worker, registry.Default.Lookup)
	if jobs.len() == 1 && !worker && !isolate { // a worker process sweeps even one run: it announces it
		// One run: run it once with its story and the exports, and
		// summarize that (a sweep would run it twice: judged, then again
		// for its outputs).
		start := time.Now()
		r, e, err := rerun(sc, jobs.at(0), o, stdout, stderr, "run", nil)
		if err != nil {
			abort()
			return exitUsage, err
		}
		fr, ex = r, e
		rs := summarize(r)
		if !r.OK {
			rs.Explained = r.Explain(nil)
		}
		label(0, jobs.at(0), &rs)
		res = sweepResult{col: reports.NewCollector(true), planned: 1, wall: time.Since(start)}
		res.col.Add(0, rs)
		if err := rf.write(&rs); err != nil {
			abort()
			ex.abort()
			return exitUsage, err
		}
	} else {
		var pw io.Writer = stderr
		if ch := parentChannel(); worker && ch != nil {
			pw = ch // a worker's progress is its parent's to read, on the link a handler cannot print to
		}
		prog := newProgress(pw, jobs.len(), o.quiet)
		prog.name = progName(o)
		if isolate || needsProcesses(algos, o.workers, jobs.perAlgo) {
			if !o.quiet {
				why := "its nodes share process-wide state"
				switch {
				case autoIsolated:
					why = "not built into electsim: a run that overflows its stack, hangs or starts a goroutine is reported, not fatal; -isolate=false runs it in this process"
				case isolate:
					why = "-isolate"
				}
				procs := "worker processes"
				if processCount(o.workers, jobs) == 1 {
					procs = "worker process"
				}
				fmt.Fprintf(stderr, "%s: %s in %d %s (%s)\n", progName(o), strings.Join(algos, ", "), processCount(o.workers, jobs), procs, why)
			}
			if res, err = processSweep(o, scs, jobs, first, prog, rf); err != nil {
				abort()
				return exitUsage, err
			}
		} else {
			res = runSweep(scs, jobs, o.workers, o.failFast, o.porcupine, prog, label, rf.sink)
		}
		prog.finish()
		if len(res.errs) > 0 {
			abort()
			return exitUsage, res.errs[0]
		}
		if res.interrupted && res.done() == 0 {
			abort()
			_, code, _ := interruption()
			fmt.Fprintln(stderr, progName(o)+": interrupted before any run finished; nothing written")
			return code, nil
		}
	}
	if err := rf.close(); err != nil {
		abort()
		ex.abort()
		return exitUsage, fmt.Errorf("runs file: %w", err)
	}
	s := &reports.Summary{
		Schema:    reports.Schema,
		Scenario:  scenarioInfo(sc),
		GoVersion: runtime.Version(),
		Seeds:     reports.SeedRange{First: first, Count: o.seeds},
		RunsFile:  rf.name,
	}
	if o.shardCount > 1 {
		s.Shard = &reports.Shard{Index: o.shardIndex, Count: o.shardCount}
	}
	s.NotApplicable = na
	s.Config = &reports.Config{ScenarioSHA256: sc.SourceSHA256, Sets: o.sets, Algorithms: algos, Vary: o.vary, Simrun: simrunVersion(), FailFast: o.failFast}
	s.Grid = gridSummary(o.dims, o.heat)
	s.Algorithms = res.col.Groups()
	if s.Grid != nil && s.Grid.Heat == "auto" {
		s.Grid.Heat = reports.AutoHeat(s.Algorithms)
	}
	for i := range s.Algorithms {
		g := &s.Algorithms[i]
		g.Token = tokenInfo(scs[cellOfVary(o, g.Vary)], g.Algorithm)
		g.Caveat = scs[cellOfVary(o, g.Vary)].Caveat(g.Algorithm)
	}
	s.Runs = res.col.Kept()
	s.RunsKept = res.col.KeptMode()
	if res.interrupted {
		reason, _, _ := interruption()
		s.Partial = &reports.Partial{Reason: reason, RunsDone: res.done(), RunsPlanned: jobs.len()}
	}
	s.Timing = &reports.Timing{WallSeconds: round3(res.wall.Seconds()), Workers: min(o.workers, jobs.len()),
		RunsPerSecond: round3(float64(res.done()) / res.wall.Seconds())}
	if worker {
		if err := rf.commit(); err != nil {
			return exitUsage, err
		}
		return writeWorkerSummary(o, stdout, s, res)
	}
	// The sweep judged runs without their story. The failing runs the
	// summary prints are run again with it, so their violations come
	// explained. The sweep's verdicts stand: a porcupine check bounded by
	// wall time can decide differently the second time, and the kept run
	// must agree with the aggregates and the runs file.
	explained := 0
	for i := range s.Runs {
		// The single run already has its story; after a signal, no rerun
		// but the featured one.
		if fr != nil || explained >= maxPrintedFailures || res.interrupted {
			break
		}
		if s.Runs[i].OK || s.Runs[i].WorkerDied {
			continue // a run that killed its worker would kill this process
		}
		explained++
		j := jobOf(o, &s.Runs[i])
		jsc := scs[j.cell]
		r, err := jsc.Run(scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(jsc, j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast})
		if err != nil {
			abort()
			return exitUsage, err
		}
		addExplanations(&s.Runs[i], summarize(r))
		s.Runs[i].Explained = r.Explain(nil)
	}
	// The featured run: the first that failed its expectations, else the
	// first. Runs are deterministic, so it is simply run again in full.
	fsc := sc // the featured run's scenario (its grid cell's)
	featuredJob := jobs.at(0)
	if fr == nil {
		fj, ok := featured(o, s, res.died)
		featuredJob = fj
		if !ok {
			// Each run is a crashed finding (exit 1, not bad input), but
			// with no run to re-run for the report nothing is written.
			abort()
			return exitViolation, fmt.Errorf("every run killed its worker process, so there is no run to feature in a report and nothing was written; the runs' crashes: %s", diedSummary(s))
		}
		fsc = scs[fj.cell]
		// After a signal the featured run (one the sweep finished) is cut
		// at featuredGrace of wall time: the partial summary must not wait
		// for a long run again (docs/output.md, "Signals").
		var cut *atomic.Bool
		if res.interrupted {
			cut = new(atomic.Bool)
			defer time.AfterFunc(featuredGrace, func() { cut.Store(true) }).Stop()
		}
		if fr, ex, err = rerun(fsc, fj, o, stdout, stderr, "featured run", cut); err != nil {
			abort()
			return exitUsage, err
		}
		if cut != nil && cut.Load() && fr.Outcome == sim.OutcomeStopped {
			fmt.Fprintf(stderr, "%s: the featured run's report was cut at %v of simulated time (interrupted; %v of wall time allowed)\n", progName(o), fr.Sim.Now(), featuredGrace)
		}
	}
	// Every output is staged, then all are put in place together: a run
	// that fails (exit 2) writes nothing.
	repStart := time.Now()
	var shrunk *shrinkResult
	if !res.interrupted { // asked to stop: no 30 s of shrinking
		shrunk = maybeShrink(o, fsc, fr, s, stderr)
	}
	// A comparison draws one timeline per algorithm: each other
	// algorithm's first failing run in the featured run's grid cell (else
	// its first), run again with its story.
	var others []*scenario.Run
	if len(algos) > 1 && !res.interrupted {
		fj := featuredJob
		for _, a := range algos {
			if a == fr.Algorithm {
				continue
			}
			j, ok := representative(o, s, a, fj.cell)
			if !ok || res.died[j] {
				continue
			}
			r, err := scs[j.cell].Run(scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(scs[j.cell], j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast})
			if err != nil {
				abort()
				return exitUsage, err
			}
			others = append(others, r)
		}
	}
	if err := fillOutputs(folder.tmp, s, fr, others, ex.spaceTime(fr), o, shrunk); err != nil {
		abort()
		ex.abort()
		return exitUsage, err
	}
	s.Timing.ReportsSeconds = round3(time.Since(repStart).Seconds())
	if err := writeSummaryFile(folder.tmp, s); err != nil { // with the reports' timing
		folder.abort()
		ex.abort()
		return exitUsage, err
	}
	var js *atomicFile
	if o.json != "" {
		if js, err = createOutput(o.json, stdout); err == nil {
			err = reports.WriteJSON(js.w, s)
		}
		if err != nil {
			if js != nil {
				js.abort()
			}
			folder.abort()
			ex.abort()
			return exitUsage, err
		}
	}
	// The folder first: its install is the one that can be refused (a
	// folder not simrun's appeared at -out meanwhile), and then no other
	// output may have been put in place. Any later failure rolls back what
	// was installed, so exit 2 leaves every path as it was.
	outs := []output{folder, rf}
	if js != nil {
		outs = append(outs, js)
	}
	if err := commitAll(append(outs, ex)...); err != nil {
		return exitUsage, err
	}
	code := exitOK
	if res.col.Failed() > 0 {
		code = exitViolation
	}
	if _, c, ok := interruption(); ok && res.interrupted {
		code = c
	}
	if folder.latestNote != "" && !o.quiet {
		fmt.Fprintln(stderr, "simrun:", folder.latestNote)
	}
	if !o.quiet {
		printSummary(humanOut(o, stdout, stderr), sc, s, res, folder.out, shrunk, func(r reports.RunSummary) *scenario.Scenario { return scs[cellOf(o, r)] })
	}
	return code, nil
}

// labelRun gives a run of a parameter sweep its grid cell and group
// label.
func labelRun(o *options, jobs jobList, j job, r *reports.RunSummary) {
	c := o.cells[j.cell]
	if c.label == "" {
		return
	}
	r.Vary, r.Group = c.values, groupLabel(c, j.algo, len(jobs.algos))
}

// cellOf is the grid cell a run ran in.
func cellOf(o *options, r reports.RunSummary) int { return cellOfVary(o, r.Vary) }

// cellOfVary is the grid cell of the given values (0 outside a sweep).
func cellOfVary(o *options, vary []string) int {
	for i, c := range o.cells {
		if slices.Equal(c.values, vary) {
			return i
		}
	}
	return 0
}

func validAlgo(a string) bool {
	if a == "shedlock" || a == "celery" {
		return true
	}
	for _, x := range scenario.Algorithms() {
		if x == a {
			return true
		}
	}
	return false
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func scenarioInfo(sc *scenario.Scenario) reports.ScenarioInfo {
	return reports.ScenarioInfo{Name: sc.Name, File: sc.File, Description: sc.Description,
		DurationMs: ms(sc.Duration), SettleMs: ms(sc.Settle.For), Nodes: sc.Nodes}
}

// jobOf is the job a run of the sweep was.
func jobOf(o *options, r *reports.RunSummary) job {
	return job{algo: r.Algorithm, seed: r.Seed, cell: cellOfVary(o, r.Vary)}
}

// representative is algo's first failing run in cell, else its first
// finished one there.
func representative(o *options, s *reports.Summary, algo string, cell int) (job, bool) {
	for _, a := range s.Algorithms {
		if a.Algorithm != algo || cellOfVary(o, a.Vary) != cell || a.Runs == 0 {
			continue
		}
		if a.FirstFailingSeed != nil {
			return job{algo: algo, seed: *a.FirstFailingSeed, cell: cell}, true
		}
		return job{algo: algo, seed: a.FirstSeed, cell: cell}, true
	}
	return job{}, false
}

// featured is the sweep's first failing run (groups in order), else the
// first group's first finished run.
//
// A run that killed its worker process (died) is never featured: running
// it again here would kill simrun. The first failing kept run that did not
// stands in, else the first kept run that did not; ok is false when every
// kept run died.
func featured(o *options, s *reports.Summary, died map[job]bool) (job, bool) {
	for _, a := range s.Algorithms {
		if a.FirstFailingSeed != nil {
			if j := (job{algo: a.Algorithm, seed: *a.FirstFailingSeed, cell: cellOfVary(o, a.Vary)}); !died[j] {
				return j, true
			}
		}
	}
	for _, wantFailing := range []bool{true, false} {
		for i := range s.Runs {
			r := &s.Runs[i]
			if j := jobOf(o, r); !died[j] && (!wantFailing || !r.OK) {
				return j, true
			}
		}
	}
	for _, a := range s.Algorithms {
		if j := (job{algo: a.Algorithm, seed: a.FirstSeed, cell: cellOfVary(o, a.Vary)}); a.Runs > 0 && !died[j] {
			return j, true
		}
	}
	return job{}, false
}

// diedSummary lists the runs that killed their worker, one clause each.
func diedSummary(s *reports.Summary) string {
	var parts []string
	for _, r := range s.Runs {
		if r.WorkerDied && len(r.Violations) > 0 {
			parts = append(parts, fmt.Sprintf("seed %d: %s (%s)", r.Seed, r.Violations[0].Details, r.Violations[0].Replay))
		}
	}
	return strings.Join(parts, "; ")
}

// exports are the featured run's trace files, written but not yet in
// place: they are committed with the other outputs, or not at all.
type exports struct {
	files []*atomicFile
	// diagram collected the run's messages and timers for the report's
	// space-time diagram.
	diagram *spaceTimeSink
}

// spaceTime is the featured run's diagram (nil without one).
func (e *exports) spaceTime(fr *scenario.Run) *reports.SpaceTime {
	if e == nil || e.diagram == nil || fr == nil {
		return nil
	}
	return e.diagram.diagram(timeline(fr))
}

func (e *exports) abort() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		f.abort()
	}
}

// install puts every export in place; on error the ones installed are
// rolled back and the rest aborted.
func (e *exports) install() error {
	if e == nil {
		return nil
	}
	for i, f := range e.files {
		if err := f.install(); err != nil {
			for _, g := range e.files[:i] {
				g.rollback()
			}
			for _, g := range e.files[i+1:] {
				g.abort()
			}
			return err
		}
	}
	return nil
}

func (e *exports) finish() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		f.finish()
	}
}

func (e *exports) rollback() {
	if e == nil {
		return
	}
	for _, f := range e.files {
		f.rollback()
	}
}

// MaxFeaturedFaults bounds the injected faults the featured run's report
// draws on its timeline (scenario.RunOptions.HistoryLimit): a fault every
// millisecond would otherwise keep some 400 bytes per fault for the whole
// run (docs/output.md, "Limits").
const MaxFeaturedFaults = 5_000

// rerun runs j again with its story and the trace exports o asks for,
// written to staged files that the caller commits or aborts. A long run
// reports its progress in simulated time on stderr (unless -quiet), under
// label.
func rerun(sc *scenario.Scenario, j job, o *options, stdout, stderr io.Writer, label string, abort *atomic.Bool) (*scenario.Run, *exports, error) {
	opts := scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(sc, j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast, Abort: abort,
		HistoryLimit: MaxFeaturedFaults}
	ex := &exports{}
	r, err := sc.Build(opts)
	if err != nil {
		return nil, nil, err
	}
	var jw *sim.JSONLWriter
	if o.trace != "" {
		tf, err := createOutput(o.trace, stdout)
		if err != nil {
			return nil, nil, err
		}
		ex.files = append(ex.files, tf)
		jw = sim.NewJSONLWriter(tf.w, r.Sim)
		r.Sim.AddSink(jw)
	}
	ex.diagram = newSpaceTimeSink(r.Sim, len(sc.Faults)+len(sc.Nemeses) > 0)
	r.Sim.AddSink(ex.diagram)
	var pfs *sim.PerfettoSink
	if o.perfetto != "" {
		// The export is built as the run goes, a few hundred bytes per
		// record, and bounded: a day of long-day.yaml has 16 million.
		pfs = sim.NewPerfettoSink(r.Sim, MaxPerfettoRecords)
		r.Sim.AddSink(pfs)
	}
	prog := newRunProgress(stderr, label, sc.Duration+sc.Settle.For, o.quiet)
	if prog != nil {
		prog.name = progName(o)
	}
	if prog != nil {
		r.Sim.AddSink(prog)
	}
	r.Execute(opts)
	prog.finish()
	if jw != nil {
		if err := jw.Flush(); err != nil {
			ex.abort()
			return nil, nil, fmt.Errorf("-trace: %w", err)
		}
	}
	if o.perfetto != "" {
		pf, err := createOutput(o.perfetto, stdout)
		if err != nil {
			ex.abort()
			return nil, nil, err
		}
		ex.files = append(ex.files, pf)
		if err := pfs.Write(pf.w); err != nil {
			ex.abort()
			return nil, nil, fmt.Errorf("-perfetto: %w", err)
		}
		if pfs.Truncated() && !o.quiet {
			fmt.Fprintf(stderr, "%s: -perfetto: the featured run has more than %d records; the export holds its first %d, up to t=%s (-trace streams the whole run as JSON lines)\n", progName(o),
				MaxPerfettoRecords, pfs.Kept(), pfs.End())
		}
	}
	return r, ex, nil
}

// writeWorkerSummary is a worker process's whole output: its summary as
// JSON (-json), nothing else; its exit status is the sweep's.
func writeWorkerSummary(o *options, stdout io.Writer, s *reports.Summary, res sweepResult) (int, error) {
	js, err := createOutput(o.json, stdout)
	if err == nil {
		if err = reports.WriteJSON(js.w, s); err == nil {
			err = js.commit()
		} else {
			js.abort()
		}
	}
	if err != nil {
		return exitUsage, err
	}
	code := exitOK
	if res.col.Failed() > 0 {
		code = exitViolation
	}
	if _, c, ok := interruption(); ok && res.interrupted {
		code = c
	}
	return code, nil
}
