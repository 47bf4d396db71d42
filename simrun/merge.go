package simrun

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
)

// runMerge combines shard outputs (folders written by -shard i/n, or their
// summary.json files) into one summary, plots and report.
func runMerge(args []string, stdout, stderr io.Writer) int {
	return mergeAs(defaultProgram, args, stdout, stderr)
}

// mergeAs is runMerge for the program named prog.
func mergeAs(prog string, args []string, stdout, stderr io.Writer) int {
	cmd := prog + " merge"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	out := fs.String("out", "", "output `DIR` (default a new out/<scenario name>/NNN)")
	jsonOut := fs.String("json", "", "also write the merged JSON summary to `FILE` (- for stdout)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	withRuns := fs.Bool("runs", true, "also merge the shards' runs files into one (false: the aggregates only, which reads only the summaries)")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s merge [-out DIR] [-json FILE] [-quiet] [-runs=false] DIR|summary.json...\n\n", prog)
		fmt.Fprintln(w, "Combines shard outputs (folders written with -shard i/n, or their summary.json\nfiles) into one summary, runs file, plots and report (docs/distributed.md).\n\nflags:")
	}
	if code, done := parseFlags(fs, args, cmd, usage, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "%s: give the shard output folders (or their summary.json files); run '%s -h' for usage\n", cmd, cmd)
		return exitUsage
	}
	*jsonOut = outdir.NormalizeOutput(*jsonOut)
	if *jsonOut != "" && *jsonOut != "-" {
		if _, _, err := outdir.OutputTarget(*jsonOut); err != nil {
			fmt.Fprintf(stderr, "%s: -json: %v\n", cmd, err)
			return exitUsage
		}
	}
	if fs.NArg() > MaxMergeParts {
		fmt.Fprintf(stderr, "%s: %d summaries, at most %d (MaxMergeParts): merge in stages\n", cmd, fs.NArg(), MaxMergeParts)
		return exitUsage
	}
	in, err := readMergeParts(fs.Args(), *out, *jsonOut, *quiet, cmd, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitUsage
	}
	m, err := reports.Merge(in.parts)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitUsage
	}
	if m.Seeds.Count*len(m.Algorithms) > 1 {
		keepExplanations(m.Runs)
	}
	if slices.Contains(in.runsFiles, "") || !*withRuns {
		in.runsFiles = nil // the merge has a runs file only if every part has one
	}
	folder, err := writeMerged(outdir.DestFor(*out, filepath.Join("out", m.Scenario.Name)), m, in, *jsonOut, cmd, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return exitUsage
	}
	dir := folder.Out
	if note := folder.LatestNote; note != "" && !*quiet {
		fmt.Fprintf(stderr, "%s: %s\n", cmd, note)
	}
	runs, failed := 0, 0
	for _, a := range m.Algorithms {
		runs += a.Runs
		failed += a.Runs - a.OK
	}
	code := exitOK
	if failed > 0 {
		code = exitViolation
	}
	if !*quiet {
		fmt.Fprintf(stdout, "merged %d shard(s): %d runs of %s, %d did not meet the expectations\nreport: %s\n",
			len(in.parts), runs, m.Scenario.Name, failed, filepath.Join(dir, "report.html"))
		if in.runsFiles == nil && *withRuns {
			fmt.Fprintln(stdout, "(some shards have no runs file: the merge has none)")
		}
	}
	return code
}

// mergeParts are the summaries a merge reads, with each part's runs file
// ("" if it has none) and its runs, which bound its runs file.
type mergeParts struct {
	parts      []*reports.Summary
	runsFiles  []string
	runsCounts []int
}

// readMergeParts reads the summaries named by args (a shard's folder or
// its summary.json), refusing an input the merge's outputs (out, jsonOut)
// would replace; it says on stderr why a part has no runs file.
func readMergeParts(args []string, out, jsonOut string, quiet bool, cmd string, stderr io.Writer) (mergeParts, error) {
	var in mergeParts
	for _, p := range args {
		path := p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			path = filepath.Join(p, "summary.json")
		}
		if err := checkMergeOutputs(out, jsonOut, p, path); err != nil {
			return mergeParts{}, err
		}
		// A named pipe or device as summary.json would block or never
		// end: only regular files are read.
		f, err := scenario.OpenRegular(path)
		if err != nil {
			return mergeParts{}, err
		}
		s, err := reports.ReadJSON(f)
		f.Close()
		if err != nil {
			return mergeParts{}, fmt.Errorf("%s: %v", path, err)
		}
		if err := scenario.ValidName(s.Scenario.Name); err != nil {
			return mergeParts{}, fmt.Errorf("%s: scenario.name %v", path, err)
		}
		in.parts = append(in.parts, s)
		rf, why := runsFileOf(path, s)
		if why != "" && !quiet {
			fmt.Fprintf(stderr, "%s: %s: %s\n", cmd, path, why)
		}
		in.runsFiles = append(in.runsFiles, rf)
		n := 0
		for _, a := range s.Algorithms {
			n += a.Runs
		}
		in.runsCounts = append(in.runsCounts, n)
	}
	return in, nil
}

// writeMerged stages the merged folder at dest and -json (jsonOut), and
// puts both in place or neither: a -json that cannot be put in place takes
// the merged folder back out.
func writeMerged(dest outdir.OutputDest, m *reports.Summary, in mergeParts, jsonOut, cmd string, stdout io.Writer) (*outdir.StagedFolder, error) {
	folder, err := stageMerged(dest, m, in.runsFiles, in.runsCounts, cmd)
	if err != nil {
		return nil, err
	}
	outs := []outdir.Output{folder}
	if jsonOut != "" {
		js, err := outdir.CreateOutput(jsonOut, stdout)
		if err == nil {
			if err = reports.WriteJSON(js.W, m); err != nil {
				js.Abort()
			}
		}
		if err != nil {
			folder.Abort()
			return nil, err
		}
		outs = append(outs, js)
	}
	if err := outdir.CommitAll(outs...); err != nil {
		return nil, err
	}
	return folder, nil
}

// checkMergeOutputs refuses a merge whose outputs would replace one of
// its inputs: -out naming an input folder, or a folder containing an input
// or its summary; -json naming an input summary; and -json inside -out
// (replaced whole by the folder).
func checkMergeOutputs(out, jsonOut, input, summary string) error {
	if out != "" {
		for _, p := range []string{input, summary, filepath.Dir(summary)} {
			if outdir.Inside(p, out) {
				return usagef("-out %s would replace the input %s: write the merge to another folder", out, input)
			}
		}
		if jsonOut != "" && jsonOut != "-" && outdir.Inside(jsonOut, out) {
			return usagef("-json %s is inside -out %s, which merge replaces whole: write it elsewhere", jsonOut, out)
		}
	}
	if jsonOut != "" && jsonOut != "-" && (outdir.Inside(input, jsonOut) || outdir.Inside(summary, jsonOut)) {
		return usagef("-json %s would replace the input %s: write it elsewhere", jsonOut, input)
	}
	return nil
}

// MaxMergeParts is the most summaries one merge reads: it holds every
// part's runs file open at once (about 100 KB each).
const MaxMergeParts = 1000

// runsFileOf is the runs file of the summary at path: merge reads only a
// regular file in the summary's own folder, named by a plain file name
// (what simrun writes without -runs). A runs_file that is a path (a -runs
// FILE elsewhere, or a forged "../../x" or "/etc/x") is not read, and why
// says so; the merged folder then gets no runs file.
func runsFileOf(path string, s *reports.Summary) (name, why string) {
	rf := s.RunsFile
	if rf == "" {
		return "", ""
	}
	if rf != filepath.Base(rf) || rf == "." || rf == ".." || strings.ContainsAny(rf, `/\`) {
		return "", fmt.Sprintf("runs_file %q is not a file in the summary's folder: not read", rf)
	}
	name = filepath.Join(filepath.Dir(path), rf)
	if st, err := os.Lstat(name); err != nil || !st.Mode().IsRegular() {
		return "", ""
	}
	return name, ""
}

// stageMerged stages a merged summary's folder (no featured-run extras:
// the shards' traces are not at hand), with the parts' runs files merged
// into its runs file in run order when every part has one (counts: each
// part's runs), for the caller to commit. cmd is the merge command, for the
// report.
func stageMerged(out outdir.OutputDest, s *reports.Summary, runsFiles []string, counts []int, cmd string) (*outdir.StagedFolder, error) {
	return stageFilled(out, func(tmp string) error {
		if runsFiles != nil {
			if err := mergeRunsFiles(filepath.Join(tmp, reports.RunsFileName), s, runsFiles, counts); err != nil {
				return err
			}
			s.RunsFile = reports.RunsFileName
		}
		if err := writeSummaryFile(tmp, s); err != nil {
			return err
		}
		plots, err := reports.WritePlots(tmp, s, nil)
		if err != nil {
			return err
		}
		return reports.WriteHTML(filepath.Join(tmp, "report.html"), s, plots, tmp, reports.HTMLExtras{Title: s.Scenario.Name, Command: cmd})
	})
}

// mergeRunsFiles merges the parts' runs files into dst, in the merged
// summary's group order, then seed; the line count must be the summary's.
// Each file may hold at most its part's runs (counts), and at most
// reports.MaxRunsFileBytes of them decompressed: a file that inflates to
// gigabytes is refused early.
func mergeRunsFiles(dst string, s *reports.Summary, files []string, counts []int) error {
	rank := map[string]int{}
	want := 0
	for i, a := range s.Algorithms {
		rank[a.Key()] = i
		want += a.Runs
	}
	var ins []*reports.RunsReader
	for i, name := range files {
		f, err := scenario.OpenRegular(name)
		if err != nil {
			return err
		}
		defer f.Close()
		rr, err := reports.NewRunsReader(f, name)
		if err != nil {
			return err
		}
		defer rr.Close()
		rr.Bound(counts[i])
		ins = append(ins, rr)
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	w := reports.NewRunsWriter(f, true)
	n, err := reports.MergeRuns(w, ins, func(k string) (int, bool) { r, ok := rank[k]; return r, ok })
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("the runs files hold %d runs, the summaries count %d", n, want)
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// keepExplanations clears the narratives of every kept run but the first
// maxPrintedFailures failing ones, the runs one process would have run
// again with their stories for the merged sweep: each shard explained its
// own first failing runs (a shard of one run, that run), and the merged
// sweep's first ones are among them.
func keepExplanations(runs []reports.RunSummary) {
	failing := 0
	for i := range runs {
		r := &runs[i]
		if !r.OK {
			failing++
			if failing <= maxPrintedFailures {
				continue
			}
		}
		for k := range r.Violations {
			r.Violations[k].Explanation = ""
		}
	}
}
