package simrun

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/electsim/electsim/internal/termsafe"
	"github.com/electsim/electsim/scenario"
)

// MainNamed is Main for a program that names itself: every command simrun
// prints for the user to run (replay lines, usage, hints) and every error
// line starts with name instead of the running executable's name. cmd/simrun
// calls it with "simrun".
func MainNamed(name string, args []string, stdout, stderr io.Writer) int {
	signalsOnce.Do(handleSignals)
	// Everything printed passes one sanitizer: text from input (a
	// description, a -set key, a path) reaches the terminal with its
	// control characters and bidi overrides shown as escapes, never raw.
	out, errOut := termsafe.NewWriter(stdout), termsafe.NewWriter(stderr)
	defer errOut.Flush()
	defer out.Flush()
	return runAs(cleanProgramName(name), args, out, errOut)
}

// programName is the name Main goes by: the running executable's base name
// (os.Args[0]), so that a program built on Main, such as
// examples/custom-election, prints replay commands that run it.
func programName() string {
	if len(os.Args) == 0 {
		return defaultProgram
	}
	return cleanProgramName(os.Args[0])
}

// defaultProgram is the name used when no usable one is known.
const defaultProgram = "simrun"

// cleanProgramName reduces name to a base name a shell can run as typed:
// without its folder and a Windows ".exe", and "simrun" when what is left
// is empty or holds a character a shell would treat specially.
func cleanProgramName(name string) string {
	name = filepath.Base(strings.TrimSpace(name))
	if ext := filepath.Ext(name); strings.EqualFold(ext, ".exe") {
		name = strings.TrimSuffix(name, ext)
	}
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, "-") {
		return defaultProgram
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.+", c)) {
			return defaultProgram
		}
	}
	return name
}

// programOf is the program that runs sc, for commands printed to run it.
func programOf(sc *scenario.Scenario) string {
	if sc == nil || sc.Program == "" {
		return defaultProgram
	}
	return sc.Program
}
