package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
)

// usageError is a bad command line or input file: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// options are simrun's flags.
type options struct {
	scenario    string
	seed        uint64
	seedSet     bool
	seeds       int
	seedsSet    bool // -seeds given: it overrides a matrix file's seeds, 1 too
	workers     int
	algos       []string
	sets        []string
	out         string
	json        string
	trace       string
	perfetto    string
	runs        string
	failFast    bool
	quiet       bool
	shardIndex  int
	shardCount  int
	matrix      string
	shrink      bool
	shrinkTime  time.Duration
	materialize string
	porcupine   time.Duration
	isolate     bool          // -isolate: sweep in worker processes
	handlerMax  time.Duration // -handler-timeout: a worker's watchdog
	vary        []string
	heat        string
	heatSet     bool // -heat was given
	isolateSet  bool // -isolate (or -isolate=false) was given: no automatic choice
	version     bool
	args        []string
	prog        string // the program's name, for commands printed to run

	dims  []varyDim  // parsed -vary
	cells []gridCell // their grid (one empty cell without -vary)
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// newFlagSet is the flags of a run, parsing into o. It prints nothing:
// runAs prints the usage on -h and parseOptionsAs one line for a bad flag.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("simrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.scenario, "scenario", "", "scenario `FILE` to run (required)")
	fs.Func("seed", "first seed `N` (default: the scenario's seed)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want a non-negative integer")
		}
		o.seed, o.seedSet = n, true
		return nil
	})
	o.seeds = 1
	fs.Func("seeds", "run `K` consecutive seeds starting at -seed (default 1, at most 10^12; one invocation runs at most 10^8, so shard bigger sweeps)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number of seeds")
		}
		if n > MaxSeeds {
			return fmt.Errorf("%d is more than %d, the most seeds a sweep spans", n, MaxSeeds)
		}
		o.seeds, o.seedsSet = int(n), true
		return nil
	})
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "run `W` seeds in parallel")
	fs.Func("algo", "run under these algorithms instead of the scenario's, side by side (`LIST`: "+strings.Join(scenario.Algorithms(), ",")+")", func(v string) error {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				o.algos = append(o.algos, a)
			}
		}
		return nil
	})
	fs.Var((*listFlag)(&o.sets), "set", "override a scenario value, `path=value` (repeatable), e.g. -set algorithm.election_timeout=150ms..155ms")
	fs.Var((*listFlag)(&o.vary), "vary", "run every value of a scenario value, `path=V1,V2,…` (repeatable, up to 2 dimensions; each value anything -set takes), e.g. -vary algorithm.election_timeout=150ms..151ms,150ms..300ms")
	fs.StringVar(&o.heat, "heat", "auto", "what a two-dimensional -vary sweep's heatmap shows: `METRIC` "+strings.Join(HeatMetrics, ", ")+" (a check's name: the rate of runs with its finding; auto: failed if a run failed, else the check most runs found)")
	fs.StringVar(&o.out, "out", "", "output `DIR` for summary.json, plots, report.html (default a new out/<scenario name>/NNN, see out/<scenario name>/latest)")
	fs.StringVar(&o.json, "json", "", "also write the JSON summary to `FILE` (- for stdout)")
	fs.StringVar(&o.trace, "trace", "", "write the trace of one run (the first failing run, else the first) as JSON lines to `FILE`")
	fs.StringVar(&o.perfetto, "perfetto", "", "write that run's trace in Chrome/Perfetto trace-event format to `FILE`")
	fs.StringVar(&o.runs, "runs", "", "write every run, one JSON line each, to `FILE` (gzip if it ends in .gz) instead of runs.jsonl.gz in the output folder")
	fs.BoolVar(&o.failFast, "fail-fast", false, "stop the sweep at the first run that does not meet the scenario's expectations, and each run at its first violation that would fail them (election_safety, split_brain)")
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing but errors")
	fs.Func("shard", "run only slice `i/n` of the seeds (0 <= i < n): seeds whose offset from -seed is i mod n", func(v string) error {
		a, b, ok := strings.Cut(v, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return errors.New("want i/n with 0 <= i < n, e.g. 0/4")
		}
		o.shardIndex, o.shardCount = i, n
		return nil
	})
	fs.StringVar(&o.matrix, "matrix", "", "run the comparison matrix in `FILE` (algorithms × scenarios × seeds) instead of one scenario")
	fs.BoolVar(&o.shrink, "shrink", true, "minimise a failing run into repro.yaml")
	fs.DurationVar(&o.shrinkTime, "shrink-time", 30*time.Second, "bound shrinking to `D` of wall time")
	fs.StringVar(&o.materialize, "materialize", "", "write the explicit scenario (every random choice made concrete) that -seed runs to `FILE`, and exit")
	fs.DurationVar(&o.porcupine, "porcupine-timeout", 10*time.Second, "bound each linearizability check to `D` of wall time (then: unknown)")
	fs.BoolVar(&o.isolate, "isolate", false, "run the sweep in worker processes, so a run that overflows its stack or hangs is reported crashed and the sweep goes on (default: on for a sweep of an algorithm not built into electsim)")
	fs.DurationVar(&o.handlerMax, "handler-timeout", 10*time.Second, "in worker processes, abort a handler that has not returned after `D` of wall time (the run is reported crashed)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	return fs
}

// MaxSeeds is the most seeds a sweep spans, all its shards together:
// 10^12, or 2^31-1 on 32-bit builds, where a seed count must fit an int.
const MaxSeeds = min(1_000_000_000_000, math.MaxInt)

// MaxRuns is the most runs one invocation (one shard of a sweep) makes;
// a bigger sweep is split with -shard and merged (docs/distributed.md).
// Memory does not grow with the number of runs (docs/output.md); the runs
// file does, by about 150 bytes per run of partition.yaml, so this bounds
// it to about 15 GB of disk.
const MaxRuns = 100_000_000

// MaxGroups is the most groups (grid cells × algorithms) one sweep
// aggregates. Each group keeps three distributions of up to 1,000 exact
// values in summary.json (about 36 KB at most, measured), so a sweep's
// summary stays under about 40 MB, within what simrun merge reads back
// (reports.MaxSummaryBytes, 64 MiB).
const MaxGroups = 1024

// MaxPerfettoRecords bounds the -perfetto export: the featured run's first
// this many records (about 245 MB of trace-event JSON, built in memory
// before it is sorted and written; 45 simulated minutes of long-day.yaml,
// 35 runs' worth of partition.yaml). A longer run's export stops there and
// simrun says so; -trace streams a run of any length.
const MaxPerfettoRecords = 500_000

// dedupe drops repeated names, keeping the first of each (-algo raft,raft
// runs raft once).
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// parseOptions parses args (without the program name) of simrun.
func parseOptions(args []string, stderr io.Writer) (*options, error) {
	return parseOptionsAs(defaultProgram, args, stderr)
}

// parseOptionsAs parses args (without the program name) of prog: a bad
// flag is a one-line usage error naming the closest flag and prog -h.
func parseOptionsAs(prog string, args []string, _ io.Writer) (*options, error) {
	o := &options{prog: prog}
	fs := newFlagSet(o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{flagErrorLine(fs, err, prog)}
	}
	fs.Visit(func(f *flag.Flag) {
		o.heatSet = o.heatSet || f.Name == "heat"
		o.isolateSet = o.isolateSet || f.Name == "isolate"
	})
	o.args = fs.Args()
	switch {
	case o.version:
		return o, nil
	case len(o.args) > 0:
		return nil, usagef("unexpected arguments %q (flags go before them; commands: %s); run '%s -h' for usage", o.args, strings.Join(commandNames(), ", "), prog)
	case o.scenario == "" && o.matrix == "":
		return nil, usagef("-scenario FILE is required (or -matrix FILE); try: %s -scenario scenarios/partition.yaml, or %s list for the shipped scenarios", prog, prog)
	case o.scenario != "" && o.matrix != "":
		return nil, usagef("give -scenario or -matrix, not both")
	case o.seeds < 1:
		return nil, usagef("-seeds must be at least 1")
	case o.workers < 1:
		return nil, usagef("-workers must be at least 1")
	case o.materialize != "" && (o.seeds != 1 || len(o.algos) > 1):
		return nil, usagef("-materialize writes the scenario of one seed: use it with -seed N only")
	case o.shrinkTime < 0:
		return nil, usagef("-shrink-time must not be negative")
	case o.porcupine < 0:
		return nil, usagef("-porcupine-timeout must not be negative")
	case o.handlerMax <= 0:
		return nil, usagef("-handler-timeout must be positive")
	case o.seeds > MaxSeeds:
		return nil, usagef("-seeds %d is more than %d, the most seeds a sweep spans", o.seeds, MaxSeeds)
	case o.seedSet && o.seed > math.MaxUint64-uint64(o.seeds-1):
		return nil, usagef("-seed %d with -seeds %d runs past the last seed (2^64-1)", o.seed, o.seeds)
	}
	for _, p := range []*string{&o.json, &o.trace, &o.perfetto, &o.materialize} {
		*p = outdir.NormalizeOutput(*p) // /dev/stdout is "-": written to stdout, never renamed over
	}
	// Two outputs naming the same path would overwrite each other.
	outs := []struct{ flag, path string }{{"-json", o.json}, {"-trace", o.trace}, {"-perfetto", o.perfetto}, {"-materialize", o.materialize}, {"-out", o.out}, {"-runs", o.runs}}
	for i := range outs {
		for j := i + 1; j < len(outs); j++ {
			if outdir.SamePath(outs[i].path, outs[j].path) {
				return nil, usagef("%s and %s name the same path %q", outs[i].flag, outs[j].flag, outs[i].path)
			}
		}
	}
	if err := checkOutputPaths(o); err != nil {
		return nil, err
	}
	if dedup := dedupe(o.algos); len(dedup) != len(o.algos) {
		o.algos = dedup
	}
	if err := parseGrid(o); err != nil {
		return nil, err
	}
	return o, nil
}

// parseGrid reads -vary and -heat into o.dims and o.cells.
func parseGrid(o *options) error {
	switch {
	case len(o.vary) > MaxVaryDims:
		return usagef("-vary: %d dimensions, at most %d", len(o.vary), MaxVaryDims)
	case len(o.vary) > 0 && o.matrix != "":
		return usagef("-vary sweeps one scenario: it does not combine with -matrix")
	case len(o.vary) > 0 && o.materialize != "":
		return usagef("-materialize writes one scenario: give the value with -set instead of -vary")
	case !validHeat(o.heat):
		return usagef("-heat %q: one of auto, failed, failover_p99 or a check (%s)", o.heat, strings.Join(heatChecks(), ", "))
	case o.heatSet && len(o.vary) != 2:
		return usagef("-heat chooses what a two-dimensional -vary sweep's heatmap shows: give it with two -vary flags (this sweep has %d)", len(o.vary))
	}
	for _, spec := range o.vary {
		d, err := parseVary(spec)
		if err != nil {
			return err
		}
		for _, e := range o.dims {
			if e.path == d.path {
				return usagef("-vary %s is given twice", d.path)
			}
		}
		o.dims = append(o.dims, d)
	}
	o.cells = gridOf(o.dims)
	return nil
}
