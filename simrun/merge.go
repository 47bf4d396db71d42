package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/electsim/electsim/reports"
)

// runMerge combines shard outputs (folders written by -shard i/n, or their
// summary.json files) into one summary, plots and report.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simrun merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output `DIR` (default out/<scenario name>)")
	jsonOut := fs.String("json", "", "also write the merged JSON summary to `FILE` (- for stdout)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: simrun merge [-out DIR] [-json FILE] DIR|summary.json...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "simrun merge: give the shard output folders (or their summary.json files)")
		return exitUsage
	}
	var parts []*reports.Summary
	for _, p := range fs.Args() {
		path := p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			path = filepath.Join(p, "summary.json")
		}
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(stderr, "simrun merge:", err)
			return exitUsage
		}
		s, err := reports.ReadJSON(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "simrun merge: %s: %v\n", path, err)
			return exitUsage
		}
		parts = append(parts, s)
	}
	m, err := reports.Merge(parts)
	if err != nil {
		fmt.Fprintln(stderr, "simrun merge:", err)
		return exitUsage
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("out", m.Scenario.Name)
	}
	if err := writeMerged(dir, m); err != nil {
		fmt.Fprintln(stderr, "simrun merge:", err)
		return exitUsage
	}
	if *jsonOut != "" {
		if err := writeJSONFile(*jsonOut, m, stdout); err != nil {
			fmt.Fprintln(stderr, "simrun merge:", err)
			return exitUsage
		}
	}
	code := exitOK
	failed := 0
	for _, r := range m.Runs {
		if !r.OK {
			code = exitViolation
			failed++
		}
	}
	if !*quiet {
		fmt.Fprintf(stdout, "merged %d shard(s): %d runs of %s, %d did not meet the expectations\nreport: %s\n",
			len(parts), len(m.Runs), m.Scenario.Name, failed, filepath.Join(dir, "report.html"))
	}
	return code
}

// writeMerged writes a merged summary's folder (no featured-run extras: the
// shards' traces are not at hand).
func writeMerged(out string, s *reports.Summary) error {
	return writeFolder(out, func(tmp string) error {
		if err := writeSummaryFile(tmp, s); err != nil {
			return err
		}
		plots, err := reports.WritePlots(tmp, s, nil)
		if err != nil {
			return err
		}
		return reports.WriteHTML(filepath.Join(tmp, "report.html"), s, plots, tmp, reports.HTMLExtras{Title: s.Scenario.Name, Command: "simrun merge"})
	})
}
