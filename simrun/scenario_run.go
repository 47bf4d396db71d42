package simrun

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// featuredGrace bounds, after a signal, the wall time the featured run is
// given again (it is one the sweep finished, so usually far less).
const featuredGrace = 5 * time.Second

// runScenario runs one scenario over the seeds and algorithms of o, in
// named steps, each ending the command early when it must (an ending).
func runScenario(o *options, stdout, stderr io.Writer) (int, error) {
	r := &scenarioRun{o: o, stdout: stdout, stderr: stderr}
	defer r.closeWorker()
	if e := runSteps(
		r.load,    // the file, the seeds and the algorithms
		r.plan,    // the jobs, the algorithms that can build it, the limits, the destination
		r.stage,   // the output folder and the runs file, staged
		r.run,     // one run with its story, or the sweep (here or in worker processes)
		r.judge,   // the summary of what ran (a worker process's whole output)
		r.explain, // the failing runs printed, run again with their story
		r.feature, // the featured run, run again in full
		r.export,  // every output written, staged
		r.commit,  // all put in place together; the summary printed
	); e != nil {
		return e.code, e.err
	}
	return r.code, nil
}

// ending is how a step ends the command: its exit status and error.
type ending struct {
	code int
	err  error
}

// runSteps runs steps in order until one ends the command.
func runSteps(steps ...func() *ending) *ending {
	for _, step := range steps {
		if e := step(); e != nil {
			return e
		}
	}
	return nil
}

// endWith is the ending with code and err.
func endWith(code int, err error) *ending { return &ending{code: code, err: err} }

// scenarioRun is one invocation of runScenario on its way through the
// steps: what each step found, for the ones after it.
type scenarioRun struct {
	o              *options
	stdout, stderr io.Writer

	scs      []*scenario.Scenario // the file, read once per grid cell
	sc       *scenario.Scenario   // scs[0]
	first    uint64               // the first seed
	algos    []string             // load: as asked; plan: those that can build it
	jobs     jobList
	na       []reports.NotApplicable
	inWorker bool // a worker process: the parent explains, features and reports
	// isolated: the sweep ran in worker processes for isolation, so a
	// user's algorithm runs again after it in one too (pool, reading src:
	// rerun_worker.go).
	isolated bool
	pool     *worker.HuntPool
	src      []byte

	dest   outdir.OutputDest
	folder *outdir.StagedFolder // nil in a worker process
	rf     *runsOut

	res         sweepResult
	s           *reports.Summary
	fr          *scenario.Run      // the featured run, with its story (nil: it ran in a worker)
	fo          *featuredOut       // what the outputs need of it
	ex          *exports           // its trace exports, staged
	fsc         *scenario.Scenario // the featured run's scenario (its grid cell's)
	featuredJob job
	shrunk      *shrinkResult
	others      []*reports.Timeline // a comparison's other algorithms' runs' timelines
	js          *outdir.AtomicFile
	code        int // the exit status once committed
}

// abort removes the staged runs file and folder.
func (r *scenarioRun) abort() {
	r.rf.Abort()
	if r.folder != nil {
		r.folder.Abort()
	}
}

// load reads the file once per grid cell, the seed range and the
// algorithms; -materialize ends here.
func (r *scenarioRun) load() *ending {
	o := r.o
	// The file is read without its algorithm's own code (Build's checks
	// of its parameters) until the sweep knows whether it isolates that
	// algorithm: then a worker reads it in full first (checkLoads), or,
	// in this process, it is read again in full.
	scs, err := loadCellsAs(o, o.cells, "-vary", scenario.ParseOptions{DeferUserCode: true})
	if err != nil {
		return endWith(exitUsage, err)
	}
	r.scs, r.sc = scs, scs[0]
	sc := r.sc
	first, from := sc.Seed, sc.File+": seed"
	if o.seedSet {
		first, from = o.seed, "-seed"
	}
	if err := checkSeedRange(first, o.seeds, from); err != nil {
		return endWith(exitUsage, err)
	}
	r.first = first
	algos := o.algos
	if len(algos) == 0 {
		algos = []string{sc.AlgorithmName("")}
	}
	for _, a := range algos {
		if !validAlgo(a) {
			return endWith(exitUsage, usagef("-algo: unknown algorithm %q (one of %s)", a, strings.Join(scenario.Algorithms(), ", ")))
		}
		if own := sc.AlgorithmName(""); a != own && (own == "shedlock" || own == "celery") {
			return endWith(exitUsage, usagef("-algo: %s is a %s-mode scenario (no election algorithm); it cannot run under %s", sc.Name, own, a))
		}
	}
	r.algos = algos
	tellDropped(o, sc, algos, r.stderr)
	if o.materialize != "" {
		return endWith(materialize(o, sc, first, algos[0], r.stdout))
	}
	return nil
}

// plan lays out the jobs over the algorithms that can build the scenario,
// checks the limits and the destination, and says what will run.
func (r *scenarioRun) plan() *ending {
	o := r.o
	r.jobs = sweepJobs(r.algos, r.first, o.seeds, o.shardIndex, o.shardCount)
	if r.jobs.len() == 0 {
		return endWith(exitUsage, usagef("shard %d/%d of %d seeds is empty", o.shardIndex, o.shardCount, o.seeds))
	}
	if e := r.checkBuilds(); e != nil {
		return e
	}
	r.jobs = sweepJobs(r.algos, r.first, o.seeds, o.shardIndex, o.shardCount).inCells(len(o.cells))
	if e := r.checkLimits(); e != nil {
		return e
	}
	r.dest = outdir.DestFor(o.out, filepath.Join("out", r.sc.Name))
	// Refuse an output path simrun may not replace before doing any work.
	if err := r.dest.Check(); err != nil {
		return endWith(exitUsage, err)
	}
	if !o.quiet {
		sc := r.sc
		fmt.Fprintf(r.stderr, "%s: %s: %s, %s, %v · %s · %s\n", progName(o), sc.Name, reports.Plural(sc.Nodes, "node", "nodes"), strings.Join(r.algos, ", "),
			sc.Duration, reports.Plural(r.jobs.len(), "run", "runs"), reports.Plural(min(o.workers, r.jobs.len()), "worker", "workers"))
	}
	return nil
}

// checkBuilds keeps the algorithms that can build the scenario. An
// algorithm that cannot (a lease-store fault under raft) is n/a, as in
// the matrix; the others run. None: exit 2. A sweep in worker processes
// builds it in one (isolatedBuild): the algorithm's factory is user code
// that may exit or block. A worker process does not check again: its
// parent did.
func (r *scenarioRun) checkBuilds() *ending {
	o, first, algos := r.o, r.first, r.algos
	var can []string
	r.inWorker = worker.IsWorker()
	isolated, _ := isolation(o, algos, r.jobs.len(), r.inWorker, registry.Default.Lookup)
	if isolated || fileIsolated(o, r.sc, r.jobs.len(), r.inWorker) { // the file's algorithm, even if -algo runs others (usercode.go)
		scs, code, err := checkedCells(o, r.scs, first, "-vary", scenario.ParseOptions{Running: o.algos})
		if err != nil {
			return endWith(code, err)
		}
		r.scs, r.sc = scs, scs[0]
	} else if userAlgorithm(r.sc) {
		scs, err := loadCells(o, o.cells)
		if err != nil {
			return endWith(exitUsage, err)
		}
		r.scs, r.sc = scs, scs[0]
	}
	sc := r.sc
	for _, a := range algos {
		if r.inWorker {
			can = append(can, a)
			continue
		}
		if err := buildAs(o, sc, first, a, isolated); err != nil {
			var died *hunt.DiedError
			if errors.As(err, &died) {
				return endWith(exitViolation, fmt.Errorf("%s under %s: %v", o.scenario, a, err))
			}
			if len(algos) == 1 {
				return endWith(exitUsage, usagef("%s under %s: %v", o.scenario, a, err))
			}
			r.na = append(r.na, reports.NotApplicable{Algorithm: a, Reason: err.Error()})
			continue
		}
		can = append(can, a)
	}
	if len(can) == 0 {
		return endWith(exitUsage, usagef("%s: no algorithm of %s can run it (%s)", o.scenario, strings.Join(algos, ", "), r.na[0].Reason))
	}
	r.algos = can
	return nil
}

// checkLimits refuses a sweep of more groups than MaxGroups or more runs
// than MaxRuns.
func (r *scenarioRun) checkLimits() *ending {
	o, jobs, algos := r.o, r.jobs, r.algos
	if g := jobs.cells * len(algos); g > MaxGroups {
		return endWith(exitUsage, usagef("%d grid cells × %d algorithms is %d groups, more than %d (MaxGroups): each keeps its own distributions in summary.json; vary fewer values or fewer algorithms at once", len(o.cells), len(algos), g, MaxGroups))
	}
	// Compare by division: the product can overflow int on 32-bit builds.
	if jobs.perAlgo > MaxRuns/(jobs.cells*len(algos)) {
		n := uint64(jobs.perAlgo) * uint64(jobs.cells) * uint64(len(algos))
		return endWith(exitUsage, usagef("%d grid cells × %d algorithms × %d seeds of the shard is %d runs, more than %d (MaxRuns): split the sweep with -shard", len(o.cells), len(algos), jobs.perAlgo, n, MaxRuns))
	}
	return nil
}

// stage stages the output folder (not in a worker process) and opens the
// runs file: every run goes to it as it finishes, into the output folder
// (put in place with the rest, or removed) or to -runs.
func (r *scenarioRun) stage() *ending {
	if !r.inWorker {
		folder, err := r.dest.Stage()
		if err != nil {
			return endWith(exitUsage, err)
		}
		r.folder = folder
	}
	rf, err := openRunsFile(r.o, r.folder)
	if err != nil {
		if r.folder != nil {
			r.folder.Abort()
		}
		return endWith(exitUsage, err)
	}
	r.rf = rf
	return nil
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
