//go:build unix

package simrun

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
)

// childResult is what runBounded saw of a simrun child.
// childResult is what a child simrun did.
type childResult struct {
	code           int
	stdout, stderr string
	rssKB          int64
}

// runBounded runs this test binary as simrun in dir and returns its exit
// status, output and peak RSS (runChild and runChildStdout are its short
// forms). A child still running after childDeadline is killed and fails
// the test: that only stops a hang (some hostile inputs used to block
// forever), it asserts nothing about speed.
func runBounded(t *testing.T, dir string, args ...string) childResult {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = childEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "simrun %v hung (killed)", args)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return childResult{code, stdout.String(), stderr.String(), int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)} // int32 on 32-bit builds
}

// requireRefused checks a one-line usage error (exit 2) holding want,
// within the hostile-input memory limit.
func requireRefused(t *testing.T, r childResult, want string) {
	t.Helper()
	assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stderr, want)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
}

// writeShard runs partition.yaml over two seeds into dir/name and returns
// the folder.
func writeShard(t *testing.T, dir, name string) string {
	t.Helper()
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	r := runBounded(t, dir, "-scenario", abs, "-seeds", "2", "-out", name, "-quiet")
	require.Equal(t, exitOK, r.code, r.stderr)
	return filepath.Join(dir, name)
}

// Named pipes nobody writes are refused without waiting for a writer: as a
// scenario, as a shard's summary.json and as a shard's runs file (each
// used to block forever).
func TestHostileNamedPipes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	before := snapshot(t, dir)
	requireRefused(t, runBounded(t, dir, "-scenario", fifo), "fifo.yaml: is a named pipe, not a regular file")
	requireRefused(t, runBounded(t, dir, "-matrix", fifo), "is a named pipe")
	assert.Equal(t, before, snapshot(t, dir))

	shard := filepath.Join(dir, "shard")
	require.NoError(t, os.Mkdir(shard, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(shard, "summary.json"), 0o600))
	requireRefused(t, runBounded(t, dir, "merge", "-out", "merged", "shard"), "summary.json: is a named pipe")
	requireRefused(t, runBounded(t, dir, "merge", "-out", "merged", filepath.Join(shard, "summary.json")), "is a named pipe")
	_, err := os.Stat(filepath.Join(dir, "merged"))
	assert.True(t, os.IsNotExist(err), "nothing written")

	// A device as a scenario: refused unread.
	requireRefused(t, runBounded(t, dir, "-scenario", "/dev/zero"), "/dev/zero: is a device, not a regular file")
}

// A runs file that inflates far past what its summary's run count allows
// (a gzip bomb of long whitespace-padded lines) is refused once it passes
// reports.MaxRunsFileBytes, not read to the end.
func TestHostileRunsFileBomb(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	shard := writeShard(t, dir, "shard")
	// 8 lines of 8 MiB (64 MiB inflated, about 64 KB compressed) for a
	// summary of 2 runs: the bound is 16 MiB + 2 × 64 KiB.
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	require.NoError(t, err)
	pad := bytes.Repeat([]byte(" "), 8<<20)
	for seed := 1; seed <= 8; seed++ {
		fmt.Fprintf(zw, `{"seed":%d,"algorithm":"raft"`, seed)
		_, _ = zw.Write(pad)
		_, _ = zw.Write([]byte("}\n"))
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(shard, reports.RunsFileName), gz.Bytes(), 0o644))
	r := runBounded(t, dir, "merge", "-out", "merged", "shard")
	requireRefused(t, r, "decompresses to more than 16908288 bytes, the most for the 2 runs its summary counts")
	_, err = os.Stat(filepath.Join(dir, "merged"))
	assert.True(t, os.IsNotExist(err), "nothing written")
}

// Seed ranges that would wrap past 2^64-1 to 0 are refused, wherever the
// first seed comes from; a run time whose parts wrap int64 is refused.
func TestHostileSeedAndTimeOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	matrix, err := filepath.Abs("../scenarios/matrix.yaml")
	require.NoError(t, err)
	before := snapshot(t, dir)
	requireRefused(t, runBounded(t, dir, "-scenario", abs, "-set", "seed=18446744073709551615", "-seeds", "3"),
		"partition.yaml: seed 18446744073709551615 with 3 seeds runs past the last seed (2^64-1)")
	requireRefused(t, runBounded(t, dir, "-matrix", matrix, "-seed", "18446744073709551615"),
		"-seed 18446744073709551615 with 50 seeds runs past the last seed (2^64-1)")
	requireRefused(t, runBounded(t, dir, "-scenario", abs, "-set", "duration=9223372036854775807ns", "-set", "settle.for=2562047h"),
		"is longer than 1000h")
	assert.Equal(t, before, snapshot(t, dir))
}

// A forged partial record (runs_done beyond runs_planned) is refused by
// merge, not merged into a negative count.
func TestHostileForgedPartial(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	shard := writeShard(t, dir, "shard")
	path := filepath.Join(shard, "summary.json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	m["partial"] = map[string]any{"reason": "interrupt", "runs_done": 5, "runs_planned": 2}
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	requireRefused(t, runBounded(t, dir, "merge", "-out", "merged", "-runs=false", "shard"), "partial says 5 of 2 runs done")
}

// Text from input reaches stdout and stderr with its control characters
// and bidi overrides escaped: a description holding an OSC title sequence,
// a -set key holding "clear screen", a name holding U+202E (named as
// \u202e, not by its first byte, "â").
func TestHostileTerminalInjection(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	src, err := os.ReadFile(partition)
	require.NoError(t, err)
	src = bytes.Replace(src, []byte("description: The leader is isolated for 10 s, then the partition heals."),
		[]byte(`description: "\e]0;pwned\a\u202e The leader is isolated for 10 s, then the partition heals."`), 1)
	require.Contains(t, string(src), `\e]0;pwned`)
	sc := filepath.Join(dir, "evil.yaml")
	require.NoError(t, os.WriteFile(sc, src, 0o644))
	clean := func(r childResult) {
		t.Helper()
		for _, out := range []string{r.stdout, r.stderr} {
			assert.NotContains(t, out, "\x1b", "ESC reached the terminal")
			assert.NotContains(t, out, "\a")
			assert.NotContains(t, out, "\u202e")
		}
	}

	r := runBounded(t, dir, "-scenario", sc, "-out", "o")
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, `\x1b]0;pwned\x07\u202e The leader`)
	clean(r)

	r = runBounded(t, dir, "-scenario", sc, "-out", "o2", "-json", "-")
	clean(r)
	var s reports.Summary // the JSON stays valid and equal
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	assert.Equal(t, "\x1b]0;pwned\a\u202e The leader is isolated for 10 s, then the partition heals.", s.Scenario.Description)

	r = runBounded(t, dir, "-scenario", sc, "-set", "clu\x1b[2Jster.nodes=3")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `\x1b[2J`)
	clean(r)

	r = runBounded(t, dir, "-scenario", sc, "-set", "name=evil\u202etxt")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `\u202e`)
	assert.NotContains(t, r.stderr, "â")
	clean(r)
}

// A shard's runs_file is followed only to a file in the shard's own
// folder: a forged path (relative with "..", or absolute) is not read, even
// when a valid runs file waits there (the old merge read and merged it).
func TestHostileMergeRunsFileOutsideShard(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	for i, name := range []string{"s0", "s1"} {
		r := runBounded(t, dir, "-scenario", abs, "-shard", fmt.Sprintf("%d/2", i), "-seeds", "4", "-out", name, "-quiet")
		require.Equal(t, exitOK, r.code, r.stderr)
	}
	s0, s1 := filepath.Join(dir, "s0"), filepath.Join(dir, "s1")
	// A valid runs file outside s1, where the forged names point.
	runs, err := os.ReadFile(filepath.Join(s1, reports.RunsFileName))
	require.NoError(t, err)
	outside := filepath.Join(dir, "outside.jsonl.gz")
	require.NoError(t, os.WriteFile(outside, runs, 0o644))
	require.NoError(t, os.Remove(filepath.Join(s1, reports.RunsFileName)))
	for _, forged := range []string{"../outside.jsonl.gz", outside} {
		sumPath := filepath.Join(s1, "summary.json")
		raw, err := os.ReadFile(sumPath)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		m["runs_file"] = forged
		raw, err = json.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(sumPath, raw, 0o644))

		out := "merged-" + strings.NewReplacer("/", "_", ".", "_").Replace(forged)
		r := runBounded(t, dir, "merge", "-out", out, s0, s1)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "is not a file in the summary's folder: not read", forged)
		assert.Contains(t, r.stdout, "some shards have no runs file")
		assert.NoFileExists(t, filepath.Join(dir, out, reports.RunsFileName), "the forged runs file was merged")
		assert.FileExists(t, filepath.Join(dir, out, "summary.json"))
	}
}
