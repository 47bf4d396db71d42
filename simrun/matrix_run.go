package simrun

import (
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// runMatrix runs every scenario of the matrix file under every algorithm
// and writes the comparison table (markdown and HTML), in named steps.
func runMatrix(o *options, stdout, stderr io.Writer) (int, error) {
	r := &matrixRun{o: o, stdout: stdout, stderr: stderr}
	if e := runSteps(
		r.load,      // the matrix file, its seeds and destination
		r.loadFiles, // its scenario files
		r.plan,      // the algorithms that can build each, the jobs
	); e != nil {
		return e.code, e.err
	}
	sweeping.Add(1) // from here a signal stops gracefully, between two scenarios' sweeps too
	defer sweeping.Add(-1)
	if e := runSteps(
		r.run,   // each scenario's sweep
		r.write, // the tables, in place
	); e != nil {
		return e.code, e.err
	}
	return r.verdict(), nil
}

// matrixRun is one invocation of runMatrix on its way through its steps.
type matrixRun struct {
	o              *options
	stdout, stderr io.Writer

	m            *matrixFile
	seeds        int
	first        uint64
	dest         outdir.OutputDest
	isolate      bool // each scenario's runs in worker processes (isolation)
	autoIsolated bool
	scs          []*scenario.Scenario
	files        []string // scs' paths
	table        [][]cell // by scenario, then algorithm
	plans        []matrixPlan
	total        int // runs planned
	done         int // runs finished
	stopped      bool
	start        time.Time
}

// matrixPlan is the sweep of one scenario: the algorithms that can build it.
type matrixPlan struct {
	i    int
	algo []string
	jobs jobList
}

// load reads the matrix file, its seed range and destination.
func (r *matrixRun) load() *ending {
	o := r.o
	m, err := loadMatrix(o.matrix)
	if err != nil {
		return endWith(exitUsage, usageError{err.Error()})
	}
	r.m = m
	r.seeds = m.Seeds
	if o.seedsSet { // -seeds 1 included: it is also the flag's default
		r.seeds = o.seeds
	}
	first, from := m.Seed, o.matrix+": seed"
	if o.seedSet {
		first, from = o.seed, "-seed"
	}
	if err := checkSeedRange(first, r.seeds, from); err != nil {
		return endWith(exitUsage, err)
	}
	r.first = first
	r.dest = outdir.DestFor(o.out, filepath.Join("out", "matrix-"+m.Name))
	if err := r.dest.Check(); err != nil {
		return endWith(exitUsage, err)
	}
	return nil
}

// loadFiles reads the matrix's scenario files. Isolated as a sweep is
// (isolation): a matrix of an algorithm not built into electsim runs each
// scenario's runs in worker processes, and its files are read in full,
// the algorithm's checks of its parameters included, by a worker first
// (checkLoads).
func (r *matrixRun) loadFiles() *ending {
	o, m, seeds := r.o, r.m, r.seeds
	dir := filepath.Dir(o.matrix)
	r.isolate, r.autoIsolated = isolation(o, m.Algorithms, max(seeds, 1)*len(m.Scenarios)*len(m.Algorithms), worker.IsWorker(), registry.Default.Lookup)
	for _, f := range m.Scenarios {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f) // relative to the matrix file
		}
		po := scenario.ParseOptions{DeferUserCode: true, Running: m.Algorithms}
		sc, err := scenario.LoadWithOptions(f, o.sets, po)
		if err == nil && (r.isolate || fileIsolated(o, sc, max(seeds, 1)*len(m.Algorithms), worker.IsWorker())) {
			fo := matrixSweepOptions(o, f, seeds)
			scs, code, err := checkedCells(fo, []*scenario.Scenario{sc}, r.first, "-set", po)
			if err != nil {
				return endWith(code, err)
			}
			sc = scs[0]
		} else if err == nil && userAlgorithm(sc) {
			sc, err = scenario.LoadRunning(f, o.sets, m.Algorithms)
		}
		if err != nil {
			return endWith(exitUsage, usageError{err.Error()})
		}
		sc.Program = o.prog
		r.scs = append(r.scs, sc)
		r.files = append(r.files, f)
	}
	return nil
}

// plan finds, for each scenario, the algorithms that can build it (the
// others' cells are n/a) and their jobs, within MaxRuns, and says what
// will run.
func (r *matrixRun) plan() *ending {
	o, m, seeds, first := r.o, r.m, r.seeds, r.first
	r.table = make([][]cell, len(r.scs))
	for i, sc := range r.scs {
		r.table[i] = make([]cell, len(m.Algorithms))
		var ok []string
		for k, a := range m.Algorithms {
			if err := buildAs(o, sc, first, a, r.isolate); err != nil {
				var died *hunt.DiedError
				if errors.As(err, &died) {
					return endWith(exitViolation, fmt.Errorf("%s under %s: %v", r.files[i], a, err))
				}
				r.table[i][k].na = err.Error()
				continue
			}
			ok = append(ok, a)
		}
		jobs := sweepJobs(ok, first, seeds, o.shardIndex, o.shardCount)
		if jobs.perAlgo == 0 {
			return endWith(exitUsage, usagef("%s: shard %d/%d of %d seeds is empty", o.matrix, o.shardIndex, o.shardCount, seeds))
		}
		// By division: the sum can overflow int on 32-bit builds.
		if len(ok) > 0 && jobs.perAlgo > (MaxRuns-r.total)/len(ok) {
			return endWith(exitUsage, usagef("%s: the matrix is more than %d runs (MaxRuns) by scenario %s: use fewer seeds or scenarios", o.matrix, MaxRuns, sc.Name))
		}
		r.total += jobs.len()
		r.plans = append(r.plans, matrixPlan{i: i, algo: ok, jobs: jobs})
	}
	if !o.quiet {
		fmt.Fprintf(r.stderr, "%s: matrix %s · %s × %s × %s = %s\n", progName(o), m.Name, reports.Plural(len(r.scs), "scenario", "scenarios"),
			reports.Plural(len(m.Algorithms), "algorithm", "algorithms"), reports.Plural(seeds, "seed", "seeds"), reports.Plural(r.total, "run", "runs"))
	}
	if r.isolate && !o.quiet {
		why := "-isolate"
		if r.autoIsolated {
			why = "not built into electsim: a run that overflows its stack, hangs or starts a goroutine is reported, not fatal; -isolate=false runs it in this process"
		}
		fmt.Fprintf(r.stderr, "simrun: each scenario's runs in worker processes (%s)\n", why)
	}
	return nil
}

// run sweeps each scenario in turn, filling its row of the table; a
// signal between two scenarios' sweeps stops gracefully too.
func (r *matrixRun) run() *ending {
	o := r.o
	prog := newProgress(r.stderr, r.total, o.quiet)
	prog.name = progName(o)
	r.start = time.Now()
	for _, p := range r.plans {
		if interrupted.Load() != 0 {
			r.stopped = true
			break
		}
		sc := r.scs[p.i]
		var res sweepResult
		if r.isolate {
			// processSweep counts its own runs from 0: the progress
			// adds the scenarios before.
			prog.base, prog.baseCounts = r.done, prog.counts()
			var err error
			if res, err = processSweep(matrixSweepOptions(o, r.files[p.i], r.seeds), []*scenario.Scenario{sc}, p.jobs, r.first, prog, &runsOut{}); err != nil {
				return endWith(exitUsage, err)
			}
			prog.base = 0
		} else {
			res = runSweep([]*scenario.Scenario{sc}, p.jobs, o.workers, false, o.porcupine, prog, nil, nil)
		}
		if len(res.errs) > 0 {
			return endWith(exitUsage, res.errs[0])
		}
		r.done += res.done()
		r.stopped = r.stopped || res.interrupted
		r.fill(p.i, res)
	}
	prog.finish()
	return nil
}

// fill puts scenario i's sweep into its row of the table.
func (r *matrixRun) fill(i int, res sweepResult) {
	sc := r.scs[i]
	for _, as := range res.col.Groups() {
		for k, a := range r.m.Algorithms {
			if a == as.Algorithm {
				c := &r.table[i][k]
				c.summary, c.runs = as, as.Runs
				c.failed = as.Runs - as.OK
				if as.FirstFailingSeed != nil {
					c.replay = sc.ReplayCommand(*as.FirstFailingSeed, algoOverride(sc, a))
				}
			}
		}
	}
}

// write puts the tables (markdown and HTML; partial after a signal) in
// the output folder and prints the markdown one.
func (r *matrixRun) write() *ending {
	o, stderr := r.o, r.stderr
	md := matrixMarkdown(r.m, r.scs, r.table, r.seeds)
	htm := matrixHTML(r.m, r.scs, r.table, r.seeds)
	if r.stopped {
		reason, _, _ := interruption()
		note := fmt.Sprintf("partial: %s after %d of %d runs; each cell counts the runs that finished", reason, r.done, r.total)
		md = "> " + note + "\n\n" + md
		htm = strings.Replace(htm, "<body>", "<body><p><strong>"+html.EscapeString(note)+"</strong></p>", 1)
		fmt.Fprintln(stderr, "simrun:", note)
	}
	out, note, err := writeFolder(r.dest, func(tmp string) error {
		for _, f := range []struct{ name, body string }{{"matrix.md", md}, {"matrix.html", htm}} {
			if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.body), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return endWith(exitUsage, err)
	}
	if note != "" && !o.quiet {
		fmt.Fprintln(stderr, "simrun:", note)
	}
	if !o.quiet {
		fmt.Fprint(r.stdout, md)
		fmt.Fprintf(r.stdout, "\n%s in %.1fs on %s (%s) · %s\n", reports.Plural(r.total, "run", "runs"), time.Since(r.start).Seconds(), reports.Plural(o.workers, "worker", "workers"), runtime.Version(), filepath.Join(out, "matrix.html"))
	}
	return nil
}

// verdict is the exit status: a signal's when one stopped the matrix;
// like a single scenario, 1 when a run of any cell failed its scenario's
// expectations (n/a cells are not runs).
func (r *matrixRun) verdict() int {
	if _, code, ok := interruption(); ok && r.stopped {
		return code
	}
	for _, row := range r.table {
		for _, c := range row {
			if c.failed > 0 {
				return exitViolation
			}
		}
	}
	return exitOK
}
