package simrun

import "github.com/electsim/electsim/simrun/worker"

import "github.com/electsim/electsim/scenario"

import "sync"

import "strings"

import "github.com/electsim/electsim/checker"

import "path/filepath"

import "os"

import "time"

import "encoding/json"

import "github.com/electsim/electsim/reports"

import "strconv"

import "fmt"

import "github.com/electsim/electsim/registry"

// needsProcesses reports whether the sweep of algos with workers, over
// seeds seeds (of its shard), should run in worker processes. Each worker
// process runs a sub-shard of the seeds (every algorithm and grid cell of
// them), so a sweep of one seed, however many algorithms or cells, runs in
// this process (serialized, as one worker process would run it).
func needsProcesses(algos []string, workers, seeds int) bool {
	if workers < 2 || seeds < 2 || worker.IsWorker() {
		return false
	}
	for _, a := range algos {
		if d, ok := registry.Default.Lookup(a); ok && d.ProcessWide {
			return true
		}
	}
	return false
}

// processCount is how many worker processes a sweep of jobs runs in: one
// per worker, at most one per seed of the shard (a process with no seed
// would be an empty shard).
func processCount(workers int, jobs jobList) int { return max(min(workers, jobs.perAlgo), 1) }

// processSweep runs jobs in processCount child processes and returns their
// merged runs at their job indexes, as runSweep does.
func processSweep(o *options, scs []*scenario.Scenario, jobs jobList, first uint64, prog *progress, rf *runsOut) (sweepResult, error) {
	start := time.Now()
	tmp, done, err := worker.MakeDir()
	if err != nil {
		return sweepResult{}, err
	}
	defer done()
	exe, err := os.Executable()
	if err != nil {
		return sweepResult{}, err
	}
	kids := shardChildren(o, jobs, first, tmp)
	sweeping.Add(1)
	defer sweeping.Add(-1)
	if err := superviseShards(o, scs, jobs, exe, kids, prog); err != nil {
		return sweepResult{}, err
	}
	res, err := mergeShards(o, jobs, kids, rf)
	if err != nil {
		return sweepResult{}, err
	}
	res.wall = time.Since(start)
	return res, nil
}

// shardChildren are the worker process slots of a sweep of jobs, one a
// sub-shard of the seeds (every algorithm and grid cell of them), writing
// their summaries and runs files in tmp.
func shardChildren(o *options, jobs jobList, first uint64, tmp string) []*worker.Child {
	w := processCount(o.workers, jobs)
	shardN := max(o.shardCount, 1)
	kids := make([]*worker.Child, w)
	for j := range kids {
		k := &worker.Child{JSON: filepath.Join(tmp, fmt.Sprintf("shard%d.json", j)), Runs: filepath.Join(tmp, fmt.Sprintf("shard%d.jsonl", j))}
		kids[j] = k
		// The scenario path as given (the children share the working
		// directory): summaries and replay commands name it the same way.
		k.Args = []string{"-scenario", o.scenario, "-seed", strconv.FormatUint(first, 10), "-seeds", strconv.Itoa(o.seeds),
			"-algo", strings.Join(jobs.algos, ","), "-workers", "1",
			"-shard", fmt.Sprintf("%d/%d", o.shardIndex+shardN*j, shardN*w),
			"-json", k.JSON, "-runs", k.Runs, "-out", filepath.Join(tmp, fmt.Sprintf("out%d", j)), "-shrink=false", // a worker writes only its -json
			"-porcupine-timeout", o.porcupine.String()}
		for _, s := range o.sets {
			k.Args = append(k.Args, "-set", s)
		}
		for _, d := range o.dims {
			k.Args = append(k.Args, "-vary", d.spec)
		}
		if o.failFast {
			k.Args = append(k.Args, "-fail-fast")
		}
	}
	return kids
}

// superviseShards runs every child's worker process to its end (a run
// that kills one is its crashed summary, and a new process goes on),
// showing their progress together and forwarding a graceful stop to them
// once.
func superviseShards(o *options, scs []*scenario.Scenario, jobs jobList, exe string, kids []*worker.Child, prog *progress) error {
	var mu sync.Mutex // guards the children's fields
	report := func() {
		done, c := 0, findingCounts{}
		for _, k := range kids {
			done += k.Done + len(k.Died)
			c.failed += k.Counts.Failed + len(k.Died)
			c.harmless += k.Counts.Harmless
			c.expected += k.Counts.Expected
		}
		prog.set(done, c)
	}
	stopForward := make(chan struct{})
	go func() { // forward a graceful stop to the children, once
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopForward:
				return
			case <-t.C:
				if sig := interrupted.Load(); sig != 0 {
					mu.Lock()
					for _, k := range kids {
						k.Signal(sig)
					}
					mu.Unlock()
					return
				}
			}
		}
	}()
	sv := &worker.Supervisor{Exe: exe, Prog: o.prog, HandlerMax: o.handlerMax,
		CleanExits: []int{exitOK, exitViolation, exitSIGINT, exitSIGTERM},
		Stopping:   func() bool { return interrupted.Load() != 0 },
		Died: func(j worker.Job, value, stack string) reports.RunSummary {
			return diedRun(o, jobs, scs[j.Cell], jobFrom(j), value, stack)
		},
		Mu: &mu, Report: report, Note: prog.note}
	errs := make([]error, len(kids))
	var sup sync.WaitGroup
	for j, k := range kids {
		sup.Add(1)
		go func() {
			defer sup.Done()
			errs[j] = sv.Run(k)
		}()
	}
	sup.Wait()
	close(stopForward)
	for j, err := range errs {
		if err != nil {
			return fmt.Errorf("worker process %d: %w", j, err)
		}
	}
	return nil
}

// mergeShards reads the children's summaries: their groups' aggregates
// and kept runs combine into the sweep's, and their runs files (each in
// run order) merge into its runs file.
func mergeShards(o *options, jobs jobList, kids []*worker.Child, rf *runsOut) (sweepResult, error) {
	n := jobs.len()
	rank := map[string]int{}
	for g := 0; g < len(jobs.algos)*jobs.cells; g++ {
		algo, cell := jobs.algos[g%len(jobs.algos)], g/len(jobs.algos)
		key := algo
		if o.cells[cell].label != "" {
			key = groupLabel(o.cells[cell], algo, len(jobs.algos))
		}
		rank[key] = g
	}
	rankOf := func(key string) (int, bool) { r, ok := rank[key]; return r, ok }
	res := sweepResult{col: reports.NewCollector(n <= reports.KeepAllRuns), planned: n, interrupted: interrupted.Load() != 0, died: map[job]bool{}}
	var runsIn []*reports.RunsReader
	defer func() {
		for _, r := range runsIn {
			r.Close()
		}
	}()
	for _, k := range kids {
		b, err := os.ReadFile(k.JSON)
		if err != nil {
			if interrupted.Load() != 0 {
				continue // stopped before any of its runs finished
			}
			return sweepResult{}, err
		}
		var s reports.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return sweepResult{}, fmt.Errorf("worker summary %s: %v", k.JSON, err)
		}
		for i := range s.Algorithms {
			g, ok := rankOf(s.Algorithms[i].Key())
			if !ok {
				return sweepResult{}, fmt.Errorf("worker processes ran %s, which is not in this sweep", s.Algorithms[i].Key())
			}
			res.col.AddGroup(g, &s.Algorithms[i])
		}
		for _, r := range s.Runs {
			res.col.Keep(rank[r.Key()], r)
		}
		for _, r := range k.Died { // the runs that killed a worker: in the aggregates, kept, never in the runs file
			res.col.Add(rank[r.Key()], r)
			res.died[jobOf(o, &r)] = true
		}
		f, err := os.Open(k.Runs)
		if err != nil {
			return sweepResult{}, err
		}
		defer f.Close()
		rr, err := reports.NewRunsReader(f, k.Runs)
		if err != nil {
			return sweepResult{}, err
		}
		runsIn = append(runsIn, rr)
	}
	if rf.w != nil {
		if _, err := reports.MergeRuns(rf.w, runsIn, rankOf); err != nil {
			return sweepResult{}, fmt.Errorf("worker runs: %w", err)
		}
	}
	res.stopped = o.failFast && !res.interrupted && res.done() < n
	return res, nil
}

// key is the job as its worker names it.
func (j job) key() worker.Job { return worker.Job{Algo: j.algo, Seed: j.seed, Cell: j.cell} }

// jobFrom is the sweep's job a worker names.
func jobFrom(j worker.Job) job { return job{algo: j.Algo, seed: j.Seed, cell: j.Cell} }

// diedRun is the summary of a run whose worker process died: crashed,
// with the fatal error, the replay command and the stack.
func diedRun(o *options, jobs jobList, sc *scenario.Scenario, j job, value, stack string) reports.RunSummary {
	replay := sc.ReplayCommand(j.seed, algoOverride(sc, j.algo))
	details := "the worker process running this run died: " + value
	rs := reports.RunSummary{
		Seed: j.seed, Algorithm: j.algo, Outcome: "crashed", WorkerDied: true,
		Problems:       []string{checker.CheckCrashed + " violated: " + details},
		Checks:         map[string]string{checker.CheckCrashed: string(checker.StatusViolated)},
		MessagesByKind: map[string]uint64{}, Failovers: []reports.FailoverSummary{},
		Violations: []reports.ViolationSummary{{Kind: checker.CheckCrashed, Details: details, Replay: replay, Stack: stack,
			Explanation: "The run could not be judged: its process died (a stack overflow, a handler that never returned, or os.Exit). Replay it to see where."}},
	}
	labelRun(o, jobs, j, &rs)
	return rs
}
