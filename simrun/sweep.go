package simrun

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/sim"
	"github.com/electsim/electsim/simrun/worker"
)

// job is one run of a sweep: an algorithm under a seed, in a grid cell
// (0 outside a parameter sweep).
type job struct {
	algo string
	seed uint64
	cell int
}

// sweepResult is a finished sweep: its aggregates and kept runs (col),
// never every run (those went to the runs file as they finished).
type sweepResult struct {
	col     *reports.Collector
	planned int
	stopped bool // -fail-fast stopped it early
	// interrupted: a SIGINT or SIGTERM stopped it (the runs in progress
	// abandoned).
	interrupted bool
	wall        time.Duration
	errs        []error
	// died are the runs whose worker process died (processSweep): they
	// must not be run again in this process.
	died map[job]bool
}

// done is the number of runs that finished.
func (r sweepResult) done() int {
	if r.col == nil {
		return 0
	}
	return r.col.Runs()
}

// jobList is the runs of a sweep, computed on demand (a sweep of ten
// million seeds has no list of ten million jobs): every grid cell × every
// algorithm × every seed of the shard, cells outermost.
type jobList struct {
	algos                  []string
	cells                  int // grid cells (1 outside a parameter sweep)
	first                  uint64
	perAlgo                int // seeds of the shard
	count, shard, shardsOf int
}

// sweepJobs describes the runs of a sweep.
func sweepJobs(algos []string, first uint64, count, shardIndex, shardCount int) jobList {
	if shardCount < 1 {
		shardCount = 1
	}
	per := 0
	if shardIndex < count {
		per = (count - shardIndex + shardCount - 1) / shardCount
	}
	return jobList{algos: algos, cells: 1, first: first, perAlgo: per, count: count, shard: shardIndex, shardsOf: shardCount}
}

// inCells makes the list run every algorithm and seed in each of n grid
// cells.
func (l jobList) inCells(n int) jobList {
	l.cells = max(n, 1)
	return l
}

// len is the number of runs.
func (l jobList) len() int { return l.perAlgo * len(l.algos) * l.cells }

// at is run i.
func (l jobList) at(i int) job {
	g, k := i/l.perAlgo, i%l.perAlgo
	return job{algo: l.algos[g%len(l.algos)], cell: g / len(l.algos), seed: l.first + uint64(l.shard+k*l.shardsOf)}
}

// rank is the group rank of job i: its grid cell, then its algorithm
// (the order groups are shown in).
func (l jobList) rank(i int) int { return i / l.perAlgo }

// runSweep runs jobs on workers goroutines, aggregating each run as it
// finishes (after label, if any, saw it on its worker: it labels grid
// cells and may note what a study needs) and handing its line to sink, which writes
// the runs file in job order. The result never depends on scheduling. A
// SIGINT or SIGTERM (interrupted) stops it: the runs in progress are
// abandoned between two events (abandon) and not counted; res.interrupted
// says so.
func runSweep(scs []*scenario.Scenario, jobs jobList, workers int, failFast bool, porcupine time.Duration, progress *progress, label func(int, job, *reports.RunSummary), sink *runsSink) sweepResult {
	n := jobs.len()
	res := sweepResult{col: reports.NewCollector(n <= reports.KeepAllRuns), planned: n}
	sweeping.Add(1)
	defer sweeping.Add(-1)
	start := time.Now()
	var next atomic.Int64
	var stop atomic.Bool
	var mu sync.Mutex
	var wg sync.WaitGroup
	if workers > n {
		workers = n
	}
	guard := worker.NewGuard() // in a worker process: announce runs, watch handlers
	defer guard.Close()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if stop.Load() || interrupted.Load() != 0 {
					sink.put(i, nil) // handed out, not run
					return
				}
				sink.admit(i)
				j := jobs.at(i)
				if guard.Skips(j.key()) { // it killed an earlier worker process; the parent reports it
					sink.put(i, nil)
					continue
				}
				sc := scs[j.cell]
				beat := guard.Begin(j.key())
				r, err := sc.Run(scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(sc, j.algo), PorcupineTimeout: porcupine, StopAtViolation: failFast, Lean: true, Beat: beat, Abort: &abandon, DiscardAborted: true,
					Guard: guard.Gor.Arm()})
				guard.End()
				if err == nil && r.Outcome == sim.OutcomeStopped && abandon.Load() {
					sink.put(i, nil) // abandoned after a signal: not a result
					return
				}
				if err != nil {
					sink.put(i, nil)
					mu.Lock()
					res.errs = append(res.errs, fmt.Errorf("seed %d, %s: %w", j.seed, j.algo, err))
					mu.Unlock()
					stop.Store(true)
					return
				}
				rs := summarize(r)
				if label != nil {
					label(i, j, &rs)
				}
				var line []byte
				if sink != nil {
					if line, err = reports.EncodeRun(&rs); err != nil {
						panic(err) // a RunSummary always encodes
					}
				}
				mu.Lock()
				res.col.Add(jobs.rank(i), rs)
				mu.Unlock()
				sink.put(i, line)
				progress.add(&rs)
				if failFast && !r.OK {
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	res.stopped = stop.Load() && len(res.errs) == 0
	res.interrupted = interrupted.Load() != 0
	return res
}

// algoOverride is the RunOptions.Algorithm for algo: "" when it is the
// scenario's own, so the scenario's parameters apply.
func algoOverride(sc *scenario.Scenario, algo string) string {
	if algo == sc.AlgorithmName("") {
		return ""
	}
	return algo
}
