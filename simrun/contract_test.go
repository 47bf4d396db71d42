package simrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
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

// Merge refuses shards of different configurations, naming the difference
// (a shard run with other -set overrides merged silently before), and a
// shard whose index is outside its count.
func TestMergeRefusesMixedConfigurations(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-seeds", "4", "-shard", "0/2", "-out", a)
	require.Equal(t, exitOK, code, e)
	code, _, e = simrun(t, "-scenario", partition, "-quiet", "-seeds", "4", "-shard", "1/2", "-set", "network.drop=0.9", "-set", "faults=", "-out", b)
	require.Contains(t, []int{exitOK, exitViolation}, code, e)
	code, _, e = simrun(t, "merge", "-quiet", "-out", filepath.Join(dir, "m"), a, b)
	require.Equal(t, exitUsage, code)
	assert.Contains(t, e, "different configurations")
	assert.Contains(t, e, "network.drop=0.9")
	assert.NoDirExists(t, filepath.Join(dir, "m"))

	s := readSummary(t, filepath.Join(a, "summary.json"))
	require.NotNil(t, s.Config)
	assert.Len(t, s.Config.ScenarioSHA256, 64)
	assert.Equal(t, []string{"raft"}, s.Config.Algorithms)
	s.Shard.Index = 5
	f, err := os.Create(filepath.Join(dir, "bad.json"))
	require.NoError(t, err)
	require.NoError(t, reportsWrite(f, s))
	require.NoError(t, f.Close())
	code, _, e = simrun(t, "merge", "-quiet", "-out", filepath.Join(dir, "m2"), filepath.Join(dir, "bad.json"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, e, "index must be in 0..1")
}

func reportsWrite(w io.Writer, s *reports.Summary) error { return reports.WriteJSON(w, s) }

// An algorithm that cannot build the scenario (a lease-store fault under
// raft) is n/a; the others run. With only that algorithm: exit 2.
func TestAlgorithmNotApplicable(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "storefault.yaml")
	require.NoError(t, os.WriteFile(sc, []byte(`name: storefault
duration: 20s
cluster: {nodes: 3}
algorithm: {name: lease}
faults:
  - {at: 5s, store: unavailable, for: 3s}
settle: {for: 20s, leader_within: 20s}
`), 0o644))
	js := filepath.Join(dir, "s.json")
	code, out, e := simrun(t, "-scenario", sc, "-algo", "raft,lease", "-seeds", "2", "-out", filepath.Join(dir, "o"), "-json", js)
	require.Equal(t, exitOK, code, e)
	assert.Regexp(t, `raft +n/a .*no lease store`, out)
	s := readSummary(t, js)
	require.Len(t, s.NotApplicable, 1)
	assert.Equal(t, "raft", s.NotApplicable[0].Algorithm)
	assert.Len(t, s.Runs, 2)
	code, _, e = simrun(t, "-scenario", sc, "-algo", "raft", "-out", filepath.Join(dir, "o2"))
	assert.Equal(t, exitUsage, code, e)
}

// The human summary says "1 run" and "1 worker", prints no dash when the
// scenario has no description, and its progress header names every
// algorithm that runs.
func TestSummaryWording(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "nodesc.yaml")
	require.NoError(t, os.WriteFile(sc, []byte("name: nodesc\nduration: 5s\ncluster: {nodes: 3}\nalgorithm: {name: raft}\n"), 0o644))
	code, out, e := simrun(t, "-scenario", sc, "-out", filepath.Join(dir, "o"))
	require.Equal(t, exitOK, code, e)
	assert.True(t, strings.HasPrefix(out, "nodesc\n"), out)
	assert.Contains(t, out, "· 1 run in ")
	assert.Contains(t, out, ", 1 worker)")
	code, _, e = simrun(t, "-scenario", sc, "-algo", "raft,bully,ring", "-seeds", "2", "-workers", "2", "-out", filepath.Join(dir, "o2"))
	require.Equal(t, exitOK, code, e)
	assert.Contains(t, e, "simrun: nodesc: 3 nodes, raft, bully, ring, 5s · 6 runs · 2 workers")
	assert.Equal(t, "14", num(14.04))
	assert.Equal(t, "23", num(23))
	assert.Equal(t, "2.5", num(2.46))
}

// A porcupine check that runs out of its wall-time bound is unknown: the
// run fails (the check is not allowed), the summary counts it by check and
// the human summary names it. Which runs time out depends on wall time (the
// point of counting them), so the test checks the counts against the runs'
// own statuses rather than fixed numbers.
func TestUnknownVerdictsCounted(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "s.json")
	code, out, e := simrun(t, "-scenario", partition, "-seeds", "6", "-porcupine-timeout", "1ns", "-shrink=false", "-out", filepath.Join(dir, "o"), "-json", js)
	s := readSummary(t, js)
	want := map[string]int{}
	for _, r := range s.Runs {
		unknown := false
		for k, st := range r.Checks {
			if st == "unknown" {
				want[k]++
				unknown = true
			}
		}
		if unknown {
			require.False(t, r.OK, "an unknown verdict is never counted as ok (seed %d)", r.Seed)
		}
	}
	require.NotEmpty(t, want, "with a 1 ns bound some check must time out")
	assert.Equal(t, want, s.Algorithms[0].Unknown)
	require.Equal(t, exitViolation, code, e)
	for k, n := range want {
		assert.Contains(t, out, fmt.Sprintf("%s unknown in %d run(s)", k, n))
	}
}
