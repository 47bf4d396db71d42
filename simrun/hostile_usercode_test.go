//go:build unix

package simrun

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 39, round five: the user code the parent still called. Each case
// runs simrun as a child (runBounded: bounded time, measured memory) and
// checks the corpus's rules: the documented exit status, one line, no
// stack trace, no temporaries. The algorithms are hostile_user_test.go's
// and hostile_stores_test.go's.

// storesYAML is a file of hostileStores (3 lease stores) whose fault names
// store2: the loader needs the store count to read it.
const storesYAML = `name: stores
duration: 2s
cluster: {nodes: 3}
algorithm: {name: hostile-stores}
faults:
  - {at: 1s, crash: store2, for: 500ms}
`

// marginYAML is a margin study's file of hostileStores: its followers'
// clock rate is faults[0].clock.rate.
const marginYAML = `name: drift
duration: 2s
cluster: {nodes: 3}
algorithm: {name: hostile-stores}
faults:
  - {at: 1s, clock: {target: followers, rate: 1.0}}
`

// validateExitYAML names hostile-user with a Build that calls os.Exit(7).
const validateExitYAML = `name: vexit
duration: 2s
cluster: {nodes: 3}
algorithm: {name: hostile-user, bug: validate-exit}
`

// userCodeCorpus is workersCorpus with this file's scenarios.
func userCodeCorpus(t *testing.T) string {
	t.Helper()
	dir := workersCorpus(t)
	for name, src := range map[string]string{"stores.yaml": storesYAML, "drift.yaml": marginYAML, "vexit.yaml": validateExitYAML} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	return dir
}

// requireCrashed checks a crashed finding of the user's code: exit 1,
// one line holding want, within the corpus's memory.
func requireCrashed(t *testing.T, r childResult, want string) {
	t.Helper()
	require.Equal(t, exitViolation, r.code, "%s\n%s", r.stdout, r.stderr)
	requireOneLine(t, r.stderr)
	assert.Contains(t, r.stderr, want)
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
}

// registry.Algorithm.LeaseStores is the user's code: the loader counted
// store nodes with it in the parent while it read the target store2, so
// os.Exit(7) in it ended a sweep and a hunt with exit 7 and no message,
// and a LeaseStores that blocked hung them. A worker reads the file in
// full and reports the count (scenario/leasestores.go); a target the
// real count refuses is the loader's error in the same words, isolated
// or not.
func TestHostileLeaseStoresInWorker(t *testing.T) {
	dir := userCodeCorpus(t)
	for _, args := range [][]string{
		{"-scenario", "stores.yaml", "-seeds", "2"},
		{"hunt", "-scenario", "stores.yaml", "-runs", "2", "-workers", "1"},
	} {
		t.Run(args[0], func(t *testing.T) {
			run := func(extra ...string) childResult {
				return runBounded(t, dir, append(append([]string(nil), args...), append(extra, "-quiet", "-out", "o")...)...)
			}
			r := run("-set", "algorithm.stores_bug=1")
			requireCrashed(t, r, "killed its worker process")
			assert.Contains(t, r.stderr, "status 7")
			assert.Contains(t, r.stderr, "LeaseStores", "names the code that may have died, not only the factory")
			requireCrashed(t, run("-set", "algorithm.stores_bug=2", "-handler-timeout", "1s"), "did not return within 1s")
			requireCrashed(t, run("-set", "algorithm.stores_bug=3"), "hostile-stores: panic")

			iso := run("-set", "faults[0].crash=store4")
			in := run("-set", "faults[0].crash=store4", "-isolate=false")
			require.Equal(t, exitUsage, iso.code, iso.stderr)
			requireOneLine(t, iso.stderr)
			assert.Contains(t, iso.stderr, `store4`)
			assert.Equal(t, in.stderr, iso.stderr, "the loader's own words, isolated or not")
			assert.NoDirExists(t, filepath.Join(dir, "o"))
		})
	}
	// A healthy file: the parent's scenario has the worker's count (3
	// stores), so its featured run and report put store2 where the
	// workers do.
	r := runBounded(t, dir, "-scenario", "stores.yaml", "-seeds", "2", "-quiet", "-out", "ok", "-json", "ok.json")
	in := runBounded(t, dir, "-scenario", "stores.yaml", "-seeds", "2", "-quiet", "-out", "ok2", "-json", "ok2.json", "-isolate=false")
	assert.Equal(t, in.code, r.code, "%s\n%s", r.stderr, in.stderr)
	assert.Equal(t, in.stderr, r.stderr)
	assert.Equal(t, readSummary(t, filepath.Join(dir, "ok2.json")).Algorithms[0].Runs, readSummary(t, filepath.Join(dir, "ok.json")).Algorithms[0].Runs)
	noTemporaries(t, dir)
}

// A file that names a user's algorithm, run under a built-in one (-algo
// raft): the file is still read for its own algorithm, whose checks are
// the user's code. The parent read it in full in its own process, so
// os.Exit(7) in them ended the sweep and the matrix with exit 7.
func TestHostileFileAlgorithmUnderBuiltin(t *testing.T) {
	dir := userCodeCorpus(t)
	r := runBounded(t, dir, "-scenario", "vexit.yaml", "-algo", "raft", "-seeds", "2", "-quiet", "-out", "o")
	// The note on the file's settings raft does not take comes first, as
	// for any file under another algorithm (docs/scenarios.md,
	// "Overrides"); then the error, on one line.
	note, rest, _ := strings.Cut(r.stderr, "\n")
	assert.Contains(t, note, "dropped the file's hostile-user settings")
	r.stderr = rest
	requireCrashed(t, r, "killed its worker process")
	assert.Contains(t, r.stderr, "status 7")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte("name: m\nseeds: 2\nalgorithms: [raft]\nscenarios: [vexit.yaml]\n"), 0o644))
	r = runBounded(t, dir, "-matrix", "m.yaml", "-quiet", "-out", "mx")
	requireCrashed(t, r, "killed its worker process")
	assert.NoDirExists(t, filepath.Join(dir, "o"))
	assert.NoDirExists(t, filepath.Join(dir, "mx"))

	// A healthy file of a user's algorithm under raft still runs in this
	// process, with the count the worker reported.
	r = runBounded(t, dir, "-scenario", "hostile.yaml", "-algo", "raft", "-seeds", "2", "-quiet", "-out", "raft")
	assert.NotEqual(t, exitUsage, r.code, r.stderr)
	assert.DirExists(t, filepath.Join(dir, "raft"))
	noTemporaries(t, dir)
}

// simrun list -dir read each file in full (scenario.Load), the user's
// algorithm's checks and store count included: os.Exit(7) in them ended
// the list with exit 7. The list reads them without the user's code.
func TestHostileListDirUserCode(t *testing.T) {
	dir := userCodeCorpus(t)
	cat := filepath.Join(dir, "cat")
	require.NoError(t, os.Mkdir(cat, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cat, "vexit.yaml"), []byte(validateExitYAML), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cat, "stores.yaml"), []byte(storesYAML+"description: x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cat, "sbug.yaml"), []byte(storesYAML), 0o644))
	before := snapshot(t, dir)
	r := runBounded(t, dir, "list", "-dir", "cat")
	require.Equal(t, exitOK, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "vexit.yaml")
	assert.Contains(t, r.stdout, "stores.yaml")
	assert.NotContains(t, r.stdout, "does not load")
	assert.Empty(t, r.stderr)
	assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
	assert.Equal(t, before, snapshot(t, dir), "list changes nothing")
}

// -materialize ran its seed in the parent: a factory's os.Exit(7) ended
// it with exit 7, a handler's os.Exit(0) with exit 0 and nothing written,
// a factory that blocked hung it. A worker runs it now.
func TestHostileMaterializeInWorker(t *testing.T) {
	dir := userCodeCorpus(t)
	mat := func(extra ...string) childResult {
		return runBounded(t, dir, append([]string{"-scenario", "hostile.yaml", "-materialize", "m.yaml", "-quiet"}, extra...)...)
	}
	r := mat("-set", "algorithm.bug=build-exit")
	requireCrashed(t, r, "killed its worker process")
	assert.Contains(t, r.stderr, "status 7")
	requireCrashed(t, mat("-set", "algorithm.bug=exit"), "killed its worker process")
	requireCrashed(t, mat("-set", "algorithm.bug=build-block", "-handler-timeout", "1s"), "did not return within 1s")
	assert.NoFileExists(t, filepath.Join(dir, "m.yaml"))

	// Healthy: the same bytes as in this process (-isolate=false).
	for _, file := range []string{"hostile.yaml", "stores.yaml"} {
		iso := runBounded(t, dir, "-scenario", file, "-materialize", "-", "-seed", "3")
		in := runBounded(t, dir, "-scenario", file, "-materialize", "-", "-seed", "3", "-isolate=false")
		require.Equal(t, exitOK, iso.code, iso.stderr)
		require.Equal(t, exitOK, in.code, in.stderr)
		assert.Equal(t, in.stdout, iso.stdout, file)
	}
	noTemporaries(t, dir)
}

// simrun margin asked the algorithm's DriftMargin in the parent (and read
// the file in full there): os.Exit(7) in it ended the study with exit 7,
// a DriftMargin that blocked hung it. A worker computes the bounds.
func TestHostileMarginInWorker(t *testing.T) {
	dir := userCodeCorpus(t)
	margin := func(extra ...string) childResult {
		return runBounded(t, dir, append([]string{"margin", "-scenario", "drift.yaml", "-rate", "faults[0].clock.rate", "-rates", "1.0,1.5", "-seeds", "1", "-workers", "1", "-quiet", "-out", "mg"}, extra...)...)
	}
	r := margin("-set", "algorithm.margin_bug=exit")
	requireCrashed(t, r, "killed its worker process")
	assert.Contains(t, r.stderr, "status 7")
	assert.Contains(t, r.stderr, "DriftMargin", "names the code that may have died, not only the factory")
	requireCrashed(t, margin("-set", "algorithm.margin_bug=block", "-handler-timeout", "1s"), "did not return within 1s")
	requireCrashed(t, margin("-set", "algorithm.margin_bug=panic"), "hostile-stores: panic")
	requireCrashed(t, margin("-set", "algorithm.stores_bug=1"), "killed its worker process")
	assert.NoDirExists(t, filepath.Join(dir, "mg"))

	r = margin()
	require.Equal(t, exitOK, r.code, r.stderr)
	md, err := os.ReadFile(filepath.Join(dir, "mg", "margin.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "max(0, rate − 1.2) s", "the worker's bound")
	assert.Contains(t, string(md), "| 1.5 | 300 ms |")
	noTemporaries(t, dir)
}

// Issue 39, round six: what the parent still ran of a user's algorithm
// after an isolated sweep. Its workers ran the seeds, but the parent ran
// the failing runs again for their explanations, the featured run for its
// exports, that run's shrink and a comparison's other runs, and asked the
// algorithm's Contract and Token for the summary: hostileParent's code
// misbehaves only there (hostile_parent_test.go), and ended the sweep
// with exit 7 and no message, hung it, or panicked with a stack trace. A
// worker process does all of it now (rerun_worker.go).

// parentYAML is a file of hostileParent; %s are its where, how and fail.
// Its nodes never lead, which it allows: its runs pass unless fail is
// yes.
const parentYAML = `name: parent
duration: 2s
cluster: {nodes: 3}
algorithm: {name: hostile-parent, where: %s, how: %s, fail: %s}
expect: {allow: [liveness]}
`

// TestHostileRerunsInWorker runs each piece the parent ran with the
// user's code misbehaving there: the sweep now ends as it would with a
// well-behaved algorithm (exit 1 when its runs fail, else 0), with its
// outputs, no stack trace and no temporaries, within bounded time.
func TestHostileRerunsInWorker(t *testing.T) {
	dir := workersCorpus(t)
	for _, c := range []struct {
		name, where, how, fail string
		extra                  []string
		code                   int
	}{
		{"explanation", "handler", "exit", "yes", nil, exitViolation},
		{"featured", "handler", "exit", "no", nil, exitOK},
		{"featured-block", "handler", "block", "no", []string{"-handler-timeout", "1s"}, exitOK},
		{"shrink", "shrink", "exit", "yes", nil, exitViolation},
		{"compare", "handler", "exit", "no", []string{"-algo", "raft," + hostileParent}, exitOK},
		{"contract", "contract", "panic", "no", nil, exitOK},
		{"token", "token", "exit", "no", nil, exitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := c.name + ".yaml"
			require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(fmt.Sprintf(parentYAML, c.where, c.how, c.fail)), 0o644))
			out := "o-" + c.name
			r := runBounded(t, dir, append([]string{"-scenario", file, "-seeds", "2", "-shrink-time", "5s", "-out", out}, c.extra...)...)
			require.Equal(t, c.code, r.code, "%s\n%s", r.stdout, r.stderr)
			assert.NotRegexp(t, `goroutine \d+ \[|panic: `, r.stderr, "no stack trace")
			assert.FileExists(t, filepath.Join(dir, out, "report.html"))
			assert.Less(t, r.rssKB, int64(hostileRSSKB), "peak RSS")
			switch c.name {
			case "explanation":
				assert.Contains(t, r.stdout, "crashed: ", "the explanation the worker sent back")
			case "shrink":
				assert.FileExists(t, filepath.Join(dir, out, "repro.yaml"))
			case "token":
				assert.Contains(t, r.stdout, "fencing token: hostile_rev (an application addition: one read per term)", "the token the worker sent back")
			}
		})
	}
	noTemporaries(t, dir)
}

// A run that misbehaves in the worker process that runs it again too
// (its code is not deterministic even there) is the algorithm's crash:
// exit 1, one line naming the piece, nothing written.
func TestHostileRerunDiesInWorker(t *testing.T) {
	dir := workersCorpus(t)
	for _, fail := range []string{"yes", "no"} { // an explanation's run; the featured run
		require.NoError(t, os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(fmt.Sprintf(parentYAML, "rerun", "exit", fail)), 0o644))
		r := runBounded(t, dir, "-scenario", "p.yaml", "-seeds", "2", "-quiet", "-out", "o", "-trace", "t.jsonl")
		requireCrashed(t, r, "killed its worker process")
		assert.Contains(t, r.stderr, map[string]string{"yes": "for its explanation", "no": "the featured run"}[fail])
		assert.NoDirExists(t, filepath.Join(dir, "o"))
		assert.NoFileExists(t, filepath.Join(dir, "t.jsonl"))
	}
	noTemporaries(t, dir)
}

// A healthy user's algorithm writes the same outputs whether its runs
// after the sweep run in a worker process or here (-isolate=false): the
// summary, the runs file, the report's figures, the trace exports and
// the shrunk file.
func TestRerunInWorkerSameOutputs(t *testing.T) {
	dir := workersCorpus(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(fmt.Sprintf(parentYAML, "none", "exit", "yes")), 0o644))
	run := func(out string, extra ...string) childResult {
		return runBounded(t, dir, append([]string{"-scenario", "p.yaml", "-seeds", "3", "-shrink-time", "5s", "-out", out,
			"-trace", out + ".jsonl", "-perfetto", out + ".perfetto.json"}, extra...)...)
	}
	iso, in := run("iso"), run("in", "-isolate=false")
	require.Equal(t, exitViolation, iso.code, iso.stderr)
	assert.Contains(t, iso.stderr, "worker process", "isolated")
	require.Equal(t, exitViolation, in.code, in.stderr)
	for _, f := range []string{".jsonl", ".perfetto.json"} {
		assert.Equal(t, readFile(t, filepath.Join(dir, "in"+f)), readFile(t, filepath.Join(dir, "iso"+f)), f)
	}
	names, err := os.ReadDir(filepath.Join(dir, "in"))
	require.NoError(t, err)
	for _, n := range names {
		a, b := readFile(t, filepath.Join(dir, "in", n.Name())), readFile(t, filepath.Join(dir, "iso", n.Name()))
		if n.Name() == "summary.json" || n.Name() == "report.html" {
			a, b = timingFree(a), timingFree(b)
		}
		assert.Equal(t, a, b, n.Name())
	}
	noTemporaries(t, dir)
}

// readFile is the file at path as text.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// timingRe matches what a summary or report says of wall time.
var timingRe = regexp.MustCompile(`("(wall_seconds|runs_per_second|reports_seconds)": )[0-9.e+-]+|[0-9.]+ s on |[0-9.]+ ?s of wall time|[0-9.]+ runs/s`)

// timingFree is text without its wall-time figures.
func timingFree(s string) string { return timingRe.ReplaceAllString(s, "$1T") }

// simrun list computes a user's algorithm's default caveat (its
// Contract) in a worker process; when that worker died the list left the
// caveat line out without a word. It says so in one line now, and goes
// on (exit 0).
func TestHostileListCaveatWorkerDies(t *testing.T) {
	dir := workersCorpus(t)
	r := runBounded(t, dir, "list", "-dir", ".")
	require.Equal(t, exitOK, r.code, r.stderr)
	_, after, ok := strings.Cut(r.stdout, "  "+hostileCaveat+" — ")
	require.True(t, ok, r.stdout)
	lines := strings.Split(after, "\n")
	require.Greater(t, len(lines), 2)
	assert.Contains(t, lines[1], "with its defaults: caveat unknown, its Contract could not be read in a worker process: ", "the line in the caveat's place")
	assert.Contains(t, lines[1], "status 7")
	assert.Contains(t, r.stdout, "  "+hostileParent+" — ", "the list goes on")
	noTemporaries(t, dir)
}

// simrun margin ran its runs of a user's algorithm in its own process
// (only the file's reading and DriftMargin were in a worker): a factory
// that exits there ended the study with exit 7. They run in worker
// processes now (margin_procs.go), and the study is the same.
func TestHostileMarginRunsInWorkers(t *testing.T) {
	dir := workersCorpus(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "drift.yaml"), []byte(marginYAML), 0o644))
	margin := func(out string, extra ...string) childResult {
		return runBounded(t, dir, append([]string{"margin", "-scenario", "drift.yaml", "-rate", "faults[0].clock.rate", "-rates", "1.0,1.5", "-seeds", "3", "-workers", "2", "-out", out}, extra...)...)
	}
	r := margin("exit", "-set", "algorithm.parent_exit=true")
	require.Equal(t, exitOK, r.code, "%s\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stderr, "worker processes")
	assert.NotRegexp(t, `goroutine \d+ \[|panic: `, r.stderr, "no stack trace")
	ok := margin("ok")
	require.Equal(t, exitOK, ok.code, ok.stderr)
	assert.Equal(t, readFile(t, filepath.Join(dir, "ok", "margin.md")), readFile(t, filepath.Join(dir, "exit", "margin.md")))
	assert.Contains(t, readFile(t, filepath.Join(dir, "exit", "margin.md")), "| 1.5 | 300 ms | 0 of 3 (0%) |", "every run's overlap read back")
	noTemporaries(t, dir)
}
