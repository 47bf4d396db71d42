package simrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// Worker processes. An algorithm whose nodes share process-wide state
// (registry.Algorithm.ProcessWide: etcdraft swaps crypto/rand.Reader under
// a process-wide lock) serializes inside one process, so a sweep of it
// with -workers W > 1 runs in W child processes of this executable instead:
// each runs a sub-shard of the seeds (the shard machinery), writes its
// summary as JSON, and the parent merges them (reports.Merge) into the same
// summary a single process would produce (runs are deterministic; only the
// timing differs). docs/engine.md, "Worker processes".

// envWorker marks a child process as its parent's worker (workerenv.go):
// it never spawns workers itself.
const envWorker = "SIMRUN_WORKER"

// needsProcesses reports whether the sweep of algos with workers, over
// seeds seeds (of its shard), should run in worker processes. Each worker
// process runs a sub-shard of the seeds (every algorithm and grid cell of
// them), so a sweep of one seed, however many algorithms or cells, runs in
// this process (serialized, as one worker process would run it).
func needsProcesses(algos []string, workers, seeds int) bool {
	if workers < 2 || seeds < 2 || isWorker() {
		return false
	}
	for _, a := range algos {
		if d, ok := registry.Default.Lookup(a); ok && d.ProcessWide {
			return true
		}
	}
	return false
}

// A worker's progress line (progress.show): runs done, failing runs, and
// the runs that passed with harmless or expected findings.
var (
	childProgressRe = regexp.MustCompile(`^simrun: (\d+)/(\d+) runs\b.*?, (?:(\d+) failing runs?|no failing runs)`)
	childHarmlessRe = regexp.MustCompile(`\b(\d+) passed with harmless findings only\b`)
	childExpectedRe = regexp.MustCompile(`\b(\d+) passed with expected findings\b`)
)

// processCount is how many worker processes a sweep of jobs runs in: one
// per worker, at most one per seed of the shard (a process with no seed
// would be an empty shard).
func processCount(workers int, jobs jobList) int { return max(min(workers, jobs.perAlgo), 1) }

// processSweep runs jobs in processCount child processes and returns their
// merged runs at their job indexes, as runSweep does.
func processSweep(o *options, scs []*scenario.Scenario, jobs jobList, first uint64, prog *progress, rf *runsOut) (sweepResult, error) {
	start := time.Now()
	n := jobs.len()
	w := processCount(o.workers, jobs)
	tmp, done, err := makeWorkerDir()
	if err != nil {
		return sweepResult{}, err
	}
	defer done()
	exe, err := os.Executable()
	if err != nil {
		return sweepResult{}, err
	}
	shardN := max(o.shardCount, 1)
	kids := make([]*child, w)
	var mu sync.Mutex // guards the children's fields
	report := func() {
		done, c := 0, findingCounts{}
		for _, k := range kids {
			done += k.n + len(k.died)
			c.failed += k.counts.failed + len(k.died)
			c.harmless += k.counts.harmless
			c.expected += k.counts.expected
		}
		prog.set(done, c)
	}
	for j := range kids {
		k := &child{json: filepath.Join(tmp, fmt.Sprintf("shard%d.json", j)), runs: filepath.Join(tmp, fmt.Sprintf("shard%d.jsonl", j))}
		kids[j] = k
		// The scenario path as given (the children share the working
		// directory): summaries and replay commands name it the same way.
		k.args = []string{"-scenario", o.scenario, "-seed", strconv.FormatUint(first, 10), "-seeds", strconv.Itoa(o.seeds),
			"-algo", strings.Join(jobs.algos, ","), "-workers", "1",
			"-shard", fmt.Sprintf("%d/%d", o.shardIndex+shardN*j, shardN*w),
			"-json", k.json, "-runs", k.runs, "-out", filepath.Join(tmp, fmt.Sprintf("out%d", j)), "-shrink=false", // a worker writes only its -json
			"-porcupine-timeout", o.porcupine.String()}
		for _, s := range o.sets {
			k.args = append(k.args, "-set", s)
		}
		for _, d := range o.dims {
			k.args = append(k.args, "-vary", d.spec)
		}
		if o.failFast {
			k.args = append(k.args, "-fail-fast")
		}
	}
	sweeping.Add(1)
	defer sweeping.Add(-1)
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
						if k.cmd != nil && k.cmd.Process != nil {
							_ = k.cmd.Process.Signal(signalOf(sig))
						}
					}
					mu.Unlock()
					return
				}
			}
		}
	}()
	errs := make([]error, len(kids))
	var sup sync.WaitGroup
	for j, k := range kids {
		sup.Add(1)
		go func() {
			defer sup.Done()
			errs[j] = superviseChild(o, scs, jobs, exe, k, &mu, report, prog.note)
		}()
	}
	sup.Wait()
	close(stopForward)
	for j, err := range errs {
		if err != nil {
			return sweepResult{}, fmt.Errorf("worker process %d: %w", j, err)
		}
	}
	// The children's summaries: their groups' aggregates and kept runs
	// combine into the sweep's, and their runs files (each in run order)
	// merge into its runs file.
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
		b, err := os.ReadFile(k.json)
		if err != nil {
			if interrupted.Load() != 0 {
				continue // stopped before any of its runs finished
			}
			return sweepResult{}, err
		}
		var s reports.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return sweepResult{}, fmt.Errorf("worker summary %s: %v", k.json, err)
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
		for _, r := range k.died { // the runs that killed a worker: in the aggregates, kept, never in the runs file
			res.col.Add(rank[r.Key()], r)
			res.died[jobOf(o, &r)] = true
		}
		f, err := os.Open(k.runs)
		if err != nil {
			return sweepResult{}, err
		}
		defer f.Close()
		rr, err := reports.NewRunsReader(f, k.runs)
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
	res.wall = time.Since(start)
	return res, nil
}

// child is one worker process slot: its arguments and outputs, what its
// progress lines said, and the runs that killed one of its processes.
type child struct {
	args   []string
	cmd    *exec.Cmd
	stderr bytes.Buffer // what it wrote besides progress and announcements
	json   string
	runs   string
	n      int
	counts findingCounts
	cur    *job            // the run announced and not yet finished
	tail   strings.Builder // its stderr since the current run was announced
	skip   []job           // runs that killed an earlier process of this slot
	exact  bool            // its workers check every handler for goroutines (goguard.go)
	died   []reports.RunSummary
}

// superviseChild runs k's worker process until it exits normally: when
// it dies during a run it announced (a stack overflow, the watchdog), that
// run becomes a crashed summary and a new process runs the same shard
// without it; when its goroutine guard suspects a handler, a new process
// runs the same shard checking exactly (note says so).
func superviseChild(o *options, scs []*scenario.Scenario, jobs jobList, exe string, k *child, mu *sync.Mutex, report func(), note func(string)) error {
	for {
		cmd := exec.Command(exe, k.args...)
		cmd.Args[0] = o.prog // a child built on Main goes by the parent's name in the replay lines it writes
		// One worker process is one worker: one core for its runs and its
		// garbage collector (two children with the default GOMAXPROCS
		// contend for both cores, measured 14 s against 10.7 s per child).
		keys := make([]string, len(k.skip))
		for i, j := range k.skip {
			keys[i] = jobKey(j)
		}
		link, err := newWorkerLink()
		if err != nil {
			return err
		}
		cmd.Env = workerEnv(link, o.handlerMax, k.exact, keys)
		cmd.Stdout = io.Discard
		ownGroup(cmd) // the parent forwards signals once; a terminal's Ctrl-C must not reach the children twice
		pipe, err := cmd.StderrPipe()
		if err != nil {
			link.started()
			link.close()
			return err
		}
		link.attach(cmd)
		mu.Lock()
		k.cmd, k.n, k.counts, k.cur = cmd, 0, findingCounts{}, nil
		k.stderr.Reset()
		k.tail.Reset()
		err = cmd.Start()
		link.started()
		mu.Unlock()
		if err != nil {
			link.close()
			return err
		}
		trackWorker(cmd.Process)
		// Two streams: the link's channel (announcements and progress,
		// which only simrun writes) and stderr (whatever the algorithm
		// prints, and the runtime's fatal error). Both are read to
		// their end before the worker is reaped.
		var readers sync.WaitGroup
		readers.Add(1)
		go func() {
			defer readers.Done()
			ch := bufio.NewScanner(link.chanR)
			ch.Buffer(make([]byte, 64<<10), 1<<20)
			for ch.Scan() {
				mu.Lock()
				k.readChannel(ch.Text(), report)
				mu.Unlock()
			}
			_, _ = io.Copy(io.Discard, link.chanR) // past an over-long line: to the end
		}()
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			k.readStderr(line)
			mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pipe)
		readers.Wait()
		link.close()
		err = cmd.Wait()
		untrackWorker(cmd.Process)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			return err
		}
		mu.Lock()
		cur := k.cur
		mu.Unlock()
		// A worker that ended, whatever its status, during a run it
		// announced died of that run: a fatal error, the watchdog, or
		// os.Exit in a handler (even os.Exit(0)).
		if cur == nil || interrupted.Load() != 0 {
			switch code {
			case 0, exitViolation, exitSIGINT, exitSIGTERM:
				return nil
			}
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(k.stderr.String()))
		}
		if code == exitGoroutineSuspect && !k.exact {
			// A handler may have started a goroutine: the shard again,
			// in a worker that checks after every handler and reports
			// the first that did (goguard.go).
			k.exact = true
			note("a handler may have started a goroutine: a worker process runs its seeds again, checking after every handler (docs/engine.md, \"When a handler fails\")")
			continue
		}
		value, stack := workerDeath(k.tail.String(), code)
		mu.Lock()
		k.died = append(k.died, diedRun(o, jobs, scs[cur.cell], *cur, value, stack))
		k.skip = append(k.skip, *cur)
		report()
		mu.Unlock()
	}
}

// readChannel takes one line of a worker's channel (workerLink): a
// run's announcement or end, or a progress line.
func (k *child) readChannel(line string, report func()) {
	switch {
	case strings.HasPrefix(line, workerRunLine):
		if j, ok := parseJobKey(strings.TrimPrefix(line, workerRunLine)); ok {
			k.cur = &j
		}
		return
	case line == workerDoneLine:
		k.cur = nil
		return
	}
	if m := childProgressRe.FindStringSubmatch(line); m != nil {
		k.n, _ = strconv.Atoi(m[1])
		k.counts = findingCounts{}
		k.counts.failed, _ = strconv.Atoi(m[3])
		if h := childHarmlessRe.FindStringSubmatch(line); h != nil {
			k.counts.harmless, _ = strconv.Atoi(h[1])
		}
		if e := childExpectedRe.FindStringSubmatch(line); e != nil {
			k.counts.expected, _ = strconv.Atoi(e[1])
		}
		report()
	}
}

// readStderr takes one line of a worker's stderr: kept for the death of
// the run in flight (from the mark the worker writes there as it starts
// a run: workerTailMark) and for an error message. What the algorithm
// prints here decides nothing but the words of its own run's crash.
func (k *child) readStderr(line string) {
	if strings.HasPrefix(line, workerTailMark) {
		k.tail.Reset()
		return
	}
	if k.tail.Len() < 1<<20 {
		k.tail.WriteString(line + "\n")
	}
	if k.stderr.Len() < 1<<20 {
		k.stderr.WriteString(line + "\n")
	}
}
