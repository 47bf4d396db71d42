package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertHas is assert.Contains without printing the whole report.
func assertHas(t *testing.T, html, sub string, msg ...any) {
	t.Helper()
	if !strings.Contains(html, sub) {
		t.Errorf("report lacks %q %v", sub, msg)
	}
}

// assertHasNot is assert.NotContains without printing the whole report.
func assertHasNot(t *testing.T, html, sub string, msg ...any) {
	t.Helper()
	if strings.Contains(html, sub) {
		t.Errorf("report contains %q %v", sub, msg)
	}
}

// writeReport writes plots and report.html for s into a temp dir and
// returns the HTML.
func writeReport(t *testing.T, s *Summary, tl *Timeline, x HTMLExtras) (string, string) {
	t.Helper()
	dir := t.TempDir()
	plots, err := WritePlots(dir, s, tl)
	require.NoError(t, err)
	path := filepath.Join(dir, "report.html")
	require.NoError(t, WriteHTML(path, s, plots, dir, x))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data), dir
}

func TestWriteHTMLTableAndSections(t *testing.T) {
	s := synthSummary(1, 200, "raft", "bully")
	html, dir := writeReport(t, s, synthTimeline(), HTMLExtras{
		Command:   "simrun -scenario scenarios/leader-crash.yaml -seeds 200",
		Porcupine: []Link{{Label: "seed 3 resource", Href: "porcupine/seed3.html"}},
		Shrink:    &ShrinkInfo{FaultsBefore: 9, FaultsAfter: 2, DurationBefore: "60s", DurationAfter: "14s", ReproFile: "out/repro.yaml", Explanation: "t=1s a · t=2s b → double execution"},
		Matrix:    `<table class="m"><tr><td>raft × leader-crash</td></tr></table>`,
	})
	assertHas(t, html, "<title>electsim — leader-crash</title>")
	assertHas(t, html, "the leader crashes twice; a new one must take over")
	assertHas(t, html, "1 … 200 (200 seeds)")
	assertHas(t, html, "go1.26.8")
	assertHas(t, html, "simrun -scenario scenarios/leader-crash.yaml -seeds 200")

	// Every algorithm's row carries its numbers.
	for _, a := range s.Algorithms {
		f := a.FailoverMs
		n := fmt.Sprint(f.Count)
		if a.FailoversNever > 0 {
			n = fmt.Sprintf("%d, %d never", f.Count, a.FailoversNever) // never-recovered failovers are counted, not hidden
		}
		row := fmt.Sprintf("<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>", n, fmtNum(f.P50), fmtNum(f.P90), fmtNum(f.P99), fmtNum(f.Max))
		assertHas(t, html, row, a.Algorithm)
		assertHas(t, html, fmt.Sprintf("<td>%.2f</td>", a.MessagesPerFailover))
		assertHas(t, html, fmt.Sprintf("<td>%.2f</td>", a.ElectionsPerFailover))
		assertHas(t, html, fmtNum(a.LeaderlessMs.Mean))
	}
	bully := s.Algorithms[1]
	require.Equal(t, "bully", bully.Algorithm)
	require.Equal(t, 3, bully.Violations["double_execution"]) // seeds 3, 100, 197
	assertHas(t, html, "double_execution <b>3</b>")
	assertHas(t, html, "197 (98.5%)")
	assertHas(t, html, ">"+fmtRate(bully.DoubleExecutionRate)+"<")
	assert.Equal(t, "1.5%", fmtRate(bully.DoubleExecutionRate))

	// Plots are embedded, with links to their files.
	assert.Equal(t, 4, strings.Count(html, `<img src="data:image/png;base64,`))
	assertHas(t, html, `<a href="timeline.svg">SVG</a>`)
	// Nothing else is loaded from outside the file.
	assert.False(t, regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(html), "external resource")
	assertHasNot(t, html, "<link")

	// Violations, failing runs, shrink, matrix, porcupine.
	assertHas(t, html, "double_execution</span> — 3 findings in 3 runs")
	assertHas(t, html, "simrun -scenario scenarios/leader-crash.yaml -algorithm bully -seed 100")
	assertHas(t, html, `<li class="verdict">→ double execution</li>`)
	assertHas(t, html, `<li>t=30.100s n1 started a run of job0@2 with token 3</li>`)
	assertHas(t, html, "unexpected double_execution: job0@2 applied twice")
	assertHas(t, html, "out/repro.yaml")
	assertHas(t, html, `<table class="m"><tr><td>raft × leader-crash</td></tr></table>`)
	assertHas(t, html, `<a href="porcupine/seed3.html">seed 3 resource</a>`)
	assertHas(t, html, "3 of 400 runs failed")

	// Only report.html was added to the plots, and no temporaries remain.
	assert.Len(t, dirNames(t, dir), 9)
}

// Explanations, commands and labels come from scenario files and traces:
// they are escaped, and unsafe URLs neutralised.
func TestWriteHTMLEscapes(t *testing.T) {
	s := synthSummary(1, 3, "raft")
	s.Scenario.Description = `<img src=x onerror=alert(1)>`
	s.Runs[0].OK = false
	s.Runs[0].Problems = []string{`<b>bold</b>`}
	s.Runs[0].Violations = append(s.Runs[0].Violations, ViolationSummary{Kind: "stale_write", AtMs: 1500,
		Explanation: `t=1s n0 wrote "<script>alert('x')</script>" · ok → bad & worse`,
		Replay:      `simrun -seed 1 '</code><script>alert(2)</script>'`})
	s.Aggregate()
	html, _ := writeReport(t, s, nil, HTMLExtras{Title: `Report <script>alert(3)</script>`,
		Porcupine: []Link{{Label: "<i>x</i>", Href: "javascript:alert(4)"}}})
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>bold</b>", "<i>x</i>", "javascript:alert"} {
		assertHasNot(t, html, bad)
	}
	assertHas(t, html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
	assertHas(t, html, "→ bad &amp; worse")
	assertHas(t, html, "&lt;/code&gt;&lt;script&gt;alert(2)&lt;/script&gt;")
	assertHas(t, html, "<title>Report &lt;script&gt;alert(3)&lt;/script&gt;</title>")
	assertHas(t, html, `href="#ZgotmplZ"`)
	assert.Equal(t, 1, strings.Count(html, "<script>"), "only the report's own copy-button script")
}

// At most maxViolationsPerKind findings of a check are shown, those of
// failing runs first; the report says how many more there are. Groups with
// findings in failing runs are unfolded; expected and harmless ones folded,
// harmless after harmful, checks in the checker's order.
func TestWriteHTMLCapsViolations(t *testing.T) {
	s := synthSummary(1, 3, "raft")
	for i := range 70 {
		s.Runs[0].Violations = append(s.Runs[0].Violations, ViolationSummary{Kind: "liveness", AtMs: float64(i), Explanation: fmt.Sprintf("finding %d", i)})
	}
	s.Runs[2].OK = false
	s.Runs[2].Violations = append(s.Runs[2].Violations, ViolationSummary{Kind: "liveness", Explanation: "the failing one"})
	s.Runs[1].Violations = append(s.Runs[1].Violations, ViolationSummary{Kind: "split_brain", Harmless: true, Explanation: "harmless one"},
		ViolationSummary{Kind: "election_safety", Explanation: "two leaders in epoch 3"})
	s.Aggregate()
	html, _ := writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, "finding 48<")
	assertHasNot(t, html, "finding 49<", "the failing run's finding comes first and takes a place")
	assert.Less(t, strings.Index(html, "the failing one"), strings.Index(html, "finding 0<"))
	assertHas(t, html, "… and 21 more liveness findings not shown")
	assertHas(t, html, `liveness</span> — 71 findings in 2 runs <span class="tag bad">1 in failing runs</span></summary>`)
	assertHas(t, html, `election_safety</span> — 1 finding in 1 run <span class="tag">expected: all in runs that met the scenario's expectations</span></summary>`)
	assertHas(t, html, `split_brain</span> <span class="tag">harmless</span> — 1 finding in 1 run</summary>`)
	es := strings.Index(html, ">election_safety</span> —")
	lv := strings.Index(html, ">liveness</span> —")
	sb := strings.Index(html, `>split_brain</span> <span class="tag">harmless</span>`)
	require.True(t, es > 0 && lv > 0 && sb > 0)
	assert.True(t, es < lv && lv < sb, "checker order, harmless last")
	assertHas(t, html, `<details id="v-0" class="group">`, "expected findings start folded")
	assertHas(t, html, `<details id="v-1" class="group" open>`, "findings in failing runs start unfolded")
	assertHas(t, html, `<details id="v-2" class="group harmless">`)
	assertHas(t, html, `<span class="tag bad">run failed</span>`)
}

// The report's heading counts harmful findings as violations and harmless
// ones apart: a sweep whose findings are all harmless split-brains has no
// violations. The old heading said "Violations (N)" of them all.
func TestWriteHTMLSeparatesHarmlessFindings(t *testing.T) {
	s := synthSummary(1, 100, "raft") // seeds 5, 28, 51, 74 and 97: one harmless split_brain each
	html, _ := writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, `<a href="#violations">Violations (0) · harmless findings (5)</a>`)
	assertHas(t, html, `<h2>Violations and harmless findings</h2>`)

	s.Runs[0].Violations = append(s.Runs[0].Violations, ViolationSummary{Kind: "election_safety", Explanation: "two leaders in epoch 3"})
	s.Runs = append([]RunSummary(nil), s.Runs...)
	s.Aggregate()
	html, _ = writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, `<a href="#violations">Violations (1) · harmless findings (5)</a>`)

	none := synthSummary(1, 3, "raft")
	html, _ = writeReport(t, none, nil, HTMLExtras{})
	assertHas(t, html, `<a href="#violations">Violations (0)</a>`)
	assertHas(t, html, `<h2>Violations</h2>`)
}

func TestWriteHTMLNoRuns(t *testing.T) {
	s := &Summary{Schema: Schema, Scenario: ScenarioInfo{Name: "empty"}}
	html, _ := writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, "No runs.")
	assertHas(t, html, "No check found a violation in any run.")
}

func TestWriteHTMLErrors(t *testing.T) {
	dir := t.TempDir()
	assert.Error(t, WriteHTML(filepath.Join(dir, "r.html"), nil, nil, dir, HTMLExtras{}))
	// A plot that is not in dir.
	err := WriteHTML(filepath.Join(dir, "r.html"), handSummary(), []Plot{{Name: "x", PNG: "x.png", SVG: "x.svg"}}, dir, HTMLExtras{})
	assert.Error(t, err)
	assert.Empty(t, dirNames(t, dir), "nothing written on error")
}

func TestStoryLines(t *testing.T) {
	assert.Equal(t, []string{"t=1s a", "t=2s b", "→ verdict"}, storyLines("t=1s a · t=2s b → verdict"))
	assert.Equal(t, []string{"just text"}, storyLines("just text"))
}

func TestFormatting(t *testing.T) {
	assert.Equal(t, "29%", fmtRate(0.29))
	assert.Equal(t, "4.4%", fmtRate(0.044))
	assert.Equal(t, "0%", fmtRate(0))
	assert.Equal(t, "240.6", fmtNum(240.6))
	assert.Equal(t, "194", fmtNum(194))
	assert.Equal(t, "1235", fmtNum(1234.6))
	assert.Equal(t, "12.3", fmtSec(12300))
	assert.Equal(t, "60", fmtSec(60000))
	assert.Equal(t, "1 … 1000 (1000 seeds)", seedsText(SeedRange{First: 1, Count: 1000}))
}

// A violation of a run the sweep did not re-run with its story has no
// narrative: the report shows its one-line finding instead of nothing.
func TestWriteHTMLDetailsWithoutStory(t *testing.T) {
	s := synthSummary(1, 3, "raft")
	s.Runs[1].OK = false
	s.Runs[1].Violations = append(s.Runs[1].Violations, ViolationSummary{Kind: "double_execution", AtMs: 2500,
		Details: "report@2026-11-21T02:00:00Z was applied from 2 runs"})
	s.Aggregate()
	html, _ := writeReport(t, s, nil, HTMLExtras{})
	assertHas(t, html, "report@2026-11-21T02:00:00Z was applied from 2 runs")
}
