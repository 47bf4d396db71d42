package simrun

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simrun hunt: exit 0 with the runs and coverage when nothing is found, 1
// with repro.yaml in the output folder and the replay line when something
// is, 2 on bad usage.
func TestHuntExitCodes(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"hunt", "-algo", "raft", "-runs", "20", "-workers", "1", "-quiet", "-out", filepath.Join(dir, "clean")}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	assert.Contains(t, out.String(), "nothing found: 20 runs")
	assert.Contains(t, out.String(), "coverage: ")
	assert.NoDirExists(t, filepath.Join(dir, "clean"), "nothing found: nothing written")

	out.Reset()
	errb.Reset()
	// The Redis ttl lease with its defaults (validity never checked) under
	// a cron policy the extremes strategy draws without fencing: two holders
	// act at once and stale writes land, which nothing promises against, so
	// a hunt finds them only when -checks asks for split_brain (by default
	// it judges the contract, which promises no exclusion here).
	code = run([]string{"hunt", "-algo", "lease", "-set", "algorithm.flavor=ttl", "-checks", "split_brain", "-runs", "3000",
		"-workers", "1", "-quiet", "-out", filepath.Join(dir, "found")}, &out, &errb)
	require.Equal(t, exitViolation, code, out.String()+errb.String())
	assert.Contains(t, out.String(), "found: split_brain")
	assert.Contains(t, out.String(), "replay: simrun -scenario "+filepath.Join(dir, "found", "repro.yaml"))
	repro, err := os.ReadFile(filepath.Join(dir, "found", "repro.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(repro), "flavor: ttl")

	for _, args := range [][]string{
		{"hunt"},
		{"hunt", "-algo", "nope", "-runs", "1"},
		{"hunt", "-algo", "raft", "-bogus"},
		{"hunt", "-algo", "raft", "-budget", "0"},
		{"hunt", "-algo", "raft", "-runs", "1", "extra"},
		{"hunt", "-algo", "raft", "-runs", "1", "-strategies", "luck"},
	} {
		errb.Reset()
		assert.Equal(t, exitUsage, run(args, &out, &errb), "%v", args)
		assert.NotEmpty(t, errb.String(), "%v", args)
	}
}
