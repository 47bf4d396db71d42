package simrun

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// Isolation. The engine recovers a handler's panic in-process (the run
// ends crashed), but two failures it cannot: a stack overflow, which Go's
// runtime makes fatal, and a handler that never returns. In worker
// processes (-isolate, or an algorithm with process-wide state) each
// worker announces every run on its channel to the parent (workerLink:
// never stdout or stderr, where a handler may print anything) before
// starting it; when a worker
// dies, its parent reports the run it was on as crashed, with the fatal
// error and the top of its stack, and starts a new worker on the same
// seeds without the runs that died (runs are deterministic, so the runs
// done again come out the same). A watchdog in each worker turns a
// handler that has not returned within -handler-timeout of wall time into
// such a death. docs/engine.md, "When a handler fails".

// The worker's announcements, on its channel to the parent; and the
// mark it writes on stderr as a run starts, from which its parent keeps
// stderr for that run's death (only the mark's place counts: a handler
// that prints one shortens its own crash's account, nothing more).
const (
	workerRunLine  = "simrun: worker run " // + "<seed> <cell> <algo>"
	workerDoneLine = "simrun: worker done" // the announced run finished
	workerTailMark = "simrun: worker stderr of run "
)

// Environment the parent gives a worker process.
const (
	envSkip    = "SIMRUN_WORKER_SKIP"     // jobs not to run: "seed/cell/algo" separated by spaces
	envTimeout = "SIMRUN_HANDLER_TIMEOUT" // the watchdog's bound (a time.Duration)
)

// workerMaxStack is a worker's stack limit (Go's default is 1 GB): a
// handler that recurses forever dies of a stack overflow in a fraction of
// a second and 64 MB, not 1 GB.
const workerMaxStack = 64 << 20

// jobKey names a job in the announcements and the skip list.
func jobKey(j job) string { return fmt.Sprintf("%d %d %s", j.seed, j.cell, j.algo) }

// parseJobKey reads jobKey's text.
func parseJobKey(s string) (job, bool) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return job{}, false
	}
	seed, err1 := strconv.ParseUint(f[0], 10, 64)
	cell, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return job{}, false
	}
	return job{seed: seed, cell: cell, algo: f[2]}, true
}

// workerSkips is the set of jobs a worker process must not run (they
// died in an earlier worker); nil outside a worker.
func workerSkips() map[job]bool {
	v := os.Getenv(envSkip)
	if v == "" {
		return nil
	}
	skip := map[job]bool{}
	for _, s := range strings.Split(v, ",") {
		if j, ok := parseJobKey(s); ok {
			skip[j] = true
		}
	}
	return skip
}

// workerGuard is a worker process's side of isolation: it announces each
// run and watches the run loop's beat. The zero value (outside a worker)
// does nothing.
type workerGuard struct {
	on      bool
	skip    map[job]bool
	beat    atomic.Int64
	stop    chan struct{}
	done    chan struct{}
	timeout time.Duration
	gor     *goroutineGuard // that no handler starts a goroutine (goguard.go)
	ch      io.Writer       // the channel to the parent (workerLink)
}

// newWorkerGuard starts the guard in a worker process (isWorker):
// the stack limit, the skip list and the watchdog.
func newWorkerGuard() *workerGuard {
	g := &workerGuard{gor: newGoroutineGuard(false)}
	if !isWorker() {
		return g
	}
	g.gor = newGoroutineGuard(true)
	g.on, g.skip, g.ch = true, workerSkips(), parentChannel()
	g.beat.Store(-1)
	debug.SetMaxStack(workerMaxStack)
	limitWorkerMemory()
	g.timeout = 10 * time.Second
	if d, err := time.ParseDuration(os.Getenv(envTimeout)); err == nil && d > 0 {
		g.timeout = d
	}
	g.stop, g.done = make(chan struct{}), make(chan struct{})
	go g.watch()
	return g
}

// watch aborts the process when the beat stays on one value (not -1, out
// of a run loop) for the timeout: a handler that has not returned.
func (g *workerGuard) watch() {
	defer close(g.done)
	tick := time.NewTicker(max(g.timeout/20, 10*time.Millisecond))
	defer tick.Stop()
	last, since := int64(-1), time.Now()
	for {
		select {
		case <-g.stop:
			return
		case now := <-tick.C:
			b := g.beat.Load()
			if b != last || b < 0 {
				last, since = b, now
				continue
			}
			if now.Sub(since) >= g.timeout {
				if b == buildBeat {
					fmt.Fprintf(os.Stderr, "fatal error: building the run (the algorithm's factory) did not return within %v (-handler-timeout)\n\n%s", g.timeout, stacksIn("electsim/scenario.(*Scenario).Build("))
				} else {
					fmt.Fprintf(os.Stderr, "fatal error: a handler did not return within %v (-handler-timeout)\n\n%s", g.timeout, stacksIn("electsim/sim.(*Sim).run("))
				}
				os.Exit(exitWatchdog)
			}
		}
	}
}

// buildBeat is the beat while a worker builds a run (begin, building):
// the watchdog times the algorithm's factory as it times a handler. The
// run loop's beats count events from 0; -1 is out of any run.
const buildBeat = int64(1) << 62

// stacksIn is the stacks of the goroutines inside frame: the engine's
// run loop (the handler that has not returned, from where it is now) or
// the scenario's Build (the factory).
func stacksIn(frame string) string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, frame) {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n") + "\n"
}

// exitWatchdog is a worker's exit status when its watchdog aborts it.
const exitWatchdog = 3

// close stops the watchdog.
func (g *workerGuard) close() {
	if g.on {
		close(g.stop)
		<-g.done
	}
}

// skips reports whether the job died in an earlier worker.
func (g *workerGuard) skips(j job) bool { return g.skip[j] }

// begin announces a run (synchronously: the parent must know the seed
// before the run can kill the process) and returns the beat to give it,
// set to buildBeat: the watchdog times the build too.
func (g *workerGuard) begin(j job) *atomic.Int64 {
	if !g.on {
		return nil
	}
	fmt.Fprintln(os.Stderr, workerTailMark+jobKey(j))
	fmt.Fprintln(g.ch, workerRunLine+jobKey(j))
	return g.building()
}

// building starts the watchdog's clock on a run's build (the run loop's
// first beat stops it) and returns the beat; nil outside a worker.
func (g *workerGuard) building() *atomic.Int64 {
	if !g.on {
		return nil
	}
	g.beat.Store(buildBeat)
	return &g.beat
}

// idle stops the watchdog's clock: the worker is between jobs (a build
// that failed leaves the beat on buildBeat).
func (g *workerGuard) idle() {
	if g.on {
		g.beat.Store(-1)
	}
}

// end announces that the run finished.
func (g *workerGuard) end() {
	if g.on {
		g.idle()
		fmt.Fprintln(g.ch, workerDoneLine)
	}
}

// workerDeath is what a worker's stderr said about its death: the fatal
// error's line and the top of the dying goroutine's stack.
func workerDeath(stderr string, code int) (value, stack string) {
	lines := strings.Split(stderr, "\n")
	value = fmt.Sprintf("the worker process exited with status %d during the run (os.Exit in a handler?)", code)
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") {
			value, at = strings.TrimSpace(l), i
			break
		}
	}
	value = explainMemoryDeath(value)
	if at < 0 {
		return value, ""
	}
	// The first goroutine's trace after it, at most 24 lines: the frames
	// nearest the failure (a stack overflow repeats one frame thousands
	// of times). The runtime's own stack ("runtime stack:") comes first
	// and is skipped.
	var out []string
	in := false
	for _, l := range lines[at+1:] {
		if strings.HasPrefix(l, "goroutine ") {
			if in {
				break
			}
			in = true
			continue
		}
		if !in {
			continue
		}
		if l == "" {
			break
		}
		out = append(out, l)
		if len(out) >= 24 {
			out = append(out, "...")
			break
		}
	}
	return value, strings.Join(out, "\n")
}

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
