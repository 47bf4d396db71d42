package simrun

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenarios"
)

// job is one run of a sweep: an algorithm under a seed.
type job struct {
	algo string
	seed uint64
}

// sweepResult is a finished sweep, in job order.
type sweepResult struct {
	runs    []reports.RunSummary
	done    []bool
	stopped bool // -fail-fast stopped it early
	wall    time.Duration
	errs    []error
}

// jobList is the runs of a sweep, computed on demand (a sweep of ten
// million seeds has no list of ten million jobs): every algorithm × every
// seed of the shard, algorithms outermost.
type jobList struct {
	algos                  []string
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
	return jobList{algos: algos, first: first, perAlgo: per, count: count, shard: shardIndex, shardsOf: shardCount}
}

// len is the number of runs.
func (l jobList) len() int { return l.perAlgo * len(l.algos) }

// at is run i.
func (l jobList) at(i int) job {
	a, k := i/l.perAlgo, i%l.perAlgo
	return job{algo: l.algos[a], seed: l.first + uint64(l.shard+k*l.shardsOf)}
}

// runSweep runs jobs on workers goroutines. Results land at their job's
// index, so the output never depends on scheduling.
func runSweep(sc *scenarios.Scenario, jobs jobList, workers int, failFast bool, porcupine time.Duration, progress *progress) sweepResult {
	n := jobs.len()
	res := sweepResult{runs: make([]reports.RunSummary, n), done: make([]bool, n)}
	start := time.Now()
	var next atomic.Int64
	var stop atomic.Bool
	var mu sync.Mutex
	var wg sync.WaitGroup
	if workers > n {
		workers = n
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || stop.Load() {
					return
				}
				j := jobs.at(i)
				r, err := sc.Run(scenarios.RunOptions{Seed: j.seed, Algorithm: algoOverride(sc, j.algo), PorcupineTimeout: porcupine, StopAtViolation: failFast})
				if err != nil {
					mu.Lock()
					res.errs = append(res.errs, fmt.Errorf("seed %d, %s: %w", j.seed, j.algo, err))
					mu.Unlock()
					stop.Store(true)
					return
				}
				res.runs[i] = summarize(r)
				res.done[i] = true
				progress.add(1)
				if failFast && !r.OK {
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	res.stopped = stop.Load() && len(res.errs) == 0
	return res
}

// algoOverride is the RunOptions.Algorithm for algo: "" when it is the
// scenario's own, so the scenario's parameters apply.
func algoOverride(sc *scenarios.Scenario, algo string) string {
	if algo == sc.AlgorithmName("") {
		return ""
	}
	return algo
}

// progress reports a sweep's progress on stderr: a bar on a terminal,
// periodic lines otherwise, nothing when quiet.
type progress struct {
	w       io.Writer
	total   int
	n       atomic.Int64
	tty     bool
	quiet   bool
	start   time.Time
	mu      sync.Mutex
	last    time.Time
	every   time.Duration
	printed bool
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	p := &progress{w: w, total: total, quiet: quiet || total < 2, start: time.Now(), every: 2 * time.Second}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
			p.every = 100 * time.Millisecond
		}
	}
	p.last = p.start
	return p
}

func (p *progress) add(k int) {
	n := int(p.n.Add(int64(k)))
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < p.every && n < p.total {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	if p.tty {
		const width = 30
		fill := width * n / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs %5.1fs", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), n, p.total, el)
		p.printed = true
		if n == p.total {
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintf(p.w, "simrun: %d/%d runs (%d%%), %.1fs\n", n, p.total, 100*n/p.total, el)
}

// finish ends the bar's line if a sweep stopped early.
func (p *progress) finish() {
	if p.tty && p.printed && int(p.n.Load()) < p.total {
		fmt.Fprintln(p.w)
	}
}
