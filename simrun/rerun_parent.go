package simrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// The parent's side of rerun_worker.go: what the steps after a sweep of a
// user's algorithm ask its worker process, and what they do with the
// answers.

// userIsolated reports whether the sweep runs algo's runs again after
// the sweep in a worker process: a user's algorithm in an isolated
// sweep.
func (r *scenarioRun) userIsolated(algo string) bool {
	d, ok := registry.Default.Lookup(algo)
	return r.isolated && ok && !d.InProcess
}

// ask sends j, for the run of cell's file, to the sweep's worker process
// (started at the first ask; closed by closeWorker) and returns its
// reply, or the ending of a worker the job killed (exit 1, one line) or
// of an error.
func (r *scenarioRun) ask(j rerunJob, cell int, what string) (rerunReply, *ending) {
	o := r.o
	if r.pool == nil {
		pool, err := worker.NewHuntPool(o.prog, o.handlerMax)
		if err != nil {
			return rerunReply{}, endWith(exitUsage, err)
		}
		r.pool = pool
	}
	if r.src == nil {
		src, err := scenario.ReadFile(o.scenario)
		if err != nil {
			return rerunReply{}, endWith(exitUsage, usageError{err.Error()})
		}
		r.src = src
	}
	j.File.Name, j.File.Source, j.File.Sets, j.File.Running, j.Program = o.scenario, string(r.src), cellSets(o, o.cells[cell]), o.algos, o.prog
	j.PorcupineTimeout, j.FailFast = o.porcupine, o.failFast
	var rep rerunReply
	err := r.pool.Own(context.Background(), j, &rep, 0, j.Kind != "group")
	var died *hunt.DiedError
	switch {
	case errors.As(err, &died):
		return rep, endWith(exitViolation, fmt.Errorf("%s under %s: %s: %s; nothing written", o.scenario, j.Algorithm, what, died.Msg))
	case err != nil:
		return rep, endWith(exitUsage, err)
	case rep.Crash != "":
		return rep, endWith(exitViolation, fmt.Errorf("%s under %s: %s: %s; nothing written", o.scenario, j.Algorithm, what, worker.OneLine(rep.Crash)))
	case rep.LoadErr != "":
		return rep, endWith(exitUsage, usageError{rep.LoadErr})
	case rep.Err != "":
		return rep, endWith(exitUsage, errors.New(rep.Err))
	}
	return rep, nil
}

// closeWorker ends the sweep's worker process, if one was asked.
func (r *scenarioRun) closeWorker() {
	if r.pool != nil {
		r.pool.Close()
	}
}

// featureInWorker runs the featured run fj in the worker process, with
// its exports (copied into this process's staged outputs) and its
// porcupine visualizations (written into the staged folder).
func (r *scenarioRun) featureInWorker(fj job, cut time.Duration) (*featuredOut, *ending) {
	o := r.o
	j := rerunJob{Kind: "featured", Seed: fj.seed, Algorithm: fj.algo, Folder: r.folder.Tmp, Cut: cut}
	if o.trace != "" || o.perfetto != "" {
		dir, done, err := worker.MakeDir()
		if err != nil {
			return nil, endWith(exitUsage, err)
		}
		defer done() // copied into this process's staged outputs by then
		if o.trace != "" {
			j.Trace = filepath.Join(dir, "trace.jsonl")
		}
		if o.perfetto != "" {
			j.Perfetto = filepath.Join(dir, "perfetto.json")
		}
	}
	rep, e := r.ask(j, fj.cell, fmt.Sprintf("seed %d, the featured run", fj.seed))
	if e != nil {
		return nil, e
	}
	ex, err := copyExports(o, r.stdout, j.Trace, j.Perfetto)
	if err != nil {
		return nil, endWith(exitUsage, err)
	}
	ex.perfettoNote = rep.PerfettoNote
	if ex.perfettoNote != "" && !o.quiet {
		fmt.Fprintln(r.stderr, ex.perfettoNote)
	}
	r.ex = ex
	if rep.Stopped && cut > 0 {
		fmt.Fprintf(r.stderr, "%s: the featured run's report was cut at %s of simulated time (interrupted; %v of wall time allowed)\n", progName(o), rep.Now, featuredGrace)
	}
	return &featuredOut{seed: fj.seed, algo: fj.algo, ok: rep.OK, failure: rep.Failure, timeline: rep.Timeline, spaceTime: rep.SpaceTime, porcupine: rep.Porcupine}, nil
}

// copyExports stages -trace and -perfetto (o's) with the contents of the
// files a worker process wrote them to (trace, perfetto; "": not asked).
func copyExports(o *options, stdout io.Writer, trace, perfetto string) (*exports, error) {
	ex := &exports{}
	for _, e := range []struct{ out, from, flag string }{{o.trace, trace, "-trace"}, {o.perfetto, perfetto, "-perfetto"}} {
		if e.out == "" {
			continue
		}
		f, err := outdir.CreateOutput(e.out, stdout)
		if err != nil {
			ex.Abort()
			return nil, err
		}
		ex.files = append(ex.files, f)
		if err := copyFile(f, e.from); err != nil {
			ex.Abort()
			return nil, fmt.Errorf("%s: %w", e.flag, err)
		}
	}
	return ex, nil
}

// copyFile writes the file at path into f.
func copyFile(f *outdir.AtomicFile, path string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(f.W, in)
	return err
}

// groupInfo fills each group's token and caveat: the algorithm's own
// Token and Contract, asked in the worker process for a user's
// algorithm.
func (r *scenarioRun) groupInfo() *ending {
	o, s, scs := r.o, r.s, r.scs
	for i := range s.Algorithms {
		g := &s.Algorithms[i]
		cell := cellOfVary(o, g.Vary)
		if !r.userIsolated(g.Algorithm) {
			g.Token = tokenInfo(scs[cell], g.Algorithm)
			g.Caveat = scs[cell].Caveat(g.Algorithm)
			continue
		}
		rep, e := r.ask(rerunJob{Kind: "group", Algorithm: g.Algorithm}, cell, "its contract and token")
		if e != nil {
			return e
		}
		g.Token, g.Caveat = rep.Token, rep.Caveat
	}
	return nil
}
