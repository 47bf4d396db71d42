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
	"github.com/electsim/electsim/scenario"
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
	// interrupted: a SIGINT or SIGTERM stopped it after the runs in progress.
	interrupted bool
	wall        time.Duration
	errs        []error
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
// SIGINT or SIGTERM (interrupted) stops it after the runs in progress;
// res.interrupted says so.
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
				sc := scs[j.cell]
				r, err := sc.Run(scenario.RunOptions{Seed: j.seed, Algorithm: algoOverride(sc, j.algo), PorcupineTimeout: porcupine, StopAtViolation: failFast, Lean: true})
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
				progress.add(r.OK)
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

// progress reports a sweep's progress on stderr: a bar on a terminal,
// periodic lines otherwise, nothing when quiet. Each report says runs per
// second, the time left at that rate, and the findings so far (runs that did
// not meet the scenario's expectations).
type progress struct {
	w       io.Writer
	total   int
	n       atomic.Int64
	failed  atomic.Int64
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
	if isTerminal(w) {
		p.tty = true
		p.every = 100 * time.Millisecond
	}
	p.last = p.start
	return p
}

// isTerminal reports whether w is a terminal (progress then redraws one
// line in place).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// add counts one finished run; ok is whether it met the expectations.
func (p *progress) add(ok bool) {
	n := int(p.n.Add(1))
	failed := int(p.failed.Load())
	if !ok {
		failed = int(p.failed.Add(1))
	}
	p.show(n, failed)
}

// set reports totals counted elsewhere (worker processes' progress lines).
func (p *progress) set(n, failed int) {
	p.n.Store(int64(n))
	p.failed.Store(int64(failed))
	p.show(n, failed)
}

// show prints the progress if it is due: at most every p.every, and at the end.
func (p *progress) show(n, failed int) {
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
	status := progressStatus(n, p.total, failed, now.Sub(p.start).Seconds())
	if p.tty {
		const width = 30
		fill := width * min(n, p.total) / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), status)
		p.printed = true
		if n == p.total {
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintf(p.w, "simrun: %s\n", status)
}

// progressStatus is one progress report: "120/1000 runs (12%), 340 runs/s,
// ETA 2.6s, 3 failing" after el seconds.
func progressStatus(n, total, failed int, el float64) string {
	s := fmt.Sprintf("%d/%d runs (%d%%), %.1fs", n, total, 100*n/total, el)
	if el > 0 && n > 0 {
		rate := float64(n) / el
		s += fmt.Sprintf(", %.0f runs/s", rate)
		if n < total {
			s += ", ETA " + (time.Duration(float64(total-n) / rate * float64(time.Second))).Round(100*time.Millisecond).String()
		}
	}
	switch failed {
	case 0:
		s += ", no findings"
	case 1:
		s += ", 1 failing run"
	default:
		s += fmt.Sprintf(", %d failing runs", failed)
	}
	return s
}

// finish ends the bar's line if a sweep stopped early.
func (p *progress) finish() {
	if p.tty && p.printed && int(p.n.Load()) < p.total {
		fmt.Fprintln(p.w)
	}
}
