package simrun

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// The steps of runScenario after the plan: run, judge, explain, feature,
// export, commit.

// run runs the jobs: a single run once with its story and exports, or the
// sweep, in this process or in worker processes.
func (r *scenarioRun) run() *ending {
	isolate, autoIsolated := isolation(r.o, r.algos, r.jobs.len(), r.inWorker, registry.Default.Lookup)
	r.isolated = isolate
	if r.jobs.len() == 1 && !r.inWorker && !isolate { // a worker process sweeps even one run: it announces it
		return r.runOne()
	}
	return r.sweep(isolate, autoIsolated)
}

// runOne runs the one run once with its story and the exports, and
// summarizes that (a sweep would run it twice: judged, then again for its
// outputs).
func (r *scenarioRun) runOne() *ending {
	o, jobs := r.o, r.jobs
	start := time.Now()
	fr, ex, err := rerun(r.sc, jobs.at(0), o, r.stdout, r.stderr, "run", hunt.Hooks{})
	if err != nil {
		r.abort()
		return endWith(exitUsage, err)
	}
	r.fr, r.ex, r.fo = fr, ex, featuredHere(fr, ex)
	rs := summarize(fr)
	if !fr.OK {
		rs.Explained = fr.Explain(nil)
	}
	labelRun(o, jobs, jobs.at(0), &rs)
	r.res = sweepResult{col: reports.NewCollector(true), planned: 1, wall: time.Since(start)}
	r.res.col.Add(0, rs)
	if err := r.rf.write(&rs); err != nil {
		r.abort()
		r.ex.Abort()
		return endWith(exitUsage, err)
	}
	return nil
}

// sweep runs the jobs with progress on stderr (a worker process's to its
// parent), in worker processes when isolated or when an algorithm's nodes
// share process-wide state.
func (r *scenarioRun) sweep(isolate, autoIsolated bool) *ending {
	o, jobs := r.o, r.jobs
	var pw io.Writer = r.stderr
	if ch := worker.ParentChannel(); r.inWorker && ch != nil {
		pw = ch // a worker's progress is its parent's to read, on the link a handler cannot print to
	}
	prog := newProgress(pw, jobs.len(), o.quiet)
	prog.name = progName(o)
	if isolate || needsProcesses(r.algos, o.workers, jobs.perAlgo) {
		if !o.quiet {
			r.tellProcesses(isolate, autoIsolated)
		}
		res, err := processSweep(o, r.scs, jobs, r.first, prog, r.rf)
		if err != nil {
			r.abort()
			return endWith(exitUsage, err)
		}
		r.res = res
	} else {
		label := func(_ int, j job, rs *reports.RunSummary) { labelRun(o, jobs, j, rs) }
		r.res = runSweep(r.scs, jobs, o.workers, o.failFast, o.porcupine, prog, label, r.rf.sink)
	}
	prog.finish()
	if len(r.res.errs) > 0 {
		r.abort()
		return endWith(exitUsage, r.res.errs[0])
	}
	if r.res.interrupted && r.res.done() == 0 {
		r.abort()
		_, code, _ := interruption()
		fmt.Fprintln(r.stderr, progName(o)+": interrupted before any run finished; nothing written")
		return endWith(code, nil)
	}
	return nil
}

// tellProcesses says on stderr how many worker processes run the sweep,
// and why.
func (r *scenarioRun) tellProcesses(isolate, autoIsolated bool) {
	o := r.o
	why := "its nodes share process-wide state"
	switch {
	case autoIsolated:
		why = "not built into electsim: a run that overflows its stack, hangs or starts a goroutine is reported, not fatal; -isolate=false runs it in this process"
	case isolate:
		why = "-isolate"
	}
	procs := "worker processes"
	if processCount(o.workers, r.jobs) == 1 {
		procs = "worker process"
	}
	fmt.Fprintf(r.stderr, "%s: %s in %d %s (%s)\n", progName(o), strings.Join(r.algos, ", "), processCount(o.workers, r.jobs), procs, why)
}

// judge closes the runs file and sums the sweep up; a worker process's
// summary is its whole output, and it ends here.
func (r *scenarioRun) judge() *ending {
	o, sc, res := r.o, r.sc, r.res
	if err := r.rf.close(); err != nil {
		r.abort()
		r.ex.Abort()
		return endWith(exitUsage, fmt.Errorf("runs file: %w", err))
	}
	s := &reports.Summary{
		Schema:    reports.Schema,
		Scenario:  scenarioInfo(sc),
		GoVersion: runtime.Version(),
		Seeds:     reports.SeedRange{First: r.first, Count: o.seeds},
		RunsFile:  r.rf.name,
	}
	if o.shardCount > 1 {
		s.Shard = &reports.Shard{Index: o.shardIndex, Count: o.shardCount}
	}
	s.NotApplicable = r.na
	s.Config = &reports.Config{ScenarioSHA256: sc.SourceSHA256, Sets: o.sets, Algorithms: r.algos, Vary: o.vary, Simrun: simrunVersion(), FailFast: o.failFast}
	s.Grid = gridSummary(o.dims, o.heat)
	s.Algorithms = res.col.Groups()
	if s.Grid != nil && s.Grid.Heat == "auto" {
		s.Grid.Heat = reports.AutoHeat(s.Algorithms)
	}
	r.s = s
	if e := r.groupInfo(); e != nil { // the algorithm's Token and Contract: in a worker for a user's (rerun_worker.go)
		r.abort()
		r.ex.Abort()
		return e
	}
	s.Runs = res.col.Kept()
	s.RunsKept = res.col.KeptMode()
	if res.interrupted {
		reason, _, _ := interruption()
		s.Partial = &reports.Partial{Reason: reason, RunsDone: res.done(), RunsPlanned: r.jobs.len()}
	}
	s.Timing = &reports.Timing{WallSeconds: round3(res.wall.Seconds()), Workers: min(o.workers, r.jobs.len()),
		RunsPerSecond: round3(float64(res.done()) / res.wall.Seconds())}
	r.s = s
	if r.inWorker {
		if err := r.rf.commit(); err != nil {
			return endWith(exitUsage, err)
		}
		return endWith(writeWorkerSummary(o, r.stdout, s, res))
	}
	return nil
}

// feature runs the featured run again in full: the first that failed its
// expectations, else the first (runs are deterministic). The single run
// already is.
func (r *scenarioRun) feature() *ending {
	o, s, res := r.o, r.s, r.res
	r.fsc = r.sc
	r.featuredJob = r.jobs.at(0)
	if r.fr != nil {
		return nil
	}
	fj, ok := featured(o, s, res.died)
	r.featuredJob = fj
	if !ok {
		// Each run is a crashed finding (exit 1, not bad input), but
		// with no run to re-run for the report nothing is written.
		r.abort()
		return endWith(exitViolation, fmt.Errorf("every run killed its worker process, so there is no run to feature in a report and nothing was written; the runs' crashes: %s", diedSummary(s)))
	}
	r.fsc = r.scs[fj.cell]
	// After a signal the featured run (one the sweep finished) is cut
	// at featuredGrace of wall time: the partial summary must not wait
	// for a long run again (docs/output.md, "Signals").
	if r.userIsolated(fj.algo) { // the user's code: in a worker (rerun_worker.go)
		var grace time.Duration
		if res.interrupted {
			grace = featuredGrace
		}
		fo, e := r.featureInWorker(fj, grace)
		if e != nil {
			r.abort()
			return e
		}
		r.fo = fo
		return nil
	}
	var cut *atomic.Bool
	if res.interrupted {
		cut = new(atomic.Bool)
		defer time.AfterFunc(featuredGrace, func() { cut.Store(true) }).Stop()
	}
	fr, ex, err := rerun(r.fsc, fj, o, r.stdout, r.stderr, "featured run", hunt.Hooks{Abort: cut})
	if err != nil {
		r.abort()
		return endWith(exitUsage, err)
	}
	r.fr, r.ex, r.fo = fr, ex, featuredHere(fr, ex)
	if cut != nil && cut.Load() && fr.Outcome == sim.OutcomeStopped {
		fmt.Fprintf(r.stderr, "%s: the featured run's report was cut at %v of simulated time (interrupted; %v of wall time allowed)\n", progName(o), fr.Sim.Now(), featuredGrace)
	}
	return nil
}

// export writes every output, staged: the shrunk reproduction, the
// comparison's timelines, the folder's reports and summary, -json. They
// are put in place together (commit): a run that fails (exit 2) writes
// nothing.
func (r *scenarioRun) export() *ending {
	o, s, folder := r.o, r.s, r.folder
	repStart := time.Now()
	if !r.res.interrupted { // asked to stop: no 30 s of shrinking
		var died *ending
		r.shrunk = maybeShrink(o, r.fsc, r.fo, s, r.stderr, func() shrunkRun {
			if r.fr != nil {
				return shrinkHere(r.fr, o.shrinkTime, nil, nil)
			}
			rep, e := r.ask(rerunJob{Kind: "shrink", Seed: r.fo.seed, Algorithm: r.fo.algo, Shrink: o.shrinkTime}, r.featuredJob.cell, fmt.Sprintf("seed %d, shrunk", r.fo.seed))
			if e != nil {
				died = e
				return shrunkRun{Err: "the worker process failed"}
			}
			return *rep.Shrunk
		})
		if died != nil {
			r.abort()
			r.ex.Abort()
			return died
		}
	}
	if e := r.compare(); e != nil {
		r.ex.Abort()
		return e
	}
	links := r.fo.porcupine
	if r.fr != nil {
		var err error
		if links, err = porcupineFiles(folder.Tmp, r.fr); err != nil {
			r.abort()
			r.ex.Abort()
			return endWith(exitUsage, err)
		}
	}
	if err := fillOutputs(folder.Tmp, s, append([]*reports.Timeline{r.fo.timeline}, r.others...), links, r.fo.spaceTime, o, r.shrunk); err != nil {
		r.abort()
		r.ex.Abort()
		return endWith(exitUsage, err)
	}
	s.Timing.ReportsSeconds = round3(time.Since(repStart).Seconds())
	if err := writeSummaryFile(folder.Tmp, s); err != nil { // with the reports' timing
		folder.Abort()
		r.ex.Abort()
		return endWith(exitUsage, err)
	}
	if o.json != "" {
		js, err := outdir.CreateOutput(o.json, r.stdout)
		if err == nil {
			err = reports.WriteJSON(js.W, s)
		}
		if err != nil {
			if js != nil {
				js.Abort()
			}
			folder.Abort()
			r.ex.Abort()
			return endWith(exitUsage, err)
		}
		r.js = js
	}
	return nil
}

// compare runs again, with its story, each other algorithm's first
// failing run in the featured run's grid cell (else its first): a
// comparison draws one timeline per algorithm.
func (r *scenarioRun) compare() *ending {
	o, s, scs := r.o, r.s, r.scs
	if len(r.algos) <= 1 || r.res.interrupted {
		return nil
	}
	fj := r.featuredJob
	for _, a := range r.algos {
		if a == r.fo.algo {
			continue
		}
		j, ok := representative(o, s, a, fj.cell)
		if !ok || r.res.died[j] {
			continue
		}
		if r.userIsolated(a) { // in a worker (rerun_worker.go)
			rep, e := r.ask(rerunJob{Kind: "timeline", Seed: j.seed, Algorithm: a}, j.cell, fmt.Sprintf("seed %d, run again for the comparison", j.seed))
			if e != nil {
				r.abort()
				return e
			}
			r.others = append(r.others, rep.Timeline)
			continue
		}
		run, err := scs[j.cell].Run(scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(scs[j.cell], j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast})
		if err != nil {
			r.abort()
			return endWith(exitUsage, err)
		}
		r.others = append(r.others, timeline(run))
	}
	return nil
}

// commit puts every output in place, all or nothing, and prints the
// summary; the exit status says whether a run failed or a signal stopped
// the sweep.
func (r *scenarioRun) commit() *ending {
	o, folder := r.o, r.folder
	// The folder first: its install is the one that can be refused (a
	// folder not simrun's appeared at -out meanwhile), and then no other
	// output may have been put in place. Any later failure rolls back what
	// was installed, so exit 2 leaves every path as it was.
	outs := []outdir.Output{folder, r.rf}
	if r.js != nil {
		outs = append(outs, r.js)
	}
	if err := outdir.CommitAll(append(outs, r.ex)...); err != nil {
		return endWith(exitUsage, err)
	}
	r.code = exitOK
	if r.res.col.Failed() > 0 {
		r.code = exitViolation
	}
	if _, c, ok := interruption(); ok && r.res.interrupted {
		r.code = c
	}
	if folder.LatestNote != "" && !o.quiet {
		fmt.Fprintln(r.stderr, "simrun:", folder.LatestNote)
	}
	if !o.quiet {
		scs := r.scs
		printSummary(humanOut(o, r.stdout, r.stderr), r.sc, r.s, r.res, folder.Out, r.shrunk, func(rs reports.RunSummary) *scenario.Scenario { return scs[cellOf(o, rs)] })
	}
	return nil
}
