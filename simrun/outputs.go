package simrun

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/electsim/electsim/checker"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
)

// fillOutputs writes the output folder's contents under its temporary
// name: plots (one timeline each in tls: the featured run's first),
// repro.yaml if a failing run was shrunk, and report.html linking links
// (the featured run's porcupine visualizations, written already:
// porcupineFiles). summary.json is written by the caller, once the
// reports' timing is known; the runs file while the sweep ran.
func fillOutputs(tmp string, s *reports.Summary, tls []*reports.Timeline, links []reports.Link, st *reports.SpaceTime, o *options, sh *shrinkResult) error {
	plots, err := reports.WritePlots(tmp, s, tls...)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	x := reports.HTMLExtras{Title: s.Scenario.Name, Command: commandLine(o), Porcupine: links, SpaceTime: st}
	if sh != nil {
		if err := os.WriteFile(filepath.Join(tmp, "repro.yaml"), sh.yaml, 0o644); err != nil {
			return err
		}
		x.Shrink = sh.info()
	}
	if err := reports.WriteHTML(filepath.Join(tmp, "report.html"), s, plots, tmp, x); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// porcupineFiles writes into tmp the porcupine visualizations of fr's
// linearizability checks and returns the report's links to them.
func porcupineFiles(tmp string, fr *scenario.Run) ([]reports.Link, error) {
	var links []reports.Link
	for _, lin := range fr.Report.Linearizability {
		if lin.Operations == 0 {
			continue
		}
		name := "porcupine-" + strings.ReplaceAll(lin.Check, "_", "-") + ".html"
		pf, err := os.Create(filepath.Join(tmp, name))
		if err != nil {
			return nil, err
		}
		verr := lin.Visualize(pf)
		cerr := pf.Close()
		if verr != nil || cerr != nil {
			os.Remove(filepath.Join(tmp, name))
			continue // a history porcupine cannot draw is not fatal
		}
		links = append(links, reports.Link{Label: fmt.Sprintf("%s (%s model, %d operations) of seed %d under %s: %s", lin.Check, lin.Model, lin.Operations, fr.Seed, fr.Algorithm, lin.Result), Href: name})
	}
	return links, nil
}

// humanOut is where the human summary goes: stdout, unless stdout carries
// machine output (-json - or -trace -).
func humanOut(o *options, stdout, stderr io.Writer) io.Writer {
	if o.json == "-" || o.trace == "-" || o.perfetto == "-" {
		return stderr
	}
	return stdout
}

// writeFolder builds the output folder of d under a temporary name with
// fill, then puts it in place (stage, commit), so an error leaves the
// previous output untouched and no partial folder behind. It returns the
// folder written (a new numbered one without -out) and why base/latest was
// left alone ("" if it was not).
func writeFolder(d outdir.OutputDest, fill func(tmp string) error) (dir, latestNote string, err error) {
	st, err := stageFilled(d, fill)
	if err != nil {
		return "", "", err
	}
	if err := st.Commit(); err != nil {
		return "", "", err
	}
	return st.Out, st.LatestNote, nil
}

// stageFilled stages d's folder and fills it, for a caller that commits it
// together with other outputs (commitAll); on error nothing is left.
func stageFilled(d outdir.OutputDest, fill func(tmp string) error) (*outdir.StagedFolder, error) {
	st, err := d.Stage()
	if err != nil {
		return nil, err
	}
	if err := fill(st.Tmp); err != nil {
		st.Abort()
		return nil, err
	}
	return st, nil
}

// writeSummaryFile writes dir/summary.json.
func writeSummaryFile(dir string, s *reports.Summary) error {
	f, err := os.Create(filepath.Join(dir, "summary.json"))
	if err != nil {
		return err
	}
	if err := reports.WriteJSON(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func commandLine(o *options) string {
	parts := []string{o.prog}
	if o.scenario != "" {
		parts = append(parts, "-scenario", scenario.ShellQuote(o.scenario))
	}
	if o.seedSet {
		parts = append(parts, "-seed", uitoa(o.seed))
	}
	if o.seeds != 1 {
		parts = append(parts, "-seeds", fmt.Sprint(o.seeds))
	}
	if len(o.algos) > 0 {
		parts = append(parts, "-algo", strings.Join(o.algos, ","))
	}
	for _, s := range o.sets {
		parts = append(parts, "-set", scenario.ShellQuote(s))
	}
	for _, v := range o.vary {
		parts = append(parts, "-vary", scenario.ShellQuote(v))
	}
	if len(o.dims) == 2 && o.heat != "failed" {
		parts = append(parts, "-heat", o.heat)
	}
	if o.shardCount > 1 {
		parts = append(parts, "-shard", fmt.Sprintf("%d/%d", o.shardIndex, o.shardCount))
	}
	return strings.Join(parts, " ")
}

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// maxPrintedFailures is how many failing runs the human summary shows (each
// re-run with its story for the explanation).
const maxPrintedFailures = 3

// printSummary prints the human summary.
func printSummary(w io.Writer, sc *scenario.Scenario, s *reports.Summary, res sweepResult, out string, sh *shrinkResult, scOf func(reports.RunSummary) *scenario.Scenario) {
	if sc.Description != "" {
		fmt.Fprintf(w, "%s — %s\n", sc.Name, sc.Description)
	} else {
		fmt.Fprintln(w, sc.Name)
	}
	fmt.Fprintf(w, "seeds %d..%d", s.Seeds.First, s.Seeds.First+uint64(s.Seeds.Count)-1)
	if s.Shard != nil {
		fmt.Fprintf(w, " (shard %d/%d)", s.Shard.Index, s.Shard.Count)
	}
	fmt.Fprintf(w, " · %s in %.2fs (%s runs/s, %s)\n\n", reports.Plural(res.done(), "run", "runs"), s.Timing.WallSeconds, reports.FormatRate(s.Timing.RunsPerSecond), reports.Plural(s.Timing.Workers, "worker", "workers"))
	width := 10
	for _, a := range s.Algorithms {
		width = max(width, len([]rune(a.Key())))
	}
	head := "algorithm"
	if s.Grid != nil {
		head = "group"
	}
	nw := 6 // the count columns fit the largest count
	for _, a := range s.Algorithms {
		nw = max(nw, len(fmt.Sprint(a.Runs)))
	}
	fmt.Fprintf(w, "%-*s %*s %*s  %-22s %s\n", width, head, nw, "runs", nw, "ok", "failover p50/p99/max", "findings")
	for _, na := range s.NotApplicable {
		fmt.Fprintf(w, "%-*s %*s %*s  %-22s %s\n", width, na.Algorithm, nw, "n/a", nw, "", "", na.Reason)
	}
	for _, a := range s.Algorithms {
		fo := "—"
		switch {
		case a.FailoverMs.Count > 0 && a.FailoversNever > 0:
			fo = fmt.Sprintf("%s/%s/%s ms, %d never", num(a.FailoverMs.P50), num(a.FailoverMs.P99), num(a.FailoverMs.Max), a.FailoversNever)
		case a.FailoverMs.Count > 0:
			fo = fmt.Sprintf("%s/%s/%s ms", num(a.FailoverMs.P50), num(a.FailoverMs.P99), num(a.FailoverMs.Max))
		case a.FailoversNever > 0:
			fo = fmt.Sprintf("never (%d)", a.FailoversNever)
		}
		fmt.Fprintf(w, "%-*s %*d %*d  %-22s %s\n", width+len(a.Key())-len([]rune(a.Key())), a.Key(), nw, a.Runs, nw, a.OK, fo, findings(a))
		if note := tokenNote(a.Token); note != "" {
			fmt.Fprintf(w, "%-*s %s\n", width, "", note)
		}
		if a.Caveat != "" && excusedAny(a) {
			// An excused finding passes the contract: say what the
			// configuration never promised (docs/checkers.md, "Excuses").
			fmt.Fprintf(w, "%-*s this configuration %s\n", width, "", a.Caveat)
		}
	}
	if s.Grid != nil {
		printGrid(w, s)
	}
	shown := 0
	for _, r := range s.Runs {
		if r.OK || shown >= maxPrintedFailures {
			continue
		}
		shown++
		fmt.Fprintf(w, "\nseed %d (%s) did not meet the expectations:\n", r.Seed, r.Key())
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  - %s\n", p)
		}
		printExplanation(w, r)
		rsc := scOf(r)
		fmt.Fprintf(w, "  replay: %s\n", rsc.ReplayCommand(r.Seed, algoOverride(rsc, r.Algorithm)))
	}
	for _, a := range s.Algorithms {
		for _, k := range sortedKeys(a.Unknown) {
			fmt.Fprintf(w, "\n%s: %s unknown in %d run(s): porcupine ran out of its wall-time bound (-porcupine-timeout); such a run fails unless the check is allowed, and this count can differ between identical sweeps\n", a.Key(), k, a.Unknown[k])
		}
	}
	fmt.Fprintln(w)
	failed := res.col.Failed()
	if s.Partial != nil {
		fmt.Fprintf(w, "partial: %s after %d of %d runs; the summary covers the runs that finished\n", s.Partial.Reason, s.Partial.RunsDone, s.Partial.RunsPlanned)
	}
	switch {
	case res.stopped:
		fmt.Fprintf(w, "stopped at the first failing run (-fail-fast): %d of %d runs done\n", res.done(), res.planned)
	case failed == 0:
		fmt.Fprintln(w, "every run met the scenario's expectations")
	default:
		fmt.Fprintf(w, "%d of %d runs did not meet the scenario's expectations\n", failed, res.done())
	}
	if sh != nil {
		fmt.Fprintf(w, "shrunk seed %d to %s (%d → %d faults, %s → %s): %s -scenario %s\n",
			sh.seed, filepath.Join(out, "repro.yaml"), sh.faultsBefore, sh.faultsAfter, sh.durBefore, sh.durAfter, programOf(sc), filepath.Join(out, "repro.yaml"))
	}
	fmt.Fprintf(w, "report: %s\n", filepath.Join(out, "report.html"))
}

// num formats a number for a table: whole numbers (and anything of 100 or
// more) without decimals, the rest with one; 14.04 rounds to "14", like 23,
// not "14.0".
func num(x float64) string {
	r := math.Round(x*10) / 10
	if r == math.Trunc(r) || x >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// shownViolation is the finding a failing run is shown with: the crash
// (with its stack) if it crashed, else its first harmful finding.
func shownViolation(vs []reports.ViolationSummary) (reports.ViolationSummary, bool) {
	for _, v := range vs {
		if v.Kind == checker.CheckCrashed {
			return v, true
		}
	}
	for _, v := range vs {
		if !v.Harmless {
			return v, true
		}
	}
	return reports.ViolationSummary{}, false
}

// findings lists a summary's violation counts, e.g. "split_brain 3
// [breach 1, excused 2] (+12 harmless)": the runs with a violation of each
// check, split by the contract's verdict when a contract covers the check.
func findings(a reports.AlgoSummary) string {
	var parts []string
	for _, k := range append(append(slices.Clone(checker.CheckNames), checker.QueueCheckNames...), checker.ContractCheckNames...) {
		n, h := a.Violations[k], a.Harmless[k]
		vs := ""
		if c := a.ViolationsByVerdict[k]; c.Covered() { // the runs by contract verdict, when a contract covers k
			vs = " [" + c.String() + "]"
		}
		switch {
		case n > 0 && h > 0:
			parts = append(parts, fmt.Sprintf("%s %d%s (+%d harmless)", k, n, vs, h))
		case n > 0:
			parts = append(parts, fmt.Sprintf("%s %d%s", k, n, vs))
		case h > 0:
			parts = append(parts, fmt.Sprintf("%s %d harmless", k, h))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// printGrid prints a parameter sweep's table: failover latency per group
// (p50/p90/p99/max and how many never recovered) and, for two dimensions,
// the heatmap's rate per cell with its Wilson 95% interval.
func printGrid(w io.Writer, s *reports.Summary) {
	width := 10
	for _, a := range s.Algorithms {
		width = max(width, len([]rune(a.Key())))
	}
	fmt.Fprintf(w, "\nfailover latency (ms) per value\n%-*s %8s %8s %8s %8s %6s\n", width, "group", "p50", "p90", "p99", "max", "never")
	for _, a := range s.Algorithms {
		f := a.FailoverMs
		cell := func(x float64) string {
			if f.Count == 0 {
				return "—"
			}
			return num(x)
		}
		fmt.Fprintf(w, "%-*s %8s %8s %8s %8s %6d\n", width+len(a.Key())-len([]rune(a.Key())), a.Key(), cell(f.P50), cell(f.P90), cell(f.P99), cell(f.Max), a.FailoversNever)
	}
	cells := s.HeatCells()
	if len(cells) == 0 {
		return
	}
	d := s.Grid.Dims
	fmt.Fprintf(w, "\n%s by %s (rows) × %s (columns)", s.Grid.Heat, d[0].Path, d[1].Path)
	if cells[0].Rate {
		fmt.Fprint(w, ", with Wilson 95% intervals")
	}
	fmt.Fprintln(w)
	for _, algo := range s.Config.Algorithms {
		if len(s.Config.Algorithms) > 1 {
			fmt.Fprintf(w, "%s:\n", algo)
		}
		fmt.Fprintf(w, "%-16s", "")
		for _, v := range d[1].Values {
			fmt.Fprintf(w, " %-22s", v)
		}
		fmt.Fprintln(w)
		for r, rv := range d[0].Values {
			fmt.Fprintf(w, "%-16s", rv)
			for c := range d[1].Values {
				fmt.Fprintf(w, " %-22s", heatText(cells, algo, r, c))
			}
			fmt.Fprintln(w)
		}
	}
}

// heatText is one heatmap cell as text: "12% [7–19%]" or "412 ms".
func heatText(cells []reports.HeatCell, algo string, r, c int) string {
	for _, x := range cells {
		if x.Algorithm != algo || x.Row != r || x.Col != c {
			continue
		}
		switch {
		case !x.Has:
			return "—"
		case !x.Rate:
			return num(x.Value) + " ms"
		}
		return fmt.Sprintf("%s%% [%s–%s%%]", num(100*x.Value), num(100*x.Lo), num(100*x.Hi))
	}
	return "n/a"
}

// excusedAny reports whether a group has a run with an excused finding.
func excusedAny(a reports.AlgoSummary) bool {
	for _, c := range a.ViolationsByVerdict {
		if c.Excused > 0 {
			return true
		}
	}
	return false
}
