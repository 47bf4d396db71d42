package simrun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/electsim/electsim/reality"
)

// realityAs is "simrun reality": the scenario's story against the real
// servers and client libraries, beside the simulation (docs/reality.md).
// Exit status: 0 every row says the simulation is at least as pessimistic
// as reality, 1 some row says it is rosier, 2 bad usage, a refused
// scenario or a missing server (named by its Debian package), 130/143
// interrupted (every process it started is stopped first).
func realityAs(prog string, args []string, stdout, stderr io.Writer) int {
	cmd := prog + " reality"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var o reality.Options
	fs.StringVar(&o.Scenario, "scenario", "", "the scenario `FILE` (reality/stories/*.yaml)")
	fs.IntVar(&o.Trials, "trials", 10, "real trials `N`")
	fs.IntVar(&o.SimSeeds, "sim-seeds", 200, "simulated runs `N` (seeds 1..N)")
	fs.IntVar(&o.Workers, "workers", 1, "trials `W` at once (each with its own servers, ports and folder)")
	fs.StringVar(&o.Out, "out", "", "write table.md and trials.json to `DIR`")
	fs.StringVar(&o.Client, "client", "", "a prebuilt client `BINARY` (default: built with the go command)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed `N` of the trials' fault times")
	quiet := fs.Bool("quiet", false, "no line per trial")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s reality -scenario FILE [-trials N] [-workers W] [-out DIR]\n\n", prog)
		fmt.Fprintln(w, "Plays the scenario's story against the real servers and client libraries\n(SIGSTOP/SIGKILL on real processes, the machine's monotonic clock), runs it\nin simulation, and prints the findings side by side with a verdict per row\n(docs/reality.md). Exit status: 0 the simulation is at least as pessimistic\nas reality in every row, 1 some row is rosier, 2 bad usage or a missing\nserver.\n\nflags:")
	}
	if code, done := parseFlags(fs, args, cmd, usage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 || o.Scenario == "" || o.Trials < 1 || o.SimSeeds < 1 || o.Workers < 1 {
		fmt.Fprintf(stderr, "%s: -scenario FILE is required, -trials, -sim-seeds and -workers at least 1; run '%s -h' for usage\n", cmd, cmd)
		return exitUsage
	}
	if !*quiet {
		o.Progress = stderr
	}
	var missing *reality.MissingError
	if _, _, err := reality.Prepare(o); err != nil {
		if errors.As(err, &missing) {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, missing)
		} else {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		}
		return exitUsage
	}
	// A first signal cancels the trials (their processes are killed before
	// Run returns); simrun's handler, told a sweep is under way, waits for
	// a second one.
	sweeping.Add(1)
	defer sweeping.Add(-1)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := reality.Run(ctx, o)
	if err != nil {
		if reason, code, ok := interruption(); ok {
			fmt.Fprintf(stderr, "%s: %s: every process it started is stopped\n", cmd, reason)
			return code
		}
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitUsage
	}
	st := res.Story
	uncompared := ""
	if n := len(res.Trials) - res.Compared; n > 0 {
		uncompared = fmt.Sprintf(", %d not compared: a fault was not applied", n)
	}
	fmt.Fprintf(stdout, "%s — %s\n%d real trials (%s, %d client processes, %d server(s)%s) · %d simulated runs\n\n",
		st.Scenario.Name, st.Scenario.Description, len(res.Trials), st.Adapter, st.Candidates, st.Stores, uncompared, len(res.Sim))
	reality.PrintTable(stdout, res.Rows)
	for _, r := range res.Rows {
		if why := reality.KnownRosier(st.Scenario.Name, r); why != "" {
			fmt.Fprintf(stdout, "\nknown difference (%s): %s\n", r.Name, why)
		}
	}
	for _, u := range st.Unmeasured {
		fmt.Fprintf(stdout, "\nnot measured: %s\n", u)
	}
	if reality.AnyRosier(res.Rows) {
		fmt.Fprintln(stdout, "\nverdict: the simulation is rosier than reality in some row")
		return exitViolation
	}
	fmt.Fprintln(stdout, "\nverdict: the simulation is at least as pessimistic as reality in every row")
	return exitOK
}
