// Package simrun is the simrun command as a library: Main runs it with its
// arguments and streams and returns the exit status. cmd/simrun is
// electsim's own main; a program that registers its own algorithms in
// registry.Default and then calls Main gets every simrun feature for them
// (docs/extending.md, examples/custom-election):
//
//	func main() {
//		registry.Default.MustRegister(myalgo.Descriptor())
//		os.Exit(simrun.Main(os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// simrun runs one scenario over many seeds and algorithms, a comparison
// matrix, or a merge of sharded outputs. It prints a human summary, writes a
// versioned JSON summary, plots and an HTML report, and exits 0 when every
// expectation held, 1 when a run violated one, 2 on bad usage or input, and
// 130/143 when interrupted.
package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Main is simrun: it parses args (without the program name), runs, and
// returns the exit status. The first call installs a process-wide SIGINT and
// SIGTERM handler (one goroutine, for the process's life) that removes
// simrun's temporary files and exits the process with 130 or 143.
func Main(args []string, stdout, stderr io.Writer) int {
	signalsOnce.Do(handleSignals)
	return run(args, stdout, stderr)
}

var signalsOnce sync.Once

// handleSignals makes SIGINT and SIGTERM stop simrun at once: its
// temporary files and folders are removed (nothing half-written stays) and
// the process exits 130 or 143, as a shell reports a process killed by them.
func handleSignals() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-c
		removeTemps()
		fmt.Fprintf(os.Stderr, "\nsimrun: %v: stopped; temporary files removed\n", sig)
		if sig == syscall.SIGTERM {
			os.Exit(exitSIGTERM)
		}
		os.Exit(exitSIGINT)
	}()
}

// Exit statuses.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	exitSIGINT    = 130 // 128 + SIGINT
	exitSIGTERM   = 143 // 128 + SIGTERM
)

// run is simrun with its arguments and streams; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(args[1:], stdout, stderr)
	}
	o, err := parseOptions(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "simrun:", err)
		return exitUsage
	}
	var code int
	if o.matrix != "" {
		code, err = runMatrix(o, stdout, stderr)
	} else {
		code, err = runScenario(o, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "simrun:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		return exitUsage
	}
	return code
}
