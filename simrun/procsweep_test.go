package simrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
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

// TestNeedsProcesses: only a sweep of a process-wide algorithm with more
// than one worker and run, outside a worker process, uses processes.
func TestNeedsProcesses(t *testing.T) {
	assert.True(t, needsProcesses([]string{"raft", "etcdraft"}, 2, 10))
	assert.False(t, needsProcesses([]string{"raft", "lease"}, 2, 10))
	assert.False(t, needsProcesses([]string{"etcdraft"}, 1, 10))
	assert.False(t, needsProcesses([]string{"etcdraft"}, 2, 1))
	t.Setenv(envWorker, "1")
	assert.False(t, needsProcesses([]string{"etcdraft"}, 2, 10))
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
