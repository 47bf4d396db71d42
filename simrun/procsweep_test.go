package simrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/simrun/worker"
)

// summaryWithoutTiming reads a summary and drops its timing, the only part
// that differs between identical sweeps.
func summaryWithoutTiming(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	delete(m, "timing")
	return m
}

// TestWorkerProcessesMatchOneProcess: an etcdraft sweep (process-wide state:
// registry.Algorithm.ProcessWide) with -workers 2 runs in two worker
// processes and merges their shards into exactly the summary one process
// produces.
func TestWorkerProcessesMatchOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun worker processes")
	}
	dir := t.TempDir()
	n := 12
	if raceEnabled {
		n = 4 // each worker process is a race-instrumented simrun too
	}
	seeds := fmt.Sprint(n)
	code, _, e := simrun(t, "-scenario", partition, "-algo", "etcdraft", "-seeds", seeds, "-workers", "1", "-quiet", "-shrink=false",
		"-out", filepath.Join(dir, "o1"), "-json", filepath.Join(dir, "one.json"))
	require.Equal(t, exitOK, code, e)
	code, _, e = simrun(t, "-scenario", partition, "-algo", "etcdraft", "-seeds", seeds, "-workers", "2", "-shrink=false",
		"-out", filepath.Join(dir, "o2"), "-json", filepath.Join(dir, "two.json"))
	require.Equal(t, exitOK, code, e)
	assert.Contains(t, e, "in 2 worker processes")
	assert.Equal(t, summaryWithoutTiming(t, filepath.Join(dir, "one.json")), summaryWithoutTiming(t, filepath.Join(dir, "two.json")))
	assert.Equal(t, unzip(t, filepath.Join(dir, "o1", reports.RunsFileName)), unzip(t, filepath.Join(dir, "o2", reports.RunsFileName)),
		"the workers' runs files merge into the one process's")
	s := readSummary(t, filepath.Join(dir, "o2", "summary.json"))
	assert.Len(t, s.Runs, n)
	assert.Nil(t, s.Partial)

	if raceEnabled {
		return // the rest runs the same processes again, failing (-race: about 15 s)
	}
	// Every run failing: the parent explains the same first failing runs
	// (in seed order) as one process does; workers explain none.
	for _, w := range []string{"1", "2"} {
		code, _, e = simrun(t, "-scenario", partition, "-algo", "etcdraft", "-seeds", seeds, "-workers", w, "-quiet", "-shrink=false",
			"-set", "expect.failover_under=1ms", "-out", filepath.Join(dir, "f"+w), "-json", filepath.Join(dir, "f"+w+".json"))
		require.Equal(t, exitViolation, code, e)
	}
	assert.Equal(t, summaryWithoutTiming(t, filepath.Join(dir, "f1.json")), summaryWithoutTiming(t, filepath.Join(dir, "f2.json")))
}

// TestWorkerProcessesKeepTheSameNotableRuns: a sweep with more notable
// runs than a summary keeps (MaxKeptRuns) keeps the same runs in two worker
// processes as in one: the first notable ones in seed order. Each worker
// keeps all of its 105 runs; the old parent kept the first 100 it read
// (worker 0's seeds 1, 3, …, 199).
func TestWorkerProcessesKeepTheSameNotableRuns(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs 420 etcdraft runs in simrun worker processes")
	}
	dir := t.TempDir()
	args := []string{"-scenario", partition, "-algo", "etcdraft", "-seeds", "210", "-quiet", "-shrink=false",
		"-set", "expect.failover_under=1ms", "-set", "duration=11s", "-set", "settle.for=1s", "-set", "settle.leader_within=1s"}
	for _, w := range []string{"1", "2"} {
		code, _, e := simrun(t, append(args, "-workers", w, "-out", filepath.Join(dir, "o"+w), "-json", filepath.Join(dir, w+".json"))...)
		require.Equal(t, exitViolation, code, e)
	}
	one := readSummary(t, filepath.Join(dir, "1.json"))
	require.Equal(t, reports.KeptNotable, one.RunsKept)
	require.Len(t, one.Runs, reports.MaxKeptRuns)
	assert.Equal(t, uint64(reports.MaxKeptRuns), one.Runs[len(one.Runs)-1].Seed, "every run fails: seeds 1 to 100 are kept")
	assert.Equal(t, summaryWithoutTiming(t, filepath.Join(dir, "1.json")), summaryWithoutTiming(t, filepath.Join(dir, "2.json")))
}

// TestWorkerProcessesWithFewSeeds: a sweep of a process-wide algorithm
// with fewer seeds than workers (the README's one-seed comparison, a -vary
// grid of one or two seeds) runs: one worker process per seed at most, and
// one seed in this process. Worker processes shard the seeds, so more
// processes than seeds made empty shards, and the sweep exited 2.
func TestWorkerProcessesWithFewSeeds(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun worker processes")
	}
	// A grid of an etcdraft parameter: -set and -vary apply to the
	// algorithm that runs (raft's election_timeout would be refused).
	vary := []string{"-vary", "algorithm.election_tick=10,20"}
	for _, tc := range []struct {
		name      string
		args      []string
		processes string // "" when the sweep runs in this process
		runs      int
	}{
		{"one seed, two algorithms", []string{"-algo", "raft,etcdraft", "-workers", "2"}, "", 2},
		{"one seed, a grid", append([]string{"-algo", "etcdraft", "-workers", "2"}, vary...), "", 2},
		{"two seeds, a grid, four workers", append([]string{"-algo", "etcdraft", "-workers", "4", "-seeds", "2"}, vary...), "in 2 worker processes", 4},
		{"three seeds, eight workers", []string{"-algo", "etcdraft", "-workers", "8", "-seeds", "3"}, "in 3 worker processes", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"-scenario", partition, "-shrink=false", "-out", filepath.Join(dir, "o")}, tc.args...)
			code, _, e := simrun(t, args...)
			require.Equal(t, exitOK, code, e)
			if tc.processes == "" {
				assert.NotContains(t, e, "worker processes")
			} else {
				assert.Contains(t, e, tc.processes)
			}
			s := readSummary(t, filepath.Join(dir, "o", "summary.json"))
			assert.Len(t, s.Runs, tc.runs)
		})
	}
}

// TestNeedsProcesses: only a sweep of a process-wide algorithm with more
// than one worker and seed, outside a worker process, uses processes.
func TestNeedsProcesses(t *testing.T) {
	assert.True(t, needsProcesses([]string{"raft", "etcdraft"}, 2, 10))
	assert.False(t, needsProcesses([]string{"raft", "lease"}, 2, 10))
	assert.False(t, needsProcesses([]string{"etcdraft"}, 1, 10))
	assert.False(t, needsProcesses([]string{"etcdraft"}, 2, 1))
	t.Setenv(worker.EnvWorker, "1") // left in a shell: no parent's secret behind it (worker/workerlink.go)
	assert.True(t, needsProcesses([]string{"etcdraft"}, 2, 10))
	t.Setenv(worker.EnvWorker, strconv.Itoa(os.Getppid())) // the PID round three checked
	assert.True(t, needsProcesses([]string{"etcdraft"}, 2, 10))
}

// BenchmarkEtcdraftSweepWorkers times an etcdraft sweep of partition.yaml
// in one process and in two worker processes (the 1 → 2 speed-up target
// is 1.8×; measure with -benchtime 1x):
//
//	go test ./simrun -run '^$' -bench EtcdraftSweepWorkers -benchtime 1x
func BenchmarkEtcdraftSweepWorkers(b *testing.B) {
	for _, w := range []string{"1", "2"} {
		b.Run("workers="+w, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dir := b.TempDir()
				var out, errb nopWriter
				code := run([]string{"-scenario", partition, "-algo", "etcdraft", "-seeds", "200", "-workers", w, "-quiet", "-shrink=false",
					"-out", filepath.Join(dir, "o")}, &out, &errb)
				if code != exitOK {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/sweep")
		})
	}
	_ = reports.Schema
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
