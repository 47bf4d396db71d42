//go:build unix

package simrun

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electsim/electsim/reports"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelperHoldLock is not a test: run as a child with SIMRUN_HOLD_LOCK
// set, it takes the lock simrun takes on that file, says "locked", and
// holds it until its standard input closes (a writer in another container,
// whose PID this one cannot see).
func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv("SIMRUN_HOLD_LOCK")
	if path == "" {
		t.Skip("a helper process, not a test")
	}
	f, err := outdir.LockPath(path)
	require.NoError(t, err)
	defer f.Close()
	os.Stdout.WriteString("locked\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// holdLockChild starts a process that holds the lock on path until the
// test ends.
func holdLockChild(t *testing.T, path string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "SIMRUN_HOLD_LOCK="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
}

// deadPID is a process ID that names no process here (one that exited):
// what a live simrun in another PID namespace looks like from this one.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	require.NoError(t, c.Run())
	return c.Process.Pid
}

// Issue 29 point 4: a staging folder whose PID names no process here but
// whose writer is alive (it holds the lock on the folder's marker, as a
// simrun in another container sharing the volume does) is not removed by
// the next run; one whose lock is free is. A staged file likewise.
func TestStaleTemporaryLockedByOtherNamespace(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs helper processes")
	}
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour) // past staleGrace: only the lock keeps it
	mk := func(name string, locked bool) string {
		p := filepath.Join(dir, ".o"+outdir.TmpTag+strconv.Itoa(deadPID(t))+"-"+name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		m := filepath.Join(p, outdir.MarkerFile)
		require.NoError(t, os.WriteFile(m, []byte(outdir.MarkerText), 0o644))
		if locked {
			holdLockChild(t, m)
		}
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	live, dead := mk("live", true), mk("dead", false)
	liveFile := filepath.Join(dir, ".s.json"+outdir.TmpTag+strconv.Itoa(deadPID(t))+"-1")
	require.NoError(t, os.WriteFile(liveFile, []byte("{"), 0o644))
	holdLockChild(t, liveFile)
	require.NoError(t, os.Chtimes(liveFile, old, old))

	// The live writer holds o: this run is refused (issue 38 point 10),
	// after removing the killed writer's temporary and keeping the live
	// one's.
	code, _, e := simrun(t, "-scenario", partition, "-quiet", "-out", filepath.Join(dir, "o"), "-json", filepath.Join(dir, "s.json"))
	require.Equal(t, exitUsage, code, e)
	assert.Contains(t, e, "is writing this folder now")
	assert.DirExists(t, live, "a live writer's staging folder (lock held) was removed")
	assert.FileExists(t, liveFile, "a live writer's staged file (lock held) was removed")
	assert.NoDirExists(t, dead, "a killed writer's staging folder (lock free) stayed")
}

// Issue 29 point 7: ONE SIGTERM (what systemd, Kubernetes and timeout
// send before SIGKILL) stops a sweep whose runs in progress are long: they
// are abandoned between two events, and simrun writes a partial summary of
// the runs done and exits 143. The old code waited for the runs in
// progress (999 simulated hours each), so the child never ended by itself;
// the deadline below only stops such a hung child.
func TestOneSIGTERMStopsLongRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	// Cell duration=1h finishes its 100 runs (a quarter second each), past
	// the first progress line (2 s in); cell duration=999h (minutes a
	// run) then runs on both workers until the signal.
	cmd := exec.Command(exe, "-scenario", abs, "-vary", "duration=1h,999h", "-seeds", "100", "-workers", "2",
		"-shrink=false", "-out", filepath.Join(dir, "o"), "-json", filepath.Join(dir, "s.json"))
	cmd.Dir = dir
	cmd.Env = childEnv()
	stderr := watchStderr(t, cmd)
	hung := time.AfterFunc(childDeadline, func() { cmd.Process.Kill() })
	defer hung.Stop()
	stderr.waitFor(t, regexp.MustCompile(`(?m)^simrun: [1-9][0-9]*/200 `))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = stderr.wait(cmd)
	ee, ok := err.(*exec.ExitError)
	require.True(t, ok, "%v %s", err, stderr.String())
	require.Equal(t, exitSIGTERM, ee.ExitCode(), "one SIGTERM must end the sweep (-1: killed as hung)\n%s", stderr.String())
	for _, f := range []string{filepath.Join(dir, "s.json"), filepath.Join(dir, "o", "summary.json")} {
		b, err := os.ReadFile(f)
		require.NoError(t, err, "%s: the runs done are summarized", f)
		var s reports.Summary
		require.NoError(t, json.Unmarshal(b, &s), f)
		require.NotNil(t, s.Partial, "%s: marked partial", f)
		assert.Equal(t, "terminated", s.Partial.Reason)
		assert.Equal(t, 200, s.Partial.RunsPlanned)
		assert.Positive(t, s.Partial.RunsDone)
		assert.LessOrEqual(t, s.Partial.RunsDone, 100, "no 999 h run finished: they were abandoned")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), outdir.TmpTag, "a temporary was left behind")
	}
}

// Issue 29 point 7: the worker folder of an etcdraft sweep killed with
// SIGKILL ($TMPDIR/simrun-workers-*) is removed by the next sweep in
// worker processes, unless its lock is held (a live sweep, perhaps in
// another container sharing the folder).
func TestKilledWorkerFolderRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	tmp, work := t.TempDir(), t.TempDir()
	old := time.Now().Add(-time.Hour)
	mk := func(name string, locked bool) string {
		d := filepath.Join(tmp, worker.DirPrefix+name)
		require.NoError(t, os.MkdirAll(d, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(d, "w0.json"), []byte("{"), 0o600))
		lock := filepath.Join(d, worker.LockFile)
		require.NoError(t, os.WriteFile(lock, nil, 0o600))
		if locked {
			holdLockChild(t, lock)
		}
		require.NoError(t, os.Chtimes(d, old, old))
		return d
	}
	killed, live := mk("killed", false), mk("live", true)
	exe, err := os.Executable()
	require.NoError(t, err)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	cmd := exec.Command(exe, "-scenario", abs, "-algo", "etcdraft", "-seeds", "2", "-workers", "2", "-quiet", "-out", filepath.Join(work, "o"))
	cmd.Dir = work
	cmd.Env = childEnv("TMPDIR=" + tmp)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NoDirExists(t, killed, "a killed sweep's worker folder stayed")
	assert.DirExists(t, live, "a live sweep's worker folder was removed")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the live sweep's folder is left")
}

// Issue 29 point 3: a valid input alone (one node, no faults, 999 simulated
// hours) must not exhaust memory. The featured run's space-time sink kept
// every timer firing while fewer than 20,000 messages were sent: 3.0 GB at
// 100 h, out of memory at 999 h. It now keeps at most
// reports.MaxSpaceTimeTimers firings (the report says where the diagram
// stops); the whole run stays near 35 MB.
func TestOneNodeLongRunMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	if raceEnabled {
		t.Skip("peak RSS under -race says nothing (the detector's shadow memory); the plain run checks it")
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	code, stderr, rss := runChild(t, dir, "-scenario", abs, "-set", "cluster.nodes=1", "-set", "faults=", "-set", "duration=999h", "-quiet", "-out", "o")
	require.Equal(t, exitOK, code, stderr)
	assert.Less(t, rss, int64(256<<10), "peak RSS %d KiB", rss)
	b, err := os.ReadFile(filepath.Join(dir, "o", "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "timer firings (at most", "the report says the diagram was cut")
}

// Issue 29 point 3: the largest grid -vary allows (32 × 32, MaxGroups)
// keeps the reports in bounded memory. The failover box plot and the
// messages-per-election figure drew a box or a panel per group, images as
// tall as the grid (3.8 GB peak, 74 s, at one seed); they now draw at most
// reports.MaxBoxes boxes and reports.MaxHistPanels panels (250 MB, 4 s).
func TestLargestGridMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simrun as a child process")
	}
	if raceEnabled {
		t.Skip("peak RSS under -race says nothing (the detector's shadow memory); the plain run checks it")
	}
	var lat, drop []string
	for i := 0; i < 32; i++ {
		lat = append(lat, strconv.Itoa(i+1)+"ms")
		drop = append(drop, strconv.FormatFloat(float64(i)/100, 'f', 2, 64))
	}
	dir := t.TempDir()
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	code, stderr, rss := runChild(t, dir, "-scenario", abs, "-vary", "network.latency="+strings.Join(lat, ","), "-vary", "network.drop="+strings.Join(drop, ","),
		"-seeds", "1", "-quiet", "-shrink=false", "-out", "o")
	require.Contains(t, []int{exitOK, exitViolation}, code, stderr)
	assert.Less(t, rss, int64(512<<10), "peak RSS %d KiB", rss)
	assert.FileExists(t, filepath.Join(dir, "o", "report.html"))
}
