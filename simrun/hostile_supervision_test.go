//go:build unix

package simrun

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/simrun/worker"
)

// Issue 39, round four: what round three left open (docs/engine.md,
// "Worker processes"; docs/hunting.md, "Isolation"). Each case runs
// simrun as a child process (runBounded) and obeys the corpus's rules:
// documented exit status, one-line errors, bounded time and memory,
// nothing left behind, no stack trace.

// Gap 3: SIMRUN_WORKER typed on purpose in the shell that starts simrun
// ($$: the PID round three checked against the worker's parent) does not
// make a worker: a worker is one only with its parent's secret on an
// inherited pipe (worker/workerlink.go). Round three's code, told
// SIMRUN_WORKER=<its parent's PID>, hunted the user algorithm in its own
// process (os.Exit(0) in a handler: exit 0, nothing printed) and made a
// plain sweep a worker (exit 5).
func TestHostileWorkerNamedByParentPID(t *testing.T) {
	dir := workersCorpus(t)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	shell := worker.EnvWorker + "=" + strconv.Itoa(os.Getpid()) // this test process is the child's parent: its "$$"
	r := runWithEnv(t, dir, []string{shell}, "hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=exit",
		"-checks", "crashed", "-runs", "3", "-workers", "1", "-isolate", "-quiet", "-out", "hunt")
	require.Equal(t, exitViolation, r.code, "the hunt isolated its runs: %s", r.stderr)
	assert.Contains(t, r.stdout, "found: crashed after 1 run")
	assert.Contains(t, r.stdout, "the worker process exited with status 0 during the run")

	r = runWithEnv(t, dir, []string{shell}, "-scenario", abs, "-quiet", "-out", "plain")
	require.Equal(t, exitOK, r.code, "a plain sweep is no worker: %s", r.stderr)
	assert.FileExists(t, filepath.Join(dir, "plain", "report.html"))

	r = runWithEnv(t, dir, []string{shell}, worker.HuntCmd)
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

// Issue 35 point 7: a run that kills its process is a crashed finding
// with its seed for a built-in algorithm too. hostile-builtin is
// registered InProcess, as electsim's own are; its planted bug recurses
// without end. The hunt, with no -isolate, runs its runs in a worker
// process it supervises: the stack overflow is the crashed finding,
// with the run's seed and a repro. Round three's hunt ran built-in
// algorithms in its own process and died of Go's fatal stack overflow
// (exit 2, no seed).
func TestHostileBuiltinRecursionIsAFinding(t *testing.T) {
	dir := workersCorpus(t)
	r := runBounded(t, dir, "hunt", "-algo", hostileBuiltin, "-set", "algorithm.bug=recurse", "-runs", "3", "-workers", "1",
		"-shrink-time", "2s", "-out", "o")
	require.Equal(t, exitViolation, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Regexp(t, `found: crashed after 1 run in \S+ \(strategy \w+, run seed \d+\)`, r.stdout)
	assert.Contains(t, r.stdout, "fatal error: stack overflow")
	assert.Contains(t, r.stdout, "recursingNode).forward", "the top of the dying goroutine's stack")
	repro, err := os.ReadFile(filepath.Join(dir, "o", "repro.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(repro), "seed: ")
	assert.Contains(t, r.stderr, "runs in 1 worker process (a run that kills its process")
	assert.NotContains(t, r.stderr, "goroutine ", "no stack trace on stderr")
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
	noTemporaries(t, dir)
}

// Gap 1: the algorithm's own Build, which the scenario loader calls to
// check a file's parameters, runs only in a worker process when simrun
// isolates the algorithm: os.Exit in it is exit 1 with one line, a Build
// that blocks is stopped by the watchdog (exit 1, one line), in a sweep
// and in a hunt; a configuration it refuses is refused (exit 2) in the
// loader's own words, as without isolation. Round three's parent called
// it while reading the file: exit 7 with nothing said, or hung.
func TestHostileBuildValidationInWorker(t *testing.T) {
	dir := workersCorpus(t)
	for _, args := range [][]string{
		{"-scenario", "hostile.yaml", "-seeds", "2"},
		{"hunt", "-scenario", "hostile.yaml", "-runs", "2", "-workers", "1"},
		{"hunt", "-algo", hostileAlgo, "-runs", "2", "-workers", "1"},
	} {
		name := args[0]
		if name == "hunt" {
			name += " " + args[1]
		}
		t.Run(name, func(t *testing.T) {
			r := runBounded(t, dir, append(append([]string(nil), args...), "-set", "algorithm.bug=validate-exit", "-quiet", "-out", "ve")...)
			require.Equal(t, exitViolation, r.code, "%s\n%s", r.stdout, r.stderr)
			requireOneLine(t, r.stderr)
			assert.Contains(t, r.stderr, "killed its worker process")
			assert.Contains(t, r.stderr, "status 7")

			r = runBounded(t, dir, append(append([]string(nil), args...), "-set", "algorithm.bug=validate-block", "-handler-timeout", "1s", "-quiet", "-out", "vb")...)
			require.Equal(t, exitViolation, r.code, "%s\n%s", r.stdout, r.stderr)
			requireOneLine(t, r.stderr)
			assert.Contains(t, r.stderr, "did not return within 1s")

			iso := runBounded(t, dir, append(append([]string(nil), args...), "-set", "algorithm.bug=validate-refuse", "-quiet", "-out", "vr")...)
			in := runBounded(t, dir, append(append([]string(nil), args...), "-set", "algorithm.bug=validate-refuse", "-isolate=false", "-quiet", "-out", "vr")...)
			require.Equal(t, exitUsage, iso.code, iso.stderr)
			requireOneLine(t, iso.stderr)
			assert.Contains(t, iso.stderr, `bug "validate-refuse" is refused`)
			assert.Equal(t, in.code, iso.code)
			assert.Equal(t, in.stderr, iso.stderr, "the loader's own words, isolated or not")
			for _, out := range []string{"ve", "vb", "vr"} {
				assert.NoDirExists(t, filepath.Join(dir, out))
			}
		})
	}
	noTemporaries(t, dir)
}

// Gap 4: -matrix isolates an algorithm not built into electsim as a
// sweep does: a handler's os.Exit(0) is its runs' crashed finding (exit
// 1, the table written, its cell failing), and its Build's os.Exit while
// the matrix reads its scenarios is exit 1 with one line. Round three's
// matrix ran it in its own process: exit 0 with nothing written, and
// exit 7.
func TestHostileMatrixIsolatesUserAlgorithms(t *testing.T) {
	dir := workersCorpus(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte("name: m\nseeds: 2\nalgorithms: [hostile-user]\nscenarios: [hostile.yaml]\n"), 0o644))
	r := runBounded(t, dir, "-matrix", "m.yaml", "-set", "algorithm.bug=exit", "-workers", "1", "-out", "mx")
	require.Equal(t, exitViolation, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "each scenario's runs in worker processes")
	md, err := os.ReadFile(filepath.Join(dir, "mx", "matrix.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| 2/2 |", "both runs crashed: the cell fails")
	assert.NotRegexp(t, `goroutine \d+ \[`, r.stderr, "no stack trace")

	r = runBounded(t, dir, "-matrix", "m.yaml", "-set", "algorithm.bug=validate-exit", "-quiet", "-out", "mv")
	require.Equal(t, exitViolation, r.code, "%s\n%s", r.stdout, r.stderr)
	requireOneLine(t, r.stderr)
	assert.Contains(t, r.stderr, "killed its worker process")
	assert.NoDirExists(t, filepath.Join(dir, "mv"))
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
	noTemporaries(t, dir)
}
