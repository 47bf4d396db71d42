//go:build unix

package simrun

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simrun replaces an output folder only if it made it (the marker) or it is
// empty, and puts the new one in place whole.
func TestOutputFolderReplacement(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", out)
	require.Equal(t, exitOK, code, e)
	require.FileExists(t, filepath.Join(out, markerFile))
	require.FileExists(t, filepath.Join(out, "summary.json"))
	// Its own folder: replaced (a stray file in it goes with it).
	require.NoError(t, os.WriteFile(filepath.Join(out, "stray.txt"), []byte("x"), 0o644))
	code, _, e = simrun(t, "-scenario", partition, "-quiet", "-out", out)
	require.Equal(t, exitOK, code, e)
	assert.NoFileExists(t, filepath.Join(out, "stray.txt"))
	// An empty folder: used.
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	code, _, e = simrun(t, "-scenario", partition, "-quiet", "-out", empty)
	require.Equal(t, exitOK, code, e)
	// Nothing else is left beside the outputs.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	assert.ElementsMatch(t, []string{"o", "empty"}, names)
}

// Output folders and files get the usual permissions (0755 and 0644 under
// umask 022), not the 0700/0600 of temporary files.
func TestOutputPermissions(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	umaskOnce.v = 0o022
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	js := filepath.Join(dir, "s.json")
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", out, "-json", js, "-trace", filepath.Join(dir, "t.jsonl"))
	require.Equal(t, exitOK, code, e)
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())
	for _, f := range []string{js, filepath.Join(dir, "t.jsonl"), filepath.Join(out, "summary.json"), filepath.Join(out, "report.html")} {
		st, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), st.Mode().Perm(), f)
	}
}

// Exit 2 writes nothing: an output folder that cannot be written leaves the
// -trace and -json files as they were (they were replaced before failing).
func TestExitTwoWritesNothing(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "tr.jsonl")
	js := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(tr, []byte("old trace"), 0o644))
	require.NoError(t, os.WriteFile(js, []byte("old summary"), 0o644))
	blocked := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocked, []byte("x"), 0o644))
	code, _, _ := simrun(t, "-scenario", partition, "-quiet", "-trace", tr, "-json", js, "-out", filepath.Join(blocked, "sub"))
	require.Equal(t, exitUsage, code)
	for f, want := range map[string]string{tr: "old trace", js: "old summary"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporaries left")
}

// -trace - writes the trace to stdout (not to a file named "-"), and the
// human summary goes to stderr then; so does it with -json -.
func TestDashMeansStdout(t *testing.T) {
	dir := t.TempDir()
	code, out, e := simrun(t, "-scenario", partition, "-out", filepath.Join(dir, "o"), "-trace", "-")
	require.Equal(t, exitOK, code, e)
	assert.NoFileExists(t, "-")
	assert.Greater(t, strings.Count(out, "\n"), 1000)
	assert.True(t, strings.HasPrefix(out, "{"), "only JSON lines on stdout")
	assert.Contains(t, e, "every run met the scenario's expectations")

	code, out, e = simrun(t, "-scenario", partition, "-out", filepath.Join(dir, "o2"), "-json", "-")
	require.Equal(t, exitOK, code, e)
	assert.True(t, strings.HasPrefix(strings.TrimSpace(out), "{") && strings.HasSuffix(strings.TrimSpace(out), "}"), "only JSON on stdout: %q", out[:min(80, len(out))])
	assert.Contains(t, e, "every run met the scenario's expectations")
}

// A temporary left by a killed simrun (its process gone) is removed by the
// next run writing the same output; one of a running process is not.
func TestStaleTemporariesRemoved(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	require.NoError(t, dead.Run())
	pid := dead.Process.Pid // exited: no such process now
	stale := filepath.Join(dir, ".o"+tmpTag+strconv.Itoa(pid)+"-123")
	require.NoError(t, os.MkdirAll(stale, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "summary.json"), []byte("{}"), 0o644))
	live := filepath.Join(dir, ".o"+tmpTag+"1-456") // pid 1 runs
	require.NoError(t, os.MkdirAll(live, 0o755))
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", filepath.Join(dir, "o"))
	require.Equal(t, exitOK, code, e)
	assert.NoDirExists(t, stale)
	assert.DirExists(t, live)
}

// SIGINT or SIGTERM stops simrun, removes its temporaries and exits 130 or
// 143; nothing half-written stays.
func TestSignalsCleanUp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitSIGINT}, {syscall.SIGTERM, exitSIGTERM}} {
		dir := t.TempDir()
		exe, err := os.Executable()
		require.NoError(t, err)
		abs, err := filepath.Abs(partition)
		require.NoError(t, err)
		cmd := exec.Command(exe, "-scenario", abs, "-seeds", "100000", "-quiet", "-out", filepath.Join(dir, "o"), "-json", filepath.Join(dir, "s.json"))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SIMRUN_AS_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		time.Sleep(500 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(c.sig))
		err = cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%v %s", err, stderr.String())
		assert.Equal(t, c.code, ee.ExitCode(), stderr.String())
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries, "nothing left behind")
	}
}
