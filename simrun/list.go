package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/scenario"
)

// defaultCatalogue is where simrun list looks for the shipped scenarios:
// scenarios/ of the current folder, as in the repository's root.
const defaultCatalogue = "scenarios"

// listAs is simrun list: the scenarios of a catalogue folder with their
// descriptions, then every registered algorithm with its parameters.
func listAs(prog string, args []string, stdout, stderr io.Writer) int {
	cmd := prog + " list"
	flags := flag.NewFlagSet(cmd, flag.ContinueOnError)
	dir := flags.String("dir", defaultCatalogue, "the catalogue `DIR` whose *.yaml scenarios to list")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s list [-dir DIR]\n\n", prog)
		fmt.Fprintln(w, "Lists the scenarios in DIR (default scenarios/ of the current folder, the\nshipped catalogue at the repository's root) with their descriptions, and the\nalgorithms -algo takes with their parameters, ranges and defaults.\n\nflags:")
	}
	if code, done := parseFlags(flags, args, cmd, usage, stdout, stderr); done {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q; run '%s -h' for usage\n", cmd, flags.Args(), cmd)
		return exitUsage
	}
	dirSet := false
	flags.Visit(func(f *flag.Flag) { dirSet = dirSet || f.Name == "dir" })
	files, err := catalogueFiles(*dir)
	switch {
	case err != nil && dirSet:
		fmt.Fprintf(stderr, "%s: -dir %s: %v\n", cmd, *dir, err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stdout, "no scenario catalogue here: %v.\nThe shipped scenarios are in scenarios/ at the root of the electsim repository; run %s there, or give -dir DIR.\n", err, cmd)
	default:
		listScenarios(prog, *dir, files, stdout)
	}
	fmt.Fprintln(stdout)
	listAlgorithms(stdout, prog)
	return exitOK
}

// catalogueFiles are the *.yaml files of dir, sorted; an error when dir is
// not a readable folder or holds none.
func catalogueFiles(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist", dir+string(filepath.Separator))
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no .yaml files", dir+string(filepath.Separator))
	}
	return files, nil // Glob sorts
}

// listScenarios prints each scenario file with its one-line description,
// and the matrix files apart.
func listScenarios(prog, dir string, files []string, w io.Writer) {
	fmt.Fprintf(w, "scenarios in %s%c (run one with: %s -scenario %s):\n", filepath.Clean(dir), filepath.Separator, prog, filepath.Join(dir, "FILE"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var matrices []string
	for _, f := range files {
		src, err := scenario.ReadFile(f) // a named pipe is refused, not waited on
		if err != nil {
			fmt.Fprintf(tw, "  %s\t(unreadable: %v)\n", filepath.Base(f), err)
			continue
		}
		if isMatrixFile(src) {
			matrices = append(matrices, f)
			continue
		}
		sc, err := loadListed(f) // no user code here (list_worker.go)
		if err != nil {
			first, _, _ := strings.Cut(err.Error(), "\n")
			fmt.Fprintf(tw, "  %s\t(does not load: %s)\n", filepath.Base(f), first)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\n", filepath.Base(f), strings.Join(strings.Fields(sc.Description), " "))
	}
	tw.Flush()
	if len(matrices) > 0 {
		fmt.Fprintln(w, "\ncomparison matrices (algorithms × scenarios):")
		for _, m := range matrices {
			fmt.Fprintf(w, "  %s -matrix %s\n", prog, scenario.ShellQuote(m))
		}
	}
}

// isMatrixFile tells a matrix file from a scenario by its top-level
// scenarios: key.
func isMatrixFile(src []byte) bool {
	s := string(src)
	return strings.HasPrefix(s, "scenarios:") || strings.Contains(s, "\nscenarios:")
}

// listAlgorithms prints every registered algorithm, then its parameters:
// key, type and range, and the descriptor's line with the default.
func listAlgorithms(w io.Writer, prog string) {
	cav := &caveats{prog: prog}
	defer cav.close()
	fmt.Fprintln(w, "algorithms (-algo NAME, or a scenario's algorithm.name; parameters go under algorithm:):")
	for _, a := range registry.Default.All() {
		fmt.Fprintf(w, "  %s — %s\n", a.Name, a.Doc)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range a.Params {
			fmt.Fprintf(tw, "      %s\t%s\t%s\n", p.Key, paramType(p), p.Doc)
		}
		tw.Flush()
		switch c, unknown := cav.of(a); {
		case unknown != "":
			fmt.Fprintf(w, "      %s\n", unknown)
		case c != "":
			fmt.Fprintf(w, "      with its defaults it %s (docs/checkers.md, \"Excuses\")\n", c)
		}
		if len(a.States) > 0 {
			fmt.Fprintf(w, "      protocol states (after: {state: NAME}): %s\n", strings.Join(a.States, ", "))
		}
	}
}

// paramType is a parameter's type and range as a scenario writes it.
func paramType(p registry.Param) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch p.Kind {
	case registry.Duration:
		if p.Single {
			return "duration"
		}
		return "duration or a..b"
	case registry.DurationRange:
		return "duration range a..b"
	case registry.Bool:
		return "bool"
	case registry.Int:
		t := "int " + num(p.Min) + ".." + num(p.Max)
		if p.Single {
			return t
		}
		return t + " (or a range)"
	case registry.Float:
		t := "number " + num(p.Min) + ".." + num(p.Max)
		if p.Single {
			return t
		}
		return t + " (or a range)"
	case registry.Enum:
		return "one of " + strings.Join(p.Enum, "|")
	case registry.Nodes:
		return "nodes [n1, …]"
	case registry.Ints:
		return "ints, one per node"
	}
	return "?"
}

// listYAML is the three-node scenario of algorithm name and nothing else
// whose caveat simrun list shows.
func listYAML(name string) string {
	return "name: list\nduration: 1s\nalgorithm: {name: " + name + "}\n"
}

// defaultCaveat is what algorithm name with its default values does not
// promise about exclusion (scenario.Scenario.Caveat), read from a
// three-node scenario of that algorithm and nothing else.
func defaultCaveat(name string) string {
	sc, err := scenario.ParseWith("list", []byte(listYAML(name)), nil)
	if err != nil {
		return ""
	}
	return sc.Caveat("")
}
