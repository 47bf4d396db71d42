package worker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/electsim/electsim/sim"
)

// The goroutine guard. A handler must act only through env (docs/engine.md,
// "The node contract"); a goroutine it starts that calls env later races
// the engine, so the same seed could panic in one run and return results
// in another. Go gives a goroutine no identity a handler's env could
// check, so a worker process (which runs one run at a time and starts no
// goroutine of its own during a run) checks the runtime instead, in two
// steps that keep the common case cheap and the report exact:
//
//   - Cheap (every worker at first): after every handler, the count of
//     live goroutines (runtime.NumGoroutine, about 1 ns) must not exceed
//     the lowest it has been since the run started (it may fall: the
//     goroutines porcupine started while checking the previous run can
//     still be ending), and when the run ends (sim.Guard.Ended, before the
//     checks run) the runtime's count of goroutines ever created
//     (/sched/goroutines-created) must be unchanged: that catches the
//     goroutines that ended before their handler returned. Either miss
//     ends the worker at once with exitGoroutineSuspect, so the goroutine
//     cannot touch a later run.
//   - Exact (SIMRUN_GUARD_EXACT=1, set by the parent on the new worker it
//     starts after a suspect exit): the created count, read after every
//     handler (one metrics.Read, about 60 ns), must not move. Any increase
//     was created by the handler that just returned, whether that
//     goroutine is still to run, blocked or finished, so the engine stops
//     the run at that handler (a contract failure naming it) and the
//     worker dies with that failure as its fatal error; its parent reports
//     the run as crashed with its seed and replay command, as for a stack
//     overflow.
//
// The new worker runs its seeds again (runs are deterministic), so the
// report is the exact step's, the first handler that started a
// goroutine, whichever step noticed it first.

// goroutinesCreated is the runtime metric the guard reads.
const goroutinesCreated = "/sched/goroutines-created:goroutines"

// envGuardExact puts a worker's guard in its exact step.
const envGuardExact = "SIMRUN_GUARD_EXACT"

// A worker's exit statuses for the guard: a handler started a goroutine
// (exact step), or may have (cheap step: run again exactly).
const (
	exitGoroutine        = 4
	exitGoroutineSuspect = 5
)

// GoroutineGuard is a worker's sim.Guard. The zero value (outside a worker
// process) checks nothing.
type GoroutineGuard struct {
	on, exact bool
	sample    []metrics.Sample
	base      uint64 // created count: at the run's start (cheap), at the last check (exact)
	live      int    // live goroutines at the run's start
	tripped   bool   // exact: a handler of this run started a goroutine
	checked   bool   // a handler of this run has been checked
}

// newGoroutineGuard returns a guard that checks when on. It first lets the
// runtime start the goroutines it starts lazily (the garbage collector's
// mark worker on the first cycle), so that they are not counted against
// the first run.
func newGoroutineGuard(on bool) *GoroutineGuard {
	g := &GoroutineGuard{on: on}
	if !on {
		return g
	}
	g.exact = os.Getenv(envGuardExact) == "1"
	runtime.GC()
	runtime.GC()
	g.sample = []metrics.Sample{{Name: goroutinesCreated}}
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		// A runtime without the metric (go.mod asks for Go 1.26, which
		// has it): only the live count is checked, never exactly.
		g.sample, g.exact = nil, false
	}
	return g
}

// created is the runtime's count of goroutines created so far (0 without
// the metric).
func (g *GoroutineGuard) created() uint64 {
	if g.sample == nil {
		return 0
	}
	metrics.Read(g.sample)
	return g.sample[0].Value.Uint64()
}

// Arm starts a run and returns the guard to give it (nil when off).
func (g *GoroutineGuard) Arm() sim.Guard {
	if !g.on {
		return nil
	}
	g.base, g.live, g.tripped, g.checked = g.created(), runtime.NumGoroutine(), false, false
	return g
}

// Check implements sim.Guard.
func (g *GoroutineGuard) Check() error {
	if !g.exact {
		// Only an increase: goroutines that a previous run's checks
		// started (porcupine's, cancelled) may still be ending.
		switch n := runtime.NumGoroutine(); {
		case n > g.live:
			g.suspect()
		case n < g.live:
			g.live = n
		}
		return nil
	}
	n, first := g.created(), !g.checked
	g.checked = true
	if n == g.base {
		return nil
	}
	started := n - g.base
	g.base, g.tripped = n, true
	what := "goroutines"
	if started == 1 {
		what = "goroutine"
	}
	// The guard is armed before the run is built: at the first check, the
	// algorithm's Build (its factory) may have started them instead.
	where := ""
	if first {
		where = ", or the algorithm's Build did before it"
	}
	return fmt.Errorf("started %d %s%s (a handler must act only through env: docs/engine.md, \"The node contract\")", started, what, where)
}

// Ended implements sim.Guard: in the cheap step, a goroutine created and
// ended within its handler shows in the created count.
func (g *GoroutineGuard) Ended() {
	if !g.exact && g.created() != g.base {
		g.suspect()
	}
}

// suspect ends the worker: a handler may have started a goroutine, and
// its parent runs the worker's seeds again in the exact step.
func (g *GoroutineGuard) suspect() {
	fmt.Fprintln(os.Stderr, "simrun: worker: a handler may have started a goroutine; running again with a check after every handler")
	os.Exit(exitGoroutineSuspect)
}

// Crashed implements sim.Guard: when the run stopped because a handler
// started a goroutine, it writes the failure as a fatal error (the parent
// reads it like a runtime's, workerDeath) and ends the worker at once, so
// the goroutine dies with it before it can run.
func (g *GoroutineGuard) Crashed(f *sim.Failure) {
	if !g.tripped {
		return
	}
	stack := f.Stack
	// Where the handler started the goroutines still alive, for people.
	if sites := creationSites(); sites != "" {
		stack += "\n" + sites
	}
	fmt.Fprintf(os.Stderr, "fatal error: %s\n\ngoroutine %d [running]:\n%s\n\n", OneLine(f.String()), runLoopID(), strings.TrimSpace(stack))
	os.Exit(exitGoroutine)
}

// creationSites is the "created by" lines of the live goroutines this
// goroutine created: where the handler started them.
func creationSites() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	mark := " in goroutine " + strconv.Itoa(runLoopID())
	var out []string
	for _, l := range strings.Split(string(buf), "\n") {
		if strings.HasPrefix(l, "created by ") && strings.HasSuffix(l, mark) {
			out = append(out, strings.TrimSuffix(l, mark))
		}
	}
	return strings.Join(out, "\n")
}

// runLoopID is the calling goroutine's ID, read from its stack's header
// ("goroutine 7 [running]:"); 0 if unreadable.
func runLoopID() int {
	var b [64]byte
	f := strings.Fields(string(b[:runtime.Stack(b[:], false)]))
	if len(f) < 2 {
		return 0
	}
	id, _ := strconv.Atoi(f[1])
	return id
}

// OneLine keeps a value on one line (the parent reads the fatal error's
// first line).
func OneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
