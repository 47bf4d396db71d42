package simrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/worker"
)

// A margin study's runs of an algorithm not built into electsim run in
// worker processes, as a sweep of it does (isolation): its handlers and
// factory are the user's code. The study needs every run's longest
// overlap, which the workers' summaries do not keep, so their runs files
// are merged (processSweep) into one in a folder of the study's own
// (worker.MakeDir), read back, and removed.

// sweepMarginsIsolated runs the study's jobs in worker processes and
// returns what sweepMargins does. first is the first seed. Its progress
// counts failing runs, as a sweep's does: the workers' progress lines
// carry no overlap to hold against the bound.
func sweepMarginsIsolated(o *options, scs []*scenario.Scenario, jobs jobList, first uint64, stderr io.Writer) (res sweepResult, longest []float64, ran []bool, err error) {
	dir, done, err := worker.MakeDir()
	if err != nil {
		return res, nil, nil, err
	}
	defer done()
	path := filepath.Join(dir, "margin-runs.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return res, nil, nil, err
	}
	rf := &runsOut{w: reports.NewRunsWriter(f, false)}
	pg := newProgress(stderr, jobs.len(), o.quiet)
	pg.name = progName(o)
	if !o.quiet {
		fmt.Fprintf(stderr, "%s: %s in %s (not built into electsim: a run that overflows its stack, hangs or exits is reported, not fatal)\n", progName(o), jobs.algos[0],
			reports.Plural(processCount(o.workers, jobs), "worker process", "worker processes"))
	}
	res, err = processSweep(o, scs, jobs, first, pg, rf)
	pg.finish()
	cerr := rf.w.Close()
	if ferr := f.Close(); cerr == nil {
		cerr = ferr
	}
	if err != nil {
		return res, nil, nil, err
	}
	if cerr != nil {
		return res, nil, nil, cerr
	}
	longest, ran, err = readLongest(o, jobs, path)
	return res, longest, ran, err
}

// readLongest reads each run's longest overlap from the runs file at
// path, by job index. A run that killed its worker is in no runs file:
// it has no overlap to set beside the bound (ran false), and counts in
// the sweep's failing runs.
func readLongest(o *options, jobs jobList, path string) (longest []float64, ran []bool, err error) {
	index := make(map[job]int, jobs.len())
	for k := 0; k < jobs.len(); k++ {
		index[jobs.at(k)] = k
	}
	longest, ran = make([]float64, jobs.len()), make([]bool, jobs.len())
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rr, err := reports.NewRunsReader(f, path)
	if err != nil {
		return nil, nil, err
	}
	defer rr.Close()
	for {
		line, _, _, err := rr.Next()
		if err == io.EOF {
			return longest, ran, nil
		}
		if err != nil {
			return nil, nil, err
		}
		rs, err := rr.Run(line)
		if err != nil {
			return nil, nil, err
		}
		k, ok := index[jobOf(o, &rs)]
		if !ok {
			return nil, nil, fmt.Errorf("worker processes ran seed %d of %s, which is not in this study", rs.Seed, rs.Key())
		}
		longest[k], ran[k] = longestOverlap(&rs), true
	}
}
