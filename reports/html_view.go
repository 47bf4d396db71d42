package reports

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"
	"time"
)

// view is everything the report template shows, already formatted: the
// template only lays it out.
type view struct {
	Title       string
	Description string
	Command     string
	CSS         template.CSS
	Status      statusView
	Meta        []metaItem
	Algos       []algoView
	Plots       []plotView
	Groups      []violationGroup
	Violations  int // harmful findings (expected ones included)
	Harmless    int // harmless findings, counted apart: they are not violations
	// Verdicts splits the violations' runs (per check) by the contract's
	// verdict, "breach 1, excused 2"; empty when the contract covers none.
	Verdicts    string
	Failing     []failingRun
	FailingMore int
	// AllRunsIn names where every run is: the JSON summary, or the runs
	// file of a sweep too big to keep every run in it.
	AllRunsIn string
	Shrink    *ShrinkInfo
	Porcupine []Link
	Matrix    template.HTML
	Schema    string
	Grid      []metaItem  // a parameter sweep's dimensions
	Heat      []heatTable // a two-dimensional sweep's heat metric per cell
	// SpaceTime is the featured run's diagram data, its script and the
	// note above it (what it shows, and what the cap left out).
	SpaceTime   template.JS
	SpaceTimeJS template.JS
	STNote      string
}

// heatTable is a two-dimensional sweep's heat metric for one algorithm:
// rows the first dimension's values, columns the second's.
type heatTable struct {
	Title    string
	ColHeads []string
	Rows     []heatRow
}

type heatRow struct {
	Head  string
	Cells []string
}

type statusView struct {
	OK   bool
	Text string
}

type metaItem struct{ Label, Value string }

// algoView is one row of the per-algorithm table.
type algoView struct {
	Name       string
	Swatch     template.CSS // the algorithm's plot colour
	Runs       int
	OK         string
	AllOK      bool
	Violations []countView
	Failover   [5]string // n, p50, p90, p99, max
	Leaderless string
	Elections  string
	Messages   string
	SplitBrain string
	DoubleExec string
	SplitBad   bool
	DoubleBad  bool
	// Caveat is what the configuration does not promise (AlgoSummary.Caveat).
	Caveat string
	// Counters are the group's cron-mode counters (AlgoSummary.Counters),
	// by name.
	Counters []counterView
}

// counterView is one cron-mode counter of a group: its total over the
// runs and the mean per run.
type counterView struct {
	Name   string
	Total  int
	PerRun string
}

type countView struct {
	Kind     string
	Count    int
	Harmless bool
	Verdicts string // the count by contract verdict (VerdictCounts.String); empty if the contract covers none
}

// violationGroup is the violations of one check, harmful or harmless.
type violationGroup struct {
	ID       string
	Kind     string
	Harmless bool
	Count    int
	Runs     int
	// InFailing counts the findings in runs that failed their expectations;
	// the rest were expected by the scenario (it asks for a violation).
	InFailing int
	Items     []violationView
	More      int
	// Verdicts is the group's runs by contract verdict (harmful groups
	// whose check a contract covers); VC the same as numbers, for the
	// violations table.
	Verdicts string
	VC       VerdictCounts
}

// Open reports whether the group starts unfolded: harmful findings in
// failing runs are what the reader came for.
func (g violationGroup) Open() bool { return !g.Harmless && g.InFailing > 0 }

type violationView struct {
	Seed      uint64
	Algorithm string
	Swatch    template.CSS
	At        string
	Story     []string // the explanation, one event per line
	Replay    string
	RunFailed bool
	// Workers are the run's executions per worker, shown under a finding
	// of an execution run twice (queue mode), at most maxWorkersShown;
	// WorkersMore counts the rest.
	Workers     []WorkerSummary
	WorkersMore int
	// Verdict is the contract's verdict on the finding (breach, excused,
	// within_bound; empty: no contract covers it) and ExcusedBy the fault
	// class that excused it.
	Verdict   string
	ExcusedBy string
	// Excuse says which fault excused it, and when (ExcuseSummary.String).
	Excuse string
}

// maxWorkersShown bounds the per-worker table under one finding.
const maxWorkersShown = 16

// workersShown reports whether a finding of kind shows its run's
// executions per worker: the findings of a slot that ran twice.
func workersShown(kind string) bool {
	return kind == "duplicate_execution" || kind == "double_execution"
}

type failingRun struct {
	Seed      uint64
	Algorithm string
	Swatch    template.CSS
	Outcome   string
	Problems  []string
}

// checkOrder is the checker's report order (checker.CheckNames; reports
// does not import checker). Other kinds follow alphabetically.
var checkOrder = []string{"election_safety", "split_brain", "double_execution", "stale_write",
	"linearizability", "leader_linearizability", "liveness", "missed_slots", "crashed"}

func kindRank(k string) int {
	for i, c := range checkOrder {
		if c == k {
			return i
		}
	}
	return len(checkOrder)
}

// sortKinds orders check names as the checker reports them.
func sortKinds(ks []string) {
	sort.Slice(ks, func(i, j int) bool {
		ri, rj := kindRank(ks[i]), kindRank(ks[j])
		if ri != rj {
			return ri < rj
		}
		return ks[i] < ks[j]
	})
}

func buildView(path string, s *Summary, plots []Plot, dir string, x HTMLExtras) (*view, error) {
	s = withAggregates(s)
	algos := s.Algorithms
	order := algoOrder(&Summary{Algorithms: algos, Runs: s.Runs})
	swatch := make(map[string]template.CSS, len(order))
	for i, a := range order {
		c := algoColor(i)
		swatch[a] = template.CSS(fmt.Sprintf("background:#%02x%02x%02x", c.R, c.G, c.B))
	}
	v := &view{
		Title:       x.Title,
		Description: s.Scenario.Description,
		Command:     x.Command,
		CSS:         template.CSS(reportCSS),
		Shrink:      x.Shrink,
		Porcupine:   x.Porcupine,
		Matrix:      template.HTML(x.Matrix),
		Schema:      s.Schema,
	}
	if v.Title == "" {
		v.Title = "electsim — " + s.Scenario.Name
	}
	v.Meta = metaItems(s, order)
	runs, failing := 0, 0
	for _, a := range algos {
		runs += a.Runs
		failing += a.Runs - a.OK
	}
	switch {
	case runs == 0:
		v.Status = statusView{OK: false, Text: "No runs."}
	case failing == 0:
		v.Status = statusView{OK: true, Text: fmt.Sprintf("All %d runs met the scenario's expectations.", runs)}
	default:
		v.Status = statusView{Text: fmt.Sprintf("%d of %d runs failed the scenario's expectations.", failing, runs)}
	}
	v.AllRunsIn = "the JSON summary"
	if s.RunsKept == KeptNotable {
		v.AllRunsIn = "the run files"
		if s.RunsFile != "" {
			v.AllRunsIn = s.RunsFile
		}
	}
	for _, a := range algos {
		v.Algos = append(v.Algos, algoRow(a, swatch[a.Key()]))
	}
	v.Grid, v.Heat = gridViews(s)
	if st := x.SpaceTime; st != nil && len(st.Nodes) > 0 {
		js, err := spaceTimeJSON(st)
		if err != nil {
			return nil, err
		}
		v.SpaceTime, v.SpaceTimeJS = js, template.JS(spaceTimeScript)
		v.STNote = fmt.Sprintf("The featured run: %d messages, %d timer firings.", st.Total, len(st.Timers))
		switch {
		case st.Truncated() && st.StartMs > 0:
			v.STNote = fmt.Sprintf("The featured run sent %d messages; the diagram draws %d of them (at most %d, to keep the page small), from t=%s s to t=%s s: the lead-up to the first fault and what followed.",
				st.Total, len(st.Messages), MaxSpaceTimeMessages, fmtSec(st.StartMs), fmtSec(st.EndMs))
		case st.TimersCut:
			v.STNote = fmt.Sprintf("The featured run sent %d messages and fired more than %d timers; the diagram draws its first %d timer firings (at most %d, to keep the page small) and the %d messages among them, up to t=%s s.",
				st.Total, MaxSpaceTimeTimers, len(st.Timers), MaxSpaceTimeTimers, len(st.Messages), fmtSec(st.EndMs))
		case st.Truncated():
			v.STNote = fmt.Sprintf("The featured run sent %d messages; the diagram draws the first %d (at most %d, to keep the page small), up to t=%s s.",
				st.Total, len(st.Messages), MaxSpaceTimeMessages, fmtSec(st.EndMs))
		}
	}
	var err error
	if v.Plots, err = embedPlots(path, plots, dir); err != nil {
		return nil, err
	}
	v.Groups, v.Violations, v.Harmless = violationGroups(s, swatch)
	v.Verdicts = groupVerdicts(s, v.Groups)
	for _, r := range s.Runs {
		if r.OK || len(v.Failing) == maxFailingRuns {
			continue
		}
		v.Failing = append(v.Failing, failingRun{Seed: r.Seed, Algorithm: r.Key(), Swatch: swatch[r.Key()],
			Outcome: r.Outcome, Problems: r.Problems})
	}
	v.FailingMore = failing - len(v.Failing)
	return v, nil
}

func metaItems(s *Summary, algos []string) []metaItem {
	sc := s.Scenario
	m := []metaItem{{"Scenario", sc.Name}}
	if sc.File != "" {
		m = append(m, metaItem{"File", sc.File})
	}
	m = append(m,
		metaItem{"Nodes", fmt.Sprint(sc.Nodes)},
		metaItem{"Duration", fmt.Sprintf("%s, then %s settle", fmtSpan(sc.DurationMs), fmtSpan(sc.SettleMs))},
		metaItem{"Seeds", seedsText(s.Seeds)},
		metaItem{"Algorithms", strings.Join(algoNames(s, algos), ", ")},
		metaItem{"Runs", fmt.Sprint(runsOf(s))},
	)
	if s.Shard != nil {
		m = append(m, metaItem{"Shard", fmt.Sprintf("%d of %d", s.Shard.Index, s.Shard.Count)})
	}
	if s.GoVersion != "" {
		m = append(m, metaItem{"Go", s.GoVersion})
	}
	if t := s.Timing; t != nil {
		m = append(m, metaItem{"Wall time", fmt.Sprintf("%.2f s on %s (%s runs/s)", t.WallSeconds, Plural(t.Workers, "worker", "workers"), FormatRate(t.RunsPerSecond))})
	}
	return m
}

func seedsText(r SeedRange) string {
	switch r.Count {
	case 0:
		return "none"
	case 1:
		return fmt.Sprintf("%d", r.First)
	}
	return fmt.Sprintf("%d … %d (%d seeds)", r.First, r.First+uint64(r.Count)-1, r.Count)
}

func algoRow(a AlgoSummary, swatch template.CSS) algoView {
	row := algoView{Name: a.Key(), Swatch: swatch, Runs: a.Runs, AllOK: a.OK == a.Runs,
		OK:         fmt.Sprintf("%d (%s)", a.OK, pct(a.OK, a.Runs)),
		Leaderless: fmtNum(a.LeaderlessMs.Mean),
		Elections:  fmtRatio(a.ElectionsPerFailover),
		Messages:   fmtRatio(a.MessagesPerFailover),
		SplitBrain: fmtRate(a.SplitBrainRate), SplitBad: a.SplitBrainRate > 0,
		DoubleExec: fmtRate(a.DoubleExecutionRate), DoubleBad: a.DoubleExecutionRate > 0,
		Caveat: a.Caveat,
	}
	f := a.FailoverMs
	n := fmt.Sprint(f.Count)
	if a.FailoversNever > 0 {
		n = fmt.Sprintf("%d, %d never", f.Count, a.FailoversNever)
	}
	row.Failover = [5]string{n, "—", "—", "—", "—"}
	if f.Count > 0 {
		row.Failover = [5]string{n, fmtNum(f.P50), fmtNum(f.P90), fmtNum(f.P99), fmtNum(f.Max)}
	}
	row.Violations = kindCounts(a.Violations, false)
	for i := range row.Violations {
		if c := a.ViolationsByVerdict[row.Violations[i].Kind]; c.Covered() {
			row.Violations[i].Verdicts = c.String()
		}
	}
	row.Violations = append(row.Violations, kindCounts(a.Harmless, true)...)
	names := make([]string, 0, len(a.Counters))
	for k := range a.Counters {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		per := "—"
		if a.Runs > 0 {
			per = fmtRatio(float64(a.Counters[k]) / float64(a.Runs))
		}
		row.Counters = append(row.Counters, counterView{Name: k, Total: a.Counters[k], PerRun: per})
	}
	return row
}

// HasCounters reports whether some group has cron-mode counters.
func (v *view) HasCounters() bool {
	for _, a := range v.Algos {
		if len(a.Counters) > 0 {
			return true
		}
	}
	return false
}

func kindCounts(m map[string]int, harmless bool) []countView {
	var ks []string
	for k, n := range m {
		if n > 0 {
			ks = append(ks, k)
		}
	}
	sortKinds(ks)
	out := make([]countView, len(ks))
	for i, k := range ks {
		out[i] = countView{Kind: k, Count: m[k], Harmless: harmless}
	}
	return out
}

// violationGroups groups every violation by check, harmful before
// harmless, in the checker's order, keeping at most maxViolationsPerKind
// of each, those of failing runs first.
// It also returns the number of harmful findings and of harmless ones.
func violationGroups(s *Summary, swatch map[string]template.CSS) ([]violationGroup, int, int) {
	type key struct {
		kind     string
		harmless bool
	}
	groups := map[key]*violationGroup{}
	var keys []key
	harmful, harmless := 0, 0
	get := func(k key) *violationGroup {
		g := groups[k]
		if g == nil {
			g = &violationGroup{Kind: k.kind, Harmless: k.harmless}
			groups[k] = g
			keys = append(keys, k)
		}
		return g
	}
	// The counts are the aggregates' (every run); the examples are the
	// runs the summary kept.
	for _, a := range s.Algorithms {
		for _, f := range a.Findings {
			g := get(key{f.Kind, f.Harmless})
			g.Count += f.Findings
			g.Runs += f.Runs
			g.InFailing += f.InFailing
			if f.Harmless {
				harmless += f.Findings
			} else {
				harmful += f.Findings
			}
		}
	}
	for _, r := range s.Runs {
		for _, vs := range r.Violations {
			g := get(key{vs.Kind, vs.Harmless})
			// Runs a sweep did not re-run with their story have no
			// narrative: their one-line finding stands in for it.
			story := vs.Explanation
			if story == "" {
				story = vs.Details
			}
			vv := violationView{Seed: r.Seed, Algorithm: r.Key(), Swatch: swatch[r.Key()],
				At: "t=" + fmtSec(vs.AtMs) + " s", Story: storyLines(story), Replay: vs.Replay, RunFailed: !r.OK,
				Verdict: vs.Contract, ExcusedBy: vs.ExcusedBy, Excuse: vs.Excuse.String()}
			if vs.KnownBug != "" {
				vv.Excuse = "known bug " + vs.KnownBug + ", triggered by " + vv.Excuse
			}
			if workersShown(vs.Kind) {
				vv.Workers = r.Workers[:min(len(r.Workers), maxWorkersShown)]
				vv.WorkersMore = len(r.Workers) - len(vv.Workers) + r.WorkersOmitted
			}
			g.Items = append(g.Items, vv)
		}
	}
	for _, g := range groups {
		sort.SliceStable(g.Items, func(i, j int) bool { return g.Items[i].RunFailed && !g.Items[j].RunFailed })
		if len(g.Items) > maxViolationsPerKind {
			g.Items = g.Items[:maxViolationsPerKind:maxViolationsPerKind]
		}
		g.More = max(g.Count-len(g.Items), 0)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].harmless != keys[j].harmless {
			return !keys[i].harmless
		}
		ri, rj := kindRank(keys[i].kind), kindRank(keys[j].kind)
		if ri != rj {
			return ri < rj
		}
		return keys[i].kind < keys[j].kind
	})
	out := make([]violationGroup, len(keys))
	for i, k := range keys {
		out[i] = *groups[k]
		out[i].ID = fmt.Sprintf("v-%d", i)
	}
	return out, harmful, harmless
}

// storyLines splits a checker explanation ("t=… a · t=… b → verdict") into
// one line per event, the verdict on its own line.
func storyLines(expl string) []string {
	var out []string
	for _, part := range strings.Split(expl, " · ") {
		if i := strings.LastIndex(part, " → "); i >= 0 {
			out = append(out, part[:i], "→ "+part[i+len(" → "):])
			continue
		}
		out = append(out, part)
	}
	return out
}

// isVerdict reports whether a story line is the verdict storyLines split off.
func isVerdict(line string) bool { return strings.HasPrefix(line, "→ ") }

func pct(n, of int) string {
	if of == 0 {
		return "—"
	}
	return fmtRate(float64(n) / float64(of))
}

// fmtRate formats a fraction as a percentage with at most one decimal.
func fmtRate(r float64) string {
	p := math.Round(r*1000) / 10
	if p == math.Trunc(p) {
		return fmt.Sprintf("%d%%", int(p))
	}
	return fmt.Sprintf("%.1f%%", p)
}

// fmtNum formats a millisecond value for the table.
func fmtNum(x float64) string {
	if x >= 1000 || x == float64(int64(x)) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

func fmtRatio(x float64) string { return fmt.Sprintf("%.2f", x) }

// FormatRate formats a runs-per-second figure: whole numbers from 10 up,
// two significant digits below (a single long run is 0.13 runs/s, not 0).
func FormatRate(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2g", x)
}

// fmtSpan formats a simulated span given in milliseconds for people: in
// seconds up to two minutes ("12.3 s", "60 s"), then as a Go duration
// without its zero parts, as a scenario file writes it ("10m", "1h30m",
// "72h", "720h").
func fmtSpan(ms float64) string {
	if ms < 120_000 {
		return fmtSec(ms) + " s"
	}
	s := time.Duration(math.Round(ms * 1e6)).String() // "72h0m0s", "1h30m0s", "2m30s"
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Plural is "1 run", "2 runs".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// fmtSec formats milliseconds as seconds: "12.3", "60".
func fmtSec(ms float64) string {
	s := fmt.Sprintf("%.3f", ms/1000)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// gridViews describes a parameter sweep: its dimensions, and for two the
// heat metric's table per algorithm (the numbers beside the heatmap).
func gridViews(s *Summary) ([]metaItem, []heatTable) {
	if s.Grid == nil {
		return nil, nil
	}
	var dims []metaItem
	for _, d := range s.Grid.Dims {
		dims = append(dims, metaItem{d.Path, strings.Join(d.Values, ", ")})
	}
	cells := s.HeatCells()
	if len(cells) == 0 {
		return dims, nil
	}
	d := s.Grid.Dims
	var tables []heatTable
	byAlgo := map[string]int{}
	for _, c := range cells {
		k, ok := byAlgo[c.Algorithm]
		if !ok {
			t := heatTable{Title: fmt.Sprintf("%s: %s by %s (rows) and %s (columns)", c.Algorithm, heatTitle(s.Grid.Heat), d[0].Path, d[1].Path), ColHeads: d[1].Values}
			for _, rv := range d[0].Values {
				t.Rows = append(t.Rows, heatRow{Head: rv, Cells: make([]string, len(d[1].Values))})
			}
			k = len(tables)
			byAlgo[c.Algorithm] = k
			tables = append(tables, t)
		}
		t := &tables[k]
		if c.Row < 0 || c.Col < 0 {
			continue
		}
		text := "—"
		switch {
		case c.Has && c.Rate:
			text = fmt.Sprintf("%.1f%% [%.1f–%.1f%%] of %d", 100*c.Value, 100*c.Lo, 100*c.Hi, c.Runs)
		case c.Has:
			text = fmtMs(c.Value) + " ms"
		}
		t.Rows[c.Row].Cells[c.Col] = text
	}
	return dims, tables
}

// algoNames are the sweep's algorithms: the configured ones, or the
// groups' (a summary without a configuration is all plain groups).
func algoNames(s *Summary, groups []string) []string {
	if s.Config != nil && len(s.Config.Algorithms) > 0 {
		return s.Config.Algorithms
	}
	return groups
}
