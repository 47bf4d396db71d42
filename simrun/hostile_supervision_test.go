//go:build unix

package simrun

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 39, round four: what round three left open (docs/engine.md,
// "Worker processes"; docs/hunting.md, "Isolation"). Each case runs
// simrun as a child process (runBounded) and obeys the corpus's rules:
// documented exit status, one-line errors, bounded time and memory,
// nothing left behind, no stack trace.

// Gap 3: SIMRUN_WORKER typed on purpose in the shell that starts simrun
// ($$: the PID round three checked against the worker's parent) does not
// make a worker: a worker is one only with its parent's secret on an
// inherited pipe (workerlink.go). Round three's code, told
// SIMRUN_WORKER=<its parent's PID>, hunted the user algorithm in its own
// process (os.Exit(0) in a handler: exit 0, nothing printed) and made a
// plain sweep a worker (exit 5).
func TestHostileWorkerNamedByParentPID(t *testing.T) {
	dir := workersCorpus(t)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	shell := envWorker + "=" + strconv.Itoa(os.Getpid()) // this test process is the child's parent: its "$$"
	r := runWithEnv(t, dir, []string{shell}, "hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=exit",
		"-checks", "crashed", "-runs", "3", "-workers", "1", "-isolate", "-quiet", "-out", "hunt")
	require.Equal(t, exitViolation, r.code, "the hunt isolated its runs: %s", r.stderr)
	assert.Contains(t, r.stdout, "found: crashed after 1 run")
	assert.Contains(t, r.stdout, "the worker process exited with status 0 during the run")

	r = runWithEnv(t, dir, []string{shell}, "-scenario", abs, "-quiet", "-out", "plain")
	require.Equal(t, exitOK, r.code, "a plain sweep is no worker: %s", r.stderr)
	assert.FileExists(t, filepath.Join(dir, "plain", "report.html"))

	r = runWithEnv(t, dir, []string{shell}, huntWorkerCmd)
	assert.Equal(t, exitUsage, r.code, "the hidden command is refused outside a worker: %s", r.stderr)
	requireOneLine(t, r.stderr)
	noTemporaries(t, dir)
}

// Gap 2: a handler that prints a sweep worker's announcement of another
// seed (and a progress line) on stderr, then ends its process, cannot
// make its parent blame another run: announcements travel on the
// worker's channel to its parent. Round three's parent blamed seed 999,
// which the sweep never ran.
func TestHostileForgedSweepAnnouncement(t *testing.T) {
	dir := workersCorpus(t)
	r := runBounded(t, dir, "-scenario", "hostile.yaml", "-set", "algorithm.bug=forge-exit", "-seeds", "2",
		"-isolate", "-workers", "1", "-quiet", "-out", "o", "-json", "s.json")
	require.Equal(t, exitViolation, r.code, r.stderr)
	requireOneLine(t, r.stderr)
	assert.Contains(t, r.stderr, "every run killed its worker process")
	assert.NotContains(t, r.stderr, "seed 999")
	assert.Contains(t, r.stderr, "seed 1")
	assert.Contains(t, r.stderr, "seed 2")
	noTemporaries(t, dir)
}
