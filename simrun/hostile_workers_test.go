//go:build unix

package simrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/electsim/electsim/scenario"
	"github.com/electsim/electsim/simrun/outdir"
	"github.com/electsim/electsim/simrun/worker"
)

// Issue 39, the third hostile pass: the hunt and its workers. Each case
// runs simrun as a child process (this test binary, childEnv) with the
// hostile user algorithm of hostile_user_test.go where user code is the
// hazard, and checks the documented exit status, a one-line error, the
// memory bound and that nothing is left behind.

// hostileYAML is a scenario of the hostile user algorithm.
const hostileYAML = `name: hostile
duration: 2s
cluster: {nodes: 3}
algorithm: {name: hostile-user}
`

// workersCorpus is the prologue of a case: skipped under -short and
// -race (its children would be race builds, many times slower), else a
// folder holding hostile.yaml.
func workersCorpus(t *testing.T) string {
	t.Helper()
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("runs simrun as child processes")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hostile.yaml"), []byte(hostileYAML), 0o644))
	return dir
}

// runWithEnv is runBounded with extra variables in the child's
// environment.
func runWithEnv(t *testing.T, dir string, env []string, args ...string) childResult {
	t.Helper()
	if len(env) == 0 {
		return runBounded(t, dir, args...)
	}
	old := childExtraEnv
	childExtraEnv = env
	defer func() { childExtraEnv = old }()
	return runBounded(t, dir, args...)
}

// noTemporaries fails if dir holds one of simrun's temporaries.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			assert.NotContains(t, filepath.Base(p), outdir.TmpTag, "a temporary was left behind")
			assert.NotContains(t, filepath.Base(p), outdir.NewTag, "a temporary was left behind")
		}
		return err
	}))
}

// requireOneLine checks that stderr is one line, with no stack trace.
func requireOneLine(t *testing.T, stderr string) {
	t.Helper()
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	assert.NotContains(t, stderr, "goroutine ", "no stack trace")
}

// Point 1: the variables simrun owns, left set in the user's shell, do
// not reach a sweep's workers and do not make a sweep or a hunt a worker.
// The old code handed SIMRUN_WORKER_SKIP to the workers (4 seeds, 2 runs
// aggregated, exit 0), hunted a user algorithm unisolated under
// SIMRUN_WORKER=1 (os.Exit(0) in a handler: exit 0, nothing printed) and
// made a plain sweep act as a worker (exit 5).
func TestHostileWorkerEnvironmentLeftSet(t *testing.T) {
	dir := workersCorpus(t)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)

	r := runWithEnv(t, dir, []string{worker.EnvSkip + "=1 0 raft,2 0 raft"},
		"-scenario", abs, "-seeds", "4", "-isolate", "-workers", "1", "-quiet", "-out", "skip", "-json", "skip.json")
	require.Equal(t, exitOK, r.code, r.stderr)
	s := readSummary(t, filepath.Join(dir, "skip.json"))
	require.Len(t, s.Algorithms, 1)
	assert.Equal(t, 4, s.Algorithms[0].Runs, "every seed aggregated: the skip list left in the shell reached no worker")
	assert.Len(t, s.Runs, 4)

	for _, v := range []string{"1", strconv.Itoa(os.Getppid())} { // a shell's leftover, and a PID that is not the child's parent
		r = runWithEnv(t, dir, []string{worker.EnvWorker + "=" + v}, "hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=exit",
			"-checks", "crashed", "-runs", "3", "-workers", "1", "-isolate", "-quiet", "-out", "hunt"+v)
		require.Equal(t, exitViolation, r.code, "SIMRUN_WORKER=%s: the hunt isolated its runs: %s", v, r.stderr)
		assert.Contains(t, r.stdout, "found: crashed after 1 run")
		assert.Contains(t, r.stdout, "the worker process exited with status 0 during the run")

		r = runWithEnv(t, dir, []string{worker.EnvWorker + "=" + v}, "-scenario", abs, "-quiet", "-out", "plain"+v)
		require.Equal(t, exitOK, r.code, "SIMRUN_WORKER=%s: a plain sweep is no worker: %s", v, r.stderr)
		assert.FileExists(t, filepath.Join(dir, "plain"+v, "report.html"))
	}
	noTemporaries(t, dir)
}

// Point 3: a handler that prints what looks like a worker's reply does
// not forge one (replies travel on their own descriptor). The old code
// ended the hunt with exit 2 ("hunt worker reply: invalid character").
func TestHostileForgedHuntReply(t *testing.T) {
	dir := workersCorpus(t)
	r := runBounded(t, dir, "hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=forge", "-checks", "crashed",
		"-runs", "3", "-workers", "1", "-isolate", "-quiet", "-out", "o")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "nothing found: 3 runs")
	assert.NotContains(t, r.stdout+r.stderr, "forged")
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
	noTemporaries(t, dir)
}

// Point 7: small refusals. -shrink-time -1s is refused by hunt as by a
// sweep; an unknown command's message lists every command, hunt
// included; a -set key holding a newline is quoted, so the error stays
// on one line (sweep and hunt).
func TestHostileSmallRefusals(t *testing.T) {
	dir := workersCorpus(t)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	before := snapshot(t, dir)
	requireRefused(t, runBounded(t, dir, "hunt", "-algo", "raft", "-shrink-time", "-1s"), "-shrink-time must not be negative")
	r := runBounded(t, dir, "bogus")
	requireRefused(t, r, `unexpected arguments ["bogus"]`)
	for _, c := range subcommands {
		assert.Contains(t, r.stderr, c.name)
	}
	assert.Contains(t, r.stderr, "commands: merge, margin, hunt, reality, list, help")
	requireRefused(t, runBounded(t, dir, "-scenario", abs, "-set", "clu\nster.nodes=3"), `"clu\nster.nodes"`)
	requireRefused(t, runBounded(t, dir, "hunt", "-algo", "raft", "-set", "a\nb=1"), `"a\nb"`)
	assert.Equal(t, before, snapshot(t, dir))
}

// Point 2: user code that exits or blocks while the run is built (the
// algorithm's factory) kills a worker, not the hunt or the sweep: exit 1
// with one line saying so (the algorithm crashed; no run exists to
// reproduce or report), and nothing written. The old code ended both
// with the factory's exit status 7 and no message, and hung on a factory
// that blocks.
func TestHostileBuildKillsOnlyItsWorker(t *testing.T) {
	dir := workersCorpus(t)
	for bug, want := range map[string]string{
		// Worded as the algorithm's code, not its factory: the worker
		// reads the file first (Build's checks, LeaseStores) and, for
		// margin and list, asks DriftMargin and Contract, which die the
		// same way (issue 39 round six, point 3).
		"build-exit":  "the algorithm's code killed its worker process while it read the file or built the run: the worker process exited with status 7 in the algorithm's code (os.Exit in its checks, LeaseStores, DriftMargin, Contract, Token or factory?)",
		"build-block": "the algorithm's code killed its worker process while it read the file or built the run: fatal error: the algorithm's code (its checks, LeaseStores, DriftMargin, Contract, Token or factory) did not return within 300ms (-handler-timeout)",
	} {
		t.Run(bug, func(t *testing.T) {
			before := snapshot(t, dir)
			r := runBounded(t, dir, "hunt", "-algo", hostileAlgo, "-set", "algorithm.bug="+bug, "-runs", "3", "-workers", "1",
				"-isolate", "-handler-timeout", "300ms", "-quiet", "-out", "h")
			assert.Equal(t, exitViolation, r.code, r.stderr)
			assert.Contains(t, r.stderr, want)
			requireOneLine(t, r.stderr)
			assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")

			r = runBounded(t, dir, "-scenario", "hostile.yaml", "-set", "algorithm.bug="+bug, "-seeds", "3", "-isolate",
				"-handler-timeout", "300ms", "-quiet", "-out", "s")
			assert.Equal(t, exitViolation, r.code, r.stderr)
			assert.Contains(t, r.stderr, "hostile.yaml under hostile-user: "+want)
			requireOneLine(t, r.stderr)
			assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
			assert.Equal(t, before, snapshot(t, dir), "nothing written")
		})
	}
}

// signalChild starts simrun in dir, sends sig once its stderr matches
// at, and returns its exit status and output.
func signalChild(t *testing.T, dir string, at *regexp.Regexp, sig syscall.Signal, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = dir, childEnv()
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr := watchStderr(t, cmd)
	hung := time.AfterFunc(childDeadline, func() { cmd.Process.Kill() })
	defer hung.Stop()
	stderr.waitFor(t, at)
	require.NoError(t, cmd.Process.Signal(sig))
	err = stderr.wait(cmd)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, stdout.String(), stderr.String()
}

// Point 4: one SIGINT during a shrink stops it (the trial in progress is
// abandoned) and the hunt writes the reproduction it has and exits 130,
// in this process and in a worker; one during a build that blocks stops
// the hunt (130) without waiting for the watchdog. The old code finished
// the shrink (seconds later, exit 1) and never stopped the blocked build;
// until round four, the signal's line spoke of a sweep's partial summary.
func TestHostileSignalsDuringHunts(t *testing.T) {
	dir := workersCorpus(t)
	for _, iso := range []string{"-isolate=false", "-isolate"} {
		t.Run("shrink "+iso, func(t *testing.T) {
			out := "lp" + iso
			code, stdout, stderr := signalChild(t, dir, regexp.MustCompile(`hunt: shrinking seed`), syscall.SIGINT,
				"hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=late-panic", "-set", "duration=1000s", "-set", "cluster.nodes=5",
				"-checks", "crashed", "-runs", "5", "-workers", "1", iso, "-out", out)
			require.Equal(t, exitSIGINT, code, "%s\n%s", stdout, stderr)
			assert.Contains(t, stdout, "found: crashed after 1 run")
			repro, err := os.ReadFile(filepath.Join(dir, out, "repro.yaml"))
			require.NoError(t, err, "what was found is written")
			assert.Contains(t, string(repro), "seed: ")
			assert.NotContains(t, stderr, "goroutine ", "no stack trace")
			// The signal's line says what a hunt does with it, not a
			// sweep's "partial summary" (round four: it did).
			assert.Contains(t, stderr, "interrupt: abandoning the runs in progress (not judged) and stopping the hunt")
			assert.NotContains(t, stderr, "partial summary")
		})
	}
	t.Run("blocked build", func(t *testing.T) {
		code, stdout, stderr := signalChild(t, dir, regexp.MustCompile(`runs in 1 worker process`), syscall.SIGINT,
			"hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=build-block", "-runs", "3", "-workers", "1", "-isolate",
			"-handler-timeout", "10m", "-out", "blk")
		require.Equal(t, exitSIGINT, code, "%s\n%s", stdout, stderr)
		assert.Contains(t, stderr, "stopped by a signal before any run was judged; nothing written")
		assert.NoDirExists(t, filepath.Join(dir, "blk"))
	})
	noTemporaries(t, dir)
}

// Point 4: -budget bounds a hunt's wall time even when a run is far
// longer (a 500 h base): the run in progress is abandoned at the
// deadline (no finding), and a progress line comes meanwhile. The old
// code waited for the run (minutes).
func TestHostileHuntBudgetBoundsLongRuns(t *testing.T) {
	dir := workersCorpus(t)
	r := runBounded(t, dir, "hunt", "-algo", "raft", "-set", "duration=500h", "-budget", "3s", "-workers", "1", "-out", "o")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "nothing found: 0 runs")
	assert.Regexp(t, `(?m)^\S+ hunt: runs 0 in `, r.stderr, "a progress line while the run is long")
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
	noTemporaries(t, dir)
}

// Point 6: temporaries a SIGKILL left behind are removed by the next run
// at once, not after a grace period, when no live simrun holds them: a
// sweep's staging folder in out/ (a real kill -9), and a worker sweep's
// folder in $TMPDIR (made as a killed sweep leaves it: its lock file
// free). One whose lock a live process holds stays. The old code left
// both young ones in place.
func TestHostileKilledTemporariesCleanedAtOnce(t *testing.T) {
	dir := workersCorpus(t)
	abs, err := filepath.Abs(partition)
	require.NoError(t, err)
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-scenario", abs, "-seeds", "5000", "-workers", "1")
	cmd.Dir, cmd.Env = dir, childEnv()
	stderr := watchStderr(t, cmd)
	hung := time.AfterFunc(childDeadline, func() { cmd.Process.Kill() })
	defer hung.Stop()
	stderr.waitFor(t, regexp.MustCompile(`(?m)^simrun: [1-9][0-9]*/5000 `))
	require.NoError(t, cmd.Process.Kill())
	_ = stderr.wait(cmd)
	staged, err := filepath.Glob(filepath.Join(dir, "out", "partition", ".*"+outdir.TmpTag+"*"))
	require.NoError(t, err)
	require.NotEmpty(t, staged, "the killed sweep left its staging folder")

	tmp := t.TempDir()
	mk := func(name string, locked bool) string {
		d := filepath.Join(tmp, worker.DirPrefix+name)
		require.NoError(t, os.MkdirAll(d, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(d, "shard0.json"), []byte("{"), 0o600))
		lock := filepath.Join(d, worker.LockFile)
		require.NoError(t, os.WriteFile(lock, nil, 0o600))
		if locked {
			holdLockChild(t, lock)
		}
		return d
	}
	dead, live := mk("killed", false), mk("live", true)
	r := runWithEnv(t, dir, []string{"TMPDIR=" + tmp}, "-scenario", abs, "-seeds", "2", "-workers", "1", "-isolate", "-quiet")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, s := range staged {
		assert.NoDirExists(t, s, "the killed sweep's staging folder")
	}
	assert.NoDirExists(t, dead, "the killed sweep's worker folder")
	assert.DirExists(t, live, "a live sweep's worker folder (its lock held)")
	noTemporaries(t, dir)
}

// Point 5: a handler that allocates without bound is its run's crashed
// finding, its worker held to the worker memory limit (512 MiB) — in a
// hunt and in a sweep. The peak RSS measured is the child's and its
// reaped workers' (wait4 folds a reaped child's peak into its parent's).
// The old code let the worker grow to the test's OS limit (2 GiB; on a
// machine without one, 1.7–2.7 GB before the handler watchdog fired).
func TestHostileRunawayHandlerMemory(t *testing.T) {
	dir := workersCorpus(t)
	const limitKB = worker.MemLimitMiB << 10
	r := runBounded(t, dir, "hunt", "-algo", hostileAlgo, "-set", "algorithm.bug=alloc", "-checks", "crashed",
		"-runs", "3", "-workers", "1", "-isolate", "-quiet", "-out", "h")
	require.Equal(t, exitViolation, r.code, r.stderr)
	assert.Contains(t, r.stdout, "found: crashed after 1 run")
	assert.Contains(t, r.stdout, "out of memory")
	assert.Contains(t, r.stdout, "(a worker process's memory limit is 512 MiB")
	assert.Less(t, r.rssKB, int64(limitKB), "peak RSS of the hunt and its workers, KB")

	r = runBounded(t, dir, "-scenario", "hostile.yaml", "-set", "algorithm.bug=alloc", "-seeds", "2", "-isolate", "-quiet", "-out", "s")
	require.Equal(t, exitViolation, r.code, r.stderr)
	assert.Contains(t, r.stderr, "every run killed its worker process")
	assert.Contains(t, r.stderr, "a worker process's memory limit is 512 MiB")
	requireOneLine(t, r.stderr)
	assert.Less(t, r.rssKB, int64(limitKB), "peak RSS of the sweep and its workers, KB")
	noTemporaries(t, dir)
}

// queueMaxYAML is queue mode at its maximum: 1,000 colocated workers
// (cron.queue.workers' bound), a job every second, 10 minutes.
const queueMaxYAML = `name: queue-max
duration: 10m
cluster: {nodes: 3}
algorithm: {name: raft}
cron:
  mode: queue
  jobs: [{name: report, schedule: "@every 1s", duration: 4s, writes: 4}]
  policy: [fencing, idempotency]
  queue: {workers: 1000, colocated: true, heartbeat: 1s, stale_after: 3s}
settle: {for: 30s, leader_within: 20s}
`

// Point 5: what grows with the workers of queue mode at its maximum is
// the per-link state, n² for n nodes: the network's link matrix (72 MB
// at 1,006 nodes, bounded) and the fault injector's two copies of every
// link's configuration (124 MB), now held sparsely. A built run of the
// maximum holds under 128 MiB (measured 99 MB; the old code 202 MB, and
// it took 12 to 42 s to build, O(n³) copies, which a worker's build
// watchdog would now abort). The whole run peaks at 394 MB in one process
// with its report (the old code 725 MB), under a worker's 512 MiB.
func TestHostileQueueMaximumBuildMemory(t *testing.T) {
	skipUnderRace(t)
	sc, err := scenario.Parse("queue-max.yaml", []byte(queueMaxYAML))
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := sc.Build(scenario.RunOptions{Seed: 1, Lean: true})
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.Equal(t, 1006, r.Sim.NumNodes())
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("a built run of queue mode at its maximum holds %d MB", held>>20)
	assert.Less(t, held, int64(128<<20), "heap held by the built run")
	runtime.KeepAlive(r)
}
