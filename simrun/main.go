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
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// Main is simrun: it parses args (without the program name), runs, and
// returns the exit status. The first call installs a process-wide SIGINT and
// SIGTERM handler (one goroutine, for the process's life). During a sweep
// the first signal stops it, abandoning the runs in progress, and simrun
// writes a summary of the runs done, marked partial, and exits 130 or 143; a second
// signal, or one outside a sweep, removes simrun's temporary files and exits
// the process at once.
//
// Main goes by the running executable's name (os.Args[0]): its replay lines,
// usage and errors name the program the user ran. MainNamed gives the name.
func Main(args []string, stdout, stderr io.Writer) int {
	return MainNamed(programName(), args, stdout, stderr)
}

var signalsOnce sync.Once

// handleSignals makes SIGINT and SIGTERM stop simrun at once: its
// temporary files and folders are removed (nothing half-written stays) and
// the process exits 130 or 143, as a shell reports a process killed by them.
func handleSignals() {
	c := make(chan os.Signal, 2)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-c
		if sweeping.Load() > 0 {
			interrupted.Store(int32(sig.(syscall.Signal)))
			abandon.Store(true)
			fmt.Fprintf(os.Stderr, "\nsimrun: %v: %s (again to stop at once)\n", sig, stopWording())
			sig = <-c
		}
		worker.KillAll()
		outdir.RemoveTemps()
		fmt.Fprintf(os.Stderr, "\nsimrun: %v: stopped; temporary files removed\n", sig)
		if sig == syscall.SIGTERM {
			os.Exit(exitSIGTERM)
		}
		os.Exit(exitSIGINT)
	}()
}

// sweeping counts the sweeps under way (a signal then stops them
// gracefully); interrupted is the signal that asked them to stop (0: none);
// abandon, set with it, stops the runs in progress between two events
// (sim.Config.Abort), so a long run does not hold the stop up.
var (
	sweeping    atomic.Int32
	interrupted atomic.Int32
	abandon     atomic.Bool
)

// hunting counts the hunts under way (a subset of sweeping): a signal's
// line then says what a hunt does with it, not a sweep.
var hunting atomic.Int32

// stopWording is what the first signal does to the work under way
// (docs/output.md, "Signals"; docs/hunting.md, exit status 130/143).
func stopWording() string {
	if hunting.Load() > 0 {
		return "abandoning the runs in progress (not judged) and stopping the hunt; a shrink under way stops with what it found so far"
	}
	return "abandoning the runs in progress, then writing a partial summary of the runs done"
}

// interruption names the signal that stopped the sweeps, and its exit
// status; ok is false if none did.
func interruption() (reason string, code int, ok bool) {
	switch syscall.Signal(interrupted.Load()) {
	case syscall.SIGINT:
		return "interrupt", exitSIGINT, true
	case syscall.SIGTERM:
		return "terminated", exitSIGTERM, true
	}
	return "", 0, false
}

// Exit statuses.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
	// exitDefect: a defect of simrun itself (EX_SOFTWARE): a hunt's
	// finding whose reproduction does not replay to it.
	exitDefect  = 70
	exitSIGINT  = 130 // 128 + SIGINT
	exitSIGTERM = 143 // 128 + SIGTERM
)

// run is simrun named "simrun", with its arguments and streams; it returns
// the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runAs(defaultProgram, args, stdout, stderr)
}
