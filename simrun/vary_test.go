package simrun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
)

const leaderCrash = "../scenarios/leader-crash.yaml"

// A two-dimensional -vary over a 3×3 grid: nine groups in the summary,
// each with its cell's values, the grid recorded, the heat table printed
// with Wilson intervals, the heatmap drawn and the report's table written.
func TestVaryTwoDimensions(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	code, out, e := simrun(t, "-scenario", partition, "-seeds", "4", "-out", dir, "-shrink=false",
		"-vary", "algorithm.election_timeout=150ms..151ms,150ms..175ms,150ms..300ms",
		"-vary", "network.latency=1ms..2ms,1ms..10ms,1ms..50ms", "-heat", "split_brain")
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	s := readSummary(t, filepath.Join(dir, "summary.json"))
	require.NotNil(t, s.Grid)
	require.Len(t, s.Grid.Dims, 2)
	assert.Equal(t, "algorithm.election_timeout", s.Grid.Dims[0].Path)
	assert.Equal(t, []string{"1ms..2ms", "1ms..10ms", "1ms..50ms"}, s.Grid.Dims[1].Values)
	assert.Equal(t, "split_brain", s.Grid.Heat)
	require.Len(t, s.Algorithms, 9)
	assert.Len(t, s.Runs, 36)
	seen := map[string]bool{}
	for _, a := range s.Algorithms {
		require.Len(t, a.Vary, 2)
		assert.Equal(t, 4, a.Runs, a.Group)
		assert.Equal(t, "election_timeout="+a.Vary[0]+", latency="+a.Vary[1], a.Group)
		seen[a.Group] = true
	}
	assert.Len(t, seen, 9)
	assert.Len(t, s.HeatCells(), 9)
	assert.Contains(t, out, "split_brain by algorithm.election_timeout (rows) × network.latency (columns), with Wilson 95% intervals")
	assert.Contains(t, out, "failover latency (ms) per value")
	for _, f := range []string{"heatmap.png", "heatmap.svg", "failover_cdf.png"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<table class="heat">`)
	assert.Equal(t, 3, strings.Count(string(html), `<tr><th class="l">150ms..`), "three rows of the heat table")
	// Failing runs print the replay command with their cell's values.
	if code == exitViolation {
		assert.Regexp(t, `replay: simrun -scenario \S+ -set algorithm.election_timeout=\S+ -set network.latency=\S+ -seed \d+`, out)
	}
}

// -vary composes with -algo (a group per algorithm and value), -set (kept
// beside the values) and -shard/merge (the merged grid equals the
// unsharded one).
func TestVaryComposes(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	seeds := "6"
	if raceEnabled {
		seeds = "2" // each shard still runs every group
	}
	args := []string{"-scenario", leaderCrash, "-seeds", seeds, "-algo", "raft,bully", "-set", "network.latency=2ms..4ms",
		"-vary", "cron.jobs[0].duration=100ms,200ms", "-shrink=false", "-quiet"}
	code, _, e := simrun(t, append(args, "-out", filepath.Join(dir, "all"))...)
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	whole := readSummary(t, filepath.Join(dir, "all", "summary.json"))
	var groups []string
	for _, a := range whole.Algorithms {
		groups = append(groups, a.Group)
	}
	assert.Equal(t, []string{"raft · duration=100ms", "bully · duration=100ms", "raft · duration=200ms", "bully · duration=200ms"}, groups)
	assert.Equal(t, []string{"network.latency=2ms..4ms"}, whole.Config.Sets)
	assert.Equal(t, []string{"cron.jobs[0].duration=100ms,200ms"}, whole.Config.Vary)

	var parts []string
	for i := 0; i < 2; i++ {
		p := filepath.Join(dir, "shard"+string(rune('0'+i)))
		c, _, e := simrun(t, append(args, "-shard", string(rune('0'+i))+"/2", "-out", p)...)
		require.Contains(t, []int{exitOK, exitViolation}, c, e)
		parts = append(parts, p)
	}
	c, _, e := simrun(t, append([]string{"merge", "-quiet", "-out", filepath.Join(dir, "merged")}, parts...)...)
	require.Equal(t, code, c, e)
	merged := readSummary(t, filepath.Join(dir, "merged", "summary.json"))
	merged.GoVersion = whole.GoVersion
	// Which failing runs carry an explanation depends on which each
	// invocation printed (docs/output.md); the rest must be equal.
	for _, s := range []*reports.Summary{whole, merged} {
		for i := range s.Runs {
			for j := range s.Runs[i].Violations {
				s.Runs[i].Violations[j].Explanation = ""
			}
		}
	}
	assert.Equal(t, canonical(t, whole), canonical(t, merged))
}

// The failover CDF has one line per value: the groups the plots draw are
// the grid's cells, in order.
func TestVaryCDFHasOneLinePerValue(t *testing.T) {
	dir := t.TempDir()
	values := []string{"150ms..151ms", "150ms..155ms", "150ms..175ms", "150ms..300ms"}
	code, _, e := simrun(t, "-scenario", leaderCrash, "-seeds", "3", "-out", dir, "-shrink=false", "-quiet",
		"-vary", "algorithm.election_timeout="+strings.Join(values, ","))
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	s := readSummary(t, filepath.Join(dir, "summary.json"))
	lines := reports.CDFLines(s)
	require.Len(t, lines, len(values))
	for i, v := range values {
		assert.Equal(t, "election_timeout="+v, lines[i])
	}
}

// Bad -vary input is a usage error naming what is wrong, before any run.
func TestVaryBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-vary", "algorithm.election_timeout"}, "want PATH=V1,V2"},
		{[]string{"-vary", "algorithm.election_timeout=150ms..300ms"}, "at least two values"},
		{[]string{"-vary", "algorithm.heartbeat=50ms,50ms"}, "given twice"},
		{[]string{"-vary", "algorithm.heartbeat=50ms,"}, "value 2 is empty"},
		{[]string{"-vary", "a=1,2", "-vary", "b=1,2", "-vary", "c=1,2"}, "at most 2"},
		{[]string{"-vary", "algorithm.heartbeat=50ms,60ms", "-vary", "algorithm.heartbeat=1ms,2ms"}, "given twice"},
		{[]string{"-vary", "algorithm.heartbeat=50ms,fast"}, "heartbeat=fast"},
		{[]string{"-vary", "algorithm.heartbeat=50ms,60ms", "-heat", "nonsense"}, "-heat"},
		{[]string{"-vary", "duration=" + valueList("%ds", 20, 32), "-vary", "network.drop=" + valueList("0.%03d", 0, 32), "-algo", "raft,bully"},
			"1024 grid cells × 2 algorithms is 2048 groups, more than 1024 (MaxGroups)"},
	} {
		code, _, e := simrun(t, append([]string{"-scenario", leaderCrash, "-out", filepath.Join(dir, "o")}, tc.args...)...)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, e, tc.want, "%v", tc.args)
		_, err := os.Stat(filepath.Join(dir, "o"))
		assert.True(t, os.IsNotExist(err), "%v: nothing written", tc.args)
	}
	code, _, e := simrun(t, "-matrix", "../scenarios/matrix.yaml", "-vary", "a=1,2")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, e, "does not combine with -matrix")
}

// valueList is n values format(from), format(from+1), … joined by commas.
func valueList(format string, from, n int) string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprintf(format, from+i)
	}
	return strings.Join(vs, ",")
}

func TestSplitTopLevel(t *testing.T) {
	assert.Equal(t, []string{"[a, b]", "{x: 1, y: 2}", "'p,q'", "3"}, splitTopLevel("[a, b], {x: 1, y: 2}, 'p,q', 3"))
}

// BenchmarkVarySweepReports measures the acceptance ratio of a parameter
// sweep: six election-timeout ranges × VARY_BENCH_SEEDS seeds (default
// 1,000) of leader-crash.yaml, bare (the runs only) against simrun with
// every output (summary, plots with the CDF family, report, the featured
// run again; no shrinking). It reports both times and their ratio
// (target ≤ 1.2).
//
//	go test ./simrun -run '^$' -bench VarySweepReports -benchtime 1x
func BenchmarkVarySweepReports(b *testing.B) {
	seeds := 1000
	if v := os.Getenv("VARY_BENCH_SEEDS"); v != "" {
		_, err := fmt.Sscan(v, &seeds)
		require.NoError(b, err)
	}
	vary := "algorithm.election_timeout=150ms..151ms,150ms..155ms,150ms..175ms,150ms..200ms,150ms..300ms,150ms..350ms"
	o, err := parseOptions([]string{"-scenario", leaderCrash, "-seeds", strconv.Itoa(seeds), "-vary", vary, "-workers", "2"}, io.Discard)
	require.NoError(b, err)
	scs, err := loadCells(o, o.cells)
	require.NoError(b, err)
	var bare, full time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		jobs := sweepJobs([]string{"raft"}, 1, seeds, 0, 1).inCells(len(o.cells))
		res := runSweep(scs, jobs, 2, false, 0, newProgress(io.Discard, jobs.len(), true), nil, nil)
		require.Empty(b, res.errs)
		bare += time.Since(start)

		dir := b.TempDir()
		start = time.Now()
		var out, errb bytes.Buffer
		code := run([]string{"-scenario", leaderCrash, "-seeds", strconv.Itoa(seeds), "-vary", vary, "-workers", "2", "-shrink=false", "-quiet", "-out", filepath.Join(dir, "o")}, &out, &errb)
		require.Contains(b, []int{exitOK, exitViolation}, code, errb.String())
		full += time.Since(start)
	}
	b.ReportMetric(bare.Seconds()/float64(b.N), "bare-s")
	b.ReportMetric(full.Seconds()/float64(b.N), "with-reports-s")
	b.ReportMetric(full.Seconds()/bare.Seconds(), "ratio")
}

// simrun margin's progress counts what the study judges, runs whose
// overlap passed the bound, not runs failing the scenario's own
// expectations: the old progress said "N failing runs" and the study then
// exited 0. Those are named apart, as not the study's verdict.
func TestMarginProgressCountsTheVerdict(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"margin", "-scenario", "../scenarios/fast-clock-follower.yaml", "-rate", "faults[0].clock.rate",
		"-rates", "1.0,2.0", "-seeds", "20", "-workers", "1", "-out", t.TempDir()}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	assert.Contains(t, errb.String(), "40/40 runs (100%)")
	assert.Contains(t, errb.String(), ", no run past the bound\n")
	assert.NotContains(t, errb.String(), "failing run")
	assert.Regexp(t, `simrun margin: \d+ runs of 40 did not meet the scenario's own expectations; the study judges only overlaps against the bound`, errb.String())
}

// simrun margin writes the study (table with the formula and its sources,
// the figure) and exits 0 when no simulated overlap exceeds the bound; it
// refuses an algorithm without a drift margin and bad rates.
func TestMarginCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"margin", "-scenario", "../scenarios/fast-clock-follower.yaml", "-rate", "faults[0].clock.rate",
		"-rates", "1.0,1.4,2.0", "-seeds", "20", "-out", dir}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	assert.Contains(t, out.String(), "Safe while r ≤ 1.249")
	assert.Contains(t, out.String(), "leaderelection.go renew")
	md, err := os.ReadFile(filepath.Join(dir, "margin.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| 2 | 4507 ms | 20 of 20 (100%)")
	for _, f := range []string{"margin.png", "margin.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", partition, "-rate", "network.drop", "-rates", "0.1,0.2"}, "no analytic drift margin"},
		{[]string{"-scenario", partition, "-rate", "faults[0].for"}, `-rates: for=1.0: -set:1:15: faults[0].for: "1.0" is not a duration`},
		{[]string{"-scenario", "../scenarios/fast-clock-follower.yaml", "-rate", "faults[0].clock.rate", "-rates", "1.0,fast"}, `"fast" is not a clock rate`},
		{[]string{"-scenario", "../scenarios/fast-clock-follower.yaml", "-rate", "faults[0].clock.rate", "-rates", "2.0,1.0"}, "increasing order"},
		{[]string{"-scenario", "../scenarios/fast-clock-follower.yaml"}, "-rate PATH is required"},
	} {
		errb.Reset()
		code := run(append([]string{"margin", "-out", filepath.Join(dir, "x")}, tc.args...), &out, &errb)
		assert.Equal(t, exitUsage, code, "%v", tc.args)
		assert.Contains(t, errb.String(), tc.want)
	}
}
