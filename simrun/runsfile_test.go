package simrun

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
)

// unzip is a runs file's content.
func unzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	return string(b)
}

// Every run goes to runs.jsonl.gz in job order (group, then seed) whatever
// the number of workers; the summary keeps the aggregates of all of them
// and, past KeepAllRuns, only the first notable runs.
func TestRunsFileInJobOrder(t *testing.T) {
	dir := t.TempDir()
	seeds := 150 // past KeepAllRuns
	if raceEnabled {
		seeds = 20 // the job order only: fewer runs under the race detector
	}
	pastKeepAll := 2*seeds > reports.KeepAllRuns
	var files []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "w"+w)
		code, _, e := simrun(t, "-scenario", partition, "-algo", "raft,bully", "-seeds", fmt.Sprint(seeds), "-workers", w, "-quiet", "-shrink=false",
			"-set", "expect.failover_under=170ms", "-out", out)
		require.Equal(t, exitViolation, code, e)
		files = append(files, filepath.Join(out, reports.RunsFileName))
	}
	assert.Equal(t, unzip(t, files[0]), unzip(t, files[1]))
	assert.Equal(t, 2*seeds, runsFileLines(t, files[0]))

	s := readSummary(t, filepath.Join(dir, "w1", "summary.json"))
	assert.Equal(t, reports.RunsFileName, s.RunsFile)
	if pastKeepAll {
		assert.Equal(t, reports.KeptNotable, s.RunsKept)
		assert.Len(t, s.Runs, reports.MaxKeptRuns)
	}
	require.Len(t, s.Algorithms, 2)
	assert.Equal(t, seeds, s.Algorithms[0].Runs)
	assert.Equal(t, seeds, s.Algorithms[1].Runs)
	for i, r := range s.Runs {
		assert.True(t, reports.Notable(&r) || !pastKeepAll)
		if i > 0 {
			prev := s.Runs[i-1]
			assert.True(t, prev.Algorithm == r.Algorithm && prev.Seed < r.Seed || prev.Algorithm == "raft" && r.Algorithm == "bully", "kept runs in run order")
		}
	}
	// The first failing runs printed are explained (re-run with their story).
	explained := 0
	for _, r := range s.Runs {
		for _, v := range r.Violations {
			if v.Explanation != "" {
				explained++
				break
			}
		}
	}
	assert.Positive(t, explained)
	assert.LessOrEqual(t, explained, maxPrintedFailures)

	// -runs writes the file elsewhere, plain unless it ends in .gz.
	plain := filepath.Join(dir, "runs.jsonl")
	code, _, e := simrun(t, "-scenario", partition, "-seeds", "5", "-quiet", "-shrink=false", "-out", filepath.Join(dir, "p"), "-runs", plain)
	require.Equal(t, exitOK, code, e)
	assert.Equal(t, 5, runsFileLines(t, plain))
	assert.NoFileExists(t, filepath.Join(dir, "p", reports.RunsFileName))
	assert.Equal(t, plain, readSummary(t, filepath.Join(dir, "p", "summary.json")).RunsFile)
}

// runsFileLines counts the runs in a runs file, checking each is in order.
func runsFileLines(t *testing.T, path string) int {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rr, err := reports.NewRunsReader(f, path)
	require.NoError(t, err)
	defer rr.Close()
	n := 0
	var last uint64
	var lastKey string
	for {
		_, key, seed, err := rr.Next()
		if err == io.EOF {
			return n
		}
		require.NoError(t, err)
		if n > 0 && key == lastKey {
			require.Greater(t, seed, last, "a group's runs in seed order")
		}
		last, lastKey = seed, key
		n++
	}
}
