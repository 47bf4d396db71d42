package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/worker"
)

// subcommands are simrun's commands other than a run, in the order -h lists
// them, each with its synopsis (after the program name) and one line.
var subcommands = []struct{ name, synopsis, doc string }{
	{"merge", "merge [-out DIR] [-json FILE] [-quiet] [-runs=false] DIR|summary.json...", "combine shard outputs into one summary and report"},
	{"margin", "margin -scenario FILE -rate PATH [-rates LIST] [-seeds K] [-out DIR]", "clock-drift margin study: simulated overlaps beside the analytic bound"},
	{"hunt", "hunt -algo NAME [-set path=value]... [-scenario F] [-budget 60s] [-runs N] [-seed N] [-workers N] [-isolate] [-out DIR] [-quiet]", "search fault schedules and parameters for a contract breach"},
	{"reality", "reality -scenario FILE [-trials N] [-workers W] [-out DIR]", "the story against the real servers and clients, beside the simulation"},
	{"list", "list [-dir DIR]", "the shipped scenarios and the algorithms with their parameters"},
	{"help", "help [COMMAND]", "this text, or COMMAND's (the same as COMMAND -h)"},
}

// commandNames are the subcommands' names, in subcommands' order: every
// message that lists the commands lists them all.
func commandNames() []string {
	names := make([]string, len(subcommands))
	for i, c := range subcommands {
		names[i] = c.name
	}
	return names
}

// runAs is simrun named prog: it dispatches to a subcommand or runs a
// scenario or matrix, and returns the exit status.
func runAs(prog string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "merge":
			return mergeAs(prog, args[1:], stdout, stderr)
		case "margin":
			return marginAs(prog, args[1:], stdout, stderr)
		case "hunt":
			return huntAs(prog, args[1:], stdout, stderr)
		case worker.HuntCmd:
			if worker.IsWorker() { // hidden: a hunt's worker process (worker/huntpool.go)
				if worker.ServeHunt(os.Stdin, worker.ParentChannel(), stderr, newRerunServer()) { // the replies' channel (worker/workerlink.go)
					return exitOK
				}
				return exitUsage
			}
		case "reality":
			return realityAs(prog, args[1:], stdout, stderr)
		case "list":
			return listAs(prog, args[1:], stdout, stderr)
		case "help":
			return helpAs(prog, args[1:], stdout, stderr)
		}
	}
	o, err := parseOptionsAs(prog, args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(prog, stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return exitUsage
	}
	if o.version {
		fmt.Fprintf(stdout, "%s %s\n", prog, simrunVersion())
		return exitOK
	}
	var code int
	if o.matrix != "" {
		code, err = runMatrix(o, stdout, stderr)
	} else {
		code, err = runScenario(o, stdout, stderr)
	}
	if err != nil {
		// An error with a status other than 0 keeps it (every run killed
		// its worker: a finding, 1, with nothing to write); with 0 it is
		// bad usage or input.
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		if code == exitOK {
			code = exitUsage
		}
	}
	return code
}

// printUsage writes simrun's usage: every command, then the run flags.
func printUsage(prog string, w io.Writer) {
	fmt.Fprintf(w, "usage: %s -scenario FILE [flags]\n", prog)
	fmt.Fprintf(w, "       %s -matrix FILE [flags]\n", prog)
	for _, c := range subcommands {
		fmt.Fprintf(w, "       %s %s\n", prog, c.synopsis)
	}
	fmt.Fprintf(w, "       %s -version\n", prog)
	fmt.Fprintf(w, `
Runs an electsim scenario (see docs/scenarios.md) over seeds and algorithms,
checks every run, and writes a summary, plots and an HTML report.
Exit status: 0 every expectation held, 1 a run violated an expectation,
2 bad usage or input, 130/143 interrupted.

commands:
`)
	for _, c := range subcommands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.doc)
	}
	fmt.Fprintf(w, "\nflags of a run (-scenario or -matrix; '%s help COMMAND' for a command's):\n", prog)
	fs := newFlagSet(&options{})
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// helpAs is simrun help [COMMAND]: the text COMMAND -h prints, on stdout.
func helpAs(prog string, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printUsage(prog, stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(stderr, "%s help: give one command, not %d; run '%s -h' for usage\n", prog, len(args), prog)
		return exitUsage
	case args[0] == "help":
		printUsage(prog, stdout)
		return exitOK
	}
	for _, c := range subcommands {
		if c.name == args[0] {
			return runAs(prog, []string{c.name, "-h"}, stdout, stderr)
		}
	}
	names := commandNames()
	fmt.Fprintf(stderr, "%s help: no command %q%s (one of %s); run '%s -h' for usage\n", prog, args[0], didYouMean(args[0], names, ""), strings.Join(names, ", "), prog)
	return exitUsage
}

// parseFlags parses a subcommand's args with fs. -h prints usage(w) with
// the flags to stdout (done, exit 0); a bad flag prints one line to stderr,
// with the closest flag's name and where the usage is (done, exit 2).
func parseFlags(fs *flag.FlagSet, args []string, cmd string, usage func(w io.Writer), stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return exitOK, true
	}
	fmt.Fprintf(stderr, "%s: %s\n", cmd, flagErrorLine(fs, err, cmd))
	return exitUsage, true
}

// flagErrorLine is a flag package error as one line: with the flag the
// user probably meant, and the command that prints the usage.
func flagErrorLine(fs *flag.FlagSet, err error, cmd string) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg += didYouMean(strings.TrimPrefix(name, "-"), names, "-")
	}
	// A duration flag's value without a unit: the flag package says only
	// "parse error" (time.ParseDuration's reason is lost).
	if before, ok := strings.CutSuffix(msg, ": parse error"); ok {
		if name := flagOf(before); name != "" {
			if f := fs.Lookup(name); f != nil {
				if g, ok := f.Value.(flag.Getter); ok && isDuration(g.Get()) {
					msg = before + ": want a duration with a unit, such as 60s, 5m or 1h30m"
				}
			}
		}
	}
	return fmt.Sprintf("%s; run '%s -h' for usage", msg, cmd)
}

// isDuration reports whether a flag's value is a time.Duration.
func isDuration(v any) bool { _, ok := v.(time.Duration); return ok }

// flagOf is the flag an "invalid value … for flag -NAME" message names.
func flagOf(msg string) string {
	_, name, ok := strings.Cut(msg, " for flag -")
	if !ok {
		return ""
	}
	return name
}

// didYouMean is " (did you mean PREFIXname?)" for the candidate closest to
// word, if one is close enough to be a typo of it (or begins with it), else
// "".
func didYouMean(word string, candidates []string, prefix string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := scenario.EditDistance(strings.ToLower(word), strings.ToLower(c)); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	limit := 1
	if len(word) > 3 {
		limit = 2
	}
	if best != "" && bestD <= limit {
		return fmt.Sprintf(" (did you mean %s%s?)", prefix, best)
	}
	var starts []string
	for _, c := range candidates {
		if len(word) >= 2 && strings.HasPrefix(c, word) {
			starts = append(starts, c)
		}
	}
	if len(starts) == 1 {
		return fmt.Sprintf(" (did you mean %s%s?)", prefix, starts[0])
	}
	return ""
}
