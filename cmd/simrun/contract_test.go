package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The replay command printed for a failing run, and the -materialize
// header, keep every -set: the replay is the same run.
func TestReplayKeepsSets(t *testing.T) {
	dir := t.TempDir()
	set := "expect.violations=[double_execution]"
	code, out, e := simrun(t, "-scenario", partition, "-set", set, "-shrink=false", "-out", filepath.Join(dir, "o"))
	require.Equal(t, exitViolation, code, e)
	assert.Contains(t, out, "-set '"+set+"' -seed 1")
	mat := filepath.Join(dir, "m.yaml")
	code, _, e = simrun(t, "-scenario", partition, "-set", "faults[0].for=2s", "-materialize", mat)
	require.Equal(t, exitOK, code, e)
	b, err := os.ReadFile(mat)
	require.NoError(t, err)
	assert.Contains(t, string(b), "-set 'faults[0].for=2s' -seed 1")
}

// summary.json in the output folder has timing.reports_seconds, as the
// -json file does.
func TestSummaryHasReportsTiming(t *testing.T) {
	dir := t.TempDir()
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", filepath.Join(dir, "o"), "-json", filepath.Join(dir, "s.json"))
	require.Equal(t, exitOK, code, e)
	for _, f := range []string{filepath.Join(dir, "o", "summary.json"), filepath.Join(dir, "s.json")} {
		s := readSummary(t, f)
		require.NotNil(t, s.Timing, f)
		assert.Positive(t, s.Timing.ReportsSeconds, f)
	}
}

// -algo raft,raft runs raft once.
func TestAlgoDeduplicated(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "s.json")
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-algo", "raft,raft", "-seeds", "2", "-out", filepath.Join(dir, "o"), "-json", js)
	require.Equal(t, exitOK, code, e)
	s := readSummary(t, js)
	assert.Len(t, s.Runs, 2)
	assert.Len(t, s.Algorithms, 1)
	assert.False(t, strings.Contains(e, "raft,raft"))
}
