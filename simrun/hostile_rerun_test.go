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
