//go:build unix

package simrun

import (
	"os"
	"path/filepath"
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
