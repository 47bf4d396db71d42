//go:build unix

package simrun

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/simrun/outdir"
)

// simrun replaces an output folder only if it made it (the marker) or it is
// empty, and puts the new one in place whole.
func TestOutputFolderReplacement(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", out)
	require.Equal(t, exitOK, code, e)
	require.FileExists(t, filepath.Join(out, outdir.MarkerFile))
	require.FileExists(t, filepath.Join(out, "summary.json"))
	// Its own folder: replaced (a stray file in it goes with it).
	require.NoError(t, os.WriteFile(filepath.Join(out, "stray.txt"), []byte("x"), 0o644))
	code, _, e = simrun(t, "-scenario", partition, "-quiet", "-out", out)
	require.Equal(t, exitOK, code, e)
	assert.NoFileExists(t, filepath.Join(out, "stray.txt"))
	// An empty folder: used.
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	if !raceEnabled { // -race: a partition run is 3 s; outdir.CheckReplaceable says the same
		code, _, e = simrun(t, "-scenario", partition, "-quiet", "-out", empty)
		require.Equal(t, exitOK, code, e)
	}
	require.NoError(t, outdir.CheckReplaceable(empty))
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
	outdir.SetCachedUmask(0o022)
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
	stale := filepath.Join(dir, ".o"+outdir.TmpTag+strconv.Itoa(pid)+"-123")
	require.NoError(t, os.MkdirAll(stale, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "summary.json"), []byte("{}"), 0o644))
	long := time.Now().Add(-time.Hour) // past staleGrace (a temporary just made may be a writer's first instant)
	require.NoError(t, os.Chtimes(stale, long, long))
	live := filepath.Join(dir, ".o"+outdir.TmpTag+"1-456") // pid 1 runs
	require.NoError(t, os.MkdirAll(live, 0o755))
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", filepath.Join(dir, "o"))
	require.Equal(t, exitOK, code, e)
	assert.NoDirExists(t, stale)
	assert.DirExists(t, live)
}

// SIGINT or SIGTERM during a sweep stops it, abandoning the runs in progress:
// simrun writes a valid summary of the runs done, marked partial, and exits
// 130 or 143 with no temporaries left (issue "Sweeps at scale", point 4). A
// second signal stops it at once: temporaries removed, nothing
// half-written.
//
// The signals are sent on observable states, never after a fixed time: the
// first once a progress line shows runs done (the sweep is under way), the
// second once simrun says it is abandoning the runs in progress.
func TestSignalsCleanUp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	start := func(dir string) (*exec.Cmd, *childStderr) {
		exe, err := os.Executable()
		require.NoError(t, err)
		abs, err := filepath.Abs(partition)
		require.NoError(t, err)
		cmd := exec.Command(exe, "-scenario", abs, "-seeds", "100000", "-shrink=false", "-out", filepath.Join(dir, "o"), "-json", filepath.Join(dir, "s.json"))
		cmd.Dir = dir
		cmd.Env = childEnv()
		return cmd, watchStderr(t, cmd)
	}
	// sweeping: a progress line ("simrun: 1200/100000 runs …") has runs done.
	sweeping := regexp.MustCompile(`(?m)^simrun: [1-9][0-9]*/100000 `)
	noTemps := func(dir string) {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			assert.NotContains(t, e.Name(), outdir.TmpTag, "a temporary was left behind")
		}
	}
	cases := []struct {
		sig    syscall.Signal
		code   int
		reason string
	}{{syscall.SIGINT, exitSIGINT, "interrupt"}, {syscall.SIGTERM, exitSIGTERM, "terminated"}}
	if raceEnabled {
		cases = cases[:1] // SIGTERM takes the same path (-race: 5 s a child)
	}
	for _, c := range cases {
		dir := t.TempDir()
		cmd, stderr := start(dir)
		stderr.waitFor(t, sweeping)
		require.NoError(t, cmd.Process.Signal(c.sig))
		err := stderr.wait(cmd)
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%v %s", err, stderr.String())
		assert.Equal(t, c.code, ee.ExitCode(), stderr.String())
		noTemps(dir)
		for _, f := range []string{filepath.Join(dir, "s.json"), filepath.Join(dir, "o", "summary.json")} {
			b, err := os.ReadFile(f)
			require.NoError(t, err, "%s: the runs done are summarized", f)
			var s reports.Summary
			require.NoError(t, json.Unmarshal(b, &s), f)
			require.NotNil(t, s.Partial, "%s: marked partial", f)
			assert.Equal(t, c.reason, s.Partial.Reason)
			assert.Equal(t, 100000, s.Partial.RunsPlanned)
			assert.Positive(t, s.Partial.RunsDone)
			assert.Less(t, s.Partial.RunsDone, 100000)
			total := 0
			for _, a := range s.Algorithms {
				total += a.Runs
			}
			assert.Equal(t, s.Partial.RunsDone, total, "the aggregate covers exactly the runs done")
		}
		assert.Equal(t, runsFileLines(t, filepath.Join(dir, "o", reports.RunsFileName)), s0(t, dir).Partial.RunsDone,
			"the runs file holds exactly the runs done")
		assert.FileExists(t, filepath.Join(dir, "o", "report.html"))
	}

	// Twice: at once, nothing half-written.
	dir := t.TempDir()
	cmd, stderr := start(dir)
	stderr.waitFor(t, sweeping)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	stderr.waitFor(t, regexp.MustCompile("abandoning the runs in progress"))
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := stderr.wait(cmd)
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "%v %s", err, stderr.String())
	assert.Equal(t, exitSIGINT, ee.ExitCode(), stderr.String())
	noTemps(dir)
	if b, err := os.ReadFile(filepath.Join(dir, "s.json")); err == nil {
		assert.True(t, json.Valid(b), "s.json, if written at all, is whole")
	}
}

// s0 is the summary in dir/o.
func s0(t *testing.T, dir string) *reports.Summary {
	f, err := os.Open(filepath.Join(dir, "o", "summary.json"))
	require.NoError(t, err)
	defer f.Close()
	s, err := reports.ReadJSON(f)
	require.NoError(t, err)
	return s
}

// childStderr collects a child process's stderr as it comes, so a test can
// wait for a line to appear.
type childStderr struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // a token when more came
	done    chan struct{} // closed at end of file
}

// watchStderr starts cmd with its stderr watched.
func watchStderr(t *testing.T, cmd *exec.Cmd) *childStderr {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &childStderr{changed: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		buf := make([]byte, 4096)
		for {
			n, err := pipe.Read(buf)
			c.mu.Lock()
			c.b.Write(buf[:n])
			c.mu.Unlock()
			select {
			case c.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *childStderr) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// childDeadline bounds a wait for a child's state: generous, not a speed
// requirement; it only keeps a broken child from hanging the test.
const childDeadline = 5 * time.Minute

// waitFor waits until the stderr matches re; the test fails if the child
// ends first (or nothing matches within childDeadline).
func (c *childStderr) waitFor(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	deadline := time.NewTimer(childDeadline)
	defer deadline.Stop()
	for !re.MatchString(c.String()) {
		select {
		case <-c.changed:
		case <-c.done:
			require.Regexp(t, re, c.String(), "the child ended first")
			return
		case <-deadline.C:
			require.FailNow(t, "waited "+childDeadline.String()+" for "+re.String(), c.String())
		}
	}
}

// wait reads the stderr to its end, then waits for cmd to exit.
func (c *childStderr) wait(cmd *exec.Cmd) error {
	<-c.done
	return cmd.Wait()
}
