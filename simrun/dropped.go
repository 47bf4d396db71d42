package simrun

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/electsim/electsim/scenario"
)

// tellDropped says, in one line on stderr, which of the file's algorithm
// parameters the algorithms of -algo leave out because they have no such
// parameter or refuse its value (the rest are kept: docs/scenarios.md,
// "-set overrides").
func tellDropped(o *options, sc *scenario.Scenario, algos []string, stderr io.Writer) {
	var parts []string
	for _, a := range algos {
		if d := sc.Dropped(a); len(d) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", a, strings.Join(d, ", ")))
		}
	}
	if len(parts) == 0 {
		return
	}
	fmt.Fprintf(stderr, "%s: %s: dropped the file's %s settings the algorithms run do not take (%s); the others are kept\n",
		progName(o), filepath.Base(sc.File), sc.Algorithm.Name, strings.Join(parts, "; "))
}

// progName is the program's name for messages: simrun, or the name of a
// program built on simrun.Main.
func progName(o *options) string {
	if o.prog == "" {
		return "simrun"
	}
	return filepath.Base(o.prog)
}
