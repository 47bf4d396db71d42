package simrun

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/electsim/electsim/hunt"
	"github.com/electsim/electsim/registry"
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// matrixFile is a comparison matrix: algorithms × scenarios × seeds.
type matrixFile struct {
	Name       string   `yaml:"name"`
	Seeds      int      `yaml:"seeds"`
	Seed       uint64   `yaml:"seed"`
	Algorithms []string `yaml:"algorithms"`
	Scenarios  []string `yaml:"scenarios"`
}

// cell is one (scenario, algorithm) entry of the matrix.
type cell struct {
	na      string // why the combination does not apply
	summary reports.AlgoSummary
	runs    int
	failed  int
	replay  string // the first failing run's replay command, if any
}

func loadMatrix(path string) (*matrixFile, error) {
	src, err := scenario.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// The same limits as a scenario file, checked before the decoder
	// expands anything (an alias bomb would otherwise fill memory).
	if err := scenario.CheckYAML(path, src); err != nil {
		return nil, err
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	var m matrixFile
	if err := yaml.UnmarshalWithOptions(src, &m, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%s: %s", path, yaml.FormatError(err, false, false))
	}
	switch {
	case len(m.Algorithms) == 0:
		return nil, fmt.Errorf("%s: algorithms: list at least one", path)
	case len(m.Scenarios) == 0:
		return nil, fmt.Errorf("%s: scenarios: list at least one", path)
	case m.Seeds < 0:
		return nil, fmt.Errorf("%s: seeds: must be positive", path)
	}
	if m.Seeds == 0 {
		m.Seeds = 20
	}
	if m.Seed == 0 {
		m.Seed = 1
	}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if err := scenario.ValidName(m.Name); err != nil {
		return nil, fmt.Errorf("%s: name: %v", path, err)
	}
	if m.Seeds > MaxRuns {
		return nil, fmt.Errorf("%s: seeds: %d is more than %d", path, m.Seeds, MaxRuns)
	}
	if n := len(m.Scenarios) * len(m.Algorithms); n > MaxGroups {
		return nil, fmt.Errorf("%s: %d scenarios × %d algorithms is %d cells, more than %d (MaxGroups): each cell keeps its own distributions", path, len(m.Scenarios), len(m.Algorithms), n, MaxGroups)
	}
	for _, a := range m.Algorithms {
		if !validAlgo(a) || a == "shedlock" || a == "celery" {
			return nil, fmt.Errorf("%s: unknown algorithm %q (one of %s)", path, a, strings.Join(scenario.Algorithms(), ", "))
		}
	}
	return &m, nil
}

// runMatrix runs every scenario of the matrix file under every algorithm
// and writes the comparison table (markdown and HTML).
func runMatrix(o *options, stdout, stderr io.Writer) (int, error) {
	m, err := loadMatrix(o.matrix)
	if err != nil {
		return exitUsage, usageError{err.Error()}
	}
	seeds := m.Seeds
	if o.seedsSet { // -seeds 1 included: it is also the flag's default
		seeds = o.seeds
	}
	first, from := m.Seed, o.matrix+": seed"
	if o.seedSet {
		first, from = o.seed, "-seed"
	}
	if err := checkSeedRange(first, seeds, from); err != nil {
		return exitUsage, err
	}
	dest := destFor(o.out, filepath.Join("out", "matrix-"+m.Name))
	if err := dest.check(); err != nil {
		return exitUsage, err
	}
	dir := filepath.Dir(o.matrix)
	// Isolated as a sweep is (isolation): a matrix of an algorithm not
	// built into electsim runs each scenario's runs in worker processes,
	// and its files are read in full, the algorithm's checks of its
	// parameters included, by a worker first (checkLoads).
	isolate, autoIsolated := isolation(o, m.Algorithms, max(seeds, 1)*len(m.Scenarios)*len(m.Algorithms), isWorker(), registry.Default.Lookup)
	var scs []*scenario.Scenario
	var files []string
	for _, f := range m.Scenarios {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f) // relative to the matrix file
		}
		po := scenario.ParseOptions{DeferUserCode: true, Running: m.Algorithms}
		sc, err := scenario.LoadWithOptions(f, o.sets, po)
		if err == nil && (isolate || fileIsolated(o, sc, max(seeds, 1)*len(m.Algorithms), isWorker())) {
			fo := matrixSweepOptions(o, f, seeds)
			scs, code, err := checkedCells(fo, []*scenario.Scenario{sc}, first, "-set", po)
			if err != nil {
				return code, err
			}
			sc = scs[0]
		} else if err == nil && userAlgorithm(sc) {
			sc, err = scenario.LoadRunning(f, o.sets, m.Algorithms)
		}
		if err != nil {
			return exitUsage, usageError{err.Error()}
		}
		sc.Program = o.prog
		scs = append(scs, sc)
		files = append(files, f)
	}
	total := 0
	table := make([][]cell, len(scs))
	type plan struct {
		i    int
		algo []string
		jobs jobList
	}
	var plans []plan
	for i, sc := range scs {
		table[i] = make([]cell, len(m.Algorithms))
		var ok []string
		for k, a := range m.Algorithms {
			build := func() error {
				_, err := sc.Build(scenario.RunOptions{Seed: first, Algorithm: algoOverride(sc, a)})
				return err
			}
			if isolate {
				build = func() error { return isolatedBuild(o, sc, first, algoOverride(sc, a)) }
			}
			if err := build(); err != nil {
				var died *hunt.DiedError
				if errors.As(err, &died) {
					return exitViolation, fmt.Errorf("%s under %s: %v", files[i], a, err)
				}
				table[i][k].na = err.Error()
				continue
			}
			ok = append(ok, a)
		}
		jobs := sweepJobs(ok, first, seeds, o.shardIndex, o.shardCount)
		if jobs.perAlgo == 0 {
			return exitUsage, usagef("%s: shard %d/%d of %d seeds is empty", o.matrix, o.shardIndex, o.shardCount, seeds)
		}
		// By division: the sum can overflow int on 32-bit builds.
		if len(ok) > 0 && jobs.perAlgo > (MaxRuns-total)/len(ok) {
			return exitUsage, usagef("%s: the matrix is more than %d runs (MaxRuns) by scenario %s: use fewer seeds or scenarios", o.matrix, MaxRuns, sc.Name)
		}
		total += jobs.len()
		plans = append(plans, plan{i: i, algo: ok, jobs: jobs})
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "%s: matrix %s · %s × %s × %s = %s\n", progName(o), m.Name, reports.Plural(len(scs), "scenario", "scenarios"),
			reports.Plural(len(m.Algorithms), "algorithm", "algorithms"), reports.Plural(seeds, "seed", "seeds"), reports.Plural(total, "run", "runs"))
	}
	if isolate && !o.quiet {
		why := "-isolate"
		if autoIsolated {
			why = "not built into electsim: a run that overflows its stack, hangs or starts a goroutine is reported, not fatal; -isolate=false runs it in this process"
		}
		fmt.Fprintf(stderr, "simrun: each scenario's runs in worker processes (%s)\n", why)
	}
	prog := newProgress(stderr, total, o.quiet)
	prog.name = progName(o)
	start := time.Now()
	done, stopped := 0, false
	sweeping.Add(1) // a signal between two scenarios' sweeps stops gracefully too
	defer sweeping.Add(-1)
	for _, p := range plans {
		if interrupted.Load() != 0 {
			stopped = true
			break
		}
		sc := scs[p.i]
		var res sweepResult
		if isolate {
			// processSweep counts its own runs from 0: the progress
			// adds the scenarios before.
			prog.base, prog.baseCounts = done, prog.counts()
			var err error
			if res, err = processSweep(matrixSweepOptions(o, files[p.i], seeds), []*scenario.Scenario{sc}, p.jobs, first, prog, &runsOut{}); err != nil {
				return exitUsage, err
			}
			prog.base = 0
		} else {
			res = runSweep([]*scenario.Scenario{sc}, p.jobs, o.workers, false, o.porcupine, prog, nil, nil)
		}
		if len(res.errs) > 0 {
			return exitUsage, res.errs[0]
		}
		done += res.done()
		stopped = stopped || res.interrupted
		for _, as := range res.col.Groups() {
			for k, a := range m.Algorithms {
				if a == as.Algorithm {
					c := &table[p.i][k]
					c.summary, c.runs = as, as.Runs
					c.failed = as.Runs - as.OK
					if as.FirstFailingSeed != nil {
						c.replay = sc.ReplayCommand(*as.FirstFailingSeed, algoOverride(sc, a))
					}
				}
			}
		}
	}
	prog.finish()
	md := matrixMarkdown(m, scs, table, seeds)
	htm := matrixHTML(m, scs, table, seeds)
	if stopped {
		reason, _, _ := interruption()
		note := fmt.Sprintf("partial: %s after %d of %d runs; each cell counts the runs that finished", reason, done, total)
		md = "> " + note + "\n\n" + md
		htm = strings.Replace(htm, "<body>", "<body><p><strong>"+html.EscapeString(note)+"</strong></p>", 1)
		fmt.Fprintln(stderr, "simrun:", note)
	}
	out, note, err := writeFolder(dest, func(tmp string) error {
		for _, f := range []struct{ name, body string }{{"matrix.md", md}, {"matrix.html", htm}} {
			if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.body), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return exitUsage, err
	}
	if note != "" && !o.quiet {
		fmt.Fprintln(stderr, "simrun:", note)
	}
	if !o.quiet {
		fmt.Fprint(stdout, md)
		fmt.Fprintf(stdout, "\n%s in %.1fs on %s (%s) · %s\n", reports.Plural(total, "run", "runs"), time.Since(start).Seconds(), reports.Plural(o.workers, "worker", "workers"), runtime.Version(), filepath.Join(out, "matrix.html"))
	}
	if _, code, ok := interruption(); ok && stopped {
		return code, nil
	}
	// Like a single scenario: 1 when a run of any cell failed its
	// scenario's expectations (n/a cells are not runs).
	for _, row := range table {
		for _, c := range row {
			if c.failed > 0 {
				return exitViolation, nil
			}
		}
	}
	return exitOK, nil
}

// matrixSweepOptions are o for one scenario file of a matrix, swept over
// seeds seeds in worker processes (processSweep, checkLoads).
func matrixSweepOptions(o *options, file string, seeds int) *options {
	fo := *o
	fo.matrix, fo.scenario, fo.seeds, fo.cells, fo.dims, fo.failFast = "", file, seeds, []gridCell{{}}, nil, false
	return &fo
}

var matrixColumns = []string{"split-brain rate", "double-exec rate", "failover p50", "failover p99", "leaderless mean", "msgs / election", "runs failing expect"}

func cellValues(c cell) []string {
	if c.na != "" {
		return []string{"n/a", "", "", "", "", "", ""}
	}
	a := c.summary
	fo := func(x float64) string {
		switch {
		case a.FailoverMs.Count == 0 && a.FailoversNever > 0:
			return "never"
		case a.FailoverMs.Count == 0:
			return "—"
		case a.FailoversNever > 0:
			return fmt.Sprintf("%s ms (%d never)", num(x), a.FailoversNever)
		}
		return num(x) + " ms"
	}
	msgs := "—"
	if a.ElectionsPerFailover > 0 {
		msgs = num(a.MessagesPerFailover / a.ElectionsPerFailover)
	}
	return []string{
		pct(a.SplitBrainRate), pct(a.DoubleExecutionRate), fo(a.FailoverMs.P50), fo(a.FailoverMs.P99),
		num(a.LeaderlessMs.Mean) + " ms", msgs, fmt.Sprintf("%d/%d", c.failed, c.runs),
	}
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

func matrixMarkdown(m *matrixFile, scs []*scenario.Scenario, t [][]cell, seeds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s per cell\n\n", m.Name, reports.Plural(seeds, "seed", "seeds"))
	for i, sc := range scs {
		fmt.Fprintf(&b, "## %s — %s\n\n| algorithm | %s |\n|---|%s\n", sc.Name, sc.Description, strings.Join(matrixColumns, " | "), strings.Repeat("---|", len(matrixColumns)))
		// An n/a cell says why in a numbered note under the table, one per
		// reason, so a cell stays a cell (the reason is a paragraph).
		var reasons []string
		who := map[string][]string{}
		for k, a := range m.Algorithms {
			v := cellValues(t[i][k])
			if na := t[i][k].na; na != "" {
				n := slices.Index(reasons, na)
				if n < 0 {
					reasons, n = append(reasons, na), len(reasons)
				}
				who[na] = append(who[na], a)
				v[0] = fmt.Sprintf("n/a [%d]", n+1)
			}
			fmt.Fprintf(&b, "| %s | %s |\n", a, strings.Join(v, " | "))
		}
		b.WriteString("\n")
		for n, r := range reasons {
			fmt.Fprintf(&b, "[%d] n/a under %s: %s\n\n", n+1, strings.Join(who[r], ", "), r)
		}
	}
	return b.String()
}

func matrixHTML(m *matrixFile, scs []*scenario.Scenario, t [][]cell, seeds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html><head><meta charset="utf-8"><title>%s</title><style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:2em}
th,td{border:1px solid #ccc;padding:4px 10px;text-align:right}th:first-child,td:first-child{text-align:left}
th{background:#f3f3f3}.na{color:#999}td.bad a{color:#b00020;font-weight:600}code{font-size:.9em;background:#f6f6f8;padding:1px 4px}
dl.legend{display:grid;grid-template-columns:max-content auto;gap:2px 12px;max-width:60em}dt{font-weight:600}</style></head><body><h1>%s</h1><p>%s per cell.</p>
<dl class="legend">
<dt>split-brain, double-exec rate</dt><dd>share of runs with a split-brain finding (harmless ones included) or a slot applied twice</dd>
<dt>failover p50, p99</dt><dd>latency of completed failovers; "(k never)": k failovers with no leader recognised again before the run ended; "never": none completed</dd>
<dt>—</dt><dd>nothing to measure: no run had a failover (or an election, for messages per election)</dd>
<dt>runs failing expect</dt><dd>runs that did not meet the scenario's own expect block, written for its own algorithm, so another algorithm may "fail" it — that is the comparison; a failing cell links to the replay command of its first failing run</dd>
<dt>n/a</dt><dd>the algorithm cannot run the scenario (hover for why)</dd>
</dl>`,
		html.EscapeString(m.Name), html.EscapeString(m.Name), reports.Plural(seeds, "seed", "seeds"))
	for i, sc := range scs {
		fmt.Fprintf(&b, "<h2>%s</h2><p>%s</p><table><tr><th>algorithm</th>", html.EscapeString(sc.Name), html.EscapeString(sc.Description))
		for _, c := range matrixColumns {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
		for k, a := range m.Algorithms {
			c := t[i][k]
			if c.na != "" {
				fmt.Fprintf(&b, `<tr><td>%s</td><td class="na" colspan="%d" title="%s">n/a</td></tr>`, html.EscapeString(a), len(matrixColumns), html.EscapeString(c.na))
				continue
			}
			fmt.Fprintf(&b, "<tr><td>%s</td>", html.EscapeString(a))
			vals := cellValues(c)
			for j, v := range vals {
				if j == len(vals)-1 && c.replay != "" {
					fmt.Fprintf(&b, `<td class="bad"><a href="#replay-%d-%d" title="%s">%s</a></td>`, i, k, html.EscapeString(c.replay), html.EscapeString(v))
					continue
				}
				fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(v))
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</table>")
		var replays []string
		for k, a := range m.Algorithms {
			if c := t[i][k]; c.replay != "" {
				replays = append(replays, fmt.Sprintf(`<li id="replay-%d-%d">%s, first failing run: <code>%s</code></li>`, i, k, html.EscapeString(a), html.EscapeString(c.replay)))
			}
		}
		if len(replays) > 0 {
			b.WriteString("<ul class=\"replays\">" + strings.Join(replays, "") + "</ul>")
		}
	}
	b.WriteString("</body></html>\n")
	return b.String()
}
