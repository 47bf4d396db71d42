package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenarios"
	"github.com/electsim/electsim/sim"
)

// runScenario runs one scenario over the seeds and algorithms of o.
func runScenario(o *options, stdout, stderr io.Writer) (int, error) {
	sc, err := scenarios.LoadWith(o.scenario, o.sets)
	if err != nil {
		return exitUsage, usageError{err.Error()}
	}
	first := sc.Seed
	if o.seedSet {
		first = o.seed
	}
	algos := o.algos
	if len(algos) == 0 {
		algos = []string{sc.AlgorithmName("")}
	}
	for _, a := range algos {
		if !validAlgo(a) {
			return exitUsage, usagef("-algo: unknown algorithm %q (one of %s)", a, strings.Join(scenarios.Algorithms(), ", "))
		}
		if a != sc.AlgorithmName("") && sc.AlgorithmName("") == "shedlock" {
			return exitUsage, usagef("-algo: %s is a ShedLock-mode scenario (no election); it cannot run under %s", sc.Name, a)
		}
	}
	if o.materialize != "" {
		return materialize(o, sc, first, algos[0], stdout)
	}
	jobs := sweepJobs(algos, first, o.seeds, o.shardIndex, o.shardCount)
	if len(jobs) == 0 {
		return exitUsage, usagef("shard %d/%d of %d seeds is empty", o.shardIndex, o.shardCount, o.seeds)
	}
	// Check that every algorithm can build the scenario before sweeping.
	for _, a := range algos {
		if _, err := sc.Build(scenarios.RunOptions{Seed: first, Algorithm: algoOverride(sc, a)}); err != nil {
			return exitUsage, usagef("%s under %s: %v", o.scenario, a, err)
		}
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "simrun: %s · %d run(s) · %d worker(s)\n", sc, len(jobs), min(o.workers, len(jobs)))
	}
	var res sweepResult
	var fr *scenarios.Run // the featured run, with its story and exports
	if len(jobs) == 1 {
		// One run: run it once with its story and the exports, and
		// summarize that (a sweep would run it twice: judged, then again
		// for its outputs).
		start := time.Now()
		r, err := rerun(sc, jobs[0], o)
		if err != nil {
			return exitUsage, err
		}
		fr = r
		res = sweepResult{runs: []reports.RunSummary{summarize(r)}, done: []bool{true}, wall: time.Since(start)}
	} else {
		prog := newProgress(stderr, len(jobs), o.quiet)
		res = runSweep(sc, jobs, o.workers, o.failFast, o.porcupine, prog)
		prog.finish()
		if len(res.errs) > 0 {
			return exitUsage, res.errs[0]
		}
	}
	// The sweep judged runs without their story. The failing runs the
	// summary prints are run again with it, so their violations come
	// explained; runs are deterministic, so the verdict is the same.
	explained := 0
	for i := range res.runs {
		if fr != nil {
			break // the single run already has its story
		}
		if !res.done[i] || res.runs[i].OK || explained >= maxPrintedFailures {
			continue
		}
		explained++
		r, err := sc.Run(scenarios.RunOptions{Seed: jobs[i].seed, Algorithm: algoOverride(sc, jobs[i].algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast})
		if err != nil {
			return exitUsage, err
		}
		sum := summarize(r)
		res.runs[i] = sum
	}
	s := &reports.Summary{
		Schema:    reports.Schema,
		Scenario:  scenarioInfo(sc),
		GoVersion: runtime.Version(),
		Seeds:     reports.SeedRange{First: first, Count: o.seeds},
	}
	if o.shardCount > 1 {
		s.Shard = &reports.Shard{Index: o.shardIndex, Count: o.shardCount}
	}
	for i, r := range res.runs {
		if res.done[i] {
			s.Runs = append(s.Runs, r)
		}
	}
	s.Aggregate()
	s.Timing = &reports.Timing{WallSeconds: round3(res.wall.Seconds()), Workers: min(o.workers, len(jobs)),
		RunsPerSecond: round3(float64(len(s.Runs)) / res.wall.Seconds())}

	// The featured run: the first that failed its expectations, else the
	// first. Runs are deterministic, so it is simply run again in full.
	if fr == nil {
		if fr, err = rerun(sc, featured(jobs, res), o); err != nil {
			return exitUsage, err
		}
	}
	out := o.out
	if out == "" {
		out = filepath.Join("out", sc.Name)
	}
	repStart := time.Now()
	shrunk := maybeShrink(o, sc, fr, stderr)
	if err := writeOutputs(out, s, fr, o, shrunk); err != nil {
		return exitUsage, err
	}
	s.Timing.ReportsSeconds = round3(time.Since(repStart).Seconds())
	if o.json != "" {
		if err := writeJSONFile(o.json, s, stdout); err != nil {
			return exitUsage, err
		}
	}
	code := exitOK
	for _, r := range s.Runs {
		if !r.OK {
			code = exitViolation
		}
	}
	if !o.quiet {
		printSummary(stdout, sc, s, res, out, shrunk)
	}
	return code, nil
}

func validAlgo(a string) bool {
	if a == "shedlock" {
		return true
	}
	for _, x := range scenarios.Algorithms() {
		if x == a {
			return true
		}
	}
	return false
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func scenarioInfo(sc *scenarios.Scenario) reports.ScenarioInfo {
	return reports.ScenarioInfo{Name: sc.Name, File: sc.File, Description: sc.Description,
		DurationMs: ms(sc.Duration), SettleMs: ms(sc.Settle.For), Nodes: sc.Nodes}
}

func featured(jobs []job, res sweepResult) job {
	for i, r := range res.runs {
		if res.done[i] && !r.OK {
			return jobs[i]
		}
	}
	return jobs[0]
}

// rerun runs j again with the trace exports o asks for.
func rerun(sc *scenarios.Scenario, j job, o *options) (*scenarios.Run, error) {
	opts := scenarios.RunOptions{Seed: j.seed, Algorithm: algoOverride(sc, j.algo), PorcupineTimeout: o.porcupine, Story: true, StopAtViolation: o.failFast}
	if o.perfetto != "" {
		// Perfetto draws every message: only this export keeps the whole
		// trace in memory (docs/output.md).
		opts.Recorder = &sim.Recorder{}
	}
	var jw *sim.JSONLWriter
	var tf *atomicFile
	r, err := sc.Build(opts)
	if err != nil {
		return nil, err
	}
	if o.trace != "" {
		if tf, err = createAtomic(o.trace); err != nil {
			return nil, err
		}
		jw = sim.NewJSONLWriter(tf.w, r.Sim)
		r.Sim.AddSink(jw)
	}
	r.Execute(opts)
	if jw != nil {
		if err := jw.Flush(); err != nil {
			tf.abort()
			return nil, fmt.Errorf("-trace: %w", err)
		}
		if err := tf.commit(); err != nil {
			return nil, fmt.Errorf("-trace: %w", err)
		}
	}
	if o.perfetto != "" {
		pf, err := createAtomic(o.perfetto)
		if err != nil {
			return nil, err
		}
		if err := sim.WritePerfetto(pf.w, r.Sim, r.Recorder.Records); err != nil {
			pf.abort()
			return nil, fmt.Errorf("-perfetto: %w", err)
		}
		if err := pf.commit(); err != nil {
			return nil, fmt.Errorf("-perfetto: %w", err)
		}
	}
	return r, nil
}

// atomicFile writes to a temporary file beside path and renames it into
// place on commit, so a failed run never leaves a partial file.
type atomicFile struct {
	f    *os.File
	w    *bufio.Writer
	path string
}

func createAtomic(path string) (*atomicFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &atomicFile{f: f, w: bufio.NewWriterSize(f, 1<<16), path: path}, nil
}

func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}

func (a *atomicFile) commit() error {
	if err := a.w.Flush(); err != nil {
		a.abort()
		return err
	}
	if err := a.f.Close(); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return os.Rename(a.f.Name(), a.path)
}
