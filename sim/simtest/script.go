package simtest

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// RunScripts runs every datadriven script under dir (testdata/*.txt) with a
// fresh step function per file: newStep returns the function that handles
// one command of that script. A command's error is printed as "error: …"
// in the expected output, so scripts can pin refusals too. Rewrite the
// expected output after a deliberate change with go test -rewrite.
func RunScripts(t *testing.T, dir string, newStep func() func(d *datadriven.TestData) (string, error)) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
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

// Arg returns the single value of a command's argument key.
func Arg(d *datadriven.TestData, key string) (string, error) {
	for _, a := range d.CmdArgs {
		if a.Key == key && len(a.Vals) == 1 {
			return a.Vals[0], nil
		}
	}
	return "", fmt.Errorf("%s: missing %s=...", d.Cmd, key)
}
