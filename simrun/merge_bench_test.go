package simrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

// writeShards writes shards shard folders of a sweep of shards×perShard
// seeds of partition.yaml as simrun -shard i/n would (summary.json and
// runs.jsonl.gz), from one real run whose seed and latencies are varied
// per seed: the files have real runs' size and shape without running a
// million seeds.
func writeShards(tb testing.TB, dir string, shards, perShard int) []string {
	sc, err := scenario.Load(partition)
	require.NoError(tb, err)
	r, err := sc.Run(scenario.RunOptions{Seed: 1})
	require.NoError(tb, err)
	tmpl := summarize(r)
	seeds := shards * perShard
	var dirs []string
	for i := 0; i < shards; i++ {
		col := reports.NewCollector(perShard <= reports.KeepAllRuns)
		d := filepath.Join(dir, fmt.Sprintf("shard%03d", i))
		require.NoError(tb, os.MkdirAll(d, 0o755))
		f, err := os.Create(filepath.Join(d, reports.RunsFileName))
		require.NoError(tb, err)
		w := reports.NewRunsWriter(f, true)
		for k := i; k < seeds; k += shards {
			run := tmpl
			run.Seed = uint64(1 + k)
			run.Failovers = append([]reports.FailoverSummary(nil), tmpl.Failovers...)
			lat := 120 + float64((k*7919)%400000)/1000
			run.Failovers[0].LatencyMs = reports.Ms(lat)
			run.LeaderlessMs = lat + 12
			line, err := reports.EncodeRun(&run)
			require.NoError(tb, err)
			require.NoError(tb, w.WriteLine(line))
			col.Add(0, run)
		}
		require.NoError(tb, w.Close())
		require.NoError(tb, f.Close())
		s := &reports.Summary{Schema: reports.Schema, Scenario: scenarioInfo(sc), Seeds: reports.SeedRange{First: 1, Count: seeds},
			Shard: &reports.Shard{Index: i, Count: shards}, Config: &reports.Config{ScenarioSHA256: sc.SourceSHA256, Algorithms: []string{"raft"}},
			Algorithms: col.Groups(), Runs: col.Kept(), RunsKept: col.KeptMode(), RunsFile: reports.RunsFileName}
		require.NoError(tb, writeSummaryFile(d, s))
		dirs = append(dirs, d)
	}
	return dirs
}

// BenchmarkMerge100Shards merges 100 shards of MERGE_BENCH_RUNS runs each
// (default 1,000; the target is 10,000: a million runs) with simrun merge,
// runs files included, and reports the memory the process obtained from
// the system (sys-MB, an upper bound of the Go heap's resident size).
func BenchmarkMerge100Shards(b *testing.B) {
	per := 1000
	if v := os.Getenv("MERGE_BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err)
		per = n
	}
	dirs := writeShards(b, b.TempDir(), 100, per)
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "merged")
		code := runMerge(append([]string{"-quiet", "-out", out}, dirs...), io.Discard, io.Discard)
		require.Equal(b, exitOK, code)
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
	b.ReportMetric(float64(100*per*b.N)/b.Elapsed().Seconds(), "runs/s")
}

// Merging synthetic shards gives one runs file with every run in order and
// a summary counting them all.
func TestMergeShardsWithRunsFiles(t *testing.T) {
	dirs := writeShards(t, t.TempDir(), 7, 40)
	out := filepath.Join(t.TempDir(), "m")
	code := runMerge(append([]string{"-quiet", "-out", out}, dirs...), io.Discard, io.Discard)
	require.Equal(t, exitOK, code)
	s := readSummary(t, filepath.Join(out, "summary.json"))
	require.Equal(t, 280, s.Algorithms[0].Runs)
	require.Equal(t, reports.SeedRange{First: 1, Count: 280}, s.Seeds)
	require.Equal(t, 280, runsFileLines(t, filepath.Join(out, reports.RunsFileName)))
	require.Equal(t, reports.KeptNotable, s.RunsKept)
	require.Equal(t, reports.RunsFileName, s.RunsFile)

	// -runs=false merges the aggregates only: the same numbers, no runs file.
	agg := filepath.Join(t.TempDir(), "agg")
	code = runMerge(append([]string{"-quiet", "-runs=false", "-out", agg}, dirs...), io.Discard, io.Discard)
	require.Equal(t, exitOK, code)
	sa := readSummary(t, filepath.Join(agg, "summary.json"))
	require.Equal(t, s.Algorithms, sa.Algorithms)
	require.Empty(t, sa.RunsFile)
	require.NoFileExists(t, filepath.Join(agg, reports.RunsFileName))

	// A shard missing is refused, naming it; nothing is written.
	bad := filepath.Join(t.TempDir(), "bad")
	errb := &strings.Builder{}
	code = runMerge(append([]string{"-quiet", "-out", bad}, dirs[1:]...), io.Discard, errb)
	require.Equal(t, exitUsage, code)
	require.Contains(t, errb.String(), "shard 0 of 7 is missing")
	require.NoDirExists(t, bad)
}
