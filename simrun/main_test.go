package simrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	_ "github.com/electsim/electsim/algorithms/builtin" // the tests run electsim's own algorithms
	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/scenario"
)

func TestMain(m *testing.M) {
	// The hostile-input tests run simrun as a child process (to measure its
	// memory and time): this test binary, told by the environment to be
	// simrun.
	if os.Getenv("SIMRUN_AS_MAIN") == "1" {
		// This binary is simrun now, and decides as simrun does: an
		// algorithm not built in is swept in worker processes, a hunt
		// always hunts in them (isolation.go), -isolate=false aside.
		inTestBinary = func() bool { return false }
		if err := applyChildMemLimit(); err != nil {
			fmt.Fprintln(os.Stderr, "simrun test child:", err)
			os.Exit(2)
		}
		if mb := os.Getenv(envAllocMB); mb != "" {
			os.Exit(allocate(mb)) // TestChildMemoryLimitIsEnforced
		}
		os.Exit(MainNamed("simrun", os.Args[1:], os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

const partition = "../scenarios/partition.yaml"

// simrun runs the command in-process and returns its exit status and output.
func simrun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func readSummary(t *testing.T, path string) *reports.Summary {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := reports.ReadJSON(f)
	require.NoError(t, err)
	return s
}

// canonical is a summary's JSON without its timing (the only part allowed to
// differ between identical sweeps) and without the shard marker.
func canonical(t *testing.T, s *reports.Summary) string {
	t.Helper()
	c := *s
	c.Timing, c.Shard = nil, nil
	var b bytes.Buffer
	require.NoError(t, reports.WriteJSON(&b, &c))
	return b.String()
}

func TestExitCodes(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	code, out, _ := simrun(t, "-scenario", partition, "-out", filepath.Join(dir, "ok"))
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "every run met the scenario's expectations")

	// An expected violation that does not occur fails the run (exit 1).
	code, out, _ = simrun(t, "-scenario", partition, "-set", "expect.violations=[double_execution]", "-shrink=false", "-out", filepath.Join(dir, "missing"))
	assert.Equal(t, exitViolation, code)
	assert.Contains(t, out, "double_execution was expected to occur but did not")

	for _, args := range [][]string{
		{},                                 // no scenario
		{"-scenario", "no/such/file.yaml"}, // unreadable
		{"-scenario", partition, "-seeds", "0"},
		{"-scenario", partition, "-algo", "paxos"},
		{"-scenario", partition, "-shard", "3/3"},
		{"-scenario", partition, "extra"},
		{"-scenario", partition, "-set", "cluster.nodes=zero"},
	} {
		code, _, errOut := simrun(t, append(args, "-out", filepath.Join(dir, "bad"))...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errOut)
		assert.NotEmpty(t, errOut, "%v", args)
	}
	_, err := os.Stat(filepath.Join(dir, "bad"))
	assert.True(t, os.IsNotExist(err), "bad input writes nothing")
}

// -set values are validated exactly like the file and reported with their
// position in the argument.
func TestSetValidation(t *testing.T) {
	code, _, errOut := simrun(t, "-scenario", partition, "-set", "algorithm.election_timeout=300ms..150ms", "-out", t.TempDir())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-set:1:")
	assert.Contains(t, errOut, "algorithm.election_timeout")
	assert.Contains(t, errOut, "min > max")

	code, _, errOut = simrun(t, "-scenario", partition, "-set", "algorithm.heartbeet=10ms", "-out", t.TempDir())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `did you mean "heartbeat"`)

	dir := t.TempDir()
	code, _, errOut = simrun(t, "-scenario", partition, "-set", "algorithm.election_timeout=150ms..155ms", "-set", "cluster.nodes=3", "-out", dir, "-quiet")
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, 3, readSummary(t, filepath.Join(dir, "summary.json")).Scenario.Nodes)
}

// A sweep split into shards and merged equals the unsharded sweep, apart
// from timing.
func TestShardMergeEqualsUnsharded(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	args := []string{"-scenario", partition, "-seed", "5", "-seeds", "7", "-algo", "raft,bully", "-quiet", "-shrink=false"}
	code, _, e := simrun(t, append(args, "-out", filepath.Join(dir, "all"))...)
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	shards := 3
	if raceEnabled {
		shards = 2 // one invocation fewer under the race detector
	}
	var parts []string
	for i := 0; i < shards; i++ {
		p := filepath.Join(dir, "shard", string(rune('0'+i)))
		code, _, e := simrun(t, append(args, "-shard", fmt.Sprintf("%d/%d", i, shards), "-out", p)...)
		require.Contains(t, []int{exitOK, exitViolation}, code, e)
		parts = append(parts, p)
	}
	mcode, out, e := simrun(t, append([]string{"merge", "-out", filepath.Join(dir, "merged")}, parts...)...)
	require.Contains(t, []int{exitOK, exitViolation}, mcode, e)
	assert.Equal(t, code, mcode, "merge exits like the unsharded sweep")
	assert.Contains(t, out, fmt.Sprintf("merged %d shard(s)", shards))
	all := readSummary(t, filepath.Join(dir, "all", "summary.json"))
	merged := readSummary(t, filepath.Join(dir, "merged", "summary.json"))
	assert.Len(t, merged.Runs, 14)
	assert.Equal(t, canonical(t, all), canonical(t, merged))
}

// A sweep with more notable runs than a summary keeps (MaxKeptRuns), split
// into shards that each keep all of theirs and merged, keeps the same runs
// as the unsharded sweep: the first notable ones in seed order. The old
// merge kept the first ones it read (shard 0's seeds 1, 3, …, 199).
func TestShardMergeKeepsTheSameNotableRuns(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	args := []string{"-scenario", partition, "-seeds", "300", "-quiet", "-shrink=false", "-set", "expect.failover_under=1ms"}
	code, _, e := simrun(t, append(args, "-out", filepath.Join(dir, "all"))...)
	require.Equal(t, exitViolation, code, e)
	var parts []string
	for _, i := range []string{"0", "1"} {
		p := filepath.Join(dir, "shard"+i)
		code, _, e := simrun(t, append(args, "-shard", i+"/2", "-out", p)...)
		require.Equal(t, exitViolation, code, e)
		require.Equal(t, reports.KeptAll, readSummary(t, filepath.Join(p, "summary.json")).RunsKept)
		parts = append(parts, p)
	}
	code, _, e = simrun(t, append([]string{"merge", "-quiet", "-out", filepath.Join(dir, "merged")}, parts...)...)
	require.Equal(t, exitViolation, code, e)
	all := readSummary(t, filepath.Join(dir, "all", "summary.json"))
	merged := readSummary(t, filepath.Join(dir, "merged", "summary.json"))
	require.Equal(t, reports.KeptNotable, all.RunsKept)
	require.Len(t, all.Runs, reports.MaxKeptRuns)
	assert.Equal(t, uint64(reports.MaxKeptRuns), all.Runs[len(all.Runs)-1].Seed, "every run fails: seeds 1 to 100 are kept")
	assert.Equal(t, canonical(t, all), canonical(t, merged))
}

// Two identical sweeps write the same JSON apart from timing, whatever the
// number of workers.
func TestJSONDeterministic(t *testing.T) {
	dir := t.TempDir()
	var got []string
	workers := []string{"1", "2", "2"}
	if raceEnabled {
		workers = workers[:2] // the repeat only without the race detector
	}
	for i, w := range workers {
		p := filepath.Join(dir, string(rune('a'+i)))
		code, _, e := simrun(t, "-scenario", "../scenarios/swarm.yaml", "-seeds", "6", "-workers", w, "-quiet", "-shrink=false", "-out", p, "-json", p+".json")
		require.Contains(t, []int{exitOK, exitViolation}, code, e)
		got = append(got, canonical(t, readSummary(t, p+".json")))
	}
	for _, g := range got[1:] {
		assert.Equal(t, got[0], g)
	}
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(got[0]), &raw))
	for _, k := range []string{"schema", "scenario", "go_version", "seeds", "algorithms", "runs"} {
		assert.Contains(t, raw, k)
	}
}

// -materialize writes the explicit scenario a seed runs; running that file
// gives the original seed's trace hash.
func TestMaterializeRoundTrip(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "swarm-7.yaml")
	code, out, e := simrun(t, "-scenario", "../scenarios/swarm.yaml", "-seed", "7", "-materialize", file)
	require.Equal(t, exitOK, code, e)
	assert.Contains(t, out, "explicit fault(s)")
	orig := filepath.Join(dir, "orig")
	simrun(t, "-scenario", "../scenarios/swarm.yaml", "-seed", "7", "-quiet", "-shrink=false", "-out", orig)
	mat := filepath.Join(dir, "mat")
	simrun(t, "-scenario", file, "-quiet", "-shrink=false", "-out", mat)
	a, b := readSummary(t, filepath.Join(orig, "summary.json")), readSummary(t, filepath.Join(mat, "summary.json"))
	require.Len(t, a.Runs, 1)
	require.Len(t, b.Runs, 1)
	assert.Equal(t, a.Runs[0].TraceHash, b.Runs[0].TraceHash)
	sc, err := scenario.Load(file)
	require.NoError(t, err)
	assert.Empty(t, sc.Nemeses, "every random fault is explicit")
	assert.Equal(t, "swarm-seed7", sc.Name, "its results go to out/swarm-seed7/, not the sweep's folder")
}

// A failing run is shrunk to repro.yaml, which replays the failure: bully
// with an answer timeout below a round trip (outside its contract's
// synchronous model, so its split-brain is judged by expect alone).
func TestShrinkWritesRepro(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, e := simrun(t, "-scenario", "../scenarios/bully-partition.yaml", "-set", "expect.violations=[]", "-set", "expect.allow=[]",
		"-set", "algorithm.answer_timeout=1ms", "-out", out, "-shrink-time", "20s")
	require.Equal(t, exitViolation, code, e)
	assert.Contains(t, stdout, "repro.yaml")
	repro := filepath.Join(out, "repro.yaml")
	sc, err := scenario.Load(repro)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(sc.Faults), 1)
	assert.Equal(t, "bully-partition-repro", sc.Name, "its results go to out/bully-partition-repro/, not the sweep's folder")
	code, _, e = simrun(t, "-scenario", repro, "-quiet", "-shrink=false", "-out", filepath.Join(dir, "again"))
	assert.Equal(t, exitViolation, code, e)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "repro.yaml")
}

// A sweep failing only because an expected finding never occurred is not
// shrunk (the old shrink ended at a meaningless one-node, no-fault
// repro.yaml); simrun says in how many runs the finding occurred.
func TestShrinkSkipsMissingExpectedFinding(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, e := simrun(t, "-scenario", partition, "-seeds", "5", "-set", "expect.violations=[double_execution]", "-out", out)
	require.Equal(t, exitViolation, code, e)
	assert.Contains(t, e, "simrun: not shrunk: double_execution, which the scenario expects, occurred in 0 of 5 runs under raft; a missing finding has no smaller reproduction")
	assert.NotContains(t, e, "shrinking seed")
	assert.NoFileExists(t, filepath.Join(out, "repro.yaml"))
}

func TestMatrix(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m.yaml")
	abs, err := filepath.Abs("../scenarios")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(m, []byte("name: tiny\nseeds: 2\nalgorithms: [raft, bully]\nscenarios: ["+
		filepath.Join(abs, "leader-crash.yaml")+", "+filepath.Join(abs, "bully-partition.yaml")+"]\n"), 0o644))
	// bully-partition.yaml expects bully's split-brain, so raft fails it
	// there: a failing cell makes the matrix exit 1, like a scenario.
	code, out, e := simrun(t, "-matrix", m, "-out", filepath.Join(dir, "out"))
	require.Equal(t, exitViolation, code, e)
	assert.Contains(t, out, "| raft |")
	assert.Contains(t, out, "| bully |")
	for _, f := range []string{"matrix.md", "matrix.html"} {
		b, err := os.ReadFile(filepath.Join(dir, "out", f))
		require.NoError(t, err)
		assert.True(t, strings.Contains(string(b), "leader-crash"), f)
	}
	// The HTML explains its cells and links each failing cell to the replay
	// command of its first failing run.
	page, err := os.ReadFile(filepath.Join(dir, "out", "matrix.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<dt>runs failing expect</dt>`)
	assert.Contains(t, string(page), `<dt>—</dt>`)
	assert.Regexp(t, `<td class="bad"><a href="#replay-1-0" title="simrun -scenario [^"]*bully-partition.yaml -seed \d+ -algo raft">`, string(page))
	assert.Regexp(t, `<li id="replay-1-0">raft, first failing run: <code>simrun -scenario \S+ -seed \d+ -algo raft</code></li>`, string(page))
	// Every cell passing: exit 0.
	require.NoError(t, os.WriteFile(m, []byte("name: tiny\nseeds: 2\nalgorithms: [raft]\nscenarios: ["+filepath.Join(abs, "leader-crash.yaml")+"]\n"), 0o644))
	code, _, e = simrun(t, "-matrix", m, "-out", filepath.Join(dir, "out"))
	require.Equal(t, exitOK, code, e)
}

// -seeds overrides a matrix file's seeds, -seeds 1 too (the flag's
// default, which the old code took for "not given" and ran the file's 50
// seeds per cell); a shard with no seed of the matrix is refused.
func TestMatrixSeedsFlag(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m.yaml")
	abs, err := filepath.Abs("../scenarios/leader-crash.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(m, []byte("name: tiny\nseeds: 50\nalgorithms: [raft, bully]\nscenarios: ["+abs+"]\n"), 0o644))
	for _, tc := range []struct{ seeds, header string }{
		{"1", "1 scenario × 2 algorithms × 1 seed = 2 runs"},
		{"3", "1 scenario × 2 algorithms × 3 seeds = 6 runs"},
	} {
		code, out, e := simrun(t, "-matrix", m, "-seeds", tc.seeds, "-workers", "1", "-out", filepath.Join(dir, "o"+tc.seeds))
		require.Contains(t, []int{exitOK, exitViolation}, code, e)
		assert.Contains(t, e, tc.header)
		assert.Contains(t, out, "# tiny: "+tc.seeds+" seed")
	}
	code, _, e := simrun(t, "-matrix", m, "-seeds", "1", "-shard", "1/2", "-out", filepath.Join(dir, "o-shard"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, e, "shard 1/2 of 1 seeds is empty")
	assert.NoDirExists(t, filepath.Join(dir, "o-shard"))
}

func TestTraceExports(t *testing.T) {
	dir := t.TempDir()
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", filepath.Join(dir, "o"),
		"-trace", filepath.Join(dir, "t.jsonl"), "-perfetto", filepath.Join(dir, "t.json"))
	require.Equal(t, exitOK, code, e)
	lines, err := os.ReadFile(filepath.Join(dir, "t.jsonl"))
	require.NoError(t, err)
	assert.Greater(t, bytes.Count(lines, []byte("\n")), 1000)
	// Timers are named after the algorithm's (and the cron layer's) timers.
	assert.Contains(t, string(lines), `"timer":"raft.election"`)
	assert.Contains(t, string(lines), `"timer":"cron.slot"`)
	var pf map[string]any
	raw, err := os.ReadFile(filepath.Join(dir, "t.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &pf))
	assert.Contains(t, pf, "traceEvents")
}

// BenchmarkSweep measures sweep throughput: seeds of partition.yaml per
// second with every check and the runs file (gzip, discarded), no report,
// on one worker and on two.
func BenchmarkSweep(b *testing.B) {
	sc, err := scenario.Load(partition)
	require.NoError(b, err)
	jobs := sweepJobs([]string{"raft"}, 1, 200, 0, 1)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var runs int
			var events uint64
			for i := 0; i < b.N; i++ {
				sink := newRunsSink(reports.NewRunsWriter(io.Discard, true))
				res := runSweep([]*scenario.Scenario{sc}, jobs, workers, false, 0, newProgress(&bytes.Buffer{}, jobs.len(), true), nil, sink)
				require.NoError(b, sink.close())
				runs += res.done()
				for _, g := range res.col.Groups() {
					events += g.Events
				}
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "seeds/s")
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds()/float64(workers), "seeds/s/worker")
			// Wall time per simulated event, on each worker: comparable with
			// sim's BenchmarkSimHour, the engine alone on a bare protocol, so
			// what a sweep adds per run (building it, the checks, the
			// summary) shows as the difference.
			b.ReportMetric(b.Elapsed().Seconds()*1e9*float64(workers)/float64(events), "ns/event/worker")
		})
	}
}

// The job list is computed on demand and shards partition the seeds exactly
// as before: seed first+k for k ≡ shard (mod shards), algorithms outermost.
func TestJobListShards(t *testing.T) {
	for _, c := range []struct{ count, shards int }{{1, 1}, {10, 1}, {10, 3}, {7, 7}, {5, 8}, {1000, 16}} {
		for sh := 0; sh < c.shards; sh++ {
			l := sweepJobs([]string{"raft", "lease"}, 5, c.count, sh, c.shards)
			var want []job
			for _, a := range []string{"raft", "lease"} {
				for k := 0; k < c.count; k++ {
					if k%c.shards == sh {
						want = append(want, job{algo: a, seed: 5 + uint64(k)})
					}
				}
			}
			require.Equal(t, len(want), l.len(), "%+v shard %d", c, sh)
			for i := range want {
				require.Equal(t, want[i], l.at(i))
			}
		}
	}
	// A huge count costs nothing to describe.
	l := sweepJobs([]string{"raft"}, 1, MaxSeeds, 0, 1)
	require.Equal(t, MaxSeeds, l.len())
	require.Equal(t, job{algo: "raft", seed: MaxSeeds}, l.at(MaxSeeds-1))
}

// A matrix is bounded before any run: at most MaxGroups cells (scenarios ×
// algorithms), and at most MaxRuns runs in all (checked without overflow,
// also on 32-bit builds); nothing is written.
func TestMatrixLimits(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs("../scenarios/partition.yaml")
	require.NoError(t, err)
	big := filepath.Join(dir, "big.yaml")
	list := strings.TrimSuffix(strings.Repeat(abs+", ", 513), ", ")
	require.NoError(t, os.WriteFile(big, []byte("name: big\nalgorithms: [raft, bully]\nscenarios: ["+list+"]\n"), 0o644))
	code, _, e := simrun(t, "-matrix", big, "-out", filepath.Join(dir, "o1"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, e, "513 scenarios × 2 algorithms is 1026 cells, more than 1024 (MaxGroups)")
	assert.NoDirExists(t, filepath.Join(dir, "o1"))

	many := filepath.Join(dir, "many.yaml")
	require.NoError(t, os.WriteFile(many, []byte("name: many\nalgorithms: [raft, bully]\nscenarios: ["+abs+", "+abs+"]\n"), 0o644))
	code, _, e = simrun(t, "-matrix", many, "-seeds", "60000000", "-out", filepath.Join(dir, "o2"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, e, "is more than 100000000 runs (MaxRuns)")
	assert.NoDirExists(t, filepath.Join(dir, "o2"))
}

// A matrix's n/a cell is short, its reason a numbered note under the
// table (issue 38 point 10: matrix-cron's n/a cells held a paragraph
// each).
func TestMatrixNotApplicableNotes(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	m := filepath.Join(dir, "m.yaml")
	abs, err := filepath.Abs("../scenarios")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(m, []byte("name: na\nseeds: 1\nalgorithms: [raft, lease, etcd]\nscenarios: ["+
		filepath.Join(abs, "leader-dies-split-brain.yaml")+"]\n"), 0o644))
	code, _, e := simrun(t, "-matrix", m, "-quiet", "-out", filepath.Join(dir, "out"))
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	md, err := os.ReadFile(filepath.Join(dir, "out", "matrix.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| lease | n/a [1] |")
	assert.Contains(t, string(md), "| etcd | n/a [2] |")
	assert.Contains(t, string(md), "[1] n/a under lease: algorithm lease: its runs have 1 lease store(s)")
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| lease") || strings.HasPrefix(line, "| etcd") {
			assert.Less(t, len(line), 80, "a short cell: %s", line)
		}
	}
}
