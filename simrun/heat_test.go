package simrun

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default heatmap of a two-dimensional sweep shows what failed (issue
// 38 point 9): leader-dies-with-its-job loses its slot in every run, as
// its expect says, so no run fails and -heat failed drew a pale 0 %; the
// default (auto) maps lost_slot. -heat takes any check.
func TestDefaultHeatShowsWhatFailed(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	vary := []string{"-vary", "settle.for=20s,25s", "-vary", "network.latency=1ms..2ms,1ms..10ms"}
	args := append([]string{"-scenario", "../scenarios/leader-dies-with-its-job.yaml", "-seeds", "2", "-quiet", "-shrink=false", "-out", filepath.Join(dir, "a")}, vary...)
	code, _, e := simrun(t, args...)
	require.Equal(t, exitOK, code, e)
	s := readSummary(t, filepath.Join(dir, "a", "summary.json"))
	require.NotNil(t, s.Grid)
	assert.Equal(t, "lost_slot", s.Grid.Heat)
	for _, c := range s.HeatCells() {
		assert.Equal(t, c.Runs, c.Count, "every run loses its slot")
	}

	args = append([]string{"-scenario", partition, "-seeds", "2", "-quiet", "-shrink=false", "-heat", "leader_linearizability", "-out", filepath.Join(dir, "b")}, vary...)
	code, _, e = simrun(t, args...)
	require.Equal(t, exitOK, code, e)
	assert.Equal(t, "leader_linearizability", readSummary(t, filepath.Join(dir, "b", "summary.json")).Grid.Heat)

	code, _, e = simrun(t, append([]string{"-scenario", partition, "-heat", "nope", "-out", filepath.Join(dir, "c")}, vary...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, e, `-heat "nope": one of auto, failed, failover_p99 or a check`)
}
