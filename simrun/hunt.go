package simrun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// huntAs is simrun hunt (docs/hunting.md): it searches fault schedules and
// parameter values for a run that breaks the algorithm's contract, and
// exits 0 when it found none within the budget, 1 when it found one (the
// shrunk repro.yaml in a new output folder), 2 on bad usage.
func huntAs(prog string, args []string, stdout, stderr io.Writer) int {
	h := &huntRun{prog: prog, cmd: prog + " hunt", stdout: stdout, stderr: stderr}
	if code, done := h.parse(args); done {
		return code
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sweeping.Add(1)
	defer sweeping.Add(-1)
	hunting.Add(1)
	defer hunting.Add(-1)
	go func() { // a signal stops the search between two runs
		for ctx.Err() == nil && !abandon.Load() {
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	}()
	pool, err := h.isolate()
	if err != nil {
		return h.fail("%v", err)
	}
	if pool != nil {
		defer pool.Close()
	}
	h.tellCaveats()
	start := time.Now()
	res, err := hunt.Search(ctx, h.o)
	cancel()
	if err != nil {
		return h.searchFailed(err)
	}
	el := time.Since(start)
	if !res.Found {
		return h.nothingFound(res, el)
	}
	return h.found(res, el)
}

// huntRun is one invocation of simrun hunt: its flags, as the steps of
// huntAs read them.
type huntRun struct {
	prog, cmd      string
	stdout, stderr io.Writer
	o              hunt.Options
	quiet          bool
	iso            options // -isolate and -handler-timeout, as a sweep reads them
	dest           outdir.OutputDest
}

// fail says what went wrong on stderr: exit 2.
func (h *huntRun) fail(format string, a ...any) int {
	fmt.Fprintf(h.stderr, h.cmd+": "+format+"\n", a...)
	return exitUsage
}

// parse reads the flags and checks the destination; done: the command
// ends (help, or bad usage) with code.
func (h *huntRun) parse(args []string) (code int, done bool) {
	prog, cmd, o, iso := h.prog, h.cmd, &h.o, &h.iso
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var out, strategies, kinds, checks string
	fs.StringVar(&o.Algo, "algo", "", "the algorithm `NAME` to hunt (with -scenario: overrides the file's)")
	fs.Var((*listFlag)(&o.Sets), "set", "override a base value, `path=value` (repeatable); a parameter set here is never varied")
	fs.StringVar(&o.Scenario, "scenario", "", "base scenario `FILE` (default: the built-in base cluster)")
	fs.DurationVar(&o.Budget, "budget", 60*time.Second, "wall-clock `budget` (0: none, with -runs)")
	fs.IntVar(&o.Runs, "runs", 0, "stop after exactly `N` runs (0: the budget alone)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed `N` of the search")
	fs.IntVar(&o.Workers, "workers", runtime.NumCPU(), "run `W` runs at once (the search is deterministic for a given -seed, -workers and -runs)")
	fs.StringVar(&strategies, "strategies", "", "comma-separated `LIST` of strategies (default all: swarm,state,extremes,feedback)")
	fs.StringVar(&kinds, "kinds", "", "comma-separated fault kinds `LIST` to draw (default: "+strings.Join(hunt.DefaultKinds, ",")+")")
	fs.StringVar(&checks, "checks", "", "comma-separated `LIST` of checks whose failures count (default every failure)")
	fs.DurationVar(&o.ShrinkBudget, "shrink-time", 20*time.Second, "wall-clock `budget` for minimising a finding")
	fs.StringVar(&out, "out", "", "output `DIR` for repro.yaml (default a new out/hunt-<algo>/NNN)")
	fs.BoolVar(&h.quiet, "quiet", false, "print nothing but the verdict line and errors")
	fs.BoolVar(&iso.isolate, "isolate", true, "run the runs in worker processes (one per -workers slot), so a run that overflows its stack, hangs or exits is the hunt's crashed finding with its seed; -isolate=false runs them in this process")
	fs.DurationVar(&iso.handlerMax, "handler-timeout", 10*time.Second, "in worker processes, abort a handler that has not returned after `D` of wall time (the run is the crashed finding)")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s hunt -algo NAME [-set path=value]... [-scenario F] [-budget 60s] [-runs N] [-seed N] [-workers N] [-isolate] [-out DIR] [-quiet]\n\n", prog)
		fmt.Fprintln(w, "Searches fault schedules and parameter values for a run that breaks the\nalgorithm's safety contract (docs/hunting.md). Exit status: 0 nothing found\nwithin the budget, 1 found (repro.yaml written), 2 bad usage.\n\nflags:")
	}
	if code, done := parseFlags(fs, args, cmd, usage, h.stdout, h.stderr); done {
		return code, true
	}
	if fs.NArg() > 0 {
		return h.fail("unexpected argument %q; run '%s -h' for usage", fs.Arg(0), cmd), true
	}
	if iso.handlerMax <= 0 {
		return h.fail("-handler-timeout must be positive"), true
	}
	if o.ShrinkBudget < 0 { // as a sweep refuses it (flags.go)
		return h.fail("-shrink-time must not be negative"), true
	}
	fs.Visit(func(f *flag.Flag) { iso.isolateSet = iso.isolateSet || f.Name == "isolate" })
	for _, s := range splitList(strategies) {
		o.Strategies = append(o.Strategies, hunt.Strategy(s))
	}
	o.Kinds = splitList(kinds)
	o.Checks = splitList(checks)
	o.Program = prog
	if !h.quiet {
		o.Progress = h.stderr
	}
	name := "hunt-" + o.Algo
	if o.Scenario != "" {
		name = strings.TrimSuffix(filepath.Base(o.Scenario), filepath.Ext(o.Scenario)) + "-hunt"
	}
	h.dest = outdir.DestFor(out, filepath.Join("out", name))
	if err := h.dest.Check(); err != nil {
		return h.fail("%v", err), true
	}
	return 0, false
}

// isolate gives the search a pool of worker processes when it isolates
// (huntIsolation); nil when it runs in this process.
func (h *huntRun) isolate() (*worker.HuntPool, error) {
	isolate, auto := huntIsolation(&h.iso)
	if !isolate {
		return nil, nil
	}
	pool, err := worker.NewHuntPool(h.prog, h.iso.handlerMax)
	if err != nil {
		return nil, err
	}
	pool.ShareCores(h.o.Workers)
	h.o.Runner = pool
	if !h.quiet {
		why := "-isolate"
		if auto {
			why = "a run that kills its process (a stack overflow, a handler that hangs or exits) is the crashed finding with its seed, not the hunt's end; -isolate=false runs them in this process"
		}
		// Said as the first worker starts: after the base's file
		// loaded (a usage error stays one line), before its build.
		pool.OnStart = func() {
			fmt.Fprintf(h.stderr, "%s: runs in %s (%s)\n", h.cmd, reports.Plural(max(h.o.Workers, 1), "worker process", "worker processes"), why)
		}
	}
	return pool, nil
}

// tellCaveats has the search say, as it starts, what of the algorithm's
// overlaps are excused.
func (h *huntRun) tellCaveats() {
	if h.quiet {
		return
	}
	h.o.OnStart = func(algo, caveat string) {
		if caveat != "" {
			fmt.Fprintf(h.stderr, "%s: %s %s: two leaders at once under those faults are excused, not found (docs/checkers.md, \"Excuses\")\n", h.cmd, algo, caveat)
		}
	}
}

// searchFailed is the exit status of a search that ended in err.
func (h *huntRun) searchFailed(err error) int {
	var ue *hunt.UsageError
	var died *hunt.DiedError
	var notReplayed *hunt.NotReplayedError
	if _, code, ok := interruption(); ok {
		// Stopped while it loaded its base (a build in a worker): no run
		// was judged.
		fmt.Fprintf(h.stderr, "%s: stopped by a signal before any run was judged; nothing written\n", h.cmd)
		return code
	}
	switch {
	case errors.As(err, &died):
		// The algorithm's factory killed the worker building a run: the
		// algorithm crashed (1), and no run exists to reproduce it.
		fmt.Fprintf(h.stderr, "%s: %v\n", h.cmd, err)
		return exitViolation
	case errors.As(err, &ue):
		return h.fail("%v", err)
	case errors.As(err, &notReplayed):
		fmt.Fprintf(h.stderr, "%s: %v\n", h.cmd, err)
		return exitDefect
	}
	return h.fail("%v", err)
}

// nothingFound reports a search that found nothing in el: exit 0 (or the
// signal's status).
func (h *huntRun) nothingFound(res hunt.Result, el time.Duration) int {
	stdout := h.stdout
	rate := float64(res.Runs) / max(el.Seconds(), 1e-9)
	fmt.Fprintf(stdout, "nothing found: %s in %v (%.0f runs/s), %v simulated", reports.Plural(res.Runs, "run", "runs"),
		el.Round(time.Millisecond), rate, res.SimTime.Round(time.Second))
	if res.Exhausted > 0 {
		fmt.Fprintf(stdout, ", %d stopped by the event budget", res.Exhausted)
	}
	fmt.Fprintf(stdout, "\ncoverage: %s\n", res.Coverage)
	if !h.quiet {
		fmt.Fprintf(stdout, "runs by strategy: %s\n", byStrategy(res))
		if len(res.Coverage.Events) > 0 {
			fmt.Fprintf(stdout, "events reached: %s\n", strings.Join(res.Coverage.Events, ", "))
		}
	}
	if _, code, ok := interruption(); ok {
		return code
	}
	return exitOK
}

// found writes the finding's repro.yaml to a new output folder and
// reports it: exit 1 (or the signal's status).
func (h *huntRun) found(res hunt.Result, el time.Duration) int {
	stdout, quiet := h.stdout, h.quiet
	dir, latestNote, err := writeFolder(h.dest, func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "repro.yaml"), res.Repro, 0o644)
	})
	if err != nil {
		return h.fail("%v", err)
	}
	if latestNote != "" && !quiet {
		fmt.Fprintln(h.stderr, h.cmd+":", latestNote)
	}
	repro := filepath.Join(dir, "repro.yaml")
	fmt.Fprintf(stdout, "found: %s after %s in %v (strategy %s, run seed %d)\n", strings.Join(res.Failure, ", "),
		reports.Plural(res.Runs, "run", "runs"), el.Round(time.Millisecond), res.Strategy, res.Seed)
	fmt.Fprintf(stdout, "repro: %s\nreplay: %s -scenario %s\n", repro, h.prog, repro)
	if res.Check == checker.CheckCrashed && res.Explanation != "" {
		// A crash's explanation is its fatal error and stack: what
		// the user needs even with -quiet.
		fmt.Fprintf(stdout, "explanation: %s\n", res.Explanation)
	} else if !quiet && res.Explanation != "" {
		fmt.Fprintf(stdout, "explanation: %s\n", res.Explanation)
	}
	if !quiet {
		fmt.Fprintf(stdout, "coverage: %s\n", res.Coverage)
	}
	if _, code, ok := interruption(); ok { // stopped while shrinking: the reproduction so far is written
		return code
	}
	return exitViolation
}

// huntIsolation decides whether a hunt runs its runs in worker processes:
// -isolate when given; otherwise always, built-in algorithms too (not
// inside a worker or a test binary). A run that kills its process (a
// stack overflow, runaway recursion, os.Exit) is then the hunt's crashed
// finding with its seed: the hunting process supervises the workers and
// knows the run each has in flight (issue 35 point 7). It costs a process
// per -workers slot, not per run, and no throughput (docs/hunting.md,
// "Isolation", measured). Unlike isolation, it reads no scenario: a
// file's algorithm is user code the parent must not call (its Build)
// before a worker has. auto reports the default's choice.
func huntIsolation(iso *options) (isolate, auto bool) {
	switch {
	case worker.IsWorker():
		return false, false
	case iso.isolateSet:
		return iso.isolate, false
	case inTestBinary():
		return false, false
	}
	return true, true
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// byStrategy is the runs each strategy made, in the strategies' order.
func byStrategy(r hunt.Result) string {
	var parts []string
	for _, s := range hunt.Strategies {
		if n := r.ByStrategy[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, n))
		}
	}
	return strings.Join(parts, ", ")
}
