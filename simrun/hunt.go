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
	cmd := prog + " hunt"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var o hunt.Options
	var out, strategies, kinds, checks string
	var quiet bool
	var iso options // -isolate and -handler-timeout, as a sweep reads them
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
	fs.BoolVar(&quiet, "quiet", false, "print nothing but the verdict line and errors")
	fs.BoolVar(&iso.isolate, "isolate", true, "run the runs in worker processes (one per -workers slot), so a run that overflows its stack, hangs or exits is the hunt's crashed finding with its seed; -isolate=false runs them in this process")
	fs.DurationVar(&iso.handlerMax, "handler-timeout", 10*time.Second, "in worker processes, abort a handler that has not returned after `D` of wall time (the run is the crashed finding)")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s hunt -algo NAME [-set path=value]... [-scenario F] [-budget 60s] [-runs N] [-seed N] [-workers N] [-isolate] [-out DIR] [-quiet]\n\n", prog)
		fmt.Fprintln(w, "Searches fault schedules and parameter values for a run that breaks the\nalgorithm's safety contract (docs/hunting.md). Exit status: 0 nothing found\nwithin the budget, 1 found (repro.yaml written), 2 bad usage.\n\nflags:")
	}
	if code, done := parseFlags(fs, args, cmd, usage, stdout, stderr); done {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, cmd+": "+format+"\n", a...)
		return exitUsage
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q; run '%s -h' for usage", fs.Arg(0), cmd)
	}
	if iso.handlerMax <= 0 {
		return fail("-handler-timeout must be positive")
	}
	if o.ShrinkBudget < 0 { // as a sweep refuses it (flags.go)
		return fail("-shrink-time must not be negative")
	}
	fs.Visit(func(f *flag.Flag) { iso.isolateSet = iso.isolateSet || f.Name == "isolate" })
	for _, s := range splitList(strategies) {
		o.Strategies = append(o.Strategies, hunt.Strategy(s))
	}
	o.Kinds = splitList(kinds)
	o.Checks = splitList(checks)
	o.Program = prog
	if !quiet {
		o.Progress = stderr
	}
	name := "hunt-" + o.Algo
	if o.Scenario != "" {
		name = strings.TrimSuffix(filepath.Base(o.Scenario), filepath.Ext(o.Scenario)) + "-hunt"
	}
	dest := outdir.DestFor(out, filepath.Join("out", name))
	if err := dest.Check(); err != nil {
		return fail("%v", err)
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
	if isolate, auto := huntIsolation(&iso); isolate {
		pool, err := worker.NewHuntPool(prog, iso.handlerMax)
		if err != nil {
			return fail("%v", err)
		}
		defer pool.Close()
		pool.ShareCores(o.Workers)
		o.Runner = pool
		if !quiet {
			why := "-isolate"
			if auto {
				why = "a run that kills its process (a stack overflow, a handler that hangs or exits) is the crashed finding with its seed, not the hunt's end; -isolate=false runs them in this process"
			}
			// Said as the first worker starts: after the base's file
			// loaded (a usage error stays one line), before its build.
			pool.OnStart = func() {
				fmt.Fprintf(stderr, "%s: runs in %s (%s)\n", cmd, reports.Plural(max(o.Workers, 1), "worker process", "worker processes"), why)
			}
		}
	}
	if !quiet {
		o.OnStart = func(algo, caveat string) {
			if caveat != "" {
				fmt.Fprintf(stderr, "%s: %s %s: two leaders at once under those faults are excused, not found (docs/checkers.md, \"Excuses\")\n", cmd, algo, caveat)
			}
		}
	}
	start := time.Now()
	res, err := hunt.Search(ctx, o)
	cancel()
	var ue *hunt.UsageError
	var died *hunt.DiedError
	var notReplayed *hunt.NotReplayedError
	if _, code, ok := interruption(); ok && err != nil {
		// Stopped while it loaded its base (a build in a worker): no run
		// was judged.
		fmt.Fprintf(stderr, "%s: stopped by a signal before any run was judged; nothing written\n", cmd)
		return code
	}
	switch {
	case errors.As(err, &died):
		// The algorithm's factory killed the worker building a run: the
		// algorithm crashed (1), and no run exists to reproduce it.
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitViolation
	case errors.As(err, &ue):
		return fail("%v", err)
	case errors.As(err, &notReplayed):
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitDefect
	case err != nil:
		return fail("%v", err)
	}
	el := time.Since(start)
	rate := float64(res.Runs) / max(el.Seconds(), 1e-9)
	if !res.Found {
		fmt.Fprintf(stdout, "nothing found: %s in %v (%.0f runs/s), %v simulated", reports.Plural(res.Runs, "run", "runs"),
			el.Round(time.Millisecond), rate, res.SimTime.Round(time.Second))
		if res.Exhausted > 0 {
			fmt.Fprintf(stdout, ", %d stopped by the event budget", res.Exhausted)
		}
		fmt.Fprintf(stdout, "\ncoverage: %s\n", res.Coverage)
		if !quiet {
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
	dir, latestNote, err := writeFolder(dest, func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "repro.yaml"), res.Repro, 0o644)
	})
	if err != nil {
		return fail("%v", err)
	}
	if latestNote != "" && !quiet {
		fmt.Fprintln(stderr, cmd+":", latestNote)
	}
	repro := filepath.Join(dir, "repro.yaml")
	fmt.Fprintf(stdout, "found: %s after %s in %v (strategy %s, run seed %d)\n", strings.Join(res.Failure, ", "),
		reports.Plural(res.Runs, "run", "runs"), el.Round(time.Millisecond), res.Strategy, res.Seed)
	fmt.Fprintf(stdout, "repro: %s\nreplay: %s -scenario %s\n", repro, prog, repro)
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
