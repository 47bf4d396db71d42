package simtest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/electsim/electsim/sim"
)

// RunScripts runs every datadriven script under dir (testdata/*.txt) with a
// fresh step function per file: newStep returns the function that handles
// one command of that script. A command's error is printed as "error: …"
// in the expected output, so scripts can pin refusals too. Rewrite the
// expected output after a deliberate change with go test -rewrite.
//
// Only the .txt files directly under dir are scripts: testdata also holds
// rapid's fail files (testdata/rapid/), which are not.
func RunScripts(t *testing.T, dir string, newStep func() func(d *datadriven.TestData) (string, error)) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts in %s/*.txt (%v)", dir, err)
	}
	for _, path := range paths { // Glob sorts them
		t.Run(filepath.Base(path), func(t *testing.T) {
			step := newStep()
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				out, err := step(d)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return out
			})
		})
	}
}

// Arg returns the single value of a command's argument key.
func Arg(d *datadriven.TestData, key string) (string, error) {
	for _, a := range d.CmdArgs {
		if a.Key == key && len(a.Vals) == 1 {
			return a.Vals[0], nil
		}
	}
	return "", fmt.Errorf("%s: missing %s=...", d.Cmd, key)
}

// Step runs the commands every node's script shares, so a harness handles
// only its own (boot, its replies, its state line):
//
//	deliver from=n3 kind=raft.RequestVote term=4 last_log_term=2   (Message)
//	fire timer=election        the armed timer of that name
//	advance by=150ms           both clocks; timers never fire by themselves
//	crash                      the node loses everything not persisted
//	restart                    Start again on n, with the durable state
//	timers                     the armed timers
//
// It reports whether d was one of them. The output is what the node did
// ("timers" prints the timers instead); the harness appends its state line.
func (e *Env) Step(d *datadriven.TestData, n sim.Node) (out string, handled bool, err error) {
	switch d.Cmd {
	case "deliver":
		m, err := e.Message(d)
		if err != nil {
			return "", true, err
		}
		e.Deliver(m)
	case "fire":
		name, err := Arg(d, "timer")
		if err != nil {
			return "", true, err
		}
		if err := e.Fire(name); err != nil {
			return "", true, err
		}
	case "advance":
		s, err := Arg(d, "by")
		if err != nil {
			return "", true, err
		}
		dur, err := time.ParseDuration(s)
		if err != nil {
			return "", true, err
		}
		e.Advance(dur)
	case "crash":
		e.Crash()
	case "restart":
		e.Boot(n)
	case "timers":
		return e.Timers() + "\n", true, nil
	default:
		return "", false, nil
	}
	return e.Output(), true, nil
}

// Message reads a deliver command into a message, the inverse of
// FormatMessage: from= (n3 or 3, 1-based), kind= a registered kind's name,
// and its fields by the names the kind registered (sim.Fields) or by slot
// (term=, index=, a=, b=, flag).
func (e *Env) Message(d *datadriven.TestData) (sim.Message, error) {
	var m sim.Message
	kind, err := Arg(d, "kind")
	if err != nil {
		return m, err
	}
	k, ok := sim.KindByName(kind)
	if !ok {
		return m, fmt.Errorf("unknown message kind %q", kind)
	}
	m.Kind = k
	f := k.Fields()
	for _, a := range d.CmdArgs {
		val := ""
		if len(a.Vals) > 0 {
			val = a.Vals[0]
		}
		var err error
		switch a.Key {
		case "kind":
		case "from":
			var n int
			n, err = strconv.Atoi(strings.TrimPrefix(val, "n"))
			m.From = sim.NodeID(n - 1)
		case "term", f.Term:
			m.Term, err = strconv.ParseInt(val, 10, 64)
		case "index", f.Index:
			m.Index, err = strconv.ParseInt(val, 10, 64)
		case "a", f.A:
			m.A, err = strconv.ParseInt(val, 10, 64)
		case "b", f.B:
			m.B, err = strconv.ParseInt(val, 10, 64)
		case "flag", f.Flag:
			m.Flag = true
		default:
			return m, fmt.Errorf("deliver: %s has no field %q", kind, a.Key)
		}
		if err != nil {
			return m, fmt.Errorf("%s: %v", a.Key, err)
		}
	}
	return m, nil
}
