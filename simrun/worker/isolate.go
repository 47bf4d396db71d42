package worker

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
	EnvSkip    = "SIMRUN_WORKER_SKIP"     // jobs not to run: "seed/cell/algo" separated by spaces
	envTimeout = "SIMRUN_HANDLER_TIMEOUT" // the watchdog's bound (a time.Duration)
)

// workerMaxStack is a worker's stack limit (Go's default is 1 GB): a
// handler that recurses forever dies of a stack overflow in a fraction of
// a second and 64 MB, not 1 GB.
const workerMaxStack = 64 << 20

// Job is one run of a sweep, as the parent and its worker name it: the
// seed, the grid cell (0 outside a parameter sweep) and the algorithm.
type Job struct {
	Algo string
	Seed uint64
	Cell int
}

// jobKey names a job in the announcements and the skip list.
func jobKey(j Job) string { return fmt.Sprintf("%d %d %s", j.Seed, j.Cell, j.Algo) }

// parseJobKey reads jobKey's text.
func parseJobKey(s string) (Job, bool) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return Job{}, false
	}
	seed, err1 := strconv.ParseUint(f[0], 10, 64)
	cell, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return Job{}, false
	}
	return Job{Seed: seed, Cell: cell, Algo: f[2]}, true
}

// workerSkips is the set of jobs a worker process must not run (they
// died in an earlier worker); nil outside a worker.
func workerSkips() map[Job]bool {
	v := os.Getenv(EnvSkip)
	if v == "" {
		return nil
	}
	skip := map[Job]bool{}
	for _, s := range strings.Split(v, ",") {
		if j, ok := parseJobKey(s); ok {
			skip[j] = true
		}
	}
	return skip
}

// Guard is a worker process's side of isolation: it announces each
// run and watches the run loop's beat. The zero value (outside a worker)
// does nothing.
type Guard struct {
	on      bool
	skip    map[Job]bool
	beat    atomic.Int64
	stop    chan struct{}
	done    chan struct{}
	timeout time.Duration
	Gor     *GoroutineGuard // that no handler starts a goroutine (goguard.go)
	ch      io.Writer       // the channel to the parent (workerLink)
}

// NewGuard starts the guard in a worker process (IsWorker):
// the stack limit, the skip list and the watchdog.
func NewGuard() *Guard {
	g := &Guard{Gor: newGoroutineGuard(false)}
	if !IsWorker() {
		return g
	}
	g.Gor = newGoroutineGuard(true)
	g.on, g.skip, g.ch = true, workerSkips(), ParentChannel()
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
func (g *Guard) watch() {
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
					fmt.Fprintf(os.Stderr, "fatal error: the algorithm's code (%s) did not return within %v (-handler-timeout)\n\n%s", algorithmCode, g.timeout, stacksIn("electsim/scenario."))
				} else {
					fmt.Fprintf(os.Stderr, "fatal error: a handler did not return within %v (-handler-timeout)\n\n%s", g.timeout, stacksIn("electsim/sim.(*Sim).run("))
				}
				os.Exit(exitWatchdog)
			}
		}
	}
}

// algorithmCode names what runs under buildBeat: the algorithm's own
// functions the scenario package calls while it reads a file (Build's
// checks, LeaseStores) or builds a run (the factory), and those simrun
// and hunt ask of it (DriftMargin, Contract, Token). Not only the
// factory: a death there is worded by what may have died.
const algorithmCode = "its checks, LeaseStores, DriftMargin, Contract, Token or factory"

// outsideRun is a worker's death value (workerDeath) for a death under
// buildBeat: outside any run's handlers, in the algorithm's code.
func outsideRun(value string) string {
	return strings.Replace(value, "during the run (os.Exit in a handler?)", "in the algorithm's code (os.Exit in "+algorithmCode+"?)", 1)
}

// buildBeat is the beat while a worker reads a file or builds a run
// (begin, building): the watchdog times the algorithm's code there as it
// times a handler. The
// run loop's beats count events from 0; -1 is out of any run.
const buildBeat = int64(1) << 62

// stacksIn is the stacks of the goroutines inside frame: the engine's
// run loop (the handler that has not returned, from where it is now) or
// the scenario package (reading a file, building a run: the algorithm's
// code it called).
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

// Close stops the watchdog.
func (g *Guard) Close() {
	if g.on {
		close(g.stop)
		<-g.done
	}
}

// Skips reports whether the job died in an earlier worker.
func (g *Guard) Skips(j Job) bool { return g.skip[j] }

// Begin announces a run (synchronously: the parent must know the seed
// before the run can kill the process) and returns the beat to give it,
// set to buildBeat: the watchdog times the build too.
func (g *Guard) Begin(j Job) *atomic.Int64 {
	if !g.on {
		return nil
	}
	fmt.Fprintln(os.Stderr, workerTailMark+jobKey(j))
	fmt.Fprintln(g.ch, workerRunLine+jobKey(j))
	return g.Building()
}

// Building starts the watchdog's clock on a run's build (the run loop's
// first beat stops it) and returns the beat; nil outside a worker.
func (g *Guard) Building() *atomic.Int64 {
	if !g.on {
		return nil
	}
	g.beat.Store(buildBeat)
	return &g.beat
}

// Idle stops the watchdog's clock: the worker is between jobs (a build
// that failed leaves the beat on buildBeat).
func (g *Guard) Idle() {
	if g.on {
		g.beat.Store(-1)
	}
}

// End announces that the run finished.
func (g *Guard) End() {
	if g.on {
		g.Idle()
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
