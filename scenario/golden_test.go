package scenario

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// TestMalformed is the golden test of the loader's error messages (issue 5):
// every file in testdata/malformed has one or a few mistakes, and
// testdata/malformed.txt holds the exact text Load reports for it — every
// error, sorted, as file:line:col: field: message. Rewrite with
// go test ./scenario -run TestMalformed -rewrite, and review the diff.
//
// Commands:
//
//	load <file>          loads testdata/malformed/<file>; the input lines,
//	                     if any, are -set overrides
//	load-shipped <file>  loads the shipped scenario ../scenarios/<file> with the input
//	                     lines as -set overrides
//
// Either takes algo=a,b: the scenario is loaded to run under those
// algorithms (ParseRunning, simrun -algo), and each one's parameters, the
// file's parameters it drops and its replay line's overrides are printed.
func TestMalformed(t *testing.T) {
	datadriven.RunTest(t, "testdata/malformed.txt", runLoadCommand)
}

// TestSetOverrides is the golden test of -set overrides (issue 7):
// testdata/sets.txt, same commands as TestMalformed.
func TestSetOverrides(t *testing.T) {
	datadriven.RunTest(t, "testdata/sets.txt", runLoadCommand)
}

func runLoadCommand(t *testing.T, td *datadriven.TestData) string {
	require.NotEmpty(t, td.CmdArgs, "usage: %s <file> [algo=a,b]", td.Cmd)
	var running []string
	for _, a := range td.CmdArgs[1:] {
		require.Equal(t, "algo", a.Key, "usage: %s <file> [algo=a,b]", td.Cmd)
		for _, v := range a.Vals {
			running = append(running, strings.Split(v, ",")...)
		}
	}
	var path, name string
	switch td.Cmd {
	case "load":
		path = filepath.Join("testdata", "malformed", td.CmdArgs[0].Key)
		name = path
	case "load-shipped":
		// Parsed under its base name, as a user in scenarios/ would load it,
		// so the golden errors name "partition.yaml", not the catalogue path.
		path, name = shipped(td.CmdArgs[0].Key), td.CmdArgs[0].Key
	default:
		t.Fatalf("unknown command %q", td.Cmd)
	}
	var sets []string
	for _, line := range strings.Split(td.Input, "\n") {
		if line != "" {
			sets = append(sets, line)
		}
	}
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	sc, err := ParseRunning(name, src, sets, running)
	if err != nil {
		var es Errors
		require.True(t, errors.As(err, &es), "want Errors, got %T: %v", err, err)
		return err.Error() + "\n"
	}
	out := describeScenario(sc)
	if d := sc.Dropped(""); len(running) == 0 && len(d) > 0 {
		out += fmt.Sprintf("drops %s\n", strings.Join(d, ", "))
	}
	for _, a := range running {
		spec, err := sc.specFor(a)
		require.NoError(t, err)
		out += fmt.Sprintf("runs %s: %s", a, strings.Join(spec.Params(), " "))
		if d := sc.Dropped(a); len(d) > 0 {
			out += fmt.Sprintf(" (drops %s)", strings.Join(d, ", "))
		}
		out += fmt.Sprintf("; replay -set %q\n", sc.SetsFor(a))
	}
	return out
}

// describeScenario prints what a loaded scenario holds, for golden files.
func describeScenario(sc *Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ok: %s\n", sc)
	if p := sc.Algorithm.Params(); len(p) > 0 {
		fmt.Fprintf(&b, "algorithm: %s\n", strings.Join(p, " "))
	}
	fmt.Fprintf(&b, "network: latency %v drop %g..%g\n", sc.Network.Latency, sc.Network.DropLo, sc.Network.DropHi)
	for _, ls := range sc.Network.Links {
		fmt.Fprintf(&b, "link n%d->n%d:", ls.From+1, ls.To+1)
		if ls.Drop != nil {
			fmt.Fprintf(&b, " drop %g", *ls.Drop)
		}
		if ls.Dup != nil {
			fmt.Fprintf(&b, " duplicate %g", *ls.Dup)
		}
		b.WriteString("\n")
	}
	if sc.Cron != nil {
		fmt.Fprintf(&b, "cron: mode %s, %d job(s), policy %+v\n", sc.Cron.Mode, len(sc.Cron.Config.Jobs), sc.Cron.Config.Policy)
	}
	for i, f := range sc.Faults {
		fmt.Fprintf(&b, "faults[%d]: %s at %v", i, f.Kind(), f.At)
		if f.For != nil {
			fmt.Fprintf(&b, " for %v", *f.For)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "settle: for %v, leader within %v\n", sc.Settle.For, sc.Settle.LeaderWithin)
	e := sc.Expect
	fmt.Fprintf(&b, "expect: violations %v allow %v", e.MustOccur, e.Allow)
	if e.FailoverUnder > 0 {
		fmt.Fprintf(&b, " failover_under %v", e.FailoverUnder)
	}
	switch {
	case e.MaxFlapsPerMinute == math.SmallestNonzeroFloat64:
		b.WriteString(" max_flaps_per_minute 0 (no leader change)")
	case e.MaxFlapsPerMinute > 0:
		fmt.Fprintf(&b, " max_flaps_per_minute %g", e.MaxFlapsPerMinute)
	}
	b.WriteString("\n")
	return b.String()
}
